/**
 * The previewed day's SOC curve (%, at each quarter hour, 00:00–24:00) over the daily plan's
 * periods shaded in their tier colours. ECharts through `echarts/core` with the shared line-chart
 * parts (shared/charts/lineChart.ts) and mark areas (design §6); loaded lazily so the library is its own chunk.
 */
import { hhmmOf, type TouPeriod } from '@ess/contract';
import { MarkAreaComponent } from 'echarts/components';
import { use } from 'echarts/core';
import { useMemo } from 'react';
// Registers the line chart's ECharts parts (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption } from '@/shared/charts/lineChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber } from '@/shared/format';
import { periodSpan, TIER_COLORS } from '../model';

use([MarkAreaComponent]);

type Option = LineChartOption;

function buildOption(socPct: readonly number[], periods: readonly TouPeriod[], name: string): Option {
  // The day starts at the SOC it ends at (the preview repeats the day).
  const points: Array<[number, number]> = [
    [0, socPct[socPct.length - 1] ?? 0],
    ...socPct.map((soc, i): [number, number] => [(i + 1) * 15, soc]),
  ];
  const areas = periods.flatMap((p) => {
    const span = periodSpan(p);
    if (!span || !p.tier) return [];
    return [
      [{ xAxis: span.start, itemStyle: { color: TIER_COLORS[p.tier], opacity: 0.1 } }, { xAxis: span.end }],
    ];
  });
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 28, bottom: 8, containLabel: true },
    tooltip: {
      trigger: 'axis',
      confine: true,
      formatter: (params) => {
        const first = (Array.isArray(params) ? params[0] : params) as
          | { value?: [number, number] }
          | undefined;
        const [minute, soc] = first?.value ?? [0, 0];
        return `${hhmmOf(minute)}<br/>SOC ${formatNumber(soc, 1)} %`;
      },
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
    series: [
      {
        type: 'line',
        name,
        data: points,
        showSymbol: false,
        lineStyle: { width: 2, color: '#1677ff' },
        itemStyle: { color: '#1677ff' },
        areaStyle: { color: '#1677ff', opacity: 0.06 },
        markArea: { silent: true, data: areas as never },
      },
    ],
  };
}

export default function SocChart({
  socPct,
  periods,
  name,
}: {
  socPct: readonly number[];
  periods: readonly TouPeriod[];
  name: string;
}) {
  const ref = useEChart(useMemo(() => buildOption(socPct, periods, name), [socPct, periods, name]));

  return <div ref={ref} className="tou-soc-chart" data-testid="soc-chart" />;
}
