/**
 * The previewed day's SOC curve (%, at each quarter hour, 00:00–24:00) over the daily plan's
 * periods shaded in their tier colours. ECharts through `echarts/core` with the ToU SOC charts'
 * one option (./socChartOption.ts: shared line-chart parts and mark areas, design §6); loaded
 * lazily so the library is its own chunk.
 */
import type { TouPeriod } from '@ess/contract';
import { useMemo } from 'react';
import { useEChart } from '@/shared/charts/useEChart';
import { socChartOption } from './socChartOption';

export default function SocChart({
  socPct,
  periods,
  name,
}: {
  socPct: readonly number[];
  periods: readonly TouPeriod[];
  name: string;
}) {
  const ref = useEChart(
    useMemo(
      () => socChartOption([{ name, socPct, color: '#1677ff', area: true }], periods, 'preview'),
      [socPct, periods, name],
    ),
  );

  return <div ref={ref} className="tou-soc-chart" data-testid="soc-chart" />;
}
