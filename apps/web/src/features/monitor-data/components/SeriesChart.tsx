/**
 * Line chart of history series (ECharts via echarts/core, its own lazy chunk): one line per
 * series (the reading, or the bucket mean when rolled up) and, where the server rolled up, a
 * shaded min–max band. One y axis per unit (left, right, then further right). `x: 'offset'`
 * draws time since each series' own start (two-period comparison), labelled `+d hh:mm`.
 * Times are the site's (`timeZone`): ticks, labels and tooltips by shared/charts/timeAxis.ts,
 * recomputed for the visible window when the chart is zoomed.
 * Test hook: `series-chart` with `data-points` (points drawn) and `data-series`.
 */
import { DataZoomComponent, type DataZoomComponentOption } from 'echarts/components';
import { use } from 'echarts/core';
import { useMemo } from 'react';
// Registers the line chart's ECharts parts (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption, LineSeriesOption } from '@/shared/charts/lineChart';
import { zonedTimeAxis, zonedTimeLabels } from '@/shared/charts/timeAxis';
import { type EChartEvents, useEChart } from '@/shared/charts/useEChart';
import { browserTimeZone, formatDateTime, formatDayTime, formatNumber, formatTime } from '@/shared/format';

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

function digitsFor(unit: string): number {
  return unit === 'V' || unit === 'kWh' ? 2 : unit === '' ? 3 : 1;
}

/** First and last x over all series (0, 0 when empty). */
function extentOf(series: ChartSeries[]): [number, number] {
  const xs = series.flatMap((s) => [s.x[0], s.x[s.x.length - 1]]).filter((v): v is number => v !== undefined);
  return xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0];
}

function buildOption(series: ChartSeries[], x: 'time' | 'offset', timeZone: string): Option {
  const units = [...new Set(series.map((s) => s.unit))];
  const [min, max] = extentOf(series);
  const span = max - min;
  // The zoom slider's ends: the time of day (with seconds under an hour), the date too beyond a day.
  const label = (v: number) =>
    x === 'offset'
      ? formatOffset(v)
      : span < 86_400_000
        ? formatTime(v, timeZone, span < 3_600_000)
        : formatDayTime(v, timeZone);
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
      className: 'chart-tooltip',
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
    xAxis:
      x === 'offset'
        ? {
            type: 'value',
            min: 'dataMin',
            max: 'dataMax',
            // Offsets are labelled to the minute: ticks closer than that repeated one label ("+00:33" ×6).
            minInterval: 60_000,
            axisLabel: { formatter: (v: number) => label(v), hideOverlap: true },
            splitLine: { show: false },
          }
        : { ...zonedTimeAxis(min, max, timeZone), splitLine: { show: false } },
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

/**
 * After a zoom, ticks and labels for the visible window (the data zoom's start/end, in % of the
 * data's extent): round local times of that window, not of the whole range.
 */
function zoomEvents(series: ChartSeries[], timeZone: string): EChartEvents {
  return {
    datazoom: (chart) => {
      const zoom = (chart.getOption() as { dataZoom?: Array<{ start?: number; end?: number }> })
        .dataZoom?.[0];
      const [min, max] = extentOf(series);
      const from = min + ((max - min) * (zoom?.start ?? 0)) / 100;
      const to = min + ((max - min) * (zoom?.end ?? 100)) / 100;
      const { customValues, formatter } = zonedTimeLabels(from, to, timeZone);
      chart.setOption({ xAxis: { axisTick: { customValues }, axisLabel: { customValues, formatter } } });
    },
  };
}

/** The chart in `timeZone` (the site's; the browser's when not given); redraws when its inputs change and follows its container's size. */
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
  const zone = timeZone ?? browserTimeZone();
  const ref = useEChart(
    useMemo(() => buildOption(series, x, zone), [series, x, zone]),
    x === 'time' ? zoomEvents(series, zone) : undefined,
  );

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
