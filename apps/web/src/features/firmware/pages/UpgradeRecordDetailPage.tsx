/**
 * Upgrade record detail `/upgradeRecordDetail?id=<batchId>` (spec §2, issue 16 item 4; view
 * `device/upgradeRecordDetail/index`, a hidden page opened from `/upgradeRecord`,
 * firmware:upgrade:list).
 *
 * Top: the batch — number, state (with why it paused), package, version, type, operator, time,
 * deadline (the viewer's zone: a batch spans sites), its rollout settings and a progress bar
 * with the devices per state. With firmware:upgrade:manage: pause (running), resume (paused),
 * retry every failed device, cancel every device not started — each asks first; the server's
 * refusals (7038 the state does not allow it, 7040 nothing to retry, 7041 nothing to cancel)
 * are shown in the UI language.
 * Below: every device — SN, type and model, site, wave, from-version → to-version, state (with
 * its percent while downloading), the reason of a failure (translated) and the device's own
 * words, attempts, last change and the time the current phase times out (the device's site
 * zone). A row opens its state timeline (each state entered, when, percent or reason). Per row:
 * retry (failed) and cancel (waiting). Filter by state and SN.
 *
 * Live: the `upgrade` channel's messages about this batch replace its row and the changed
 * devices at once (model.ts `applyLiveDetail`); when the connection comes back it is read again.
 * Test hooks: `upgrade-detail` (`data-batch-id`, `data-state`), `upgrade-detail-progress`,
 * `upgrade-detail-missing`, `upgrade-back`, `upgrade-pause`, `upgrade-resume`,
 * `upgrade-retry-all`, `upgrade-cancel-all` (and `-ok` on their confirmations),
 * `upgrade-devices` (rows `data-row-key` = device id), `upgrade-device-state-<deviceId>`
 * (`data-state`), `upgrade-device-version-<deviceId>`, `upgrade-device-reason-<deviceId>`,
 * `upgrade-retry-<deviceId>`, `upgrade-cancel-<deviceId>`, `upgrade-timeline-<deviceId>`,
 * `upgrade-device-filter`, `upgrade-device-keyword`.
 */
import {
  ArrowLeftOutlined,
  CloseCircleOutlined,
  PauseCircleOutlined,
  PlayCircleOutlined,
  RedoOutlined,
} from '@ant-design/icons';
import {
  deviceTypeLabel,
  Perm,
  UPGRADE_BATCH_STATE_LABELS,
  UPGRADE_DEVICE_STATE_LABELS,
  UPGRADE_DEVICE_STATES,
  UPGRADE_FAIL_REASON_LABELS,
  UPGRADE_PAUSE_REASON_LABELS,
  type UpgradeDetail,
  type UpgradeDeviceRow,
  type UpgradeDeviceState,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Grid,
  Input,
  Popconfirm,
  Progress,
  Select,
  Table,
  type TableColumnsType,
  Tag,
  Timeline,
} from 'antd';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone, formatDateTime, formatShortDateTime, NO_VALUE, zoneLabel } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { LiveIndicator, useLiveMessages } from '@/shared/live';
import { RowActions } from '@/shared/ui/RowActions';
import { cancelDevices, fetchBatch, firmwareKeys, pauseBatch, resumeBatch, retryDevices } from '../api';
import { BatchProgress } from '../components/BatchProgress';
import {
  applyLiveDetail,
  BATCH_STATE_COLORS,
  canCancel,
  canRetry,
  DEVICE_STATE_COLORS,
  formatBytes,
} from '../model';
import '../firmware.css';

const RECORDS_PATH = '/upgradeRecord';

type Action = 'pause' | 'resume' | 'retry' | 'cancel';

export default function UpgradeRecordDetailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const raw = params.get('id');
  const id = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: firmwareKeys.batch(id ?? 0),
    queryFn: () => fetchBatch(id as number),
    enabled: id !== null,
  });

  const status = useLiveMessages(id === null ? null : 'upgrade', (message) => {
    if (message.batch.id !== id) return;
    queryClient.setQueryData<UpgradeDetail>(firmwareKeys.batch(id), (old) => applyLiveDetail(old, message));
  });
  const wasLive = useRef(status === 'live');
  useEffect(() => {
    const live = status === 'live';
    if (live && !wasLive.current && id !== null)
      void queryClient.invalidateQueries({ queryKey: firmwareKeys.batch(id) });
    wasLive.current = live;
  }, [status, queryClient, id]);

  const back = (
    <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(RECORDS_PATH)} data-testid="upgrade-back">
      {t('firmware.detail.back')}
    </Button>
  );

  if (id === null || query.isError) {
    return (
      <Card variant="borderless" className="fw-page" data-testid="upgrade-detail-missing">
        <Empty description={t('firmware.detail.missing')}>{back}</Empty>
      </Card>
    );
  }
  if (!query.data) return <Card variant="borderless" className="fw-page" loading />;
  return <Detail detail={query.data} back={back} live={<LiveIndicator status={status} />} />;
}

function Detail({ detail, back, live }: { detail: UpgradeDetail; back: ReactNode; live: ReactNode }) {
  const { t, i18n } = useTranslation();
  const lang = currentLang();
  const wide = Grid.useBreakpoint().md ?? true;
  const queryClient = useQueryClient();
  const canManage = usePermission(Perm.upgradeManage);
  const { batch } = detail;
  const [stateFilter, setStateFilter] = useState<UpgradeDeviceState | undefined>();
  const [keyword, setKeyword] = useState('');
  const browserZone = browserTimeZone();

  const act = useMutation({
    mutationFn: async ({ action, deviceIds }: { action: Action; deviceIds?: number[] }) => {
      if (action === 'pause') return pauseBatch(batch.id).then(() => null);
      if (action === 'resume') return resumeBatch(batch.id).then(() => null);
      if (action === 'retry') return retryDevices(batch.id, deviceIds).then((r) => r.count);
      return cancelDevices(batch.id, deviceIds).then((r) => r.count);
    },
    onSuccess: (count, { action }) => showSuccess(t(`firmware.detail.done.${action}`, { count: count ?? 0 })),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: firmwareKeys.batch(batch.id) });
      void queryClient.invalidateQueries({ queryKey: firmwareKeys.batchesAll });
    },
  });
  const run = (action: Action, deviceIds?: number[]) =>
    act.mutateAsync({ action, deviceIds }).catch(() => undefined);

  const devices = useMemo(() => {
    const k = keyword.trim().toLowerCase();
    return detail.devices.filter(
      (d) => (!stateFilter || d.state === stateFilter) && (!k || d.sn.toLowerCase().includes(k)),
    );
  }, [detail.devices, stateFilter, keyword]);

  const stateCell = (d: UpgradeDeviceRow) => (
    <span className="fw-stack fw-state-cell">
      <span>
        <Tag
          color={DEVICE_STATE_COLORS[d.state]}
          data-testid={`upgrade-device-state-${d.deviceId}`}
          data-state={d.state}
        >
          {UPGRADE_DEVICE_STATE_LABELS[d.state][lang]}
        </Tag>
        {d.attempt > 1 && (
          <span className="fw-muted">{t('firmware.detail.attempt', { count: d.attempt })}</span>
        )}
      </span>
      {d.state === 'downloading' && d.percent !== null && (
        <Progress percent={d.percent} size="small" className="fw-device-progress" />
      )}
      {d.reason && (
        <span
          className="fw-reason"
          data-testid={`upgrade-device-reason-${d.deviceId}`}
          data-reason={d.reason}
        >
          {UPGRADE_FAIL_REASON_LABELS[d.reason][lang]}
          {d.detail && <span className="fw-muted"> · {d.detail}</span>}
        </span>
      )}
    </span>
  );
  const versionCell = (d: UpgradeDeviceRow) => (
    <span className="fw-nowrap fw-mono" data-testid={`upgrade-device-version-${d.deviceId}`}>
      {d.fromVersion ?? NO_VALUE} → <strong>{d.toVersion}</strong>
    </span>
  );
  const whenCell = (d: UpgradeDeviceRow) => (
    <span className="fw-stack">
      <span className="fw-time" title={d.timezone}>
        {formatDateTime(Date.parse(d.updatedAt), d.timezone)}
      </span>
      {d.timezone !== browserZone && <span className="fw-muted fw-nowrap">{zoneLabel(d.timezone)}</span>}
      {d.phaseDeadlineAt && (
        <span className="fw-muted fw-nowrap">
          {t('firmware.detail.timesOutAt', {
            time: formatShortDateTime(Date.parse(d.phaseDeadlineAt), d.timezone),
          })}
        </span>
      )}
    </span>
  );
  const deviceCell = (d: UpgradeDeviceRow) => (
    <span className="fw-stack">
      <code className="fw-mono fw-strong">{d.sn}</code>
      <span className="fw-muted fw-nowrap">
        {deviceTypeLabel(d.type, lang)} · {d.model ?? NO_VALUE}
      </span>
    </span>
  );
  const actions = (d: UpgradeDeviceRow) => (
    <RowActions
      className="fw-actions"
      name={d.sn}
      actions={[
        {
          key: 'retry',
          visible: canManage && canRetry(d),
          label: t('firmware.detail.retry'),
          icon: <RedoOutlined />,
          testId: `upgrade-retry-${d.deviceId}`,
          confirm: {
            title: t('firmware.detail.retryOneConfirm', { sn: d.sn }),
            okText: t('firmware.detail.retry'),
            okTestId: `upgrade-retry-ok-${d.deviceId}`,
            onConfirm: () => run('retry', [d.deviceId]),
          },
        },
        {
          key: 'cancel',
          visible: canManage && canCancel(d),
          label: t('firmware.detail.cancel'),
          icon: <CloseCircleOutlined />,
          danger: true,
          testId: `upgrade-cancel-${d.deviceId}`,
          confirm: {
            title: t('firmware.detail.cancelOneConfirm', { sn: d.sn }),
            okText: t('firmware.detail.cancel'),
            okTestId: `upgrade-cancel-ok-${d.deviceId}`,
            onConfirm: () => run('cancel', [d.deviceId]),
          },
        },
      ]}
    />
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: column texts depend on the language
  const columns = useMemo<TableColumnsType<UpgradeDeviceRow>>(() => {
    if (!wide) {
      return [
        {
          key: 'device',
          title: t('firmware.detail.device'),
          render: (_, d) => (
            <span className="fw-stack">
              {deviceCell(d)}
              {versionCell(d)}
            </span>
          ),
        },
        {
          key: 'state',
          title: t('firmware.detail.state'),
          render: (_, d) => (
            <span className="fw-stack">
              {stateCell(d)}
              {actions(d)}
            </span>
          ),
        },
      ];
    }
    return [
      { key: 'device', title: t('firmware.detail.device'), render: (_, d) => deviceCell(d) },
      {
        key: 'site',
        title: t('firmware.wizard.site'),
        render: (_, d) => <span className="fw-nowrap">{d.siteName}</span>,
      },
      { key: 'wave', title: t('firmware.detail.wave'), dataIndex: 'wave', align: 'right' },
      { key: 'version', title: t('firmware.detail.version'), render: (_, d) => versionCell(d) },
      { key: 'state', title: t('firmware.detail.state'), render: (_, d) => stateCell(d) },
      { key: 'updated', title: t('firmware.detail.updatedAt'), render: (_, d) => whenCell(d) },
      { key: 'actions', title: t('firmware.field.actions'), fixed: 'right', render: (_, d) => actions(d) },
    ];
  }, [i18n.language, wide, canManage, detail]);

  const confirmButton = (action: Action, icon: ReactNode, danger = false) => (
    <Popconfirm
      title={t(`firmware.detail.${action}AllTitle`)}
      description={t(`firmware.detail.${action}AllConfirm`, {
        count: action === 'retry' ? batch.counts.failed : batch.counts.waiting,
      })}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{
        danger,
        'data-testid': `upgrade-${action === 'retry' || action === 'cancel' ? `${action}-all` : action}-ok`,
      }}
      onConfirm={() => run(action)}
    >
      <Button
        icon={icon}
        danger={danger}
        loading={act.isPending && act.variables?.action === action && !act.variables.deviceIds}
        data-testid={`upgrade-${action === 'retry' || action === 'cancel' ? `${action}-all` : action}`}
      >
        {t(`firmware.detail.${action}All`)}
      </Button>
    </Popconfirm>
  );

  const timeouts = detail.phaseTimeoutsS;
  return (
    <div className="fw-detail" data-testid="upgrade-detail" data-batch-id={batch.id} data-state={batch.state}>
      <Card variant="borderless" className="fw-page">
        <div className="fw-detail__head">
          {back}
          <h3 className="fw-detail__title">
            <code className="fw-mono">{batch.batchNo}</code>
            <Tag
              color={BATCH_STATE_COLORS[batch.state]}
              data-testid="upgrade-detail-state"
              data-state={batch.state}
            >
              {UPGRADE_BATCH_STATE_LABELS[batch.state][lang]}
            </Tag>
            {batch.state === 'paused' && batch.pausedReason && (
              <span className="fw-reason">{UPGRADE_PAUSE_REASON_LABELS[batch.pausedReason][lang]}</span>
            )}
          </h3>
          {live}
          {canManage && (
            <span className="fw-detail__actions">
              {batch.state === 'running' && confirmButton('pause', <PauseCircleOutlined />)}
              {batch.state === 'paused' && confirmButton('resume', <PlayCircleOutlined />)}
              {batch.counts.failed > 0 && confirmButton('retry', <RedoOutlined />)}
              {batch.counts.waiting > 0 && confirmButton('cancel', <CloseCircleOutlined />, true)}
            </span>
          )}
        </div>
        <BatchProgress batch={batch} testId="upgrade-detail-progress" />
        <Descriptions
          size="small"
          className="fw-detail__facts"
          column={{ xs: 1, sm: 2, lg: 3 }}
          items={[
            {
              key: 'package',
              label: t('firmware.batch.package'),
              children: `${batch.packageName} · ${deviceTypeLabel(batch.deviceType, lang)}`,
            },
            { key: 'version', label: t('firmware.field.version'), children: <code>{batch.version}</code> },
            { key: 'operator', label: t('firmware.batch.operator'), children: batch.operatorName },
            {
              key: 'created',
              label: t('firmware.batch.createdAt'),
              children: formatDateTime(Date.parse(batch.createdAt)),
            },
            {
              key: 'deadline',
              label: t('firmware.batch.deadline'),
              children: formatDateTime(Date.parse(batch.deadlineAt)),
            },
            {
              key: 'finished',
              label: t('firmware.batch.finished'),
              children: batch.finishedAt ? formatDateTime(Date.parse(batch.finishedAt)) : NO_VALUE,
            },
            {
              key: 'waves',
              label: t('firmware.detail.waves'),
              children: t('firmware.detail.wavesText', {
                current: batch.currentWave,
                count: batch.waveCount,
                first: detail.firstWaveSize,
                size: detail.waveSize,
              }),
            },
            {
              key: 'threshold',
              label: t('firmware.wizard.threshold'),
              children: `${detail.failureRateThresholdPct}%`,
            },
            {
              key: 'concurrent',
              label: t('firmware.wizard.concurrent'),
              children: detail.maxConcurrentDownloads,
            },
            {
              key: 'timeouts',
              label: t('firmware.wizard.timeouts'),
              children: (Object.keys(timeouts) as (keyof typeof timeouts)[])
                .map((p) => `${t(`firmware.wizard.timeout.${p}`)} ${timeouts[p]}`)
                .join(' · '),
            },
            {
              key: 'offline',
              label: t('firmware.detail.offlineWait'),
              children: detail.includeOffline ? t('common.yes') : t('common.no'),
            },
            {
              key: 'file',
              label: t('firmware.field.size'),
              children: (
                <span>
                  {formatBytes(detail.sizeBytes)} ·{' '}
                  <code className="fw-mono" title={detail.sha256}>
                    {detail.sha256.slice(0, 12)}…
                  </code>
                </span>
              ),
            },
            ...(detail.remark
              ? [{ key: 'remark', label: t('firmware.wizard.remark'), children: detail.remark }]
              : []),
          ]}
        />
      </Card>
      <Card variant="borderless" className="fw-page">
        <div className="fw-toolbar">
          <Select<UpgradeDeviceState>
            allowClear
            value={stateFilter}
            onChange={setStateFilter}
            options={UPGRADE_DEVICE_STATES.filter((s) => batch.counts[s] > 0).map((s) => ({
              value: s,
              label: `${UPGRADE_DEVICE_STATE_LABELS[s][lang]} (${batch.counts[s]})`,
            }))}
            placeholder={t('firmware.allStates')}
            aria-label={t('firmware.detail.state')}
            className="fw-toolbar__select"
            data-testid="upgrade-device-filter"
          />
          <Input.Search
            allowClear
            placeholder={t('firmware.detail.keyword')}
            onSearch={setKeyword}
            onChange={(e) => {
              if (!e.target.value) setKeyword('');
            }}
            className="fw-toolbar__keyword"
            data-testid="upgrade-device-keyword"
          />
        </div>
        <Table<UpgradeDeviceRow>
          rowKey="deviceId"
          size="middle"
          columns={columns}
          dataSource={devices}
          scroll={{ x: 'max-content' }}
          pagination={{
            defaultPageSize: 50,
            showSizeChanger: true,
            pageSizeOptions: [20, 50, 100],
            hideOnSinglePage: true,
          }}
          locale={{ emptyText: t('firmware.detail.noDevices') }}
          expandable={{
            expandedRowRender: (d) => <DeviceTimeline device={d} />,
            rowExpandable: (d) => d.timeline.length > 0,
          }}
          data-testid="upgrade-devices"
        />
      </Card>
    </div>
  );
}

/** One device's states in order, with when (its site's zone), percent, reason and words. */
function DeviceTimeline({ device }: { device: UpgradeDeviceRow }) {
  const lang = currentLang();
  return (
    <div className="fw-timeline" data-testid={`upgrade-timeline-${device.deviceId}`}>
      <Timeline
        items={device.timeline.map((e, i) => ({
          key: `${i}`,
          color:
            e.state === 'failed'
              ? 'red'
              : e.state === 'success'
                ? 'green'
                : e.state === 'cancelled'
                  ? 'gray'
                  : 'blue',
          content: (
            <span className="fw-timeline__item">
              <span className="fw-time">{formatDateTime(Date.parse(e.at), device.timezone)}</span>
              <strong>{UPGRADE_DEVICE_STATE_LABELS[e.state][lang]}</strong>
              {e.percent !== null && <span>{e.percent}%</span>}
              {e.reason && <span className="fw-reason">{UPGRADE_FAIL_REASON_LABELS[e.reason][lang]}</span>}
              {e.detail && <span className="fw-muted">{e.detail}</span>}
            </span>
          ),
        }))}
      />
    </div>
  );
}
