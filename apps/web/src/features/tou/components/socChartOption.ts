/**
 * The one ECharts option of the ToU screens' SOC charts (SocChart: the previewed day;
 * StrategySocChart: the strategies compared): SOC in % at each quarter hour over 00:00–24:00,
 * the day starting at the SOC it ends at (a plan repeats day after day), y 0–100 %, x ticks every
 * 3 hours, and the daily plan's periods shaded in their tier colours under the first curve.
 * `kind` keeps what each chart showed: 'preview' — one curve with a light fill, a tooltip
 * "HH:mm / SOC x %"; 'compare' — a legend over the curves, a tooltip per curve.
 * Registers the line-chart parts and mark areas: import it only from lazily loaded charts.
 */
import { hhmmOf, type TouPeriod } from '@ess/contract';
import { MarkAreaComponent } from 'echarts/components';
import { use } from 'echarts/core';
// Registers the line chart's ECharts parts (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption } from '@/shared/charts/lineChart';
import { formatNumber } from '@/shared/format';
import { periodSpan, TIER_COLORS } from '../model';

use([MarkAreaComponent]);

/** One SOC curve. */
export interface SocSeries {
  name: string;
  /** SOC at the end of each quarter hour (96 values), %. */
  socPct: readonly number[];
  color: string;
  dashed?: boolean;
  /** A light fill under the curve (the single-curve preview). */
  area?: boolean;
}

const LOOKS = {
  preview: { top: 28, shadeOpacity: 0.1 },
  compare: { top: 40, shadeOpacity: 0.08 },
} as const;

/** The chart option of `series` over `periods` (see the module comment for `kind`). */
export function socChartOption(
  series: readonly SocSeries[],
  periods: readonly TouPeriod[],
  kind: keyof typeof LOOKS,
): LineChartOption {
  const look = LOOKS[kind];
  const areas = periods.flatMap((p) => {
    const span = periodSpan(p);
    if (!span || !p.tier) return [];
    return [
      [
        { xAxis: span.start, itemStyle: { color: TIER_COLORS[p.tier], opacity: look.shadeOpacity } },
        { xAxis: span.end },
      ],
    ];
  });
  const tooltip: LineChartOption['tooltip'] =
    kind === 'preview'
      ? {
          trigger: 'axis',
          confine: true,
          formatter: (params) => {
            const first = (Array.isArray(params) ? params[0] : params) as
              | { value?: [number, number] }
              | undefined;
            const [minute, soc] = first?.value ?? [0, 0];
            return `${hhmmOf(minute)}<br/>SOC ${formatNumber(soc, 1)} %`;
          },
        }
      : {
          trigger: 'axis',
          confine: true,
          valueFormatter: (v) => `${formatNumber(Number(v), 1)} %`,
          axisPointer: { label: { formatter: ({ value }) => hhmmOf(Number(value)) } },
        };
  return {
    animation: false,
    grid: { left: 8, right: 16, top: look.top, bottom: 8, containLabel: true },
    ...(kind === 'compare' ? { legend: { top: 0, type: 'scroll' as const } } : {}),
    tooltip,
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
      // The day starts at the SOC it ends at (the plan repeats day after day).
      data: [[0, s.socPct[s.socPct.length - 1] ?? 0], ...s.socPct.map((soc, k) => [(k + 1) * 15, soc])],
      showSymbol: false,
      lineStyle: { width: 2, color: s.color, type: s.dashed ? ('dashed' as const) : ('solid' as const) },
      itemStyle: { color: s.color },
      ...(s.area ? { areaStyle: { color: s.color, opacity: 0.06 } } : {}),
      ...(i === 0 ? { markArea: { silent: true, data: areas as never } } : {}),
    })),
  };
}
