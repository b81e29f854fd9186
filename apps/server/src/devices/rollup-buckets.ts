/**
 * Rollup buckets computed in the server (telemetry-store.ts): 15-minute and hourly buckets
 * aligned to UTC (equal to PostgreSQL's `date_bin(…, TIMESTAMPTZ '2000-01-01Z')`, since 2000-01-01
 * is a multiple of both), and daily buckets starting at local midnight of the site's time zone
 * (equal to `date_trunc('day', ts AT TIME ZONE tz) AT TIME ZONE tz`, DST included).
 */

/** Rollup bucket sizes in seconds: 15 min, 1 h, 1 day (site-local). */
export const ROLLUP_BUCKETS_S = [900, 3600, 86400] as const;

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(
  tz: string,
  ms: number,
): { y: number; m: number; d: number; h: number; min: number; s: number } {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, min: p.minute!, s: p.second! };
}

/** Offset of `tz` from UTC at instant `ms`, in ms (local − UTC). */
function offsetMs(tz: string, ms: number): number {
  const p = partsIn(tz, ms);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s) - Math.floor(ms / 1000) * 1000;
}

const dayCache = new Map<string, number>();

/** UTC ms of local midnight, in `tz`, of the day holding instant `ms`. */
export function localDayStart(tz: string, ms: number): number {
  const p = partsIn(tz, ms);
  const key = `${tz}|${p.y}-${p.m}-${p.d}`;
  const cached = dayCache.get(key);
  if (cached !== undefined) return cached;
  const wallMidnight = Date.UTC(p.y, p.m - 1, p.d);
  let start = wallMidnight - offsetMs(tz, wallMidnight);
  start = wallMidnight - offsetMs(tz, start); // the offset at midnight itself (DST days)
  if (dayCache.size > 10_000) dayCache.clear();
  dayCache.set(key, start);
  return start;
}

/** Start (UTC ms) of the bucket of `bucketS` seconds holding `ms`. */
export function bucketStart(bucketS: number, ms: number, tz: string): number {
  if (bucketS === 86400) return localDayStart(tz, ms);
  const size = bucketS * 1000;
  return Math.floor(ms / size) * size;
}
