/**
 * History tab "energy": charged and discharged energy of the site (or one PCS) per day of a
 * month or per month of a year of the site's calendar (the screen's time base), as bars with
 * the totals.
 * Test hooks: `energy-pcs`, `energy-granularity`, `energy-anchor`, `energy-totals`, `energy-empty`.
 */
import type { PickDevice, TimeRange } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { DatePicker, Empty, Segmented, Select, Skeleton } from 'antd';
import type { Dayjs } from 'dayjs';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, formatNumber } from '@/shared/format';
import { useTimeBase } from '@/shared/format/time-base';
import { dayjs } from '@/shared/i18n/dayjs';
import { fetchEnergy } from '../api';
import { presetRange, siteToday } from '../ranges';

const EnergyChart = lazy(() => import('../components/EnergyChart'));

export function EnergyTab({ siteId, devices }: { siteId: number; devices: PickDevice[] }) {
  const { t, i18n } = useTranslation();
  const [pcs, setPcs] = useState<number | 0>(0);
  const [granularity, setGranularity] = useState<'day' | 'month'>('day');
  const timeZone = useTimeBase() ?? browserTimeZone();
  const [anchor, setAnchor] = useState<Dayjs>(() => dayjs(siteToday(timeZone)));
  const range: TimeRange = presetRange(
    granularity === 'day' ? 'month' : 'year',
    anchor.format('YYYY-MM-DD'),
    timeZone,
  );
  const energy = useQuery({
    queryKey: ['monitor', 'energy', siteId, pcs, granularity, range],
    queryFn: () => fetchEnergy(siteId, pcs || undefined, granularity, range),
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: labels follow the language
  const labels = useMemo(
    () => ({ charge: t('monitorData.energy.charge'), discharge: t('monitorData.energy.discharge') }),
    [i18n.language],
  );
  const bars = energy.data?.bars ?? [];
  const total = (k: 'chargeKwh' | 'dischargeKwh') => bars.reduce((n, b) => n + (b[k] ?? 0), 0);
  const hasData = bars.some((b) => b.chargeKwh !== null || b.dischargeKwh !== null);
  return (
    <div className="md-tab">
      <div className="md-toolbar">
        <Select
          className="md-select"
          data-testid="energy-pcs"
          value={pcs}
          onChange={setPcs}
          options={[
            { value: 0, label: t('monitorData.energy.allPcs') },
            ...devices.filter((d) => d.type === 'pcs').map((d) => ({ value: d.id, label: `PCS · ${d.sn}` })),
          ]}
        />
        <Segmented
          data-testid="energy-granularity"
          value={granularity}
          onChange={(v) => setGranularity(v as typeof granularity)}
          options={[
            { value: 'day', label: t('monitorData.energy.perDay') },
            { value: 'month', label: t('monitorData.energy.perMonth') },
          ]}
        />
        <DatePicker
          data-testid="energy-anchor"
          allowClear={false}
          picker={granularity === 'day' ? 'month' : 'year'}
          value={anchor}
          onChange={(v) => v && setAnchor(v)}
        />
      </div>
      {energy.data && hasData && (
        <div className="md-summary" data-testid="energy-totals">
          <span>
            {t('monitorData.energy.charge')}: <b>{formatNumber(total('chargeKwh'), 1)} kWh</b>
          </span>
          <span>
            {t('monitorData.energy.discharge')}: <b>{formatNumber(total('dischargeKwh'), 1)} kWh</b>
          </span>
        </div>
      )}
      {energy.isLoading ? (
        <Skeleton active />
      ) : !hasData ? (
        <Empty
          data-testid="energy-empty"
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('monitorData.noData')}
        />
      ) : (
        <Suspense fallback={<div className="energy-chart" />}>
          <EnergyChart bars={bars} labels={labels} />
        </Suspense>
      )}
    </div>
  );
}
