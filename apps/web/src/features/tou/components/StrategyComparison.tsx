/**
 * The strategy comparison under the arbitrage preview (issue 17 item 6): the day's tariff (the
 * daily plan the preview resolved) under three strategies for the chosen site's battery —
 * time order (the first standard strategy), price-aware (contract tou/strategy.ts, the standard
 * strategy now) and the optimal schedule (`tou/optimalPlan`, a linear programme solved on the
 * server) — with charged/discharged kWh, cost, revenue, degradation, demand charge, net per day,
 * the gain over time order, and their SOC curves. The operator sets the SOC window, the
 * degradation cost per kWh cycled (default 0: does a second cycle pay?) and the demand charge
 * with the month's peak so far; "use the optimal plan" puts the optimal periods into the daily
 * plan in the editor, to be saved and pushed with the existing flows.
 * Test hooks: `strategy-comparison`, `compare-soc-min`, `compare-soc-max`, `compare-degradation`,
 * `compare-demand-charge`, `compare-month-peak`, `compare-table` (rows `compare-row-<key>`),
 * `compare-net-<key>`, `compare-gain-<key>`, `optimal-apply`, `optimal-error`, `optimal-lp`.
 */
import {
  compareStrategies,
  type DailyPlan,
  demandCostCny,
  type TouAssignedSite,
  type TouOptimalPlanRequest,
  type TouPeriod,
} from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, InputNumber, Skeleton, Table } from 'antd';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCny, formatNumber } from '@/shared/format';
import { fetchOptimalPlan, touKeys } from '../api';
import { DEFAULT_STRATEGY } from '../model';

const StrategySocChart = lazy(() => import('./StrategySocChart'));

type RowKey = 'timeOrder' | 'priceAware' | 'optimal';
interface Row {
  key: RowKey;
  chargedKwh: number;
  dischargedKwh: number;
  costCny: number;
  revenueCny: number;
  degradationCny: number;
  demandCostCny: number;
  netCny: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export function StrategyComparison({
  plan,
  site,
  efficiencyPct,
  onApply,
}: {
  plan: DailyPlan;
  site: TouAssignedSite;
  efficiencyPct: number;
  /** Put these periods into `plan` in the editor; absent without the right to edit. */
  onApply?: (periods: TouPeriod[]) => void;
}) {
  const { t } = useTranslation();
  const [socMinPct, setSocMin] = useState<number>(DEFAULT_STRATEGY.socMinPct);
  const [socMaxPct, setSocMax] = useState<number>(DEFAULT_STRATEGY.socMaxPct);
  const [degradation, setDegradation] = useState(0);
  const [demandCharge, setDemandCharge] = useState(0);
  const [monthPeak, setMonthPeak] = useState(0);
  const windowOk = socMinPct >= 0 && socMinPct < socMaxPct && socMaxPct <= 100;

  const battery = useMemo(
    () => ({
      capacityKwh: site.capacityKwh,
      ratedPowerKw: site.ratedPowerKw,
      roundTripEfficiencyPct: efficiencyPct,
      socMinPct,
      socMaxPct,
      degradationCostCnyPerKwh: degradation,
    }),
    [site, efficiencyPct, socMinPct, socMaxPct, degradation],
  );
  const demand = useMemo(
    () => ({ chargeCnyPerKwMonth: demandCharge, monthPeakKw: monthPeak }),
    [demandCharge, monthPeak],
  );
  const comparison = useMemo(
    () => (windowOk ? compareStrategies(plan, battery) : null),
    [plan, battery, windowOk],
  );

  const body: TouOptimalPlanRequest = {
    siteId: site.siteId,
    periods: plan.periods,
    roundTripEfficiencyPct: efficiencyPct,
    socMinPct,
    socMaxPct,
    degradationCostCnyPerKwh: degradation,
    demandChargeCnyPerKwMonth: demandCharge,
    monthPeakKw: monthPeak,
  };
  const optimal = useQuery({
    queryKey: touKeys.optimal(body),
    queryFn: () => fetchOptimalPlan(body),
    enabled: windowOk,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

  const rows: Row[] = [];
  if (comparison) {
    for (const key of ['timeOrder', 'priceAware'] as const) {
      const p = comparison[key].preview;
      const demandCny = demandCostCny(p.gridKw, demand);
      rows.push({
        key,
        chargedKwh: p.chargedKwh,
        dischargedKwh: p.dischargedKwh,
        costCny: p.costCny,
        revenueCny: p.revenueCny,
        degradationCny: p.degradationCny,
        demandCostCny: demandCny,
        netCny: round2(p.netCny - demandCny),
      });
    }
  }
  if (optimal.data) rows.push({ key: 'optimal', ...optimal.data.plan });
  const base = rows.find((r) => r.key === 'timeOrder')?.netCny ?? 0;
  const gainText = (r: Row) => {
    if (r.key === 'timeOrder') return '—';
    const gain = round2(r.netCny - base);
    const pct =
      base !== 0 ? ` (${gain >= 0 ? '+' : ''}${formatNumber((gain / Math.abs(base)) * 100, 1)} %)` : '';
    return `${gain >= 0 ? '+' : ''}${formatCny(gain)}${pct}`;
  };
  const kwh = (v: number) => formatNumber(v, 1);
  const cny = (v: number) => formatCny(v);

  const series = [
    ...(comparison
      ? [
          {
            name: t('tou.optimal.timeOrder'),
            socPct: comparison.timeOrder.preview.socPct,
            color: '#8c8c8c',
            dashed: true,
          },
          {
            name: t('tou.optimal.priceAware'),
            socPct: comparison.priceAware.preview.socPct,
            color: '#1677ff',
          },
        ]
      : []),
    ...(optimal.data
      ? [{ name: t('tou.optimal.optimal'), socPct: optimal.data.planSocPct, color: '#52c41a' }]
      : []),
  ];

  return (
    <div className="tou-compare" data-testid="strategy-comparison">
      <h4>{t('tou.optimal.title')}</h4>
      <p className="tou-muted">{t('tou.optimal.hint')}</p>
      <div className="tou-preview__inputs">
        <div className="tou-inline-field">
          <span>{t('tou.optimal.socMin')}</span>
          <InputNumber
            value={socMinPct}
            min={0}
            max={100}
            onChange={(v) => typeof v === 'number' && setSocMin(v)}
            data-testid="compare-soc-min"
          />
        </div>
        <div className="tou-inline-field">
          <span>{t('tou.optimal.socMax')}</span>
          <InputNumber
            value={socMaxPct}
            min={0}
            max={100}
            onChange={(v) => typeof v === 'number' && setSocMax(v)}
            data-testid="compare-soc-max"
          />
        </div>
        <div className="tou-inline-field">
          <span>{t('tou.optimal.degradation')}</span>
          <InputNumber
            value={degradation}
            min={0}
            max={10}
            step={0.01}
            onChange={(v) => setDegradation(typeof v === 'number' ? v : 0)}
            data-testid="compare-degradation"
          />
        </div>
        <div className="tou-inline-field">
          <span>{t('tou.optimal.demandCharge')}</span>
          <InputNumber
            value={demandCharge}
            min={0}
            max={1000}
            onChange={(v) => setDemandCharge(typeof v === 'number' ? v : 0)}
            data-testid="compare-demand-charge"
          />
        </div>
        <div className="tou-inline-field">
          <span>{t('tou.optimal.monthPeak')}</span>
          <InputNumber
            value={monthPeak}
            min={0}
            max={1_000_000}
            onChange={(v) => setMonthPeak(typeof v === 'number' ? v : 0)}
            data-testid="compare-month-peak"
          />
        </div>
      </div>
      {!windowOk && <Alert type="warning" showIcon title={t('tou.optimal.windowInvalid')} />}
      {optimal.isError && (
        <Alert
          type="error"
          showIcon
          title={t('tou.optimal.failed', { reason: (optimal.error as Error).message })}
          data-testid="optimal-error"
        />
      )}
      <Table<Row>
        size="small"
        pagination={false}
        scroll={{ x: 'max-content' }}
        rowKey="key"
        dataSource={rows}
        loading={optimal.isFetching}
        data-testid="compare-table"
        onRow={(r) => ({ 'data-testid': `compare-row-${r.key}` }) as never}
        columns={[
          { key: 'strategy', title: t('tou.optimal.strategy'), render: (_, r) => t(`tou.optimal.${r.key}`) },
          {
            key: 'net',
            title: t('tou.preview.net'),
            align: 'right',
            render: (_, r) => <strong data-testid={`compare-net-${r.key}`}>{formatCny(r.netCny)}</strong>,
          },
          {
            key: 'gain',
            title: t('tou.optimal.gain'),
            align: 'right',
            render: (_, r) => <span data-testid={`compare-gain-${r.key}`}>{gainText(r)}</span>,
          },
          {
            key: 'charged',
            title: t('tou.preview.chargedKwh'),
            align: 'right',
            dataIndex: 'chargedKwh',
            render: kwh,
          },
          {
            key: 'discharged',
            title: t('tou.preview.dischargedKwh'),
            align: 'right',
            dataIndex: 'dischargedKwh',
            render: kwh,
          },
          { key: 'cost', title: t('tou.preview.cost'), align: 'right', dataIndex: 'costCny', render: cny },
          {
            key: 'revenue',
            title: t('tou.preview.revenue'),
            align: 'right',
            dataIndex: 'revenueCny',
            render: cny,
          },
          {
            key: 'wear',
            title: t('tou.optimal.degradationCny'),
            align: 'right',
            dataIndex: 'degradationCny',
            render: cny,
          },
          {
            key: 'demand',
            title: t('tou.optimal.demandCny'),
            align: 'right',
            dataIndex: 'demandCostCny',
            render: cny,
          },
        ]}
      />
      {optimal.isFetching && !optimal.data && <p className="tou-muted">{t('tou.optimal.solving')}</p>}
      {optimal.data && (
        <div className="tou-compare__optimal">
          <span className="tou-muted" data-testid="optimal-lp">
            {t('tou.optimal.lpNet', {
              value: t('tou.preview.cny', { value: formatCny(optimal.data.objectiveCny) }),
            })}
          </span>
          {onApply && (
            <Button type="primary" onClick={() => onApply(optimal.data.periods)} data-testid="optimal-apply">
              {t('tou.optimal.apply', { name: plan.name })}
            </Button>
          )}
        </div>
      )}
      {series.length > 0 && (
        <>
          <h4>{t('tou.optimal.socChart')}</h4>
          <Suspense fallback={<Skeleton.Node active className="tou-soc-chart" />}>
            <StrategySocChart series={series} periods={plan.periods} />
          </Suspense>
        </>
      )}
    </div>
  );
}
