/**
 * Derives hour and site-local day rollups from the 15-minute ones (docs/architecture.md
 * "Telemetry store"), for the buckets a large ingest batch marked in `rollup_dirty` instead of
 * merging them itself (telemetry-store.ts `deferDerived`).
 *
 * Why: every batch merges into the 15-minute, hour and day bucket of each point it carries. Under
 * load many consecutive batches hit the same hour and day rows; deriving those once per pass, from
 * the 15-minute rows that hold all the data, writes each of them once instead of once per batch.
 *
 * A pass ({@link deriveRollups}) is one transaction:
 * 1. claims up to `limit` marked buckets (deleting them, `FOR UPDATE SKIP LOCKED`, in key order:
 *    a device's hours before its days). A key still locked by an ingest transaction that has not
 *    committed is skipped: its quarters are not visible yet, and it stays marked;
 * 2. recomputes each claimed hour from its four 15-minute rows, replacing what is stored;
 * 3. recomputes each claimed day from its hours when the day starts and ends on whole hours (every
 *    zone with a whole-hour offset), else from its 15-minute rows (UTC+5:30, +5:45, …). The hours
 *    of a day are claimed before it, so they are current; an hour left marked (skipped as locked)
 *    belongs to a batch that also marks its day after this pass, so the day is derived again.
 * Recomputing (count and sum add up, min, max, first by earliest time, last by latest) equals
 * merging every raw value into the bucket, whatever mix of merged and deferred batches came before.
 * A crash before the commit leaves the buckets marked for the next pass.
 *
 * The ingest pipeline runs passes after deferred batches (devices/ingest.ts); a pass at start
 * picks up what a crash left. Any instance may run a pass at any time.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

/** Marked buckets taken by one pass. */
export const DERIVE_BATCH = 2_000;

const HOUR_MS = 3_600_000;

interface Claimed {
  d: number;
  b: number;
  s: number;
  e: number;
}

/**
 * One derivation pass (see the module comment): answers how many marked buckets it derived; fewer
 * than `limit` means none was left (but those locked by running batches).
 */
export async function deriveRollups(db: Db, limit = DERIVE_BATCH): Promise<number> {
  return db.transaction(async (tx) => {
    const claimed = rowsOf<Claimed>(
      await tx.execute(sql`
        DELETE FROM rollup_dirty k
        USING (SELECT device_id, bucket_s, bucket_start FROM rollup_dirty
               ORDER BY device_id, bucket_s, bucket_start
               LIMIT ${limit} FOR UPDATE SKIP LOCKED) c
        WHERE k.device_id = c.device_id AND k.bucket_s = c.bucket_s AND k.bucket_start = c.bucket_start
        RETURNING k.device_id AS d, k.bucket_s AS b,
                  (extract(epoch FROM k.bucket_start) * 1000)::float8 AS s,
                  (extract(epoch FROM k.bucket_end) * 1000)::float8 AS e`),
    ).map((r) => ({
      d: Number(r.d),
      b: Number(r.b),
      s: Math.round(Number(r.s)),
      e: Math.round(Number(r.e)),
    }));
    if (claimed.length === 0) return 0;
    const hours = claimed.filter((k) => k.b === 3600);
    // A day made of whole hours is summed from its (just derived) hours, else from its quarters.
    const days = claimed
      .filter((k) => k.b === 86400)
      .map((k) => ({ ...k, src: k.s % HOUR_MS === 0 && k.e % HOUR_MS === 0 ? 3600 : 900 }));
    if (hours.length > 0)
      await recompute(
        tx,
        3600,
        hours.map((k) => ({ ...k, src: 900 })),
      );
    if (days.length > 0) await recompute(tx, 86400, days);
    return claimed.length;
  });
}

/**
 * Replaces the `bucketS` rollups of `keys` (device, [s, e)) by the aggregate of their `src`
 * rollups, every point; rows written in the table's key order (device, bucket, point, start).
 */
async function recompute(
  tx: Pick<Db, 'execute'>,
  bucketS: 3600 | 86400,
  keys: (Claimed & { src: number })[],
): Promise<void> {
  await tx.execute(sql`
    INSERT INTO telemetry_rollup AS r
      (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
    SELECT q.device_id, ${bucketS}, to_timestamp(k.s / 1000.0), q.point, sum(q.n)::int, sum(q.sum),
           min(q.min), max(q.max), min(q.first_ts), (array_agg(q.first_value ORDER BY q.first_ts))[1],
           max(q.last_ts), (array_agg(q.last_value ORDER BY q.last_ts DESC))[1]
    FROM unnest(${`{${keys.map((k) => k.d).join(',')}}`}::int[],
                ${`{${keys.map((k) => k.src).join(',')}}`}::int[],
                ${`{${keys.map((k) => k.s).join(',')}}`}::float8[],
                ${`{${keys.map((k) => k.e).join(',')}}`}::float8[]) AS k(d, src, s, e)
    JOIN telemetry_rollup q
      ON q.device_id = k.d AND q.bucket_s = k.src
     AND q.bucket_start >= to_timestamp(k.s / 1000.0) AND q.bucket_start < to_timestamp(k.e / 1000.0)
    GROUP BY q.device_id, k.s, q.point
    ORDER BY q.device_id, q.point, k.s
    ON CONFLICT (device_id, bucket_s, point, bucket_start) DO UPDATE SET
      n = EXCLUDED.n, sum = EXCLUDED.sum, min = EXCLUDED.min, max = EXCLUDED.max,
      first_ts = EXCLUDED.first_ts, first_value = EXCLUDED.first_value,
      last_ts = EXCLUDED.last_ts, last_value = EXCLUDED.last_value`);
}
