/**
 * Rollup buckets computed in the server (telemetry-store.ts): 15-minute and hourly buckets
 * aligned to UTC (equal to PostgreSQL's `date_bin(…, TIMESTAMPTZ '2000-01-01Z')`, since 2000-01-01
 * is a multiple of both), and daily buckets starting at local midnight of the site's time zone
 * (equal to `date_trunc('day', ts AT TIME ZONE tz) AT TIME ZONE tz`, DST included: the contract's
 * `localDayStart`).
 */

import { localDayStart } from '@ess/contract';

/** Rollup bucket sizes in seconds: 15 min, 1 h, 1 day (site-local). */
export const ROLLUP_BUCKETS_S = [900, 3600, 86400] as const;

/** Start (UTC ms) of the bucket of `bucketS` seconds holding `ms`. */
export function bucketStart(bucketS: number, ms: number, tz: string): number {
  if (bucketS === 86400) return localDayStart(ms, tz);
  const size = bucketS * 1000;
  return Math.floor(ms / size) * size;
}
