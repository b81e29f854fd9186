/**
 * The ToU periods of one site-local day as instants (issue 17 item 3): what energy per tier is
 * measured over. The day's daily plan comes from contract tou/resolve.ts `resolveDay` (exception >
 * yearly > weekly > default), its periods are local wall-clock `[start, end)` (spec §5), turned into
 * UTC instants in the site's IANA zone:
 *
 * - a period's bound `HH:MM` on local date D is the instant the site's clock shows D HH:MM; the
 *   day's last bound (00:00 = midnight at the end) is the next local day's start, so a period may
 *   span 23 h or 25 h of real time around a daylight-saving change (Europe/Berlin 2026-03-29:
 *   the day is 23 h; 2026-10-25: 25 h) and the periods always cover the local day exactly;
 * - a bound inside the skipped hour (spring forward) falls on the instant the clock jumps, so a
 *   period wholly inside it is empty; a bound inside the repeated hour (fall back) is its first pass.
 */
import { addDays, localDateStart, zoneOffsetMs } from '../local-time';
import { resolveDay } from '../tou/resolve';
import { minutesOfDay, type TouSchemeDocument, type TouTier } from '../tou/scheme';

/** One period of a local day with its real bounds. */
export interface DayPeriod {
  /** UTC ms, inclusive. */
  startMs: number;
  /** UTC ms, exclusive. */
  endMs: number;
  /** Local wall-clock bounds, `HH:MM` (end 00:00 = midnight). */
  start: string;
  end: string;
  tier: TouTier | null;
  /** CNY/kWh; null when the period has none. */
  priceCnyPerKwh: number | null;
}

/** UTC ms at which the site's clock in `timeZone` shows `minuteOfDay` (0–1440) of local `date`. */
export function localInstant(date: string, minuteOfDay: number, timeZone: string): number {
  if (minuteOfDay <= 0) return localDateStart(date, timeZone);
  if (minuteOfDay >= 1440) return localDateStart(addDays(date, 1), timeZone);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d) + minuteOfDay * 60_000;
  const before = zoneOffsetMs(wall - 43_200_000, timeZone);
  const after = zoneOffsetMs(wall + 43_200_000, timeZone);
  // The instants that show `wall` (two in a repeated hour: the first is taken).
  const shown = [wall - before, wall - after]
    .filter((ms, i) => zoneOffsetMs(ms, timeZone) === (i === 0 ? before : after))
    .sort((a, b) => a - b);
  if (shown.length > 0) return shown[0]!;
  // Skipped hour: the instant the clock jumps (the first with the new offset), to the second.
  let lo = wall - before;
  let hi = wall - after;
  if (lo > hi) [lo, hi] = [hi, lo];
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneOffsetMs(mid, timeZone) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The periods of local `date` under `doc` in `timeZone` (see the module note), in time order.
 * Without a document, the whole day as one period without tier or price.
 */
export function dayPeriods(doc: TouSchemeDocument | null, date: string, timeZone: string): DayPeriod[] {
  const dayStart = localDateStart(date, timeZone);
  const dayEnd = localDateStart(addDays(date, 1), timeZone);
  if (!doc) {
    return [
      { startMs: dayStart, endMs: dayEnd, start: '00:00', end: '00:00', tier: null, priceCnyPerKwh: null },
    ];
  }
  const plan = resolveDay(doc, date).dailyPlan;
  return [...plan.periods]
    .sort((a, b) => minutesOfDay(a.start) - minutesOfDay(b.start))
    .map((p) => ({
      startMs: localInstant(date, minutesOfDay(p.start), timeZone),
      endMs: localInstant(date, minutesOfDay(p.end, true), timeZone),
      start: p.start,
      end: p.end,
      tier: p.tier,
      priceCnyPerKwh: p.priceCnyPerKwh,
    }));
}
