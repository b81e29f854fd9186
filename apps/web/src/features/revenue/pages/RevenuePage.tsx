/**
 * Revenue statistics `/project/revenue` (issue 17 item 4; view `project/revenue/index`, menu 610,
 * revenue:stat:list). Pick what (a site, a project, a company), how long (day, month, year) and
 * which period; the page shows charged and discharged kWh, charging cost, discharge value, net
 * benefit (with the change against the previous period), efficiency, equivalent full cycles and
 * the arbitrage preview's expectation; a chart (kWh bars, net CNY line) and tables per tier and
 * per ToU period / day / month. Periods measured from power (a meter reading missing) or not at
 * all, and energy without a tariff, are said above the figures. All figures are the server's
 * (contract money/valuation.ts on the server's energy per tier); periods are site-local days.
 * Test hooks: `revenue-page`, `revenue-scope`, `revenue-target`, `revenue-granularity`,
 * `revenue-period`, `revenue-figure-<key>` (`data-value`), `revenue-tier-table`,
 * `revenue-series-table`, `revenue-chart`, `revenue-sources`.
 */
import {
  REVENUE_GRANULARITIES,
  REVENUE_SCOPES,
  type RevenueGranularity,
  type RevenuePoint,
  type RevenueScope,
  type RevenueStatResponse,
  type TouTier,
} from '@ess/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Card, DatePicker, Empty, Segmented, Select, Spin, Table, type TableColumnsType } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCny, formatCnyAmount, formatNumber, formatPrice } from '@/shared/format';
import { fetchRevenueStat, fetchRevenueTargets, type RevenueQuery, revenueKeys } from '../api';
import '../revenue.css';

const RevenueChart = lazy(() => import('../components/RevenueChart'));

const PERIOD_FORMAT: Record<RevenueGranularity, string> = {
  day: 'YYYY-MM-DD',
  month: 'YYYY-MM',
  year: 'YYYY',
};

/**
 * Table cells and figures (antd passes the row as a second argument: not a language). Energies
 * are statistics here, to 0.1 kWh (a bill shows them to the Wh, checkable against its registers).
 */
const cny = (v: number) => formatCny(v);
const kwh = (v: number) => formatNumber(v, 1);

/** Today (`YYYY-MM-DD`) in `timeZone` (the browser's when absent): a site's days are its own. */
function siteToday(timeZone?: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(Date.now());
}

/** Change of `now` against `before`, %, or null when there was nothing before. */
function change(now: number, before: number): number | null {
  if (before === 0) return null;
  return Math.round(((now - before) / Math.abs(before)) * 1000) / 10;
}

export default function RevenuePage() {
  const { t } = useTranslation();
  const [scope, setScope] = useState<RevenueScope>('site');
  const [targetId, setTargetId] = useState<number | null>(null);
  const [granularity, setGranularity] = useState<RevenueGranularity>('month');
  /** The period picked; until one is, today of the site shown (or of the first site) in its zone. */
  const [picked, setPicked] = useState<Dayjs | null>(null);

  const targets = useQuery({ queryKey: revenueKeys.targets, queryFn: fetchRevenueTargets });
  const options = useMemo(() => {
    const data = targets.data;
    if (!data) return [];
    if (scope === 'site') return data.sites.map((s) => ({ value: s.id, label: `${s.name} (${s.code})` }));
    if (scope === 'project') return data.projects.map((p) => ({ value: p.id, label: p.name }));
    return data.companies.map((c) => ({ value: c.id, label: c.name }));
  }, [targets.data, scope]);
  useEffect(() => {
    if (!options.some((o) => o.value === targetId)) setTargetId(options[0]?.value ?? null);
  }, [options, targetId]);

  const zone =
    (scope === 'site' ? targets.data?.sites.find((x) => x.id === targetId) : targets.data?.sites[0])
      ?.timezone ?? undefined;
  const period = picked ?? dayjs(siteToday(zone));
  const setPeriod = setPicked;
  const query: RevenueQuery | null =
    targetId === null
      ? null
      : { scope, id: targetId, granularity, period: period.format(PERIOD_FORMAT[granularity]) };
  const stat = useQuery({
    queryKey: query ? revenueKeys.stat(query) : ['revenue', 'stat', 'none'],
    queryFn: () => fetchRevenueStat(query!),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });
  const data = stat.data;

  return (
    <Card className="revenue-page" data-testid="revenue-page" title={t('revenue.title')}>
      <div className="revenue-toolbar">
        <Segmented<RevenueScope>
          data-testid="revenue-scope"
          value={scope}
          onChange={(v) => setScope(v)}
          options={REVENUE_SCOPES.map((s) => ({ value: s, label: t(`revenue.scope.${s}`) }))}
        />
        <Select<number>
          className="revenue-target"
          data-testid="revenue-target"
          value={targetId ?? undefined}
          onChange={setTargetId}
          options={options}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t(`revenue.pick.${scope}`)}
          loading={targets.isLoading}
          notFoundContent={t('revenue.noTargets')}
        />
        <Segmented<RevenueGranularity>
          data-testid="revenue-granularity"
          value={granularity}
          onChange={(v) => setGranularity(v)}
          options={REVENUE_GRANULARITIES.map((g) => ({ value: g, label: t(`revenue.granularity.${g}`) }))}
        />
        <DatePicker
          data-testid="revenue-period"
          picker={granularity === 'day' ? 'date' : granularity}
          value={period}
          allowClear={false}
          onChange={(v) => v && setPeriod(v)}
          format={PERIOD_FORMAT[granularity]}
        />
      </div>
      {targetId === null && !targets.isLoading ? (
        <Empty description={t('revenue.noTargets')} />
      ) : !data ? (
        <Spin />
      ) : (
        <RevenueBody data={data} loading={stat.isFetching} />
      )}
    </Card>
  );
}

function RevenueBody({ data, loading }: { data: RevenueStatResponse; loading: boolean }) {
  const { t } = useTranslation();
  const tier = (v: TouTier | null): string => (v ? t(`tou.tiers.${v}`) : t('revenue.noTariff'));
  const figures: Array<{
    key: string;
    label: string;
    value: string;
    raw: number | null;
    delta?: number | null;
  }> = [
    {
      key: 'charged',
      label: t('revenue.charged'),
      value: `${kwh(data.totals.chargedKwh)} kWh`,
      raw: data.totals.chargedKwh,
      delta: change(data.totals.chargedKwh, data.previous.chargedKwh),
    },
    {
      key: 'discharged',
      label: t('revenue.discharged'),
      value: `${kwh(data.totals.dischargedKwh)} kWh`,
      raw: data.totals.dischargedKwh,
      delta: change(data.totals.dischargedKwh, data.previous.dischargedKwh),
    },
    {
      key: 'cost',
      label: t('revenue.cost'),
      value: formatCnyAmount(data.totals.costCny),
      raw: data.totals.costCny,
      delta: change(data.totals.costCny, data.previous.costCny),
    },
    {
      key: 'value',
      label: t('revenue.value'),
      value: formatCnyAmount(data.totals.valueCny),
      raw: data.totals.valueCny,
      delta: change(data.totals.valueCny, data.previous.valueCny),
    },
    {
      key: 'net',
      label: t('revenue.net'),
      value: formatCnyAmount(data.totals.netCny),
      raw: data.totals.netCny,
      delta: change(data.totals.netCny, data.previous.netCny),
    },
    {
      key: 'efficiency',
      label: t('revenue.efficiency'),
      value: data.totals.efficiencyPct === null ? '—' : `${formatNumber(data.totals.efficiencyPct, 1)} %`,
      raw: data.totals.efficiencyPct,
    },
    {
      key: 'cycles',
      label: t('revenue.cycles'),
      value: data.totals.cycles === null ? '—' : formatNumber(data.totals.cycles, 2),
      raw: data.totals.cycles,
    },
    {
      key: 'expected',
      label: t('revenue.expected', { days: data.expected?.days ?? 0 }),
      value: data.expected ? formatCnyAmount(data.expected.netCny) : '—',
      raw: data.expected?.netCny ?? null,
      delta: data.expected ? change(data.totals.netCny, data.expected.netCny) : null,
    },
  ];
  const flagged = data.sources.power + data.sources.none;

  const tierColumns: TableColumnsType<RevenueStatResponse['perTier'][number]> = [
    { title: t('revenue.tier'), dataIndex: 'tier', render: (v: TouTier) => tier(v) },
    { title: t('revenue.chargedKwh'), dataIndex: 'chargedKwh', align: 'right', render: kwh },
    { title: t('revenue.dischargedKwh'), dataIndex: 'dischargedKwh', align: 'right', render: kwh },
    { title: t('revenue.costCny'), dataIndex: 'costCny', align: 'right', render: cny },
    { title: t('revenue.valueCny'), dataIndex: 'valueCny', align: 'right', render: cny },
    { title: t('revenue.netCny'), dataIndex: 'netCny', align: 'right', render: cny },
  ];
  const seriesColumns: TableColumnsType<RevenuePoint> = [
    { title: t(`revenue.seriesLabel.${data.granularity}`), dataIndex: 'label' },
    ...(data.granularity === 'day'
      ? [
          { title: t('revenue.tier'), dataIndex: 'tier', render: (v: TouTier | null) => tier(v) },
          {
            title: t('revenue.price'),
            dataIndex: 'priceCnyPerKwh',
            align: 'right' as const,
            render: (v: number | null) => formatPrice(v),
          },
        ]
      : []),
    { title: t('revenue.chargedKwh'), dataIndex: 'chargedKwh', align: 'right', render: kwh },
    { title: t('revenue.dischargedKwh'), dataIndex: 'dischargedKwh', align: 'right', render: kwh },
    { title: t('revenue.costCny'), dataIndex: 'costCny', align: 'right', render: cny },
    { title: t('revenue.valueCny'), dataIndex: 'valueCny', align: 'right', render: cny },
    { title: t('revenue.netCny'), dataIndex: 'netCny', align: 'right', render: cny },
  ];

  return (
    <Spin spinning={loading} delay={300}>
      <div className="revenue-alerts">
        <Alert
          type="info"
          showIcon
          message={t('revenue.summary', {
            from: data.from,
            to: data.to,
            sites: data.siteCount,
            capacity: formatNumber(data.capacityKwh, 0),
            previous: data.previousPeriod,
          })}
        />
        {flagged > 0 && (
          <Alert
            data-testid="revenue-sources"
            type="warning"
            showIcon
            message={t('revenue.sources', { power: data.sources.power, none: data.sources.none })}
          />
        )}
        {data.unpricedKwh > 0 && (
          <Alert type="warning" showIcon message={t('revenue.unpriced', { kwh: kwh(data.unpricedKwh) })} />
        )}
      </div>
      <div className="revenue-figures">
        {figures.map((f) => (
          <div
            key={f.key}
            className="revenue-figure"
            data-testid={`revenue-figure-${f.key}`}
            data-value={f.raw ?? ''}
          >
            <div className="label">{f.label}</div>
            <div className="value">{f.value}</div>
            {f.delta !== undefined && (
              <div className="delta">
                {f.key === 'expected' ? t('revenue.vsExpected') : t('revenue.vsPrevious')}{' '}
                {f.delta === null ? '—' : `${f.delta > 0 ? '+' : ''}${formatNumber(f.delta, 1)} %`}
              </div>
            )}
          </div>
        ))}
      </div>
      {data.series.length === 0 ? (
        <Empty description={t('revenue.noData')} />
      ) : (
        <Suspense fallback={<Spin />}>
          <RevenueChart
            points={data.series}
            labels={{
              charged: t('revenue.charged'),
              discharged: t('revenue.discharged'),
              net: t('revenue.net'),
            }}
          />
        </Suspense>
      )}
      <div className="revenue-tables">
        <Table
          data-testid="revenue-tier-table"
          size="small"
          rowKey="tier"
          title={() => t('revenue.perTier')}
          columns={tierColumns}
          dataSource={data.perTier}
          pagination={false}
          scroll={{ x: 'max-content' }}
        />
        <Table
          data-testid="revenue-series-table"
          size="small"
          rowKey="label"
          title={() => t(`revenue.seriesTitle.${data.granularity}`)}
          columns={seriesColumns}
          dataSource={data.series}
          pagination={data.series.length > 31 ? { pageSize: 31 } : false}
          scroll={{ x: 'max-content' }}
        />
      </div>
    </Spin>
  );
}
