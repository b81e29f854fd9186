/**
 * Ticks of a time axis at round local times of a zone (a site's, or a fleet view's time base),
 * whatever zone the browser is in. ECharts places time-axis ticks in the browser's zone (or UTC)
 * and has no zone option, so the console's time axes keep the real instants on the axis and
 * take their ticks from here (`customValues`) and their labels from shared/charts/timeAxis.ts.
 *
 * Local times come from the contract's one conversion (local-time.ts), so daylight-saving days
 * come out right: a 25-hour day has 25 hourly ticks (the repeated hour twice), a 23-hour day
 * skips the missing one. Pure: no browser, no i18n (unit-tested in apps/web/test).
 */
import { addDays, localDateStart, localPartsOf, localTimeOf, zoneOffsetMs } from '@ess/contract';

/** The calendar unit of a tick step, which decides how its label reads. */
export type TickUnit = 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';

/** Ticks (UTC ms, ascending, within the range) and the unit of their step. */
export interface ZonedTicks {
  ticks: number[];
  unit: TickUnit;
  /** Steps of `unit` between two ticks (e.g. 3 for every 3 hours). */
  step: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Candidate steps, finest first: unit, count, approximate length (ms). */
const STEPS: ReadonlyArray<readonly [TickUnit, number, number]> = [
  ...[1, 5, 10, 15, 30].map((n) => ['second', n, n * SECOND] as const),
  ...[1, 2, 5, 10, 15, 30].map((n) => ['minute', n, n * MINUTE] as const),
  ...[1, 2, 3, 4, 6, 12].map((n) => ['hour', n, n * HOUR] as const),
  ...[1, 2, 5, 10, 15].map((n) => ['day', n, n * DAY] as const),
  ...[1, 2, 3, 6].map((n) => ['month', n, n * 30.44 * DAY] as const),
  ...[1, 2, 5, 10].map((n) => ['year', n, n * 365.25 * DAY] as const),
];

/** Days in the month of `YYYY-MM-DD`. */
function daysInMonth(date: string): number {
  return new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 0)).getUTCDate();
}

/** `YYYY-MM-01` of the month after the one of `date`. */
function nextMonth(date: string): string {
  return addDays(`${date.slice(0, 8)}01`, daysInMonth(date));
}

/** Ticks under a day: local times whose seconds since midnight are a multiple of the step. */
function subDayTicks(min: number, max: number, timeZone: string, unit: TickUnit, n: number): number[] {
  const out: number[] = [];
  if (unit !== 'hour') {
    // Steps up to 30 minutes divide every offset change (whole or half hours), so the local
    // grid is the UTC grid shifted by the offset at the start, across daylight-saving changes too.
    const size = n * (unit === 'second' ? SECOND : MINUTE);
    const offset = zoneOffsetMs(min, timeZone);
    for (let t = Math.ceil((min + offset) / size) * size - offset; t <= max; t += size) out.push(t);
    return out;
  }
  // Whole hours: every quarter hour is a candidate (zones are offset by whole quarter hours).
  const quarter = 15 * MINUTE;
  for (let t = Math.ceil(min / quarter) * quarter; t <= max; t += quarter) {
    const p = localPartsOf(t, timeZone);
    if (p.minute === 0 && p.second === 0 && p.hour % n === 0) out.push(t);
  }
  return out;
}

/** Local midnights of days (every `n`th day of the month), months (every `n`th) or years. */
function calendarTicks(min: number, max: number, timeZone: string, unit: TickUnit, n: number): number[] {
  const out: number[] = [];
  let date = localTimeOf(min, timeZone).date;
  if (unit !== 'day') date = unit === 'month' ? `${date.slice(0, 8)}01` : `${date.slice(0, 5)}01-01`;
  for (let start = localDateStart(date, timeZone); start <= max; start = localDateStart(date, timeZone)) {
    const year = Number(date.slice(0, 4));
    const month = Number(date.slice(5, 7));
    const day = Number(date.slice(8, 10));
    const keep =
      unit === 'day'
        ? // Every nth day of the month, but not a last one crowding the next month's first.
          (day - 1) % n === 0 && (n === 1 || day <= daysInMonth(date) - n / 2 + 1)
        : unit === 'month'
          ? (month - 1) % n === 0
          : year % n === 0;
    if (keep && start >= min) out.push(start);
    date = unit === 'day' ? addDays(date, 1) : unit === 'month' ? nextMonth(date) : `${year + 1}-01-01`;
  }
  return out;
}

/**
 * Ticks at round local times of `timeZone` in [`min`, `max`] (UTC ms): the finest step that
 * gives at most `maxTicks` intervals over the range — seconds, minutes, hours (at local whole
 * hours), days (local midnights), months (the 1st), years.
 */
export function zonedTicks(min: number, max: number, timeZone: string, maxTicks = 8): ZonedTicks {
  const span = Math.max(0, max - min);
  const [unit, step] = STEPS.find(([, , ms]) => span / ms <= maxTicks) ?? STEPS[STEPS.length - 1]!;
  const ticks =
    unit === 'second' || unit === 'minute' || unit === 'hour'
      ? subDayTicks(min, max, timeZone, unit, step)
      : calendarTicks(min, max, timeZone, unit, step);
  return { ticks, unit, step };
}
