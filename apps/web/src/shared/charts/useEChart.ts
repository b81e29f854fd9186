/**
 * One ECharts instance bound to a `<div>` for the life of a component (design §6: `echarts/core`,
 * each chart registering only the parts it draws with `use([...])`): created on mount with the
 * canvas renderer, resized with its container, disposed on unmount. `option` replaces the
 * chart's option whenever it changes (by identity: memoise it); `null` leaves the chart as it is.
 *
 *     const ref = useEChart(useMemo(() => buildOption(curve), [curve]));
 *     return <div ref={ref} className="power-chart" />;
 */
import { type EChartsCoreOption, type EChartsType, init } from 'echarts/core';
import { type RefObject, useEffect, useRef } from 'react';

export function useEChart(option: EChartsCoreOption | null): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<EChartsType | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const chart = init(el, undefined, { renderer: 'canvas' });
    chartRef.current = chart;
    const observer = new ResizeObserver(() => chart.resize());
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.dispose();
      chartRef.current = null;
    };
  }, []);

  useEffect(() => {
    if (option) chartRef.current?.setOption(option, { notMerge: true });
  }, [option]);

  return ref;
}
