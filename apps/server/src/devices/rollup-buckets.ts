/**
 * Rollup buckets computed in the server (telemetry-store.ts): 15-minute and hourly buckets
 * aligned to UTC (equal to PostgreSQL's `date_bin(…, TIMESTAMPTZ '2000-01-01Z')`, since 2000-01-01
 * is a multiple of both), and daily buckets starting at local midnight of the site's time zone
 * (equal to `date_trunc('day', ts AT TIME ZONE tz) AT TIME ZONE tz`, DST included: the contract's
 * `localDayStart`).
 *
 * {@link aggregateBuckets} folds a batch's raw rows into 15-minute buckets and derives the hour
 * and day buckets from those (docs/architecture.md "Telemetry store"): an hour is four whole
 * quarters, and a site-local day is whole quarters too whenever its midnight falls on a quarter
 * (every UTC offset in use is a multiple of 15 minutes); a quarter that a day boundary cuts (old
 * local mean times) is split row by row, so the day buckets are exact either way.
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

/** A raw row as the rollups see it: a device's numeric points at one time (UTC ms). */
export interface BucketInput {
  deviceId: number;
  ts: number;
  points: Record<string, number>;
  /** The site's IANA zone (day buckets). */
  timezone: string;
}

/** One (device, bucket, point) aggregate: count, sum, min, max, first and last by time. */
export interface BucketAggregate {
  deviceId: number;
  bucketS: 900 | 3600 | 86400;
  /** Bucket start, UTC ms. */
  start: number;
  point: string;
  n: number;
  sum: number;
  min: number;
  max: number;
  firstTs: number;
  firstValue: number;
  lastTs: number;
  lastValue: number;
}

const QUARTER_MS = 900_000;
const HOUR_MS = 3_600_000;

/** Folds `from` into `into` (same device, bucket and point); first/last by time. */
function merge(into: BucketAggregate, from: BucketAggregate): void {
  into.n += from.n;
  into.sum += from.sum;
  if (from.min < into.min) into.min = from.min;
  if (from.max > into.max) into.max = from.max;
  if (from.firstTs < into.firstTs) [into.firstTs, into.firstValue] = [from.firstTs, from.firstValue];
  if (from.lastTs >= into.lastTs) [into.lastTs, into.lastValue] = [from.lastTs, from.lastValue];
}

/** Adds `a` to `map` under `key`, merging with what is there. */
function add(map: Map<string, BucketAggregate>, key: string, a: BucketAggregate): void {
  const cur = map.get(key);
  if (cur) merge(cur, a);
  else map.set(key, { ...a });
}

/**
 * The aggregate of a single value `v` of `point` measured at `ts` (UTC ms) in the bucket of
 * `bucketS` seconds starting at `start` (UTC ms): n 1, and sum, min, max, first and last all `v`.
 * A fresh object, which the caller may go on folding values into.
 */
function oneValue(
  deviceId: number,
  bucketS: BucketAggregate['bucketS'],
  start: number,
  point: string,
  ts: number,
  v: number,
): BucketAggregate {
  return {
    deviceId,
    bucketS,
    start,
    point,
    n: 1,
    sum: v,
    min: v,
    max: v,
    firstTs: ts,
    firstValue: v,
    lastTs: ts,
    lastValue: v,
  };
}

/**
 * The day start (UTC ms) of each quarter hour per zone, or null when a day boundary cuts the
 * quarter (old local mean times): one `Intl` lookup per zone and quarter instead of one per row.
 */
function quarterDays(): (q: number, tz: string) => number | null {
  const memo = new Map<string, number | null>();
  return (q, tz) => {
    const key = `${tz}|${q}`;
    let day = memo.get(key);
    if (day === undefined) {
      const first = localDayStart(q, tz);
      day = localDayStart(q + QUARTER_MS - 1, tz) === first ? first : null;
      memo.set(key, day);
    }
    return day;
  };
}

/**
 * The 15-minute, hour and site-local day aggregates of `rows` (non-finite values skipped), sorted
 * by the rollup table's key: device, bucket size, point, bucket start. Rows are expected unique
 * per (device, ts). Equal to aggregating every raw value into each of the three buckets. With
 * `quartersOnly` (a deferred batch, telemetry-store.ts) only the 15-minute aggregates.
 */
export function aggregateBuckets(
  rows: readonly BucketInput[],
  options: { quartersOnly?: boolean } = {},
): BucketAggregate[] {
  const quartersOnly = options.quartersOnly === true;
  /** Quarter aggregates by device and quarter, then by point (one string key per row, not per value). */
  const byQuarter = new Map<string, Map<string, BucketAggregate>>();
  const days = new Map<string, BucketAggregate>();
  const quarterDay = quarterDays();
  // A device's zone, and the devices whose rows in this batch name two zones (its site moved):
  // their days come from the rows themselves.
  const zoneOf = new Map<number, string>();
  const mixed = new Set<number>();
  for (const r of rows) {
    const zone = zoneOf.get(r.deviceId);
    if (zone === undefined) zoneOf.set(r.deviceId, r.timezone);
    else if (zone !== r.timezone) mixed.add(r.deviceId);
  }
  /** Quarters (device|quarter) that a day boundary cuts: their day buckets come from the rows themselves. */
  const cut = new Set<string>();
  for (const r of rows) {
    const q = Math.floor(r.ts / QUARTER_MS) * QUARTER_MS;
    const qKey = `${r.deviceId}|${q}`;
    let points = byQuarter.get(qKey);
    if (!points) {
      points = new Map();
      byQuarter.set(qKey, points);
    }
    const whole = quartersOnly || (!mixed.has(r.deviceId) && quarterDay(q, r.timezone) !== null);
    const day = whole ? 0 : localDayStart(r.ts, r.timezone);
    if (!whole) cut.add(qKey);
    for (const point in r.points) {
      const v = r.points[point]!;
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const cur = points.get(point);
      if (cur) {
        cur.n += 1;
        cur.sum += v;
        if (v < cur.min) cur.min = v;
        if (v > cur.max) cur.max = v;
        if (r.ts < cur.firstTs) [cur.firstTs, cur.firstValue] = [r.ts, v];
        if (r.ts >= cur.lastTs) [cur.lastTs, cur.lastValue] = [r.ts, v];
      } else {
        points.set(point, oneValue(r.deviceId, 900, q, point, r.ts, v));
      }
      if (!whole)
        add(days, `${r.deviceId}|${day}|${point}`, oneValue(r.deviceId, 86400, day, point, r.ts, v));
    }
  }
  const quarters: BucketAggregate[] = [];
  const hours = new Map<string, BucketAggregate>();
  for (const [qKey, points] of byQuarter) {
    for (const a of points.values()) {
      quarters.push(a);
      if (quartersOnly) continue;
      const hour = Math.floor(a.start / HOUR_MS) * HOUR_MS;
      add(hours, `${a.deviceId}|${hour}|${a.point}`, { ...a, bucketS: 3600, start: hour });
      if (cut.has(qKey)) continue;
      const day = quarterDay(a.start, zoneOf.get(a.deviceId)!)!;
      add(days, `${a.deviceId}|${day}|${a.point}`, { ...a, bucketS: 86400, start: day });
    }
  }
  const all = quartersOnly ? quarters : [...quarters, ...hours.values(), ...days.values()];
  return all.sort(
    (x, y) =>
      x.deviceId - y.deviceId ||
      x.bucketS - y.bucketS ||
      (x.point < y.point ? -1 : x.point > y.point ? 1 : 0) ||
      x.start - y.start,
  );
}

/** An hour or site-local day bucket of a device, [start, end) in UTC ms. */
export interface DerivedBucketKey {
  deviceId: number;
  bucketS: 3600 | 86400;
  start: number;
  end: number;
}

/**
 * The hour and site-local day buckets that `rows` fall in (devices/rollup-derive.ts derives them
 * from the 15-minute ones), sorted by device, bucket size and start (the table's key order). A
 * day ends at the next local midnight: 23 or 25 h after its start around a DST change.
 */
export function derivedBucketKeys(rows: readonly BucketInput[]): DerivedBucketKey[] {
  const keys = new Map<string, DerivedBucketKey>();
  const quarterDay = quarterDays();
  for (const r of rows) {
    const hour = Math.floor(r.ts / HOUR_MS) * HOUR_MS;
    const hk = `${r.deviceId}|3600|${hour}`;
    if (!keys.has(hk))
      keys.set(hk, { deviceId: r.deviceId, bucketS: 3600, start: hour, end: hour + HOUR_MS });
    const day =
      quarterDay(Math.floor(r.ts / QUARTER_MS) * QUARTER_MS, r.timezone) ?? localDayStart(r.ts, r.timezone);
    const dk = `${r.deviceId}|86400|${day}`;
    if (!keys.has(dk)) {
      // The next local day starts 23–25 h later; 30 h on is inside it whatever the DST change.
      const end = localDayStart(day + 30 * HOUR_MS, r.timezone);
      keys.set(dk, { deviceId: r.deviceId, bucketS: 86400, start: day, end });
    }
  }
  return [...keys.values()].sort(
    (x, y) => x.deviceId - y.deviceId || x.bucketS - y.bucketS || x.start - y.start,
  );
}
