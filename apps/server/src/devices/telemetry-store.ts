/**
 * Writes a batch of ingested messages in one transaction (docs/architecture.md "Telemetry
 * store"):
 *
 * 1. raw rows into `telemetry` (PRIMARY KEY (device_id, ts): a QoS 1 redelivery is skipped);
 * 2. for the rows actually inserted, every numeric point into `telemetry_rollup` at 15 min,
 *    1 h and site-local 1 day buckets (count/sum/min/max/first/last merged with what is there,
 *    so late and out-of-order data keep the rollups exact);
 * 3. `device_latest` merged per device (newer values win, older ones only fill gaps);
 * 4. alarm events (idempotent on gateway + message id + index);
 * 5. gateways' `last_seen_at`.
 *
 * All statements are plain SQL shared by PGlite and PostgreSQL; inputs travel as one JSON
 * parameter each, so a batch costs five statements whatever its size.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { rowsOf } from '../tenancy/company-scope';

/** Rollup bucket sizes in seconds: 15 min, 1 h, 1 day (site-local). */
export const ROLLUP_BUCKETS_S = [900, 3600, 86400] as const;

export interface TelemetryRow {
  deviceId: number;
  /** Device time, UTC ms. */
  ts: number;
  points: Record<string, number>;
  /** The site's IANA time zone (day buckets). */
  timezone: string;
  cells?: { u_v?: number[]; t_c?: number[] } | undefined;
}

export interface EventRow {
  companyId: number;
  siteId: number;
  deviceId: number;
  gatewayId: number;
  msgId: string;
  msgIndex: number;
  ts: number;
  kind: 'produce' | 'disappear';
  code: string;
  level: 'warning' | 'fault';
  content: string;
  value: number | null;
}

export interface StoredEvent extends EventRow {
  id: number;
}

export interface BatchResult {
  /** Raw rows newly stored (redeliveries excluded). */
  insertedRows: number;
  /** Events newly stored. */
  events: StoredEvent[];
}

/** Stores one batch; see the module comment. Rows must be unique per (deviceId, ts). */
export async function storeBatch(
  db: Db,
  rows: TelemetryRow[],
  events: EventRow[],
  seenGateways: Map<number, number>,
): Promise<BatchResult> {
  return db.transaction(async (tx) => {
    let insertedRows = 0;
    if (rows.length > 0) {
      const input = JSON.stringify(rows.map((r) => ({ d: r.deviceId, t: r.ts, p: r.points, z: r.timezone })));
      const result = await tx.execute(sql`
        WITH input AS (
          SELECT (r->>'d')::int AS device_id, to_timestamp((r->>'t')::float8 / 1000.0) AS ts,
                 r->'p' AS points, r->>'z' AS tz
          FROM jsonb_array_elements(${input}::jsonb) AS r
        ),
        ins AS (
          INSERT INTO telemetry (device_id, ts, points)
          SELECT device_id, ts, points FROM input
          ON CONFLICT DO NOTHING
          RETURNING device_id, ts, points
        ),
        pts AS (
          SELECT i.device_id, i.ts, kv.key AS point, kv.value::text::float8 AS v, inp.tz
          FROM ins i
          JOIN input inp ON inp.device_id = i.device_id AND inp.ts = i.ts
          CROSS JOIN LATERAL jsonb_each(i.points) AS kv
          WHERE jsonb_typeof(kv.value) = 'number'
        ),
        buckets AS (
          SELECT p.device_id, s.bucket_s, p.point, p.ts, p.v,
                 CASE WHEN s.bucket_s = 86400
                      THEN date_trunc('day', p.ts AT TIME ZONE p.tz) AT TIME ZONE p.tz
                      ELSE date_bin(make_interval(secs => s.bucket_s), p.ts, TIMESTAMPTZ '2000-01-01 00:00:00+00')
                 END AS bucket_start
          FROM pts p CROSS JOIN (VALUES (900), (3600), (86400)) AS s(bucket_s)
        ),
        roll AS (
          INSERT INTO telemetry_rollup AS r
            (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
          SELECT device_id, bucket_s, bucket_start, point, count(*), sum(v), min(v), max(v),
                 min(ts), (array_agg(v ORDER BY ts))[1], max(ts), (array_agg(v ORDER BY ts DESC))[1]
          FROM buckets
          GROUP BY device_id, bucket_s, bucket_start, point
          ON CONFLICT (device_id, bucket_s, point, bucket_start) DO UPDATE SET
            n = r.n + EXCLUDED.n,
            sum = r.sum + EXCLUDED.sum,
            min = LEAST(r.min, EXCLUDED.min),
            max = GREATEST(r.max, EXCLUDED.max),
            first_value = CASE WHEN EXCLUDED.first_ts < r.first_ts THEN EXCLUDED.first_value ELSE r.first_value END,
            first_ts = LEAST(r.first_ts, EXCLUDED.first_ts),
            last_value = CASE WHEN EXCLUDED.last_ts >= r.last_ts THEN EXCLUDED.last_value ELSE r.last_value END,
            last_ts = GREATEST(r.last_ts, EXCLUDED.last_ts)
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM ins)::int AS inserted`);
      insertedRows = Number(rowsOf<{ inserted: number }>(result)[0]?.inserted ?? 0);

      const latest = JSON.stringify(mergeLatest(rows));
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
    }

    if (seenGateways.size > 0) {
      const seen = JSON.stringify([...seenGateways].map(([id, at]) => ({ id, at })));
      await tx.execute(sql`
        UPDATE device d SET last_seen_at = GREATEST(coalesce(d.last_seen_at, to_timestamp(0)), v.at)
        FROM (SELECT (s->>'id')::int AS id, to_timestamp((s->>'at')::float8 / 1000.0) AS at
              FROM jsonb_array_elements(${seen}::jsonb) AS s) v
        WHERE d.id = v.id`);
    }
    return { insertedRows, events: stored };
  });
}

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
