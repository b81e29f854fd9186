/**
 * Right column of the parameter screen: one device's parameters (`params/detail`).
 *
 * - Header: type, SN, model, online, site (and its zone when not the browser's), when the device
 *   last reported its parameters and which version it runs; "read from device" (`params/read`,
 *   waits for the answer), "send again" (`params/retry`, when a key was refused or timed out),
 *   "copy to devices of the same model" (`params/copy`) and "initialize site"
 *   (`params/initialize`, only while the site is not initialized). Changing buttons need
 *   device:params:edit.
 * - Tab "parameters" ({@link ParamForm}): edits are a draft, highlighted, checked by the
 *   contract's validator at each field; the bar under the form counts them and sends them after
 *   a confirmation listing each (old → new with units). An offline gateway (3033/3034) is a
 *   warning: the change is kept and sent at the reconnect.
 * - Tab "history" ({@link HistoryTab}).
 * Per-key states stay current through the page's `delivery:params` subscription (it reads this
 * device again on a message for it); while a key waits for the device it is also read every 30 s.
 * Test hooks: `params-device` (`data-device-id`), `params-reported-at`, `params-read`,
 * `params-retry`, `params-copy-open`, `params-init-open`, `params-offline`, `params-tabs`,
 * `params-editbar`, `params-change-count`, `params-blocked`, `params-discard`, `params-send`.
 */
import {
  CloudDownloadOutlined,
  CopyOutlined,
  RedoOutlined,
  RocketOutlined,
  SendOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import type { ParamsDeviceResponse, ParamsTreeSite, ParamValue } from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Skeleton, Tabs, Tag, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TYPE_COLOR, typeLabel } from '@/shared/devices';
import { showSuccess, showWarning } from '@/shared/feedback';
import { formatDateTime, formatRelative } from '@/shared/format';
import { ZoneTag } from '@/shared/format/time-base';
import { fetchDevice, type ParamsSetAnswer, paramsKeys, readParams, retryParams, setParams } from '../api';
import {
  blockingIssues,
  changesOf,
  type Draft,
  formIssues,
  RETRYABLE,
  type TreeDevice,
  WAITING,
  waitingKey,
} from '../model';
import { ConfirmDialog } from './ConfirmDialog';
import { CopyDialog } from './CopyDialog';
import { HistoryTab } from './HistoryTab';
import { InitializeDialog } from './InitializeDialog';
import { msOf, ParamForm } from './ParamForm';

/** How often a device with a key waiting for it is read, besides the live changes. */
const SAFETY_REFETCH_MS = 30_000;

interface Props {
  device: TreeDevice;
  sites: readonly ParamsTreeSite[];
  canEdit: boolean;
}

export function DevicePanel({ device, sites, canEdit }: Props) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const deviceId = device.deviceId;
  const [draft, setDraft] = useState<Draft>({});
  const [confirming, setConfirming] = useState(false);
  const [copying, setCopying] = useState(false);
  const [initializing, setInitializing] = useState(false);
  const [tab, setTab] = useState<'params' | 'history'>('params');

  const query = useQuery({
    queryKey: paramsKeys.device(deviceId),
    queryFn: () => fetchDevice(deviceId),
    refetchInterval: (q) =>
      q.state.data?.params.some((r) => WAITING.includes(r.state)) ? SAFETY_REFETCH_MS : false,
  });
  const detail = query.data;

  const issues = useMemo(
    () => (detail ? formIssues(detail.type, detail, draft) : new Map()),
    [detail, draft],
  );
  const changes = useMemo(() => (detail ? changesOf(detail.type, detail, draft) : []), [detail, draft]);
  const blocking = useMemo(
    () => (detail ? blockingIssues(issues, detail, draft) : []),
    [issues, detail, draft],
  );

  /** A new answer about the device: cache it, and read the tree (states, drift) and history again. */
  const stored = (next: ParamsDeviceResponse) => {
    queryClient.setQueryData(paramsKeys.device(deviceId), next);
    void queryClient.invalidateQueries({ queryKey: paramsKeys.trees });
    void queryClient.invalidateQueries({ queryKey: paramsKeys.history(deviceId) });
  };
  const announce = (answer: ParamsSetAnswer) => {
    if (answer.waiting) showWarning(t(waitingKey(answer.waiting)));
    else showSuccess(t('params.sent'));
  };

  const send = useMutation({
    mutationFn: (values: Record<string, ParamValue>) => setParams(deviceId, values),
    onSuccess: (answer) => {
      stored(answer.device);
      setDraft({});
      setConfirming(false);
      announce(answer);
    },
  });
  const read = useMutation({
    mutationFn: () => readParams(deviceId),
    onSuccess: (next) => {
      stored(next);
      showSuccess(t('params.readDone'));
    },
  });
  const retry = useMutation({
    mutationFn: () => retryParams(deviceId),
    onSuccess: (next) => {
      stored(next);
      showSuccess(t('params.retried'));
    },
  });

  const site = sites.find((s) => s.siteId === device.site.siteId) ?? device.site;
  const busy = send.isPending || read.isPending || retry.isPending;

  if (!detail) {
    return (
      <section className="params-panel params-main" data-testid="params-device" data-device-id={deviceId}>
        <Skeleton active paragraph={{ rows: 10 }} />
      </section>
    );
  }

  const reportedAt = msOf(detail.reportedAt);
  const retryable = detail.params.some((r) => RETRYABLE.includes(r.state));
  const pending = detail.params.some((r) => r.state === 'pending');
  const edit = (key: string, value: ParamValue | null) => setDraft((cur) => ({ ...cur, [key]: value }));

  return (
    <section className="params-panel params-main" data-testid="params-device" data-device-id={deviceId}>
      <header className="params-head">
        <div className="params-head__title">
          <Tag color={TYPE_COLOR[detail.type]}>{typeLabel(t, detail.type)}</Tag>
          <h2>{detail.sn}</h2>
          <span className="params-muted">{detail.model ?? t('params.noModel')}</span>
          <span className={`params-online params-online--${detail.online ? 'on' : 'off'}`}>
            <span
              className={`params-dot params-dot--${detail.online ? 'online' : 'offline'}`}
              aria-hidden="true"
            />
            {detail.online ? t('params.online') : t('params.offline')}
          </span>
        </div>
        <div className="params-head__facts">
          <span>{detail.siteName}</span>
          <ZoneTag site={detail.timezone} />
          <span data-testid="params-reported-at" data-at={detail.reportedAt ?? ''}>
            {reportedAt === null ? (
              t('params.neverReported')
            ) : (
              <Tooltip title={formatRelative(reportedAt)}>
                {t('params.reportedAt', { time: formatDateTime(reportedAt, detail.timezone) })}
              </Tooltip>
            )}
          </span>
          <span className="params-muted">
            {t('params.versions', {
              ours: detail.version,
              device: detail.reportedVersion ?? '—',
            })}
          </span>
        </div>
        <div className="params-head__actions">
          <Button
            icon={<CloudDownloadOutlined />}
            loading={read.isPending}
            disabled={busy && !read.isPending}
            onClick={() => read.mutate()}
            data-testid="params-read"
          >
            {t('params.actions.read')}
          </Button>
          {canEdit && retryable && (
            <Button
              icon={<RedoOutlined />}
              loading={retry.isPending}
              disabled={busy && !retry.isPending}
              onClick={() => retry.mutate()}
              data-testid="params-retry"
            >
              {t('params.actions.retry')}
            </Button>
          )}
          {canEdit && (
            <Button icon={<CopyOutlined />} onClick={() => setCopying(true)} data-testid="params-copy-open">
              {t('params.actions.copy')}
            </Button>
          )}
          {canEdit && site.initializedAt === null && (
            <Button
              icon={<RocketOutlined />}
              onClick={() => setInitializing(true)}
              data-testid="params-init-open"
            >
              {t('params.actions.initialize')}
            </Button>
          )}
        </div>
      </header>

      {!detail.online && pending && (
        <Alert
          type="warning"
          showIcon
          title={t('params.offlinePending')}
          className="params-alert"
          data-testid="params-offline"
        />
      )}
      {detail.delivery?.retryAt && (
        <Alert
          type="info"
          showIcon
          title={t('params.retryAt', {
            time: formatDateTime(msOf(detail.delivery.retryAt), detail.timezone),
          })}
          className="params-alert"
        />
      )}

      <Tabs
        activeKey={tab}
        onChange={(k) => setTab(k as 'params' | 'history')}
        data-testid="params-tabs"
        items={[
          {
            key: 'params',
            label: t('params.tabs.params'),
            children: (
              <>
                <ParamForm
                  detail={detail}
                  draft={draft}
                  issues={issues}
                  onEdit={edit}
                  canEdit={canEdit}
                  busy={busy}
                  onAccept={(key, value) => send.mutate({ [key]: value })}
                  onResend={(key, value) => send.mutate({ [key]: value })}
                />
                {canEdit && (
                  <div
                    className={`params-editbar${changes.length > 0 ? ' params-editbar--active' : ''}`}
                    data-testid="params-editbar"
                  >
                    <span data-testid="params-change-count" data-count={changes.length}>
                      {changes.length > 0
                        ? t('params.changeCount', { count: changes.length })
                        : t('params.noChanges')}
                    </span>
                    {blocking.length > 0 && (
                      <span className="params-row__error" data-testid="params-blocked">
                        {t('params.blocked', { count: blocking.length })}
                      </span>
                    )}
                    <span className="params-editbar__buttons">
                      <Button
                        icon={<UndoOutlined />}
                        disabled={Object.keys(draft).length === 0 || send.isPending}
                        onClick={() => setDraft({})}
                        data-testid="params-discard"
                      >
                        {t('params.actions.discard')}
                      </Button>
                      <Button
                        type="primary"
                        icon={<SendOutlined />}
                        disabled={changes.length === 0 || blocking.length > 0 || busy}
                        onClick={() => setConfirming(true)}
                        data-testid="params-send"
                      >
                        {t('params.actions.send')}
                      </Button>
                    </span>
                  </div>
                )}
              </>
            ),
          },
          {
            key: 'history',
            label: t('params.tabs.history'),
            children: <HistoryTab deviceId={deviceId} type={detail.type} timeZone={detail.timezone} />,
          },
        ]}
      />

      <ConfirmDialog
        open={confirming}
        sn={detail.sn}
        online={detail.online}
        changes={changes}
        sending={send.isPending}
        onOk={() => send.mutate(Object.fromEntries(changes.map((c) => [c.key, c.to])))}
        onCancel={() => setConfirming(false)}
      />
      <CopyDialog
        source={copying ? device : null}
        sites={sites}
        onClose={() => setCopying(false)}
        onCopied={() => void queryClient.invalidateQueries({ queryKey: paramsKeys.all })}
      />
      <InitializeDialog
        site={initializing ? site : null}
        onClose={() => setInitializing(false)}
        onDone={() => void queryClient.invalidateQueries({ queryKey: paramsKeys.all })}
      />
    </section>
  );
}
