/**
 * The time ranges of the history pickers, on the site's calendar: a picked day is a day of the
 * site (from its local midnight to the next, 23 or 25 hours on a daylight-saving day), whatever
 * zone the browser is in. Local midnights come from the contract (local-time.ts
 * `localDateStart`), the same rule as the server's daily rollups. Pure (unit-tested).
 */
import { addDays, localDateStart, localTimeOf, type TimeRange } from '@ess/contract';

export const RANGE_KINDS = ['day', 'week', 'month', 'year', 'custom'] as const;
export type RangeKind = (typeof RANGE_KINDS)[number];

/** `YYYY-MM-01` of the month after the one of `date` (`YYYY-MM-DD`). */
function nextMonthOf(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/**
 * The range of a preset around `date` (the picked day, `YYYY-MM-DD`) in the site's `timeZone`:
 * the day; the 7 days ending with it; its calendar month; its calendar year. Start inclusive,
 * end exclusive, UTC ms of local midnights.
 */
export function presetRange(kind: Exclude<RangeKind, 'custom'>, date: string, timeZone: string): TimeRange {
  const at = (d: string) => localDateStart(d, timeZone);
  switch (kind) {
    case 'day':
      return { startMs: at(date), endMs: at(addDays(date, 1)) };
    case 'week':
      return { startMs: at(addDays(date, -6)), endMs: at(addDays(date, 1)) };
    case 'month':
      return { startMs: at(`${date.slice(0, 8)}01`), endMs: at(nextMonthOf(date)) };
    case 'year':
      return { startMs: at(`${date.slice(0, 4)}-01-01`), endMs: at(`${Number(date.slice(0, 4)) + 1}-01-01`) };
  }
}

/** Whole site days `from`…`to` (`YYYY-MM-DD`, both included): from the first's local midnight to the one after the last. */
export function customRange(from: string, to: string, timeZone: string): TimeRange {
  return { startMs: localDateStart(from, timeZone), endMs: localDateStart(addDays(to, 1), timeZone) };
}

/** The site's date today (`YYYY-MM-DD`), the pickers' default. */
export function siteToday(timeZone: string, now = Date.now()): string {
  return localTimeOf(now, timeZone).date;
}
