/**
 * Charged / discharged energy as bars per local day or month (ECharts, lazy chunk). A period
 * without readings has no bar (the server answers null: "no data", not 0).
 * Test hook: `energy-chart` with `data-bars` (periods with a reading).
 */
import type { EnergyBar } from '@ess/contract';
import { useMemo } from 'react';
// Registers the ECharts parts this chart draws with (a type-only import would be dropped).
import '@/shared/charts/barChart';
import type { BarChartOption } from '@/shared/charts/barChart';
import { useEChart } from '@/shared/charts/useEChart';
import { formatNumber, formatQuantity } from '@/shared/format';

type Option = BarChartOption;

export default function EnergyChart({
  bars,
  labels,
}: {
  bars: EnergyBar[];
  labels: { charge: string; discharge: string };
}) {
  const option = useMemo<Option>(
    () => ({
      animation: false,
      grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
      legend: { top: 0 },
      tooltip: {
        trigger: 'axis',
        confine: true,
        valueFormatter: (v) => formatQuantity(typeof v === 'number' ? v : null, 'kWh'),
      },
      xAxis: { type: 'category', data: bars.map((b) => b.label), axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', name: 'kWh', axisLabel: { formatter: (v: number) => formatNumber(v, 2) } },
      series: [
        {
          type: 'bar',
          name: labels.charge,
          data: bars.map((b) => b.chargeKwh),
          itemStyle: { color: '#52c41a' },
        },
        {
          type: 'bar',
          name: labels.discharge,
          data: bars.map((b) => b.dischargeKwh),
          itemStyle: { color: '#1677ff' },
        },
      ],
    }),
    [bars, labels],
  );
  const ref = useEChart(option);

  return (
    <div
      ref={ref}
      className="energy-chart"
      data-testid="energy-chart"
      data-bars={bars.filter((b) => b.chargeKwh !== null || b.dischargeKwh !== null).length}
    />
  );
}
