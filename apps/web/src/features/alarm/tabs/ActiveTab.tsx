/**
 * Alarm tab "active": alarms not yet cleared, newest first, with the acknowledgement and, with
 * permission `monitor:alarm:ack`, "Acknowledge" per row and a selection for the page's
 * "acknowledge selected". Re-read every ACTIVE_REFRESH_MS for acknowledgements made elsewhere.
 * Test hooks: `alarm-table-active` (rows `data-row-key`), `alarm-ack-<id>`, `alarm-ackinfo-<id>`.
 */
import type { AlarmLifecycleRow } from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { TableColumnsType } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/shared/format';
import { DataTable } from '@/shared/ui/DataTable';
import type { ListPage } from '@/shared/ui/serverPagination';
import { type ActiveQuery, alarmKeys, fetchActive } from '../api';
import { AckButton, AckInfo, AlarmType, LevelTag } from '../components/cells';

/** Acknowledgements made elsewhere show up within this time. */
const ACTIVE_REFRESH_MS = 30_000;

export function ActiveTab({
  query,
  page,
  setPage,
  canAck,
  selected,
  setSelected,
  onAck,
}: {
  query: ActiveQuery;
  page: ListPage;
  setPage: (page: ListPage) => void;
  canAck: boolean;
  selected: number[];
  setSelected: (ids: number[]) => void;
  onAck: (ids: number[]) => Promise<void>;
}) {
  const { t, i18n } = useTranslation();
  const active = useQuery({
    queryKey: alarmKeys.active(query),
    queryFn: () => fetchActive(query),
    placeholderData: keepPreviousData,
    refetchInterval: ACTIVE_REFRESH_MS,
  });

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
              render: (_: unknown, r: AlarmLifecycleRow) =>
                r.ackAt === null ? <AckButton id={r.id} onAck={onAck} /> : null,
            },
          ]
        : []),
    ],
    [i18n.language, canAck],
  );

  return (
    <DataTable<AlarmLifecycleRow>
      columns={activeColumns}
      query={active}
      page={page}
      setPage={setPage}
      totalText={(n) => t('alarm.total', { count: n })}
      emptyText={t('alarm.emptyActive')}
      testId="alarm-table-active"
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
    />
  );
}
