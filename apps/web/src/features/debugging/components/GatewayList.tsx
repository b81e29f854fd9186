/**
 * The gateways of the caller's scope to debug through (issue 15 item 5): SN, online state with
 * when it was last heard from (beside the SN, so that a phone shows it without scrolling), site
 * (name, code, time zone), model and firmware, and the "open session" action (online gateways only: the server refuses others with 3033/3034).
 * Filters: keyword (SN or model, on the server), online. Paged in the browser.
 * Test hooks: `debug-gateways`, `debug-gateway-keyword`, `debug-gateway-online`,
 * `debug-gateway-refresh`, `debug-open-<gatewayId>`.
 */
import { CodeOutlined } from '@ant-design/icons';
import type { DeviceRow, SiteRow } from '@ess/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Table, type TableColumnsType, Tooltip } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatRelative, NO_VALUE } from '@/shared/format';
import { ListToolbar } from '@/shared/ui/ListToolbar';
import { debugKeys, fetchGateways, fetchSites } from '../api';

type OnlineFilter = 'online' | 'offline';

interface Props {
  onOpen: (gateway: DeviceRow) => void;
}

/** The gateway list with its toolbar. */
export function GatewayList({ onOpen }: Props) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [keyword, setKeyword] = useState<string | undefined>();
  const [online, setOnline] = useState<OnlineFilter | undefined>();
  const [page, setPage] = useState({ current: 1, pageSize: 20 });
  const q = { ...(keyword ? { keyword } : {}), ...(online ? { online: online === 'online' } : {}) };
  const gateways = useQuery({ queryKey: debugKeys.gateways(q), queryFn: () => fetchGateways(q) });
  const sites = useQuery({ queryKey: debugKeys.sites, queryFn: fetchSites });
  const siteById = useMemo(
    () => new Map<number, SiteRow>((sites.data?.list ?? []).map((s) => [s.id, s])),
    [sites.data],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const columns = useMemo<TableColumnsType<DeviceRow>>(
    () => [
      {
        key: 'sn',
        title: t('debugging.gateways.sn'),
        render: (_, g) => <code className="debug-sn">{g.sn}</code>,
      },
      {
        key: 'state',
        title: t('debugging.gateways.state'),
        render: (_, g) => {
          const zone = siteById.get(g.siteId)?.timezone;
          const seen =
            g.lastSeenAt === null ? t('debugging.gateways.neverSeen') : formatRelative(g.lastSeenAt);
          return (
            <Tooltip
              title={g.lastSeenAt === null ? null : `${formatDateTime(g.lastSeenAt, zone)} ${zone ?? ''}`}
            >
              <span className="debug-state" data-online={g.online}>
                <span
                  className={`debug-dot debug-dot--${g.online ? 'online' : 'offline'}`}
                  aria-hidden="true"
                />
                <span className="debug-cell-stack">
                  <span>{g.online ? t('debugging.gateways.online') : t('debugging.gateways.offline')}</span>
                  <span className="debug-muted">{seen}</span>
                </span>
              </span>
            </Tooltip>
          );
        },
      },
      {
        key: 'site',
        title: t('debugging.gateways.site'),
        render: (_, g) => {
          const site = siteById.get(g.siteId);
          return (
            <span className="debug-cell-stack">
              <span>{g.siteName}</span>
              {site && (
                <span className="debug-muted">
                  {site.code} · {site.timezone}
                </span>
              )}
            </span>
          );
        },
      },
      {
        key: 'model',
        title: t('debugging.gateways.model'),
        render: (_, g) => (
          <span className="debug-cell-stack">
            <span>{g.model ?? NO_VALUE}</span>
            {g.firmwareVersion && <span className="debug-muted">{g.firmwareVersion}</span>}
          </span>
        ),
      },
      {
        key: 'action',
        title: t('debugging.gateways.action'),
        fixed: 'right',
        render: (_, g) => (
          <Tooltip title={g.online ? null : t('debugging.gateways.offlineHint')}>
            <Button
              type="primary"
              size="small"
              icon={<CodeOutlined />}
              disabled={!g.online}
              onClick={() => onOpen(g)}
              data-testid={`debug-open-${g.id}`}
            >
              {t('debugging.gateways.open')}
            </Button>
          </Tooltip>
        ),
      },
    ],
    [i18n.language, siteById, onOpen],
  );

  return (
    <section className="debug-gateways" data-testid="debug-gateways">
      <ListToolbar<OnlineFilter>
        className="debug-toolbar"
        keyword={{
          onSearch: (v) => {
            setKeyword(v || undefined);
            setPage((p) => ({ ...p, current: 1 }));
          },
          placeholder: t('debugging.gateways.keyword'),
          className: 'debug-toolbar__keyword',
          testId: 'debug-gateway-keyword',
        }}
        status={{
          value: online,
          onChange: (v) => {
            setOnline(v);
            setPage((p) => ({ ...p, current: 1 }));
          },
          options: [
            { value: 'online', label: t('debugging.gateways.online') },
            { value: 'offline', label: t('debugging.gateways.offline') },
          ],
          placeholder: t('debugging.gateways.state'),
          ariaLabel: t('debugging.gateways.state'),
          className: 'debug-toolbar__state',
          testId: 'debug-gateway-online',
        }}
        refresh={{
          onClick: () => void queryClient.invalidateQueries({ queryKey: debugKeys.all }),
          loading: gateways.isFetching,
          testId: 'debug-gateway-refresh',
        }}
      />
      <Table<DeviceRow>
        rowKey="id"
        size="middle"
        scroll={{ x: 'max-content' }}
        columns={columns}
        dataSource={gateways.data ?? []}
        loading={gateways.isLoading}
        locale={{ emptyText: t('debugging.gateways.empty') }}
        pagination={{
          ...page,
          showSizeChanger: true,
          pageSizeOptions: [10, 20, 50, 100],
          showTotal: (n) => t('debugging.gateways.total', { count: n }),
          onChange: (current, pageSize) => setPage({ current, pageSize }),
        }}
      />
    </section>
  );
}
