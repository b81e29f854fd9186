/**
 * SOC curves of the strategy comparison (%, each quarter hour, 00:00–24:00): time order,
 * price-aware and optimal, over the tariff's periods shaded in their tier colours. ECharts through
 * `echarts/core` with the shared line-chart parts and mark areas (design §6); loaded lazily.
 */
import { hhmmOf, type TouPeriod } from '@ess/contract';
import { MarkAreaComponent } from 'echarts/components';
import { use } from 'echarts/core';
import { useMemo } from 'react';
import '@/shared/charts/lineChart';
import type { LineChartOption } from '@/shared/charts/lineChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber } from '@/shared/format';
import { periodSpan, TIER_COLORS } from '../model';

use([MarkAreaComponent]);

export interface SocSeries {
  name: string;
  /** SOC at the end of each quarter hour (96 values), %. */
  socPct: readonly number[];
  color: string;
  dashed?: boolean;
}

function buildOption(series: readonly SocSeries[], periods: readonly TouPeriod[]): LineChartOption {
  const areas = periods.flatMap((p) => {
    const span = periodSpan(p);
    if (!span || !p.tier) return [];
    return [
      [{ xAxis: span.start, itemStyle: { color: TIER_COLORS[p.tier], opacity: 0.08 } }, { xAxis: span.end }],
    ];
  });
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    legend: { top: 0, type: 'scroll' },
    tooltip: {
      trigger: 'axis',
      confine: true,
      valueFormatter: (v) => `${formatNumber(Number(v), 1)} %`,
      axisPointer: { label: { formatter: ({ value }) => hhmmOf(Number(value)) } },
    },
    xAxis: {
      type: 'value',
      min: 0,
      max: 1440,
      interval: 180,
      axisLabel: { formatter: (v: number) => (v === 1440 ? '24:00' : hhmmOf(v)), hideOverlap: true },
      splitLine: { show: false },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 100,
      name: '%',
      axisLabel: { formatter: (v: number) => formatNumber(v, 0) },
      splitLine: { lineStyle: { type: 'dashed', color: '#f0f0f0' } },
    },
    series: series.map((s, i) => ({
      type: 'line' as const,
      name: s.name,
      // The day starts at the SOC it ends at (the strategies repeat day after day).
      data: [[0, s.socPct[s.socPct.length - 1] ?? 0], ...s.socPct.map((soc, k) => [(k + 1) * 15, soc])],
      showSymbol: false,
      lineStyle: { width: 2, color: s.color, type: s.dashed ? ('dashed' as const) : ('solid' as const) },
      itemStyle: { color: s.color },
      ...(i === 0 ? { markArea: { silent: true, data: areas as never } } : {}),
    })),
  };
}

export default function StrategySocChart({
  series,
  periods,
}: {
  series: readonly SocSeries[];
  periods: readonly TouPeriod[];
}) {
  const ref = useEChart(useMemo(() => buildOption(series, periods), [series, periods]));
  return <div ref={ref} className="tou-soc-chart tou-soc-chart--compare" data-testid="strategy-soc-chart" />;
}
