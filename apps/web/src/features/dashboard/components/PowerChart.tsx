/**
 * Today's power curve drawn with ECharts (design §3), loaded lazily by PowerCurve so the chart
 * library is its own chunk. Only `echarts/core` with LineChart, Grid, Tooltip, Legend and the
 * canvas renderer is bundled (design §6).
 *
 * Series in kW over the day's 15-minute buckets: battery (+ discharging, − charging), grid
 * (+ import), PV and load. The x axis spans the whole local day of the fleet's time base (from
 * its midnight, 23–25 h on a daylight-saving day; shared/charts/timeAxis.ts), so the curve shows
 * how far the day has come; gaps (null) stay gaps.
 */
import { localDayOf, type PowerCurve } from '@ess/contract';
import { useMemo } from 'react';
// Registers the ECharts parts this chart draws with (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption, LineSeriesOption } from '@/shared/charts/lineChart';
import { zonedTimeAxis } from '@/shared/charts/timeAxis';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber, formatQuantity, formatTime } from '@/shared/format';

type Option = LineChartOption;

const BUCKET_MS = 15 * 60_000;

export interface SeriesLabels {
  battery: string;
  grid: string;
  pv: string;
  load: string;
}

const COLORS: Record<keyof SeriesLabels, string> = {
  battery: '#1677ff',
  grid: '#722ed1',
  pv: '#faad14',
  load: '#8c8c8c',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function buildOption(curve: PowerCurve, labels: SeriesLabels, timeZone: string): Option {
  const first = curve.ts[0] ?? Date.now();
  const last = curve.ts[curve.ts.length - 1] ?? first;
  // The local day of the time base; widened should a bucket lie outside it.
  const day = localDayOf(last, timeZone);
  const start = Math.min(day.startMs, first);
  const end = Math.max(day.endMs, last + BUCKET_MS);
  // With only a few buckets so far, lines alone would be invisible.
  const showSymbol = curve.ts.length < 8;
  const points = (values: (number | null)[]) => curve.ts.map((ts, i) => [ts, values[i] ?? null]);
  const series = (key: keyof SeriesLabels, values: (number | null)[], extra: LineSeriesOption = {}) =>
    ({
      type: 'line',
      name: labels[key],
      data: points(values),
      showSymbol,
      symbolSize: 5,
      connectNulls: false,
      lineStyle: { width: 2, color: COLORS[key] },
      itemStyle: { color: COLORS[key] },
      emphasis: { focus: 'series' },
      ...extra,
    }) as LineSeriesOption;

  return {
    animation: false,
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    legend: { top: 0, right: 0, icon: 'roundRect', itemWidth: 14, itemHeight: 4 },
    tooltip: {
      trigger: 'axis',
      confine: true,
      className: 'chart-tooltip',
      formatter: (params) => {
        const list = Array.isArray(params) ? params : [params];
        const first = list[0] as { value?: [number, number | null] } | undefined;
        const ts = first?.value?.[0];
        const head =
          ts === undefined
            ? ''
            : `${formatTime(ts, timeZone, false)}–${formatTime(ts + BUCKET_MS, timeZone, false)}`;
        const rows = list.map((p) => {
          const item = p as { marker?: string; seriesName?: string; value?: [number, number | null] };
          const value = formatQuantity(item.value?.[1] ?? null, 'kW');
          return `${item.marker ?? ''}${escapeHtml(item.seriesName ?? '')}<span style="float:right;margin-left:16px;font-weight:600">${value}</span>`;
        });
        return [`<div style="margin-bottom:4px;color:#8c8c8c">${head}</div>`, ...rows].join('<br/>');
      },
    },
    xAxis: { ...zonedTimeAxis(start, end, timeZone), splitLine: { show: false } },
    yAxis: {
      type: 'value',
      name: 'kW',
      nameTextStyle: { align: 'right', padding: [0, 6, 0, 0] },
      axisLabel: { formatter: (value: number) => formatNumber(value, 0) },
      splitLine: { lineStyle: { type: 'dashed', color: '#f0f0f0' } },
    },
    series: [
      series('battery', curve.batteryKw, { areaStyle: { color: COLORS.battery, opacity: 0.08 } }),
      series('grid', curve.gridKw),
      series('pv', curve.pvKw),
      series('load', curve.loadKw, { lineStyle: { width: 2, color: COLORS.load, type: 'dashed' } }),
    ],
  };
}

/** The chart in `timeZone` (the fleet's time base); redraws when its inputs change and follows its container's size. */
export default function PowerChart({
  curve,
  labels,
  timeZone,
}: {
  curve: PowerCurve;
  labels: SeriesLabels;
  timeZone: string;
}) {
  const ref = useEChart(useMemo(() => buildOption(curve, labels, timeZone), [curve, labels, timeZone]));

  return <div ref={ref} className="power-chart" />;
}
