/**
 * History: curves of any point or group of points over a day, week, month,
 * year or custom range; two periods of one point overlaid; charged/discharged energy per day
 * or month as bars. The server chooses raw rows or 15-min / hourly / daily rollups (at most
 * 3000 points per series) and answers min/max per bucket, drawn as a band; the page shows
 * which resolution answered. Ranges are checked here with the server's rule (inverted, over
 * 400 days, in the future) before anything is sent. Days, axes and times are the site's (its
 * zone is the page's time base, named by a tag when it is not the browser's).
 * The page holds the site picker and the tabs; each tab is its own component (./history). The
 * picked site and tab live in the address (`?siteId=&tab=`): the language switch's reload and a
 * shared link open the same site and tab.
 * Test hooks: `history-site`, `history-series`, `history-preset`, `history-range-kind`,
 * `history-query`, `history-resolution`, `history-range-error`, `history-empty`,
 * `history-stats`, tabs `history-tab-*`, `compare-*`, `energy-*`.
 */
import { useQuery } from '@tanstack/react-query';
import { Empty, Select, Skeleton, Tabs } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { TimeBaseProvider, ZoneTag } from '@/shared/format/time-base';
import { useDayjsLocale } from '@/shared/i18n/dayjs';
import { idParam, useSearchPicks } from '@/shared/routing';
import { fetchOptions } from './api';
import { CompareTab } from './history/CompareTab';
import { CurvesTab } from './history/CurvesTab';
import { EnergyTab } from './history/EnergyTab';
import './monitor-data.css';

const TABS = ['curves', 'compare', 'energy'] as const;
type HistoryTab = (typeof TABS)[number];

export default function HistoryPage() {
  const { t } = useTranslation();
  useDayjsLocale();
  const [params, setPicks] = useSearchPicks();
  const siteId = idParam(params.get('siteId'));
  const tabParam = params.get('tab');
  const tab: HistoryTab = TABS.find((k) => k === tabParam) ?? 'curves';
  const sites = useQuery({
    queryKey: ['monitor', 'options', 'history'],
    queryFn: () => fetchOptions('history'),
  });
  // No site in the address, or one the caller does not see: the first of the list.
  useEffect(() => {
    const list = sites.data?.sites;
    if (list?.[0] && (siteId === undefined || !list.some((s) => s.id === siteId)))
      setPicks({ siteId: list[0].id });
  }, [sites.data, siteId, setPicks]);
  const devices = useQuery({
    queryKey: ['monitor', 'options', 'history', siteId],
    queryFn: () => fetchOptions('history', siteId),
    enabled: siteId !== undefined,
  });
  const list = devices.data?.devices;
  const site = sites.data?.sites.find((s) => s.id === siteId);
  return (
    <TimeBaseProvider timeZone={site?.timezone}>
      <div className="md-page" data-testid="history-page">
        <div className="md-toolbar">
          <Select
            className="md-select"
            data-testid="history-site"
            placeholder={t('monitorData.site')}
            value={siteId}
            loading={sites.isLoading}
            showSearch={{ optionFilterProp: 'label' }}
            options={sites.data?.sites.map((s) => ({ value: s.id, label: s.name }))}
            onChange={(id: number) => setPicks({ siteId: id })}
          />
          <ZoneTag site={site?.timezone} />
        </div>
        {sites.data && sites.data.sites.length === 0 ? (
          <Empty description={t('monitorData.noSites')} />
        ) : !list || siteId === undefined ? (
          <Skeleton active />
        ) : (
          <Tabs
            activeKey={tab}
            onChange={(key) => setPicks({ tab: key === 'curves' ? undefined : key })}
            items={[
              {
                key: 'curves',
                label: <span data-testid="history-tab-curves">{t('monitorData.history.curves')}</span>,
                children: <CurvesTab devices={list} />,
              },
              {
                key: 'compare',
                label: <span data-testid="history-tab-compare">{t('monitorData.compare.title')}</span>,
                children: <CompareTab devices={list} />,
              },
              {
                key: 'energy',
                label: <span data-testid="history-tab-energy">{t('monitorData.energy.title')}</span>,
                children: <EnergyTab siteId={siteId} devices={list} />,
              },
            ]}
          />
        )}
      </div>
    </TimeBaseProvider>
  );
}
