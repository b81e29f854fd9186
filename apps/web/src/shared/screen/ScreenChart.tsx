/**
 * Line chart of the big screens (dark), ECharts through `echarts/core` with LineChart, Grid,
 * Tooltip, Legend and the canvas renderer only (design §6). Series over time (UTC ms), each
 * with its unit; series of a second unit go to a right axis. The x axis spans the whole local
 * day of `timeZone` (the site's, or the cockpit's time base) holding the last point, labelled in
 * that zone (shared/charts/timeAxis.ts). Test hook: `data-points` (points drawn).
 */
import { localDayOf } from '@ess/contract';
import { useMemo } from 'react';
// Registers the ECharts parts this chart draws with (a type-only import would be dropped).
import '@/shared/charts/lineChart';
import type { LineChartOption, LineSeriesOption } from '@/shared/charts/lineChart';
import { zonedTimeAxis } from '@/shared/charts/timeAxis';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber, formatTime } from '@/shared/format';

type Option = LineChartOption;

export interface ScreenSeries {
  name: string;
  unit: string;
  values: (number | null)[];
  color: string;
  area?: boolean;
  dashed?: boolean;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function buildOption(ts: number[], series: ScreenSeries[], timeZone: string): Option {
  const units = [...new Set(series.map((s) => s.unit))].slice(0, 2);
  const first = ts[0] ?? Date.now();
  const last = ts[ts.length - 1] ?? first;
  const day = localDayOf(last, timeZone);
  const start = Math.min(day.startMs, first);
  const end = Math.max(day.endMs, last);
  const showSymbol = ts.length < 8;
  const axis = (unit: string, position: 'left' | 'right') => ({
    type: 'value' as const,
    name: unit,
    position,
    nameTextStyle: { color: '#8fb3e8', fontSize: 15 },
    axisLabel: { color: '#8fb3e8', fontSize: 14, formatter: (v: number) => formatNumber(v, 0) },
    splitLine: {
      show: position === 'left',
      lineStyle: { color: 'rgba(64,150,255,0.15)', type: 'dashed' as const },
    },
    scale: unit !== 'kW',
  });
  return {
    animation: false,
    grid: { left: 12, right: 16, top: 44, bottom: 8, containLabel: true },
    legend: {
      top: 0,
      right: 0,
      textStyle: { color: '#c9d6ea', fontSize: 15 },
      icon: 'roundRect',
      itemWidth: 16,
      itemHeight: 5,
    },
    tooltip: {
      trigger: 'axis',
      confine: true,
      className: 'chart-tooltip',
      backgroundColor: 'rgba(6,22,44,0.95)',
      borderColor: '#4096ff',
      textStyle: { color: '#e6f0ff' },
      formatter: (params) => {
        const list = Array.isArray(params) ? params : [params];
        const head = (list[0] as { value?: [number, number | null] } | undefined)?.value?.[0];
        const rows = list.map((p) => {
          const item = p as {
            marker?: string;
            seriesName?: string;
            seriesIndex?: number;
            value?: [number, number | null];
          };
          const unit = series[item.seriesIndex ?? 0]?.unit ?? '';
          return `${item.marker ?? ''}${escapeHtml(item.seriesName ?? '')}<span style="float:right;margin-left:16px;font-weight:600">${formatNumber(item.value?.[1] ?? null, 1)} ${escapeHtml(unit)}</span>`;
        });
        return [head === undefined ? '' : formatTime(head, timeZone, false), ...rows].join('<br/>');
      },
    },
    xAxis: {
      ...zonedTimeAxis(start, end, timeZone, { color: '#8fb3e8', fontSize: 14 }),
      axisLine: { lineStyle: { color: 'rgba(64,150,255,0.4)' } },
      splitLine: { show: false },
    },
    yAxis: units.map((u, i) => axis(u, i === 0 ? 'left' : 'right')),
    series: series.map(
      (s) =>
        ({
          type: 'line',
          name: s.name,
          yAxisIndex: Math.max(0, units.indexOf(s.unit)),
          data: ts.map((t, i) => [t, s.values[i] ?? null]),
          showSymbol,
          symbolSize: 6,
          connectNulls: false,
          lineStyle: { width: 2.5, color: s.color, type: s.dashed ? 'dashed' : 'solid' },
          itemStyle: { color: s.color },
          ...(s.area ? { areaStyle: { color: s.color, opacity: 0.12 } } : {}),
        }) as LineSeriesOption,
    ),
  };
}

/** The chart in `timeZone`; redraws when the data changes and follows its container's size. */
export default function ScreenChart({
  ts,
  series,
  timeZone,
  testId,
}: {
  ts: number[];
  series: ScreenSeries[];
  /** IANA zone of the day drawn and of every label (the site's, or the cockpit's time base). */
  timeZone: string;
  testId?: string;
}) {
  const ref = useEChart(useMemo(() => buildOption(ts, series, timeZone), [ts, series, timeZone]));
  return <div ref={ref} className="screen-chart" data-testid={testId} data-points={ts.length} />;
}
