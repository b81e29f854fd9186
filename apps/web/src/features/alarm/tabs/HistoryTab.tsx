/**
 * Alarm tab "history": produce / disappear events (with the alarm's state and acknowledgement)
 * and the EMS's online / offline changes with the reason; "Acknowledge" on a produce event of
 * an unacknowledged alarm with permission `monitor:alarm:ack`.
 * Test hooks: `alarm-table-history` (rows `data-row-key`), `alarm-ack-<id>`, `alarm-ackinfo-<id>`.
 */
import type { AlarmHistoryRow } from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type TableColumnsType, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, NO_VALUE } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import type { ListPage } from '@/shared/ui/serverPagination';
import { alarmKeys, fetchHistory, type HistoryQuery } from '../api';
import { AckButton, AckInfo, AlarmType, EVENT_COLOR, LevelTag } from '../components/cells';

export function HistoryTab({
  query,
  page,
  setPage,
  canAck,
  onAck,
}: {
  query: HistoryQuery;
  page: ListPage;
  setPage: (page: ListPage) => void;
  canAck: boolean;
  onAck: (ids: number[]) => Promise<void>;
}) {
  const { t, i18n } = useTranslation();
  const history = useQuery({
    queryKey: alarmKeys.history(query),
    queryFn: () => fetchHistory(query),
    placeholderData: keepPreviousData,
  });

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
            <AckButton id={r.alarmId} onAck={onAck} />
          ) : (
            <AckInfo id={r.alarmId} ackAt={r.ackAt} ackBy={r.ackBy} tz={r.siteTimezone} />
          ),
      },
    ],
    [i18n.language, canAck],
  );

  return (
    <DataTable<AlarmHistoryRow>
      rowKey="key"
      columns={historyColumns}
      query={history}
      page={page}
      setPage={setPage}
      totalText={(n) => t('alarm.total', { count: n })}
      emptyText={t('alarm.emptyHistory')}
      testId="alarm-table-history"
    />
  );
}
