/**
 * Rollup buckets computed in the server (telemetry-store.ts): 15-minute and hourly buckets
 * aligned to UTC (equal to PostgreSQL's `date_bin(…, TIMESTAMPTZ '2000-01-01Z')`, since 2000-01-01
 * is a multiple of both), and daily buckets starting at local midnight of the site's time zone
 * (equal to `date_trunc('day', ts AT TIME ZONE tz) AT TIME ZONE tz`, DST included).
 */

import { localPartsOf, zoneOffsetMs } from '@ess/contract';

/** Rollup bucket sizes in seconds: 15 min, 1 h, 1 day (site-local). */
export const ROLLUP_BUCKETS_S = [900, 3600, 86400] as const;

const dayCache = new Map<string, number>();

/** UTC ms of local midnight, in `tz`, of the day holding instant `ms`. */
export function localDayStart(tz: string, ms: number): number {
  const p = localPartsOf(ms, tz);
  const key = `${tz}|${p.year}-${p.month}-${p.day}`;
  const cached = dayCache.get(key);
  if (cached !== undefined) return cached;
  const wallMidnight = Date.UTC(p.year, p.month - 1, p.day);
  let start = wallMidnight - zoneOffsetMs(wallMidnight, tz);
  start = wallMidnight - zoneOffsetMs(start, tz); // the offset at midnight itself (DST days)
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
