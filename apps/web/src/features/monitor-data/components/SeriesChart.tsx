/**
 * Line chart of history series (ECharts via echarts/core, its own lazy chunk): one line per
 * series (the reading, or the bucket mean when rolled up) and, where the server rolled up, a
 * shaded min–max band. One y axis per unit (left, right, then further right). `x: 'offset'`
 * draws time since each series' own start (two-period comparison), labelled `+d hh:mm`.
 * Test hook: `series-chart` with `data-points` (points drawn) and `data-series`.
 */
import { DataZoomComponent, type DataZoomComponentOption } from 'echarts/components';
import { use } from 'echarts/core';
import { useMemo } from 'react';
// Registers the line chart's ECharts parts (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption, LineSeriesOption } from '@/shared/charts/lineChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatDateTime, formatNumber, formatTime } from '@/shared/format';
import { currentLang, localeOf } from '@/shared/i18n';

use([DataZoomComponent]);

type Option = LineChartOption<DataZoomComponentOption>;

export const PALETTE = [
  '#1677ff',
  '#52c41a',
  '#fa8c16',
  '#722ed1',
  '#eb2f96',
  '#13c2c2',
  '#a0d911',
  '#8c8c8c',
];

/** A series as drawn: label, unit, times (or offsets) and values. */
export interface ChartSeries {
  name: string;
  unit: string;
  /** UTC ms, or ms since the period start when `x` is 'offset'. */
  x: number[];
  avg: number[];
  min: number[] | null;
  max: number[] | null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `+2 05:30` for an offset of 2 days 5.5 hours. */
export function formatOffset(ms: number): string {
  const d = Math.floor(ms / 86_400_000);
  const h = Math.floor((ms % 86_400_000) / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const hhmm = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  return d > 0 ? `+${d}d ${hhmm}` : `+${hhmm}`;
}

/** `11/21 14:05` / `11-21 14:05` in the UI language and `timeZone`. */
function shortDateTime(ts: number, timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions = {
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  };
  try {
    return new Intl.DateTimeFormat(localeOf(currentLang()), { ...options, timeZone }).format(ts);
  } catch {
    return new Intl.DateTimeFormat(localeOf(currentLang()), options).format(ts);
  }
}

function digitsFor(unit: string): number {
  return unit === 'V' || unit === 'kWh' ? 2 : unit === '' ? 3 : 1;
}

function buildOption(series: ChartSeries[], x: 'time' | 'offset', timeZone?: string): Option {
  const units = [...new Set(series.map((s) => s.unit))];
  const xs = series.flatMap((s) => [s.x[0], s.x[s.x.length - 1]]).filter((v): v is number => v !== undefined);
  const span = xs.length ? Math.max(...xs) - Math.min(...xs) : 0;
  // Short spans show the time of day (with seconds under an hour), longer ones the date too.
  const label = (v: number) =>
    x === 'offset'
      ? formatOffset(v)
      : span < 86_400_000
        ? formatTime(v, timeZone, span < 3_600_000)
        : shortDateTime(v, timeZone);
  const lines: LineSeriesOption[] = [];
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const yAxisIndex = units.indexOf(s.unit);
    if (s.min && s.max) {
      const stack = `band-${i}`;
      lines.push({
        type: 'line',
        name: `${s.name}__min`,
        data: s.x.map((t, j) => [t, s.min![j]!]),
        yAxisIndex,
        stack,
        symbol: 'none',
        lineStyle: { opacity: 0 },
        tooltip: { show: false },
        silent: true,
      });
      lines.push({
        type: 'line',
        name: `${s.name}__band`,
        data: s.x.map((t, j) => [t, s.max![j]! - s.min![j]!]),
        yAxisIndex,
        stack,
        symbol: 'none',
        lineStyle: { opacity: 0 },
        areaStyle: { color, opacity: 0.15 },
        tooltip: { show: false },
        silent: true,
      });
    }
    lines.push({
      type: 'line',
      name: s.name,
      data: s.x.map((t, j) => [t, s.avg[j]!]),
      yAxisIndex,
      showSymbol: s.x.length < 30,
      symbolSize: 4,
      lineStyle: { width: 1.6, color },
      itemStyle: { color },
    });
  });
  return {
    animation: false,
    color: PALETTE,
    grid: {
      left: 8,
      right: 16 + Math.max(0, units.length - 2) * 56,
      top: 40,
      bottom: 48,
      containLabel: true,
    },
    legend: {
      top: 0,
      type: 'scroll',
      data: series.map((s) => s.name),
      icon: 'roundRect',
      itemWidth: 14,
      itemHeight: 4,
    },
    dataZoom: [
      { type: 'inside', filterMode: 'none' },
      { type: 'slider', height: 18, bottom: 6, filterMode: 'none', labelFormatter: (v: number) => label(v) },
    ],
    tooltip: {
      trigger: 'axis',
      confine: true,
      formatter: (params) => {
        const list = (Array.isArray(params) ? params : [params]) as Array<{
          seriesName?: string;
          marker?: string;
          dataIndex: number;
          value?: [number, number];
        }>;
        const shown = list.filter((p) => p.seriesName && !p.seriesName.includes('__'));
        const t = shown[0]?.value?.[0];
        const rows = shown.map((p) => {
          const s = series.find((x) => x.name === p.seriesName);
          const digits = digitsFor(s?.unit ?? '');
          const unit = s?.unit ? ` ${s.unit}` : '';
          const band =
            s?.min && s.max
              ? ` <span style="color:#8c8c8c">(${formatNumber(s.min[p.dataIndex], digits)} – ${formatNumber(s.max[p.dataIndex], digits)})</span>`
              : '';
          return `${p.marker ?? ''}${escapeHtml(p.seriesName ?? '')}<span style="float:right;margin-left:16px;font-weight:600">${formatNumber(p.value?.[1], digits)}${unit}${band}</span>`;
        });
        const head =
          t === undefined
            ? ''
            : `<div style="color:#8c8c8c;margin-bottom:4px">${escapeHtml(x === 'offset' ? formatOffset(t) : formatDateTime(t, timeZone))}</div>`;
        return head + rows.join('<br/>');
      },
    },
    xAxis: {
      type: x === 'offset' ? 'value' : 'time',
      min: 'dataMin',
      max: 'dataMax',
      // Offsets are labelled to the minute: ticks closer than that repeated one label ("+00:33" ×6).
      ...(x === 'offset' ? { minInterval: 60_000 } : {}),
      axisLabel: { formatter: (v: number) => label(v), hideOverlap: true },
      splitLine: { show: false },
    },
    yAxis: units.map((unit, i) => ({
      type: 'value' as const,
      name: unit,
      position: i % 2 === 0 ? ('left' as const) : ('right' as const),
      offset: i < 2 ? 0 : (i - 1) * 56,
      scale: true,
      axisLabel: { formatter: (v: number) => formatNumber(v, 2) },
      splitLine: { show: i === 0, lineStyle: { type: 'dashed' as const, color: '#f0f0f0' } },
    })),
    series: lines,
  };
}

/** The chart; redraws when its inputs change and follows its container's size. */
export default function SeriesChart({
  series,
  x = 'time',
  timeZone,
  height = 360,
}: {
  series: ChartSeries[];
  x?: 'time' | 'offset';
  timeZone?: string;
  height?: number;
}) {
  const ref = useEChart(useMemo(() => buildOption(series, x, timeZone), [series, x, timeZone]));

  const points = series.reduce((n, s) => n + s.x.length, 0);
  return (
    <div
      ref={ref}
      className="series-chart"
      style={{ height }}
      data-testid="series-chart"
      data-points={points}
      data-series={series.length}
    />
  );
}
