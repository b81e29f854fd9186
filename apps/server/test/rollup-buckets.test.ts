import { localDayStart } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  aggregateBuckets,
  type BucketInput,
  bucketStart,
  ROLLUP_BUCKETS_S,
} from '../src/devices/rollup-buckets';

describe('rollup buckets', () => {
  it('15-minute and hourly buckets align to UTC', () => {
    const ts = Date.UTC(2026, 10, 21, 14, 37, 12, 345);
    expect(bucketStart(900, ts, 'Asia/Shanghai')).toBe(Date.UTC(2026, 10, 21, 14, 30));
    expect(bucketStart(3600, ts, 'Asia/Shanghai')).toBe(Date.UTC(2026, 10, 21, 14, 0));
  });

  it('a day starts at local midnight of the site (Shanghai is UTC+8)', () => {
    // 2026-11-21 22:37 in Shanghai → the day began 2026-11-21 00:00 local = 11-20 16:00 UTC.
    expect(localDayStart(Date.UTC(2026, 10, 21, 14, 37), 'Asia/Shanghai')).toBe(
      Date.UTC(2026, 10, 20, 16, 0),
    );
    // 2026-11-22 00:30 in Shanghai → that day's midnight.
    expect(localDayStart(Date.UTC(2026, 10, 21, 16, 30), 'Asia/Shanghai')).toBe(
      Date.UTC(2026, 10, 21, 16, 0),
    );
  });

  it('follows daylight saving time: Berlin’s 2026-03-29 starts at UTC+1, the next day at UTC+2', () => {
    expect(localDayStart(Date.UTC(2026, 2, 29, 12, 0), 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 28, 23, 0));
    expect(localDayStart(Date.UTC(2026, 2, 30, 12, 0), 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 29, 22, 0));
    // 2026-10-25 23:30 UTC is 00:30 on 10-26 in Berlin (back on UTC+1 since that morning).
    expect(bucketStart(86400, Date.UTC(2026, 9, 25, 23, 30), 'Europe/Berlin')).toBe(
      Date.UTC(2026, 9, 25, 23, 0),
    );
  });
});

/** Every raw value into each of the three buckets, one by one: what the derived aggregates must equal. */
function naive(rows: BucketInput[]) {
  const out = new Map<
    string,
    { n: number; sum: number; min: number; max: number; first: [number, number]; last: [number, number] }
  >();
  for (const r of rows) {
    for (const b of ROLLUP_BUCKETS_S) {
      const start = bucketStart(b, r.ts, r.timezone);
      for (const [point, v] of Object.entries(r.points)) {
        if (!Number.isFinite(v)) continue;
        const key = `${r.deviceId}|${b}|${start}|${point}`;
        const cur = out.get(key);
        if (!cur) {
          out.set(key, { n: 1, sum: v, min: v, max: v, first: [r.ts, v], last: [r.ts, v] });
          continue;
        }
        cur.n++;
        cur.sum += v;
        cur.min = Math.min(cur.min, v);
        cur.max = Math.max(cur.max, v);
        if (r.ts < cur.first[0]) cur.first = [r.ts, v];
        if (r.ts >= cur.last[0]) cur.last = [r.ts, v];
      }
    }
  }
  return out;
}

describe('aggregateBuckets: hours and days derived from the quarters', () => {
  const check = (rows: BucketInput[]) => {
    const derived = aggregateBuckets(rows);
    const expected = naive(rows);
    expect(derived).toHaveLength(expected.size);
    for (const a of derived) {
      const e = expected.get(`${a.deviceId}|${a.bucketS}|${a.start}|${a.point}`);
      expect(e, `${a.deviceId} ${a.bucketS} ${a.start} ${a.point}`).toBeDefined();
      expect([a.n, a.min, a.max, a.firstTs, a.firstValue, a.lastTs, a.lastValue]).toEqual([
        e!.n,
        e!.min,
        e!.max,
        ...e!.first,
        ...e!.last,
      ]);
      expect(a.sum).toBeCloseTo(e!.sum, 9);
    }
    // sorted by the table's key: device, bucket size, point, start
    const keys = derived.map((a) => [a.deviceId, a.bucketS, a.point, a.start] as const);
    const sorted = [...keys].sort(
      (x, y) => x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0) || x[3] - y[3],
    );
    expect(keys).toEqual(sorted);
  };
  const minute = 60_000;
  const series = (deviceId: number, timezone: string, from: number, count: number, step = 7 * minute) =>
    Array.from({ length: count }, (_, i) => ({
      deviceId,
      timezone,
      ts: from + i * step,
      points: { p_kw: Math.sin(i) * 50, soc_pct: 40 + (i % 17), ...(i % 5 ? {} : { bad: Number.NaN }) },
    }));

  it('equals per-value aggregation across hours, days, zones with :30/:45 offsets and a DST change', () => {
    check([
      ...series(1, 'Asia/Shanghai', Date.UTC(2026, 10, 20, 10, 3), 400),
      ...series(2, 'Asia/Kathmandu', Date.UTC(2026, 10, 20, 17, 59), 300),
      ...series(3, 'America/St_Johns', Date.UTC(2026, 10, 1, 0, 0), 300),
      ...series(4, 'Europe/Berlin', Date.UTC(2026, 2, 28, 18, 1), 300, 11 * minute),
    ]);
  });

  it('a quarter cut by a local midnight (a zone’s old local mean time) is split row by row', () => {
    // Shanghai kept LMT (UTC+8:05:43) until 1901: local midnight is not on a quarter.
    check(series(5, 'Asia/Shanghai', Date.UTC(1899, 5, 1, 15, 40), 40, minute));
  });

  it('quartersOnly (a deferred batch) answers exactly the 15-minute aggregates of the full fold', () => {
    const rows = [
      ...series(1, 'Asia/Shanghai', Date.UTC(2026, 10, 20, 10, 3), 200),
      ...series(4, 'Europe/Berlin', Date.UTC(2026, 2, 28, 18, 1), 150, 11 * minute),
      ...series(5, 'Asia/Shanghai', Date.UTC(1899, 5, 1, 15, 40), 40, minute),
    ];
    const quarters = aggregateBuckets(rows, { quartersOnly: true });
    expect(quarters.length).toBeGreaterThan(0);
    expect(quarters).toEqual(aggregateBuckets(rows).filter((a) => a.bucketS === 900));
  });

  it('a device whose zone changes inside the batch (its site moved) gets the days of each row', () => {
    check([
      ...series(6, 'Asia/Shanghai', Date.UTC(2026, 10, 20, 15, 0), 20, 5 * minute),
      ...series(6, 'Europe/Berlin', Date.UTC(2026, 10, 20, 16, 41), 20, 5 * minute),
    ]);
  });
});
