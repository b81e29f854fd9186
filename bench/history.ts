/**
 * Benchmark: the year chart of one point from a year of 1-minute data for
 * 100 devices, on PostgreSQL and PGlite, beside the same chart computed from the raw rows
 * (goal: ≤ 100 ms p95 and ≥ 20× faster than raw).
 *
 * Seed (timed and printed), all in SQL with generate_series so it runs in the engine:
 * - device 1 (the one measured): 525,600 raw rows (one a minute for 365 days, point `p_kw`),
 *   and its 15-min, hourly and site-local daily rollups computed FROM those rows (GROUP BY),
 *   so rollup and raw answers describe the same readings;
 * - devices 2–100: the rollups of the same year (15 min, 1 h, day; synthetic values, n = 15 /
 *   60 / 1440 readings per bucket) but no raw rows — the rollup table has the size a year of
 *   100 devices gives it (≈ 4.4 M rows for one point), which is what the rollup read must cope
 *   with; raw rows of the other devices would only matter to the raw path, whose cost for one
 *   device does not depend on them (primary key (device_id, ts)).
 *
 * Measured through MonitorService.history (the server's query path, without HTTP): `auto`
 * (the server picks the daily rollup for a year) and `raw-buckets` (the same daily
 * min/max/avg computed from raw rows in SQL). Totals of both answers are compared.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../apps/server/src/core/db/database';
import { rowsOf } from '../apps/server/src/core/db/rows';
import { MonitorService } from '../apps/server/src/modules/monitor/monitor-service';
import { freshDatabase } from './device-ingest';

const DEVICES = 100;
const DAYS = 365;
const TZ = 'Asia/Shanghai';

export interface HistoryFigures {
  engine: string;
  seed: { rawS: number; rollupsS: number; rawRows: number; rollupRows: number };
  rollup: { p50Ms: number; p95Ms: number; runs: number; points: number; resolution: string };
  raw: { p50Ms: number; p95Ms: number; runs: number };
  sameTotals: boolean;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

async function seed(database: Database, endMs: number) {
  const db = database.db;
  const startMs = endMs - DAYS * 86_400_000;
  const [company] = rowsOf<{ id: number }>(
    await db.execute(sql`INSERT INTO company (type, name) VALUES ('owner', 'bench-history') RETURNING id`),
  );
  const [site] = rowsOf<{ id: number }>(
    await db.execute(
      sql`INSERT INTO site (company_id, code, name, timezone) VALUES (${company!.id}, 'BENCH-H', 'bench history', ${TZ}) RETURNING id`,
    ),
  );
  const ids = rowsOf<{ id: number }>(
    await db.execute(sql`
      INSERT INTO device (company_id, site_id, sn, type)
      SELECT ${company!.id}, ${site!.id}, 'PCS-H' || lpad(i::text, 4, '0'), 'pcs' FROM generate_series(1, ${DEVICES}) i
      RETURNING id`),
  );
  const first = Number(ids[0]!.id);
  const others = ids.slice(1).map((r) => Number(r.id));
  const s = startMs / 1000;
  const e = endMs / 1000;

  const [, rawS] = await timed(async () => {
    await db.execute(sql`
      INSERT INTO telemetry (device_id, ts, points)
      SELECT ${first}, t, jsonb_build_object('p_kw', round((60 * sin(extract(epoch FROM t) / 5400) + (extract(minute FROM t)::int % 11) - 5)::numeric, 3))
      FROM generate_series(to_timestamp(${s}), to_timestamp(${e}) - interval '1 minute', interval '1 minute') t`);
  });

  const [, rollupsS] = await timed(async () => {
    // Device 1: rollups from its raw rows, as the ingest would have kept them.
    for (const b of [900, 3600, 86400]) {
      const bucket =
        b === 86400
          ? sql`(date_trunc('day', ts AT TIME ZONE ${TZ}) AT TIME ZONE ${TZ})`
          : sql`to_timestamp(floor(extract(epoch FROM ts) / ${b}) * ${b})`;
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        SELECT ${first}, ${b}, bk, 'p_kw', count(*), sum(v), min(v), max(v),
               min(ts), (array_agg(v ORDER BY ts))[1], max(ts), (array_agg(v ORDER BY ts DESC))[1]
        FROM (SELECT ts, ${bucket} AS bk, (points->>'p_kw')::float8 AS v FROM telemetry WHERE device_id = ${first}) x
        GROUP BY bk`);
    }
    // Devices 2–100: a year of synthetic rollups, one statement per bucket size.
    const list = `{${others.join(',')}}`;
    for (const [b, step, n] of [
      [900, '15 minutes', 15],
      [3600, '1 hour', 60],
      [86400, '1 day', 1440],
    ] as const) {
      const from =
        b === 86400
          ? sql`(date_trunc('day', to_timestamp(${s}) AT TIME ZONE ${TZ}) AT TIME ZONE ${TZ})`
          : sql`to_timestamp(${s})`;
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        SELECT d, ${b}, bk, 'p_kw', ${n}, ${n} * a, a - 20, a + 20, bk, a - 1, bk + interval ${sql.raw(`'${b - 60} seconds'`)}, a + 1
        FROM unnest(${list}::int[]) d
        CROSS JOIN generate_series(${from}, to_timestamp(${e}) - interval ${sql.raw(`'${step}'`)}, interval ${sql.raw(`'${step}'`)}) bk
        CROSS JOIN LATERAL (SELECT 50 * sin(extract(epoch FROM bk) / 43200 + d) AS a) v`);
    }
  });
  const count = async (table: 'telemetry' | 'telemetry_rollup') =>
    Number(rowsOf<{ n: number }>(await db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`)))[0]!.n);
  await db.execute(sql`ANALYZE`);
  return {
    first,
    company: Number(company!.id),
    rawS,
    rollupsS,
    rawRows: await count('telemetry'),
    rollupRows: await count('telemetry_rollup'),
  };
}

async function measure(
  label: string,
  fn: () => Promise<unknown>,
  runs: number,
): Promise<{ p50Ms: number; p95Ms: number; runs: number }> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(fn))[1]);
  times.sort((a, b) => a - b);
  void label;
  return { p50Ms: round(percentile(times, 50)), p95Ms: round(percentile(times, 95)), runs };
}

const round = (v: number) => Math.round(v * 10) / 10;

async function benchOn(postgresUrl: string | undefined): Promise<HistoryFigures> {
  const fresh = await freshDatabase(postgresUrl);
  try {
    const endMs = Date.now();
    const seeded = await seed(fresh.database, endMs);
    const monitor = new MonitorService(fresh.database.db);
    const scope = { all: false as const, companyIds: [seeded.company] };
    const input = {
      series: [{ deviceId: seeded.first, point: 'p_kw' }],
      startMs: endMs - DAYS * 86_400_000,
      endMs,
    };
    const fromRollup = await monitor.history(scope, input);
    const fromRaw = await monitor.history(scope, input, { kind: 'raw-buckets', bucketS: 86400 });
    const a = fromRollup.series[0]!.stats;
    const b = fromRaw.series[0]!.stats;
    const rollup = await measure('rollup', () => monitor.history(scope, input), 50);
    const raw = await measure(
      'raw',
      () => monitor.history(scope, input, { kind: 'raw-buckets', bucketS: 86400 }),
      postgresUrl ? 10 : 5,
    );
    return {
      engine: postgresUrl ? 'PostgreSQL' : 'PGlite',
      seed: {
        rawS: round(seeded.rawS / 1000),
        rollupsS: round(seeded.rollupsS / 1000),
        rawRows: seeded.rawRows,
        rollupRows: seeded.rollupRows,
      },
      rollup: { ...rollup, points: fromRollup.series[0]!.ts.length, resolution: fromRollup.resolution },
      raw,
      sameTotals:
        a.n === b.n &&
        Math.abs(a.sum - b.sum) < 1e-6 * Math.max(1, Math.abs(a.sum)) &&
        a.min === b.min &&
        a.max === b.max,
    };
  } finally {
    await fresh.drop();
  }
}

/** Figures on PostgreSQL (when reachable) and PGlite. */
export async function benchHistory(postgresUrl: string | undefined): Promise<HistoryFigures[]> {
  const out: HistoryFigures[] = [];
  if (postgresUrl) out.push(await benchOn(postgresUrl));
  out.push(await benchOn(undefined));
  return out;
}
