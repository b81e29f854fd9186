/**
 * SOC curves of the strategy comparison (%, each quarter hour, 00:00–24:00): time order,
 * price-aware and optimal, over the tariff's periods shaded in their tier colours. ECharts through
 * `echarts/core` with the ToU SOC charts' one option (./socChartOption.ts, design §6); loaded lazily.
 */
import type { TouPeriod } from '@ess/contract';
import { useMemo } from 'react';
import { useEChart } from '@/shared/charts/useEChart';
import { type SocSeries, socChartOption } from './socChartOption';

export default function StrategySocChart({
  series,
  periods,
}: {
  series: readonly SocSeries[];
  periods: readonly TouPeriod[];
}) {
  const ref = useEChart(useMemo(() => socChartOption(series, periods, 'compare'), [series, periods]));
  return <div ref={ref} className="tou-soc-chart tou-soc-chart--compare" data-testid="strategy-soc-chart" />;
}
