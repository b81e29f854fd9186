/**
 * Monitoring → Alarms (`monitor/alarm/index`; spec §3: EMS number, report time,
 * event type, alarm type, level, content). Two tabs:
 *  - **Active**: alarms not yet cleared, newest first, with level tags, who/when of the
 *    acknowledgement and "Acknowledge" (one, or the selected ones) after a confirmation
 *    (permission `monitor:alarm:ack`). Refreshed at once when the live `fleet` channel reports a
 *    new alarm event, and every 30 s for acknowledgements made elsewhere.
 *  - **History**: produce / disappear events (with the alarm's state and acknowledgement) and the
 *    EMS's online / offline changes with the reason.
 * Filters: site, device, level, acknowledged, keyword, time range; history adds event type and
 * alarm state. Times are shown in the site's time zone.
 * The page holds the filters, the page number and the selection (kept across the tabs) and
 * composes the filter bar (components/AlarmFilters) with the tab (tabs/ActiveTab, tabs/HistoryTab).
 * Test hooks: `alarm-page`, `alarm-tabs`, `alarm-table-active`, `alarm-table-history` (rows
 * `data-row-key`), `alarm-ack-<id>`, `alarm-ack-selected`, `alarm-ackinfo-<id>`,
 * `alarm-filter-{site,device,level,ack,keyword,range,type,state}`, `alarm-refresh`.
 */
import { Perm } from '@ess/contract';
import { useIsFetching, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Popconfirm, Tabs } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/features/auth';
import { showSuccess } from '@/shared/feedback';
import { useLiveChannel } from '@/shared/live';
import { RefreshButton } from '@/shared/ui/ListToolbar';
import { type ActiveQuery, acknowledge, alarmKeys, fetchFilterOptions, type HistoryQuery } from './api';
import { AlarmFilters, type AlarmFilterValues } from './components/AlarmFilters';
import { ActiveTab } from './tabs/ActiveTab';
import { HistoryTab } from './tabs/HistoryTab';
import './alarm.css';

type Tab = 'active' | 'history';

/** The alarms view. */
export default function AlarmPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const canAck = usePermission(Perm.alarmAck);
  const [tab, setTab] = useState<Tab>('active');
  const [filters, setFilters] = useState<AlarmFilterValues>({});
  const [page, setPage] = useState({ pageNum: 1, pageSize: 20 });
  const [selected, setSelected] = useState<number[]>([]);

  const filter = (next: Partial<AlarmFilterValues>) => {
    setFilters((f) => ({ ...f, ...next }));
    setPage((p) => ({ ...p, pageNum: 1 }));
  };

  const options = useQuery({ queryKey: alarmKeys.options, queryFn: fetchFilterOptions, staleTime: 60_000 });

  const clean = <T extends object>(q: T): T =>
    Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '')) as T;
  const { types, state, ...common } = filters;
  const activeQ: ActiveQuery = clean({ ...page, ...common });
  const historyQ: HistoryQuery = clean({ ...page, ...common, types, state });
  // The refresh button turns while the shown tab's list is read.
  const fetching =
    useIsFetching({
      queryKey: tab === 'active' ? alarmKeys.active(activeQ) : alarmKeys.history(historyQ),
      exact: true,
    }) > 0;

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
      <AlarmFilters tab={tab} filters={filters} onFilter={filter} options={options.data}>
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
          loading={fetching}
          testId="alarm-refresh"
        />
      </AlarmFilters>
      {tab === 'active' ? (
        <ActiveTab
          query={activeQ}
          page={page}
          setPage={setPage}
          canAck={canAck}
          selected={selected}
          setSelected={setSelected}
          onAck={ack}
        />
      ) : (
        <HistoryTab query={historyQ} page={page} setPage={setPage} canAck={canAck} onAck={ack} />
      )}
    </Card>
  );
}
