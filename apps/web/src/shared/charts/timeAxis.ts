/**
 * The one way the console draws a time axis (issue 14 item 5): real instants (UTC ms) on an
 * ECharts `time` axis, ticks at round local times of the screen's zone (./timeTicks.ts, given
 * to ECharts as `customValues`) and every label and tooltip time formatted in that zone by
 * shared/format. So a Shanghai site's "today" reads 00:00–24:00 Shanghai time in a browser in
 * UTC, and a daylight-saving day shows its 23 or 25 hours.
 *
 *     xAxis: { ...zonedTimeAxis(start, end, timeZone, { color: '#8fb3e8' }), splitLine: { show: false } },
 *     tooltip: { formatter: (…) => formatTime(ts, timeZone) … },
 *
 * A chart that zooms calls {@link zonedTimeLabels} again for the visible window.
 */
import { localDayStart, localPartsOf } from '@ess/contract';
import { formatMonthDay, formatTime, formatYearMonth } from '../format';
import { type TickUnit, zonedTicks } from './timeTicks';

/** Ticks and their label formatter for one window of a time axis. */
export interface ZonedTimeLabels {
  customValues: number[];
  formatter: (value: number) => string;
}

/** Text of a tick of `unit` in `timeZone`; `dates`: midnights of a multi-day axis show the date. */
function tickLabel(value: number, unit: TickUnit, timeZone: string, dates: boolean): string {
  switch (unit) {
    case 'second':
      return formatTime(value, timeZone, true);
    case 'minute':
    case 'hour':
      return dates && localDayStart(value, timeZone) === value
        ? formatMonthDay(value, timeZone)
        : formatTime(value, timeZone, false);
    case 'day':
      return formatMonthDay(value, timeZone);
    case 'month':
      return formatYearMonth(value, timeZone);
    case 'year':
      return String(localPartsOf(value, timeZone).year);
  }
}

/**
 * Ticks at round local times of `timeZone` in [`min`, `max`] and a formatter for them: times of
 * day (with seconds below a minute's step), dates at the midnights of an axis longer than a
 * day, dates for day steps, months for month steps.
 */
export function zonedTimeLabels(min: number, max: number, timeZone: string, maxTicks = 8): ZonedTimeLabels {
  const { ticks, unit } = zonedTicks(min, max, timeZone, maxTicks);
  // A window of one local day (today's curve: 23–25 h) labels its midnights 00:00, not the date.
  const dates = max - min > 26 * 3_600_000;
  return { customValues: ticks, formatter: (value) => tickLabel(value, unit, timeZone, dates) };
}

/** Style of the axis labels (colour, size) merged into the axis's `axisLabel`. */
export interface AxisLabelStyle {
  color?: string;
  fontSize?: number;
}

/**
 * The x axis of a chart over [`min`, `max`] (UTC ms) in `timeZone`: type `time`, the range, ticks
 * and labels from {@link zonedTimeLabels} (overlapping labels hidden). Spread into `xAxis` and
 * add lines and split lines as the chart needs.
 */
export function zonedTimeAxis(
  min: number,
  max: number,
  timeZone: string,
  style: AxisLabelStyle = {},
  maxTicks = 8,
) {
  const { customValues, formatter } = zonedTimeLabels(min, max, timeZone, maxTicks);
  return {
    type: 'time' as const,
    min,
    max,
    axisTick: { customValues },
    axisLabel: { ...style, customValues, formatter, hideOverlap: true },
  };
}
