/**
 * The sites of a scheme and the delivery to their EMS: "assign sites" (antd Transfer over the
 * caller's sites → `tou/assign`, tou:scheme:push), and per site the push state from
 * `tou/pushStatus` (pending / sent / applied with time / failed with reason, gateway online),
 * kept current by the live channel `delivery:tou` (each change of a row's state patches the
 * cached list; a row of a site not listed, or moved to another scheme, reads the list again, and
 * so does a (re)connection of the live socket), with "push now" (`tou/push`; the shared error
 * handling shows 3060 / 3033 / 3034 / 3035). While a site waits the list is also read every
 * 30 s: with several server instances, a change settled on another instance reaches only that
 * instance's and the sender's consoles.
 * Test hooks: `sites-panel`, `sites-assign`, `assign-dialog`, `assign-transfer`, `assign-submit`,
 * `push-table`, `push-row-<siteId>`, `push-state-<siteId>` (with `data-state`), `push-now-<siteId>`.
 */
import { CloudSyncOutlined, SendOutlined } from '@ant-design/icons';
import {
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
  Empty,
  Modal,
  Table,
  type TableColumnsType,
  Tag,
  Tooltip,
  Transfer,
} from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { formatDateTime } from '@/shared/format';
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
    pushedVersion: change.sentVersion,
    reason: change.reason,
    requestedAt: change.requestedAt,
    sentAt: change.sentAt,
    appliedAt: change.state === 'applied' ? change.settledAt : null,
    // A send goes out only while the gateway is online.
    gatewayOnline: change.state === 'sent' ? true : row.gatewayOnline,
  };
}

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
  const keys = target ?? scheme.sites.map((s) => String(s.siteId));

  const save = useMutation({
    mutationFn: () => assignSites(scheme.id, keys.map(Number)),
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
      </div>
    </Modal>
  );
}

/** One site's delivery state: the tag, and the applied time or the failure reason. */
function PushState({ row }: { row: TouPushRow }) {
  const { t } = useTranslation();
  return (
    <span className="tou-push-state" data-testid={`push-state-${row.siteId}`} data-state={row.state}>
      <span>
        <Tag color={STATE_COLORS[row.state]}>{t(`tou.push.states.${row.state}`)}</Tag>
      </span>
      {row.state === 'applied' && row.appliedAt && (
        <span className="tou-muted">
          {t('tou.push.appliedAt', { time: formatDateTime(Date.parse(row.appliedAt)) })}
        </span>
      )}
      {row.state === 'failed' && row.reason && (
        <span className="tou-field-issue">
          {row.reason === 'timeout' || row.reason === 'refused'
            ? t(`tou.push.reasons.${row.reason}`)
            : row.reason}
        </span>
      )}
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
    refetchInterval: (query) =>
      query.state.data?.list.some((r) => r.state === 'pending' || r.state === 'sent')
        ? SAFETY_REFETCH_MS
        : false,
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

  const rows = status.data?.list ?? [];
  const waiting = rows.some((r) => r.state === 'pending' || r.state === 'sent');

  const columns: TableColumnsType<TouPushRow> = [
    {
      key: 'site',
      title: t('tou.push.site'),
      render: (_, r) => (
        <span className="tou-push-site">
          <span>{r.siteName}</span>
          {r.gatewaySn ? (
            <Badge
              status={r.gatewayOnline ? 'success' : 'default'}
              text={`${r.gatewaySn} · ${t(r.gatewayOnline ? 'tou.push.online' : 'tou.push.offline')}`}
              className="tou-muted"
            />
          ) : (
            <span className="tou-muted">{t('tou.push.noGateway')}</span>
          )}
        </span>
      ),
    },
    { key: 'state', title: t('tou.push.state'), render: (_, r) => <PushState row={r} /> },
    {
      key: 'version',
      title: t('tou.push.version'),
      render: (_, r) => t('tou.push.versionOf', { pushed: r.pushedVersion ?? '—', current: r.schemeVersion }),
    },
    ...(canPush
      ? [
          {
            key: 'push',
            width: 48,
            // Always in view: on a narrow card the other columns scroll under it.
            fixed: 'right' as const,
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
            scroll={{ x: 'max-content' }}
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
