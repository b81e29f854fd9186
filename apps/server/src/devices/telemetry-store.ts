/**
 * Writes a batch of ingested messages in one transaction (docs/architecture.md "Telemetry
 * store"):
 *
 * 1. raw rows into `telemetry` (PRIMARY KEY (device_id, ts): a QoS 1 redelivery is skipped);
 * 2. for the rows actually inserted, every numeric point into `telemetry_rollup` at 15 min,
 *    1 h and site-local 1 day buckets: aggregated here per (device, bucket, point) — the batch's
 *    15-minute aggregates first, the hour and day ones derived from those (rollup-buckets.ts) —
 *    then merged with what is stored (count/sum/min/max/first/last), so late and out-of-order
 *    data keep the rollups exact. With `deferDerived` (large batches under load) only the
 *    15-minute buckets are merged and the batch's hour and day buckets are marked in
 *    `rollup_dirty`, in this transaction; devices/rollup-derive.ts recomputes them from the
 *    15-minute ones later, once for many batches;
 * 3. `device_latest` merged per device (newer values win, older ones only fill gaps);
 * 4. alarm events (idempotent on gateway + message id + index) and the alarms they raise or
 *    clear (alarm-lifecycle.ts); an alarm raised by an event of a gateway's past (`history`,
 *    ingest.ts `acceptHistory`) is not news: it is stored as already notified (`notify_state`
 *    done), so alarm mail (jobs/alarm-mail.ts) leaves it alone;
 * 5. gateways' `last_seen_at`.
 *
 * A message the database refuses for a reason in its data is kept apart by the ingest
 * (devices/ingest.ts) and stored by {@link storeDeadLetters} in `device_dead_letter`.
 *
 * All statements are plain SQL shared by PGlite and PostgreSQL. Raw rows and rollups travel as
 * array parameters read with `unnest` (cheaper to parse than JSON records) — the raw rows' points
 * as one JSON array zipped with their ids and times (`ROWS FROM`), which spares escaping every
 * point set into an array literal — the rest as one JSON parameter each, so a batch costs at most
 * seven statements whatever its size. Every statement
 * takes its rows in one order (device, then time or rollup key), so two transactions writing the
 * same devices (instances sharing a subscription) queue on each other's row locks instead of
 * deadlocking.
 */
import { cleanDeviceText } from '@ess/contract';
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { deviceDeadLetter } from '../core/db/schema';
import {
  applyAlarmEvents,
  type StoredEvent as LifecycleEvent,
  type EventRow as LifecycleEventRow,
} from './alarm-lifecycle';

/** An alarm event to store; `history`: from a gateway's past (module comment, step 4). */
export type EventRow = LifecycleEventRow & { history?: true };
/** An event once stored, with its id. */
export type StoredEvent = LifecycleEvent & { history?: true };

import { aggregateBuckets, derivedBucketKeys } from './rollup-buckets';

export interface TelemetryRow {
  deviceId: number;
  /** Device time, UTC ms. */
  ts: number;
  points: Record<string, number>;
  /** The site's IANA time zone (day buckets). */
  timezone: string;
  cells?: { u_v?: number[]; t_c?: number[] } | undefined;
}

export interface BatchResult {
  /** Raw rows newly stored (redeliveries excluded). */
  insertedRows: number;
  /** Events newly stored. */
  events: StoredEvent[];
}

export interface StoreOptions {
  /**
   * Merge only the 15-minute rollups and mark the batch's hour and day buckets in `rollup_dirty`
   * for devices/rollup-derive.ts to derive later (module comment, step 2). The ingest asks for it
   * on large batches; the default merges all three at once.
   */
  deferDerived?: boolean;
}

/** Stores one batch; see the module comment. Rows must be unique per (deviceId, ts). */
export async function storeBatch(
  db: Db,
  rows: TelemetryRow[],
  events: EventRow[],
  seenGateways: Map<number, number>,
  options: StoreOptions = {},
): Promise<BatchResult> {
  // One order for every statement (device, then time; rollups by their key): two transactions
  // that write the same devices (two instances sharing a broker subscription) take their row
  // locks in the same order instead of deadlocking.
  const sorted = [...rows].sort((a, b) => a.deviceId - b.deviceId || a.ts - b.ts);
  return db.transaction(async (tx) => {
    let insertedRows = 0;
    if (sorted.length > 0) {
      // One row back (count, and the keys inserted as one JSON text) rather than a row per
      // insert: reading 2,000 result rows costs more than the insert on PGlite.
      const [result] = rowsOf<{ n: number; k: string | [number, number][] | null }>(
        await tx.execute(sql`
          WITH ins AS (
            INSERT INTO telemetry (device_id, ts, points)
            SELECT d, to_timestamp(t / 1000.0), p
            FROM ROWS FROM (unnest(${intArray(sorted.map((r) => r.deviceId))}::int[]),
                            unnest(${floatArray(sorted.map((r) => r.ts))}::float8[]),
                            jsonb_array_elements(${JSON.stringify(sorted.map((r) => r.points))}::jsonb)) AS x(d, t, p)
            ON CONFLICT DO NOTHING
            RETURNING device_id, ts)
          SELECT count(*)::int AS n,
                 json_agg(json_build_array(device_id, (extract(epoch FROM ts) * 1000)::float8))::text AS k
          FROM ins`),
      );
      insertedRows = Number(result?.n ?? 0);
      // Only rows actually inserted feed the rollups (a redelivery must not count twice).
      let fresh = sorted;
      if (insertedRows < sorted.length) {
        const keys = new Set(
          (typeof result?.k === 'string'
            ? (JSON.parse(result.k) as [number, number][])
            : (result?.k ?? [])
          ).map(([d, t]) => `${Number(d)}/${Math.round(Number(t))}`),
        );
        fresh = sorted.filter((r) => keys.has(`${r.deviceId}/${r.ts}`));
      }
      const rollups = aggregateRollups(fresh, options.deferDerived === true);
      if (rollups.d.length > 0) {
        await tx.execute(sql`
          INSERT INTO telemetry_rollup AS r
            (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
          SELECT d, b, to_timestamp(s / 1000.0), p, n, sm, mn, mx, to_timestamp(ft / 1000.0), fv,
                 to_timestamp(lt / 1000.0), lv
          FROM unnest(${intArray(rollups.d)}::int[], ${intArray(rollups.b)}::int[],
                      ${floatArray(rollups.s)}::float8[], ${textArray(rollups.p)}::text[],
                      ${intArray(rollups.n)}::int[], ${floatArray(rollups.sum)}::float8[],
                      ${floatArray(rollups.min)}::float8[], ${floatArray(rollups.max)}::float8[],
                      ${floatArray(rollups.ft)}::float8[], ${floatArray(rollups.fv)}::float8[],
                      ${floatArray(rollups.lt)}::float8[], ${floatArray(rollups.lv)}::float8[])
               AS x(d, b, s, p, n, sm, mn, mx, ft, fv, lt, lv)
          ON CONFLICT (device_id, bucket_s, point, bucket_start) DO UPDATE SET
            n = r.n + EXCLUDED.n,
            sum = r.sum + EXCLUDED.sum,
            min = LEAST(r.min, EXCLUDED.min),
            max = GREATEST(r.max, EXCLUDED.max),
            first_value = CASE WHEN EXCLUDED.first_ts < r.first_ts THEN EXCLUDED.first_value ELSE r.first_value END,
            first_ts = LEAST(r.first_ts, EXCLUDED.first_ts),
            last_value = CASE WHEN EXCLUDED.last_ts >= r.last_ts THEN EXCLUDED.last_value ELSE r.last_value END,
            last_ts = GREATEST(r.last_ts, EXCLUDED.last_ts)`);
      }
      if (options.deferDerived && fresh.length > 0) {
        // DO UPDATE rather than DO NOTHING: it locks the key until this batch commits, so a
        // derivation that claims keys (SKIP LOCKED) cannot claim it and miss this batch's quarters.
        const keys = derivedBucketKeys(fresh);
        await tx.execute(sql`
          INSERT INTO rollup_dirty AS k (device_id, bucket_s, bucket_start, bucket_end)
          SELECT d, b, to_timestamp(s / 1000.0), to_timestamp(e / 1000.0)
          FROM unnest(${intArray(keys.map((k) => k.deviceId))}::int[], ${intArray(keys.map((k) => k.bucketS))}::int[],
                      ${floatArray(keys.map((k) => k.start))}::float8[], ${floatArray(keys.map((k) => k.end))}::float8[])
               AS x(d, b, s, e)
          ON CONFLICT (device_id, bucket_s, bucket_start) DO UPDATE SET bucket_end = EXCLUDED.bucket_end`);
      }

      const latest = JSON.stringify(mergeLatest(sorted));
      await tx.execute(sql`
        INSERT INTO device_latest AS l (device_id, ts, points, cells, cells_ts)
        SELECT (r->>'d')::int, to_timestamp((r->>'t')::float8 / 1000.0), r->'p',
               r->'c', CASE WHEN r ? 'c' THEN to_timestamp((r->>'ct')::float8 / 1000.0) END
        FROM jsonb_array_elements(${latest}::jsonb) AS r
        ON CONFLICT (device_id) DO UPDATE SET
          points = CASE WHEN EXCLUDED.ts >= l.ts THEN l.points || EXCLUDED.points ELSE EXCLUDED.points || l.points END,
          ts = GREATEST(l.ts, EXCLUDED.ts),
          cells = CASE WHEN EXCLUDED.cells IS NOT NULL AND (l.cells_ts IS NULL OR EXCLUDED.cells_ts >= l.cells_ts)
                       THEN EXCLUDED.cells ELSE l.cells END,
          cells_ts = CASE WHEN EXCLUDED.cells IS NOT NULL AND (l.cells_ts IS NULL OR EXCLUDED.cells_ts >= l.cells_ts)
                          THEN EXCLUDED.cells_ts ELSE l.cells_ts END`);
    }

    let stored: StoredEvent[] = [];
    if (events.length > 0) {
      const input = JSON.stringify(events);
      const result = await tx.execute(sql`
        INSERT INTO alarm_event (company_id, site_id, device_id, gateway_id, msg_id, msg_index, ts, kind, code, level, content, value)
        SELECT (e->>'companyId')::int, (e->>'siteId')::int, (e->>'deviceId')::int, (e->>'gatewayId')::int,
               e->>'msgId', (e->>'msgIndex')::int, to_timestamp((e->>'ts')::float8 / 1000.0),
               e->>'kind', e->>'code', e->>'level', e->>'content', (e->>'value')::float8
        FROM jsonb_array_elements(${input}::jsonb) AS e
        ON CONFLICT (gateway_id, msg_id, msg_index) DO NOTHING
        RETURNING id, gateway_id AS "gatewayId", msg_id AS "msgId", msg_index AS "msgIndex"`);
      const key = (e: { gatewayId: number; msgId: string; msgIndex: number }) =>
        `${e.gatewayId}/${e.msgId}/${e.msgIndex}`;
      const ids = new Map(
        rowsOf<{ id: number; gatewayId: number; msgId: string; msgIndex: number }>(result).map((r) => [
          key({ ...r, gatewayId: Number(r.gatewayId), msgIndex: Number(r.msgIndex) }),
          Number(r.id),
        ]),
      );
      stored = events.flatMap((e) => {
        const id = ids.get(key(e));
        return id === undefined ? [] : [{ ...e, id }];
      });
      if (stored.length > 0) await applyAlarmEvents(tx, stored);
      const past = stored.filter((e) => e.history).map((e) => e.id);
      if (past.length > 0) {
        await tx.execute(sql`
          UPDATE alarm SET notify_state = 'done'
          WHERE notify_state = 'pending'
            AND produce_event_id IN (SELECT x::int FROM jsonb_array_elements_text(${JSON.stringify(past)}::jsonb) AS x)`);
      }
    }

    if (seenGateways.size > 0) {
      const seen = JSON.stringify(
        [...seenGateways].sort((a, b) => a[0] - b[0]).map(([id, at]) => ({ id, at })),
      );
      await tx.execute(sql`
        UPDATE device d SET last_seen_at = GREATEST(coalesce(d.last_seen_at, to_timestamp(0)), v.at)
        FROM (SELECT (s->>'id')::int AS id, to_timestamp((s->>'at')::float8 / 1000.0) AS at
              FROM jsonb_array_elements(${seen}::jsonb) AS s) v
        WHERE d.id = v.id`);
    }
    return { insertedRows, events: stored };
  });
}

/** A device message the database refused for a reason in its data (table `device_dead_letter`). */
export interface DeadLetter {
  companyId: number | null;
  siteId: number | null;
  gatewaySn: string;
  deviceSn: string | null;
  kind: 'telemetry' | 'event';
  /** The message as validated, JSON. */
  payload: unknown;
  /** The database's message and SQLSTATE. */
  error: string;
  errorCode: string | null;
  /** When it arrived, UTC ms. */
  receivedAt: number;
}

/** What a text column takes of `text`: NUL shown as `\0`, lone surrogates as U+FFFD. */
function storable(text: string): string {
  return cleanDeviceText(text.replaceAll('\u0000', '\\0'));
}

/**
 * Stores dead letters in one statement. The payload is kept as JSON text (`JSON.stringify`
 * escapes NUL and lone surrogates, so whatever the message held is storable and shown as sent);
 * the other texts pass through {@link storable}.
 */
export async function storeDeadLetters(db: Db, letters: DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  await db.insert(deviceDeadLetter).values(
    letters.map((l) => ({
      receivedAt: new Date(l.receivedAt),
      companyId: l.companyId,
      siteId: l.siteId,
      gatewaySn: storable(l.gatewaySn),
      deviceSn: l.deviceSn === null ? null : storable(l.deviceSn),
      kind: l.kind,
      payload: JSON.stringify(l.payload) ?? 'null',
      error: storable(l.error.slice(0, 2000)),
      errorCode: l.errorCode,
    })),
  );
}

/**
 * Rollup rows of a batch as parallel arrays (one `unnest` parameter each), sorted by the table's
 * key (device, bucket size, point, bucket start).
 */
interface RollupColumns {
  d: number[];
  b: number[];
  s: number[];
  p: string[];
  n: number[];
  sum: number[];
  min: number[];
  max: number[];
  ft: number[];
  fv: number[];
  lt: number[];
  lv: number[];
}

/**
 * The batch's contribution to every rollup bucket (rollup-buckets.ts `aggregateBuckets`),
 * aggregated here so that the database only merges one row per (device, bucket, point).
 */
function aggregateRollups(rows: TelemetryRow[], quartersOnly: boolean): RollupColumns {
  const out: RollupColumns = {
    d: [],
    b: [],
    s: [],
    p: [],
    n: [],
    sum: [],
    min: [],
    max: [],
    ft: [],
    fv: [],
    lt: [],
    lv: [],
  };
  for (const a of aggregateBuckets(rows, { quartersOnly })) {
    out.d.push(a.deviceId);
    out.b.push(a.bucketS);
    out.s.push(a.start);
    out.p.push(a.point);
    out.n.push(a.n);
    out.sum.push(a.sum);
    out.min.push(a.min);
    out.max.push(a.max);
    out.ft.push(a.firstTs);
    out.fv.push(a.firstValue);
    out.lt.push(a.lastTs);
    out.lv.push(a.lastValue);
  }
  return out;
}

/** `{1,2,3}`: an int[] literal. */
function intArray(values: number[]): string {
  return `{${values.join(',')}}`;
}

/**
 * A float8[] literal. A value that is not finite (a sum that overflowed in the batch) is NULL,
 * which the NOT NULL columns refuse (SQLSTATE 23502): a data error, so the message that caused
 * it ends as a dead letter, as an overflow in the database's own merge (22003) does.
 */
function floatArray(values: number[]): string {
  return `{${values.map((v) => (Number.isFinite(v) ? String(v) : 'NULL')).join(',')}}`;
}

/** An array literal of quoted elements (text[]). */
function quotedArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

const textArray = quotedArray;

/** One latest row per device: points merged in time order, with the newest cells. */
function mergeLatest(rows: TelemetryRow[]) {
  const byDevice = new Map<
    number,
    { d: number; t: number; p: Record<string, number>; c?: unknown; ct?: number }
  >();
  for (const r of [...rows].sort((a, b) => a.ts - b.ts)) {
    const cur = byDevice.get(r.deviceId) ?? { d: r.deviceId, t: r.ts, p: {} };
    cur.t = Math.max(cur.t, r.ts);
    Object.assign(cur.p, r.points);
    if (r.cells) {
      cur.c = r.cells;
      cur.ct = r.ts;
    }
    byDevice.set(r.deviceId, cur);
  }
  return [...byDevice.values()];
}
