/**
 * Today's power curve drawn with ECharts (design §3), loaded lazily by PowerCurve so the chart
 * library is its own chunk. Only `echarts/core` with LineChart, Grid, Tooltip, Legend and the
 * canvas renderer is bundled (design §6).
 *
 * Series in kW over the day's 15-minute buckets: battery (+ discharging, − charging), grid
 * (+ import), PV and load. The x axis spans the whole local day (from midnight), so the curve
 * shows how far the day has come; gaps (null) stay gaps.
 */
import type { PowerCurve } from '@ess/contract';
import { useMemo } from 'react';
// Registers the ECharts parts this chart draws with (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption, LineSeriesOption } from '@/shared/charts/lineChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber, formatQuantity, formatTime } from '@/shared/format';

type Option = LineChartOption;

const DAY_MS = 86_400_000;
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

/** Local midnight (browser zone) of the day `ts` falls in. */
function startOfDay(ts: number): number {
  const d = new Date(ts);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

function buildOption(curve: PowerCurve, labels: SeriesLabels): Option {
  const first = curve.ts[0] ?? Date.now();
  const last = curve.ts[curve.ts.length - 1] ?? first;
  // The day from local midnight; widened if the server's day is not the browser's.
  const start = Math.min(startOfDay(last), first);
  const end = Math.max(start + DAY_MS, last + BUCKET_MS);
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
      formatter: (params) => {
        const list = Array.isArray(params) ? params : [params];
        const first = list[0] as { value?: [number, number | null] } | undefined;
        const ts = first?.value?.[0];
        const head =
          ts === undefined
            ? ''
            : `${formatTime(ts, undefined, false)}–${formatTime(ts + BUCKET_MS, undefined, false)}`;
        const rows = list.map((p) => {
          const item = p as { marker?: string; seriesName?: string; value?: [number, number | null] };
          const value = formatQuantity(item.value?.[1] ?? null, 'kW');
          return `${item.marker ?? ''}${escapeHtml(item.seriesName ?? '')}<span style="float:right;margin-left:16px;font-weight:600">${value}</span>`;
        });
        return [`<div style="margin-bottom:4px;color:#8c8c8c">${head}</div>`, ...rows].join('<br/>');
      },
    },
    xAxis: {
      type: 'time',
      min: start,
      max: end,
      splitNumber: 8,
      axisLabel: { formatter: (value: number) => formatTime(value, undefined, false), hideOverlap: true },
      splitLine: { show: false },
    },
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

/** The chart; redraws when `curve` changes and follows its container's size. */
export default function PowerChart({ curve, labels }: { curve: PowerCurve; labels: SeriesLabels }) {
  const ref = useEChart(useMemo(() => buildOption(curve, labels), [curve, labels]));

  return <div ref={ref} className="power-chart" />;
}
