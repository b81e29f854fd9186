/**
 * Revenue statistics chart (ECharts through echarts/core, lazy chunk): charged and discharged kWh
 * as bars (left axis) and the net benefit in CNY as a line (right axis), per ToU period (day), day
 * (month) or month (year). Test hook: `revenue-chart` with `data-points`.
 */
import type { RevenuePoint } from '@ess/contract';
import { useMemo } from 'react';
// Registers the ECharts parts this chart draws with (type-only imports would be dropped).
import '@/shared/charts/barChart';
import '@/shared/charts/lineChart';
import type { BarChartOption } from '@/shared/charts/barChart';
import type { LineSeriesOption } from '@/shared/charts/lineChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber } from '@/shared/format';

type Option = BarChartOption & { series: Array<NonNullable<BarChartOption['series']> | LineSeriesOption> };

export default function RevenueChart({
  points,
  labels,
}: {
  points: RevenuePoint[];
  labels: { charged: string; discharged: string; net: string };
}) {
  const option = useMemo(
    () =>
      ({
        animation: false,
        grid: { left: 8, right: 8, top: 40, bottom: 8, containLabel: true },
        legend: { top: 0 },
        tooltip: { trigger: 'axis', confine: true },
        xAxis: { type: 'category', data: points.map((p) => p.label), axisLabel: { hideOverlap: true } },
        yAxis: [
          { type: 'value', name: 'kWh', axisLabel: { formatter: (v: number) => formatNumber(v, 0) } },
          {
            type: 'value',
            name: 'CNY',
            splitLine: { show: false },
            axisLabel: { formatter: (v: number) => formatNumber(v, 0) },
          },
        ],
        series: [
          {
            type: 'bar',
            name: labels.charged,
            data: points.map((p) => p.chargedKwh),
            itemStyle: { color: '#52c41a' },
          },
          {
            type: 'bar',
            name: labels.discharged,
            data: points.map((p) => p.dischargedKwh),
            itemStyle: { color: '#1677ff' },
          },
          {
            type: 'line',
            name: labels.net,
            yAxisIndex: 1,
            data: points.map((p) => p.netCny),
            itemStyle: { color: '#fa8c16' },
            symbolSize: 6,
          },
        ],
      }) as Option,
    [points, labels],
  );
  const ref = useEChart(option);
  return <div ref={ref} className="revenue-chart" data-testid="revenue-chart" data-points={points.length} />;
}
