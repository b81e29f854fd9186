/**
 * Monitoring → Alarms (`monitor/alarm/index`, issue 4 item 4; spec §3: EMS number, report time,
 * event type, alarm type, level, content). Two tabs:
 *  - **Active**: alarms not yet cleared, newest first, with level tags, who/when of the
 *    acknowledgement and "Acknowledge" (one, or the selected ones) after a confirmation
 *    (permission `monitor:alarm:ack`). Refreshed at once when the live `fleet` channel reports a
 *    new alarm event, and every 30 s for acknowledgements made elsewhere.
 *  - **History**: produce / disappear events (with the alarm's state and acknowledgement) and the
 *    EMS's online / offline changes with the reason.
 * Filters: site, device, level, acknowledged, keyword, time range; history adds event type and
 * alarm state. Times are shown in the site's time zone.
 * Test hooks: `alarm-page`, `alarm-tabs`, `alarm-table-active`, `alarm-table-history` (rows
 * `data-row-key`), `alarm-ack-<id>`, `alarm-ack-selected`, `alarm-ackinfo-<id>`,
 * `alarm-filter-{site,device,level,ack,keyword,range,type,state}`, `alarm-refresh`.
 */
import { CheckOutlined } from '@ant-design/icons';
import {
  ALARM_EVENT_TYPES,
  type AlarmEventType,
  type AlarmHistoryRow,
  type AlarmLifecycleRow,
  alarmCodeLabel,
  Perm,
} from '@ess/contract';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Card,
  DatePicker,
  Input,
  Popconfirm,
  Select,
  Space,
  Table,
  type TableColumnsType,
  Tabs,
  Tag,
} from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { currentLang } from '@/shared/i18n';
import { useLiveChannel } from '@/shared/live';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { serverPagination } from '@/shared/ui/serverPagination';
import {
  type ActiveQuery,
  acknowledge,
  alarmKeys,
  fetchActive,
  fetchFilterOptions,
  fetchHistory,
  type HistoryQuery,
} from './api';
import './alarm.css';

/** Acknowledgements made elsewhere show up within this time. */
const ACTIVE_REFRESH_MS = 30_000;

type Tab = 'active' | 'history';
type Range = [Dayjs | null, Dayjs | null] | null;

interface Filters {
  siteId?: number;
  deviceId?: number;
  level?: 'warning' | 'fault';
  acknowledged?: boolean;
  keyword?: string;
  range?: { startMs: number; endMs: number };
  types?: AlarmEventType[];
  state?: 'active' | 'cleared';
}

const EVENT_COLOR: Record<AlarmEventType, string> = {
  produce: 'red',
  disappear: 'green',
  online: 'blue',
  offline: 'default',
};

function LevelTag({ level }: { level: 'warning' | 'fault' | null }) {
  const { t } = useTranslation();
  if (!level) return <>{NO_VALUE}</>;
  return (
    <Tag color={level === 'fault' ? 'red' : 'orange'} data-level={level}>
      {t(`alarm.level.${level}`)}
    </Tag>
  );
}

function AlarmType({ code }: { code: string | null }) {
  if (!code) return <>{NO_VALUE}</>;
  return (
    <span className="alarm-type">
      <span>{alarmCodeLabel(code, currentLang())}</span>
      <code className="alarm-type__code">{code}</code>
    </span>
  );
}

function AckInfo({
  id,
  ackAt,
  ackBy,
  tz,
}: {
  id: number;
  ackAt: number | null;
  ackBy: string | null;
  tz: string;
}) {
  const { t } = useTranslation();
  if (ackAt === null) return <span className="alarm-ack alarm-ack--none">{t('alarm.notAcked')}</span>;
  return (
    <span className="alarm-ack" data-testid={`alarm-ackinfo-${id}`}>
      <span className="alarm-ack__who">{ackBy}</span>
      <span className="alarm-ack__when">{formatDateTime(ackAt, tz)}</span>
    </span>
  );
}

/** The alarms view. */
export default function AlarmPage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const canAck = usePermission(Perm.alarmAck);
  const [tab, setTab] = useState<Tab>('active');
  const [filters, setFilters] = useState<Filters>({});
  const [keywordText, setKeywordText] = useState('');
  const [range, setRange] = useState<Range>(null);
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [selected, setSelected] = useState<number[]>([]);

  const filter = (next: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...next }));
    setPage((p) => ({ ...p, pageNum: 1 }));
  };

  const options = useQuery({ queryKey: alarmKeys.options, queryFn: fetchFilterOptions, staleTime: 60_000 });
  const devices = options.data?.sites.find((s) => s.id === filters.siteId)?.devices ?? [];

  const clean = <T extends object>(q: T): T =>
    Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '')) as T;
  const { types, state, ...common } = filters;
  const activeQ: ActiveQuery = clean({ ...page, ...common });
  const historyQ: HistoryQuery = clean({ ...page, ...common, types, state });

  const active = useQuery({
    queryKey: alarmKeys.active(activeQ),
    queryFn: () => fetchActive(activeQ),
    placeholderData: keepPreviousData,
    enabled: tab === 'active',
    refetchInterval: ACTIVE_REFRESH_MS,
  });
  const history = useQuery({
    queryKey: alarmKeys.history(historyQ),
    queryFn: () => fetchHistory(historyQ),
    placeholderData: keepPreviousData,
    enabled: tab === 'history',
  });

  // Live: a new alarm event in the fleet snapshot (its newest event id changes) → reload lists.
  // The first snapshot counts too: an alarm may have arrived between the list's load and it.
  const { data: fleet } = useLiveChannel('fleet');
  const newest = fleet?.alarms[0]?.id;
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (newest === undefined || seen.current === newest) return;
    seen.current = newest;
    void queryClient.invalidateQueries({ queryKey: alarmKeys.all });
  }, [newest, queryClient]);

  const ack = async (ids: number[]) => {
    try {
      const r = await acknowledge(ids);
      showSuccess(
        r.alreadyAcknowledged.length
          ? t('alarm.ackDonePartly', { n: r.acknowledged.length, m: r.alreadyAcknowledged.length })
          : t('alarm.ackDone', { n: r.acknowledged.length }),
      );
      setSelected([]);
    } finally {
      await queryClient.invalidateQueries({ queryKey: alarmKeys.all });
    }
  };

  const ackButton = (id: number) => (
    <Popconfirm
      title={t('alarm.ackConfirm', { n: 1 })}
      okText={t('alarm.ack')}
      cancelText={t('common.cancel')}
      onConfirm={() => ack([id])}
    >
      <Button size="small" icon={<CheckOutlined />} data-testid={`alarm-ack-${id}`}>
        {t('alarm.ack')}
      </Button>
    </Popconfirm>
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const activeColumns = useMemo<TableColumnsType<AlarmLifecycleRow>>(
    () => [
      { key: 'level', title: t('alarm.field.level'), render: (_, r) => <LevelTag level={r.level} /> },
      { key: 'type', title: t('alarm.field.type'), render: (_, r) => <AlarmType code={r.code} /> },
      { key: 'content', title: t('alarm.field.content'), dataIndex: 'content' },
      { key: 'site', title: t('alarm.field.site'), dataIndex: 'siteName' },
      {
        key: 'device',
        title: t('alarm.field.device'),
        render: (_, r) => (
          <span className="alarm-device">
            <code>{r.deviceSn}</code>
            <span className="alarm-device__type">{r.deviceType.toUpperCase()}</span>
          </span>
        ),
      },
      { key: 'ems', title: t('alarm.field.ems'), render: (_, r) => <code>{r.emsSn}</code> },
      {
        key: 'time',
        title: t('alarm.field.producedAt'),
        render: (_, r) => <span className="alarm-time">{formatDateTime(r.producedAt, r.siteTimezone)}</span>,
      },
      {
        key: 'ack',
        title: t('alarm.field.ack'),
        render: (_, r) => <AckInfo id={r.id} ackAt={r.ackAt} ackBy={r.ackBy} tz={r.siteTimezone} />,
      },
      ...(canAck
        ? [
            {
              key: 'action',
              title: '',
              fixed: 'right' as const,
              render: (_: unknown, r: AlarmLifecycleRow) => (r.ackAt === null ? ackButton(r.id) : null),
            },
          ]
        : []),
    ],
    [i18n.language, canAck],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: texts depend on the language
  const historyColumns = useMemo<TableColumnsType<AlarmHistoryRow>>(
    () => [
      {
        key: 'time',
        title: t('alarm.field.reportTime'),
        render: (_, r) => <span className="alarm-time">{formatDateTime(r.ts, r.siteTimezone)}</span>,
      },
      {
        key: 'event',
        title: t('alarm.field.event'),
        render: (_, r) => (
          <Tag color={EVENT_COLOR[r.type]} data-type={r.type}>
            {t(`alarm.event.${r.type}`)}
          </Tag>
        ),
      },
      { key: 'level', title: t('alarm.field.level'), render: (_, r) => <LevelTag level={r.level} /> },
      { key: 'type', title: t('alarm.field.type'), render: (_, r) => <AlarmType code={r.code} /> },
      {
        key: 'content',
        title: t('alarm.field.content'),
        render: (_, r) =>
          r.content ?? (r.reason ? t(`alarm.reason.${r.reason}`, { defaultValue: r.reason }) : NO_VALUE),
      },
      { key: 'site', title: t('alarm.field.site'), dataIndex: 'siteName' },
      { key: 'device', title: t('alarm.field.device'), render: (_, r) => <code>{r.deviceSn}</code> },
      { key: 'ems', title: t('alarm.field.ems'), render: (_, r) => <code>{r.emsSn}</code> },
      {
        key: 'state',
        title: t('alarm.field.state'),
        render: (_, r) =>
          r.alarmActive === null ? (
            NO_VALUE
          ) : (
            <Tag color={r.alarmActive ? 'volcano' : 'default'}>
              {t(r.alarmActive ? 'alarm.state.active' : 'alarm.state.cleared')}
            </Tag>
          ),
      },
      {
        key: 'ack',
        title: t('alarm.field.ack'),
        render: (_, r) =>
          r.alarmId === null ? (
            NO_VALUE
          ) : r.ackAt === null && canAck && r.type === 'produce' ? (
            ackButton(r.alarmId)
          ) : (
            <AckInfo id={r.alarmId} ackAt={r.ackAt} ackBy={r.ackBy} tz={r.siteTimezone} />
          ),
      },
    ],
    [i18n.language, canAck],
  );

  const current = tab === 'active' ? active : history;
  const total = current.data?.total;
  const showTotal = (n: number) => t('alarm.total', { count: n });

  return (
    <Card variant="borderless" className="alarm-page" data-testid="alarm-page">
      <Tabs
        data-testid="alarm-tabs"
        activeKey={tab}
        onChange={(k) => {
          setTab(k as Tab);
          setPage((p) => ({ ...p, pageNum: 1 }));
        }}
        items={[
          { key: 'active', label: <span data-testid="alarm-tab-active">{t('alarm.tab.active')}</span> },
          { key: 'history', label: <span data-testid="alarm-tab-history">{t('alarm.tab.history')}</span> },
        ]}
      />
      <div className="alarm-page__filters">
        <Select
          allowClear
          showSearch
          optionFilterProp="label"
          className="alarm-filter alarm-filter--site"
          placeholder={t('alarm.filter.site')}
          value={filters.siteId}
          onChange={(v?: number) => filter({ siteId: v, deviceId: undefined })}
          options={options.data?.sites.map((s) => ({ value: s.id, label: s.name }))}
          data-testid="alarm-filter-site"
        />
        <Select
          allowClear
          showSearch
          optionFilterProp="label"
          className="alarm-filter"
          placeholder={t('alarm.filter.device')}
          disabled={filters.siteId === undefined}
          value={filters.deviceId}
          onChange={(v?: number) => filter({ deviceId: v })}
          options={devices.map((d) => ({ value: d.id, label: `${d.sn} (${d.type.toUpperCase()})` }))}
          data-testid="alarm-filter-device"
        />
        <Select
          allowClear
          className="alarm-filter alarm-filter--narrow"
          placeholder={t('alarm.filter.level')}
          value={filters.level}
          onChange={(v?: 'warning' | 'fault') => filter({ level: v })}
          options={[
            { value: 'fault', label: t('alarm.level.fault') },
            { value: 'warning', label: t('alarm.level.warning') },
          ]}
          data-testid="alarm-filter-level"
        />
        <Select
          allowClear
          className="alarm-filter alarm-filter--narrow"
          placeholder={t('alarm.filter.ack')}
          value={filters.acknowledged === undefined ? undefined : String(filters.acknowledged)}
          onChange={(v?: string) => filter({ acknowledged: v === undefined ? undefined : v === 'true' })}
          options={[
            { value: 'false', label: t('alarm.filter.notAcked') },
            { value: 'true', label: t('alarm.filter.acked') },
          ]}
          data-testid="alarm-filter-ack"
        />
        {tab === 'history' && (
          <>
            <Select
              allowClear
              mode="multiple"
              className="alarm-filter alarm-filter--types"
              placeholder={t('alarm.filter.type')}
              value={filters.types ?? []}
              onChange={(v: AlarmEventType[]) => filter({ types: v.length ? v : undefined })}
              options={ALARM_EVENT_TYPES.map((e) => ({ value: e, label: t(`alarm.event.${e}`) }))}
              data-testid="alarm-filter-type"
            />
            <Select
              allowClear
              className="alarm-filter alarm-filter--narrow"
              placeholder={t('alarm.filter.state')}
              value={filters.state}
              onChange={(v?: 'active' | 'cleared') => filter({ state: v })}
              options={[
                { value: 'active', label: t('alarm.state.active') },
                { value: 'cleared', label: t('alarm.state.cleared') },
              ]}
              data-testid="alarm-filter-state"
            />
          </>
        )}
        <Input.Search
          allowClear
          className="alarm-filter alarm-filter--keyword"
          placeholder={t('alarm.filter.keyword')}
          value={keywordText}
          onChange={(e) => {
            setKeywordText(e.target.value);
            if (!e.target.value) filter({ keyword: undefined });
          }}
          onSearch={(v) => filter({ keyword: v.trim() || undefined })}
          data-testid="alarm-filter-keyword"
        />
        <DatePicker.RangePicker
          showTime
          className="alarm-filter alarm-filter--range"
          value={range}
          onChange={(v) => {
            setRange(v);
            filter({
              range: v?.[0] && v[1] ? { startMs: v[0].valueOf(), endMs: v[1].valueOf() } : undefined,
            });
          }}
          data-testid="alarm-filter-range"
        />
        <Space className="alarm-page__actions">
          {tab === 'active' && canAck && (
            <Popconfirm
              title={t('alarm.ackConfirm', { n: selected.length })}
              okText={t('alarm.ack')}
              cancelText={t('common.cancel')}
              disabled={selected.length === 0}
              onConfirm={() => ack(selected)}
            >
              <Button disabled={selected.length === 0} data-testid="alarm-ack-selected">
                {t('alarm.ackSelected', { n: selected.length })}
              </Button>
            </Popconfirm>
          )}
          <RefreshButton
            onClick={() => void queryClient.invalidateQueries({ queryKey: alarmKeys.all })}
            loading={current.isFetching}
            testId="alarm-refresh"
          />
        </Space>
      </div>
      {tab === 'active' ? (
        <Table<AlarmLifecycleRow>
          rowKey="id"
          size="middle"
          scroll={{ x: 'max-content' }}
          columns={activeColumns}
          dataSource={active.data?.list}
          loading={active.isLoading}
          rowClassName={(r) => `alarm-row alarm-row--${r.level}`}
          rowSelection={
            canAck
              ? {
                  selectedRowKeys: selected,
                  onChange: (keys) => setSelected(keys as number[]),
                  getCheckboxProps: (r) => ({ disabled: r.ackAt !== null }),
                }
              : undefined
          }
          pagination={serverPagination(page, total, setPage, showTotal)}
          locale={{ emptyText: t('alarm.emptyActive') }}
          data-testid="alarm-table-active"
        />
      ) : (
        <Table<AlarmHistoryRow>
          rowKey="key"
          size="middle"
          scroll={{ x: 'max-content' }}
          columns={historyColumns}
          dataSource={history.data?.list}
          loading={history.isLoading}
          pagination={serverPagination(page, total, setPage, showTotal)}
          locale={{ emptyText: t('alarm.emptyHistory') }}
          data-testid="alarm-table-history"
        />
      )}
    </Card>
  );
}
