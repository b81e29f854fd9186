/**
 * One ECharts instance bound to a `<div>` for the life of a component (design §6: `echarts/core`,
 * each chart registering only the parts it draws with `use([...])`): created on mount with the
 * canvas renderer, resized with its container, disposed on unmount. `option` replaces the
 * chart's option whenever it changes (by identity: memoise it); `null` leaves the chart as it is.
 *
 *     const ref = useEChart(useMemo(() => buildOption(curve), [curve]));
 *     return <div ref={ref} className="power-chart" />;
 *
 * `events` maps ECharts event names (e.g. 'datazoom') to handlers given the chart; the latest
 * handlers are called, so they need not be memoised.
 */
import { type EChartsCoreOption, type EChartsType, init } from 'echarts/core';
import { type RefObject, useEffect, useRef } from 'react';

export type EChartEvents = Partial<Record<string, (chart: EChartsType) => void>>;

export function useEChart(
  option: EChartsCoreOption | null,
  events?: EChartEvents,
): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<EChartsType | null>(null);
  const eventsRef = useRef(events);
  eventsRef.current = events;
  const eventNames = Object.keys(events ?? {})
    .sort()
    .join(',');

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
    const chart = chartRef.current;
    if (!chart || !eventNames) return;
    const handlers = eventNames
      .split(',')
      .map((name) => [name, () => eventsRef.current?.[name]?.(chart)] as const);
    for (const [name, handler] of handlers) chart.on(name, handler);
    return () => {
      if (!chart.isDisposed()) for (const [name, handler] of handlers) chart.off(name, handler);
    };
  }, [eventNames]);

  useEffect(() => {
    if (option) chartRef.current?.setOption(option, { notMerge: true });
  }, [option]);

  return ref;
}
