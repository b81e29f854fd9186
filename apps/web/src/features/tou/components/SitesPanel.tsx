/**
 * The sites of a scheme and the delivery to their EMS: "assign sites" (antd Transfer over the
 * caller's sites → `tou/assign`, tou:scheme:push), and per site the push state from
 * `tou/pushStatus`, kept apart as the contract keeps it (issue 14): what the EMS is known to run
 * (the version it confirmed and when — beside the tag when that is the current version, else
 * "device runs v2 (applied …)" or "not confirmed yet") and what the last send did (pending, sent,
 * re-sending, "re-sent …, no answer" on an applied row, failed with its reason, and when it is
 * retried); times in the site's zone, named under the site when it is not the browser's. Kept
 * current by the live channel `delivery:tou` (each change of a row's state patches the
 * cached list; a row of a site not listed, or moved to another scheme, reads the list again, and
 * so does a (re)connection of the live socket), with "push now" (`tou/push`; the shared error
 * handling shows 3060 / 3033 / 3034 / 3035). While a site waits the list is also read every
 * 30 s: with several server instances, a change settled on another instance reaches only that
 * instance's and the sender's consoles.
 * Test hooks: `sites-panel`, `sites-assign`, `assign-dialog`, `assign-transfer`, `assign-submit`,
 * `push-table`, `push-row-<siteId>`, `push-state-<siteId>` (with `data-state`), `push-runs-<siteId>`
 * (what the EMS runs, `data-version`), `push-attempt-<siteId>` (the last send, `data-attempt`
 * sending | no-answer | failed), `push-now-<siteId>`.
 */
import { CloudSyncOutlined, SendOutlined } from '@ant-design/icons';
import {
  DELIVERY_TIMEOUT,
  type LiveDeliveryMessage,
  Perm,
  type TouPushRow,
  type TouPushState,
  type TouSchemeDetail,
} from '@ess/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge,
  Button,
  type ButtonProps,
  DatePicker,
  Empty,
  Grid,
  Modal,
  Table,
  type TableColumnsType,
  Tag,
  Tooltip,
  Transfer,
} from 'antd';
import dayjs from 'dayjs';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { browserTimeZone, formatDateTime, formatShortDateTime, zoneLabel } from '@/shared/format';
import { useLiveMessages } from '@/shared/live';
import { assignSites, fetchAllSites, fetchPushStatus, pushSite, touKeys } from '../api';

/**
 * How often the push states are read while a site waits, besides the live changes: a safety net
 * for changes settled on another server instance (see the module comment).
 */
const SAFETY_REFETCH_MS = 30_000;

/** A row with a delivery change of its site applied (contract api/live.ts `delivery`). */
export function applyDeliveryChange(row: TouPushRow, change: LiveDeliveryMessage): TouPushRow {
  return {
    ...row,
    state: change.state,
    schemeVersion: change.version,
    pushedVersion: change.state === 'pending' ? null : change.version,
    appliedVersion: change.appliedVersion,
    appliedAt: change.appliedAt,
    sending: change.sending,
    reason: change.reason,
    retryAt: change.retryAt,
    requestedAt: change.requestedAt,
    sentAt: change.sentAt,
    // A send goes out only while the gateway is online.
    gatewayOnline: change.sending ? true : row.gatewayOnline,
  };
}

/** The site waits for its EMS: not sent yet, or a send (or re-send) is out. */
const waitsForReply = (r: TouPushRow) => r.state === 'pending' || r.state === 'sent' || r.sending;

const STATE_COLORS: Record<TouPushState, string> = {
  pending: 'default',
  sent: 'processing',
  applied: 'success',
  failed: 'error',
};

function AssignDialog({
  scheme,
  open,
  onClose,
}: {
  scheme: TouSchemeDetail;
  open: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const sites = useQuery({ queryKey: touKeys.sites, queryFn: fetchAllSites, enabled: open });
  const [target, setTarget] = useState<string[] | null>(null);
  /** Site-local date newly assigned sites are billed at this scheme from (null: their today). */
  const [effectiveFrom, setEffectiveFrom] = useState<string | null>(null);
  const keys = target ?? scheme.sites.map((s) => String(s.siteId));

  const save = useMutation({
    mutationFn: () => assignSites(scheme.id, keys.map(Number), effectiveFrom),
    onSuccess: () => {
      showSuccess(t('tou.sites.assignedDone'));
      void queryClient.invalidateQueries({ queryKey: touKeys.all });
      setTarget(null);
      onClose();
    },
  });

  const items = (sites.data?.list ?? []).map((s) => ({
    key: String(s.id),
    title: `${s.name} (${s.code})`,
    description: s.companyName,
  }));

  return (
    <Modal
      open={open}
      title={t('tou.sites.assignTitle', { name: scheme.name })}
      width={DIALOG_WIDTH_PX}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={save.isPending}
      onOk={() => save.mutate()}
      onCancel={() => {
        setTarget(null);
        onClose();
      }}
      okButtonProps={{ 'data-testid': 'assign-submit' } as ButtonProps}
      destroyOnHidden
    >
      <div data-testid="assign-dialog">
        <p className="tou-muted">{t('tou.sites.otherScheme')}</p>
        <Transfer
          className="tou-transfer"
          dataSource={items}
          targetKeys={keys}
          onChange={(next) => setTarget(next.map(String))}
          render={(item) => <span data-testid={`assign-site-${item.key}`}>{item.title}</span>}
          titles={[t('tou.sites.available'), t('tou.sites.assigned')]}
          showSearch={{ placeholder: t('tou.sites.search') }}
          filterOption={(input, item) => item.title.toLowerCase().includes(input.trim().toLowerCase())}
          disabled={sites.isLoading}
          data-testid="assign-transfer"
        />
        <div className="tou-inline-field tou-assign-from">
          <span>{t('tou.billing.effectiveFrom')}</span>
          <DatePicker
            data-testid="assign-effective-from"
            value={effectiveFrom ? dayjs(effectiveFrom) : null}
            onChange={(d) => setEffectiveFrom(d ? d.format('YYYY-MM-DD') : null)}
            placeholder={t('tou.billing.today')}
            format="YYYY-MM-DD"
          />
        </div>
      </div>
    </Modal>
  );
}

/**
 * One site's delivery: the state of the version it should run (tag and version); what the EMS is
 * known to run (the time it confirmed the current version, or "device runs v2 (applied …)" / "not
 * confirmed yet" while the current one is not applied); and, apart, what the last send did
 * (re-sending, re-sent without answer, failed with its reason) with when it is retried.
 */
function PushState({ row }: { row: TouPushRow }) {
  const { t } = useTranslation();
  const zone = row.timezone;
  const at = (iso: string | null) => (iso ? formatDateTime(Date.parse(iso), zone) : '');
  const short = (iso: string | null) => (iso ? formatShortDateTime(Date.parse(iso), zone) : '');
  const current = row.state === 'applied' && row.appliedVersion === row.schemeVersion;
  let attempt: { kind: 'sending' | 'no-answer' | 'failed'; text: string } | null = null;
  if (row.state === 'applied' && row.sending) attempt = { kind: 'sending', text: t('tou.push.resending') };
  else if (row.state === 'applied' && row.reason === DELIVERY_TIMEOUT)
    attempt = { kind: 'no-answer', text: t('tou.push.resentNoAnswer', { time: short(row.sentAt) }) };
  else if (row.state === 'failed' && row.reason)
    attempt = {
      kind: 'failed',
      // The two reasons the server records itself are translated; any other is the EMS's own text.
      text:
        row.reason === DELIVERY_TIMEOUT || row.reason === 'refused'
          ? t(`tou.push.reasons.${row.reason}`)
          : row.reason,
    };
  const runs = (
    <span
      className="tou-muted"
      key="runs"
      data-testid={`push-runs-${row.siteId}`}
      data-version={row.appliedVersion ?? ''}
    >
      {current
        ? t('tou.push.appliedAt', { time: at(row.appliedAt) })
        : row.appliedVersion !== null
          ? t('tou.push.runs', { version: row.appliedVersion, time: at(row.appliedAt) })
          : t('tou.push.runsNone')}
    </span>
  );
  const last = attempt && (
    <span
      key="attempt"
      className={attempt.kind === 'failed' ? 'tou-field-issue' : 'tou-push-state__attempt'}
      data-testid={`push-attempt-${row.siteId}`}
      data-attempt={attempt.kind}
    >
      {attempt.text}
      {row.retryAt && (
        <span className="tou-muted"> · {t('tou.push.retryAt', { time: short(row.retryAt) })}</span>
      )}
    </span>
  );
  return (
    <span className="tou-push-state" data-testid={`push-state-${row.siteId}`} data-state={row.state}>
      <span className="tou-push-state__head">
        <Tag color={STATE_COLORS[row.state]}>{t(`tou.push.states.${row.state}`)}</Tag>
        <span className="tou-muted">v{row.schemeVersion}</span>
      </span>
      {/* What explains the tag first: the applied time, or why the current version is not applied. */}
      {current ? [runs, last] : [last, runs]}
    </span>
  );
}

export function SitesPanel({ scheme }: { scheme: TouSchemeDetail | undefined }) {
  const { t } = useTranslation();
  const canPush = usePermission(Perm.touPush);
  const queryClient = useQueryClient();
  const [assigning, setAssigning] = useState(false);

  const schemeId = scheme?.id ?? 0;
  const status = useQuery({
    queryKey: touKeys.pushStatus(schemeId),
    queryFn: () => fetchPushStatus(scheme!.id),
    enabled: scheme !== undefined,
    refetchInterval: (query) => (query.state.data?.list.some(waitsForReply) ? SAFETY_REFETCH_MS : false),
  });

  // Delivery changes of the caller's sites, live: patch this scheme's rows in the cache.
  const liveStatus = useLiveMessages(scheme ? 'delivery:tou' : null, (change) => {
    const key = touKeys.pushStatus(schemeId);
    const data = queryClient.getQueryData<{ list: TouPushRow[] }>(key);
    const ofScheme = change.desired.schemeId === schemeId;
    const listed = data?.list.some((r) => r.siteId === change.siteId) ?? false;
    if (!data || !listed || !ofScheme) {
      // Not loaded yet, a site newly on this scheme, or one moved off it: read the list again.
      if (ofScheme || listed) void queryClient.invalidateQueries({ queryKey: key });
      return;
    }
    queryClient.setQueryData(key, {
      ...data,
      list: data.list.map((r) => (r.siteId === change.siteId ? applyDeliveryChange(r, change) : r)),
    });
  });
  // The live socket (re)connected: changes may have been missed meanwhile, read the list again.
  const wasLive = useRef(liveStatus === 'live');
  useEffect(() => {
    const live = liveStatus === 'live';
    if (live && !wasLive.current && scheme)
      void queryClient.invalidateQueries({ queryKey: touKeys.pushStatus(scheme.id) });
    wasLive.current = live;
  }, [liveStatus, scheme, queryClient]);

  const push = useMutation({
    mutationFn: (siteId: number) => pushSite(siteId),
    onSuccess: () => showSuccess(t('tou.push.pushed')),
    onSettled: () => queryClient.invalidateQueries({ queryKey: touKeys.pushStatus(scheme?.id ?? 0) }),
  });

  // A phone: the state under the site, so that nothing scrolls sideways.
  const stacked = !(Grid.useBreakpoint().sm ?? true);
  const rows = status.data?.list ?? [];
  const waiting = rows.some(waitsForReply);

  const columns: TableColumnsType<TouPushRow> = [
    {
      key: 'site',
      title: stacked ? t('tou.push.siteAndState') : t('tou.push.site'),
      width: stacked ? undefined : '42%',
      render: (_, r) => (
        <span className="tou-push-site">
          <span>{r.siteName}</span>
          {r.timezone !== browserTimeZone() && (
            <span className="tou-muted">{t('tou.push.siteZone', { zone: zoneLabel(r.timezone) })}</span>
          )}
          {r.gatewaySn ? (
            <Badge
              status={r.gatewayOnline ? 'success' : 'default'}
              text={`${r.gatewaySn} · ${t(r.gatewayOnline ? 'tou.push.online' : 'tou.push.offline')}`}
              className="tou-muted"
            />
          ) : (
            <span className="tou-muted">{t('tou.push.noGateway')}</span>
          )}
          {stacked && <PushState row={r} />}
        </span>
      ),
    },
    ...(stacked
      ? []
      : [
          {
            key: 'state',
            title: t('tou.push.state'),
            render: (_: unknown, r: TouPushRow) => <PushState row={r} />,
          },
        ]),
    ...(canPush
      ? [
          {
            key: 'push',
            width: 48,
            // An icon with its name as tooltip and label: the half-width card leaves no room for text.
            render: (_: unknown, r: TouPushRow) => (
              <Tooltip title={t('tou.push.pushNow')}>
                <Button
                  size="small"
                  icon={<SendOutlined />}
                  aria-label={t('tou.push.pushNow')}
                  loading={push.isPending && push.variables === r.siteId}
                  onClick={() => push.mutate(r.siteId)}
                  data-testid={`push-now-${r.siteId}`}
                />
              </Tooltip>
            ),
          },
        ]
      : []),
  ];

  return (
    <section className="tou-panel" data-testid="sites-panel">
      <div className="tou-panel__head">
        <h3 className="tou-panel__title">{t('tou.sites.title')}</h3>
        {canPush && scheme && (
          <Button icon={<CloudSyncOutlined />} onClick={() => setAssigning(true)} data-testid="sites-assign">
            {t('tou.sites.assign')}
          </Button>
        )}
      </div>
      {!scheme ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tou.sites.saveFirst')} />
      ) : (
        <>
          {waiting && <p className="tou-muted">{t('tou.push.polling')}</p>}
          <Table<TouPushRow>
            size="small"
            columns={columns}
            dataSource={rows}
            rowKey="siteId"
            loading={status.isLoading}
            pagination={false}
            locale={{ emptyText: t('tou.push.empty') }}
            onRow={(r) => ({ 'data-testid': `push-row-${r.siteId}` }) as object}
            data-testid="push-table"
          />
          <AssignDialog scheme={scheme} open={assigning} onClose={() => setAssigning(false)} />
        </>
      )}
    </section>
  );
}
