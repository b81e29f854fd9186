/**
 * Issue 18 item 5: large ingest batches merge only their 15-minute rollups and leave the hour and
 * day buckets marked in `rollup_dirty`; a derivation pass (devices/rollup-derive.ts) recomputes
 * them from the 15-minute ones. What a reader observes afterwards must be exactly what merging
 * every batch at once gives: the same rows in `telemetry_rollup`, value for value. Checked on
 * Shanghai (UTC+8), Berlin across the 2026-03-29 DST change (a 23 h day) and Kolkata (UTC+5:30,
 * whose days start on a half hour, so they are summed from quarters), with data arriving out of
 * order, batches of both kinds mixed and passes cut short by a small claim limit.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { DeviceDirectory } from '../src/devices/device-directory';
import { IngestPipeline } from '../src/devices/ingest';
import { deriveRollups } from '../src/devices/rollup-derive';
import { storeBatch, type TelemetryRow } from '../src/devices/telemetry-store';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';

const MIN = 60_000;
/** Devices of the merged-at-once copy; the deferred copy uses the same ids + OFFSET. */
const DEVICES: [number, string][] = [
  [910_001, 'Asia/Shanghai'],
  [910_002, 'Europe/Berlin'],
  [910_003, 'Asia/Kolkata'],
];
const OFFSET = 1_000;

/** 40 hours of readings every 7 minutes from 2026-03-28 12:00 UTC (Berlin changes clocks the next night), shuffled. */
function readings(): TelemetryRow[] {
  const rows: TelemetryRow[] = [];
  const start = Date.UTC(2026, 2, 28, 12, 0);
  for (const [deviceId, timezone] of DEVICES) {
    for (let i = 0; i < (40 * 60) / 7; i++) {
      const points: Record<string, number> = {
        p_kw: Math.round(100 * Math.sin(i / 5 + deviceId)) / 4,
        soc_pct: 20 + (i % 60),
      };
      if (i % 3 === 0) points.t_c = 25 + (i % 7); // a point not in every message
      rows.push({ deviceId, ts: start + i * 7 * MIN, points, timezone });
    }
  }
  // A fixed shuffle: late and out-of-order data across batches.
  let seed = 7;
  for (let i = rows.length - 1; i > 0; i--) {
    seed = (seed * 16807) % 2147483647;
    const j = seed % (i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

interface Rollup {
  device_id: number;
  bucket_s: number;
  start_ms: number;
  point: string;
  n: number;
  sum: number;
  min: number;
  max: number;
  first_ms: number;
  first_value: number;
  last_ms: number;
  last_value: number;
}

async function rollupsOf(db: Db, ids: number[], bucketS?: number): Promise<Rollup[]> {
  const rows = rowsOf<Rollup>(
    await db.execute(sql`
      SELECT device_id, bucket_s, (extract(epoch FROM bucket_start) * 1000)::float8 AS start_ms, point, n,
             sum, min, max, (extract(epoch FROM first_ts) * 1000)::float8 AS first_ms, first_value,
             (extract(epoch FROM last_ts) * 1000)::float8 AS last_ms, last_value
      FROM telemetry_rollup
      WHERE device_id IN (SELECT x::int FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) AS x)
        AND (${bucketS ?? null}::int IS NULL OR bucket_s = ${bucketS ?? null}::int)
      ORDER BY device_id, bucket_s, point, bucket_start`),
  );
  return rows.map((r) => ({
    ...r,
    device_id: Number(r.device_id),
    bucket_s: Number(r.bucket_s),
    start_ms: Math.round(Number(r.start_ms)),
    n: Number(r.n),
    sum: Math.round(Number(r.sum) * 1e6) / 1e6, // summed in another order: equal to 1e-6
    min: Number(r.min),
    max: Number(r.max),
    first_ms: Math.round(Number(r.first_ms)),
    first_value: Number(r.first_value),
    last_ms: Math.round(Number(r.last_ms)),
    last_value: Number(r.last_value),
  }));
}

const dirtyCount = async (db: Db) =>
  Number(rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM rollup_dirty`))[0]!.n);

describe.each(engines)('hour and day rollups derived after deferred batches (%s)', (engine) => {
  let ctx: TestContext;
  let db: Db;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
  });
  afterAll(async () => ctx?.close());

  it('equal, row for row, to merging every batch at once', async () => {
    const all = readings();
    const moved = all.map((r) => ({ ...r, deviceId: r.deviceId + OFFSET }));
    const size = 37;
    for (let i = 0; i < all.length; i += size) {
      await storeBatch(db, all.slice(i, i + size), [], new Map());
      // Every fourth batch of the copy merged at once, the others deferred: both kinds mixed.
      const deferDerived = (i / size) % 4 !== 1;
      await storeBatch(db, moved.slice(i, i + size), [], new Map(), { deferDerived });
    }
    const ids = DEVICES.map(([id]) => id);
    const movedIds = ids.map((id) => id + OFFSET);
    const expected = await rollupsOf(db, ids);
    // The three zones' days: Shanghai and Kolkata 28, 29, 30 March; Berlin's 29th is 23 h long.
    const days = expected.filter((r) => r.bucket_s === 86400 && r.point === 'p_kw');
    expect(days.map((r) => [r.device_id, r.start_ms])).toContainEqual([910_002, Date.UTC(2026, 2, 28, 23)]);
    expect(days.map((r) => [r.device_id, r.start_ms])).toContainEqual([
      910_003,
      Date.UTC(2026, 2, 28, 18, 30),
    ]);

    // Deferred: the quarters are there, hours and days behind them until a pass.
    const quarters = (await rollupsOf(db, movedIds, 900)).map((r) => ({
      ...r,
      device_id: r.device_id - OFFSET,
    }));
    expect(quarters).toEqual(expected.filter((r) => r.bucket_s === 900));
    expect(await dirtyCount(db)).toBeGreaterThan(0);
    expect(await rollupsOf(db, movedIds, 86400)).not.toEqual(
      expected.filter((r) => r.bucket_s === 86400).map((r) => ({ ...r, device_id: r.device_id + OFFSET })),
    );

    // Passes of at most 7 buckets until none is left (a device's hours and days split across passes).
    let passes = 0;
    while ((await deriveRollups(db, 7)) > 0) passes++;
    expect(passes).toBeGreaterThan(3);
    expect(await dirtyCount(db)).toBe(0);
    const derived = (await rollupsOf(db, movedIds)).map((r) => ({ ...r, device_id: r.device_id - OFFSET }));
    expect(derived).toEqual(expected);
  });

  it('a redelivered batch changes nothing, deferred or not', async () => {
    const all = readings().slice(0, 50);
    const before = await rollupsOf(
      db,
      DEVICES.map(([id]) => id + OFFSET),
    );
    await storeBatch(
      db,
      all.map((r) => ({ ...r, deviceId: r.deviceId + OFFSET })),
      [],
      new Map(),
      {
        deferDerived: true,
      },
    );
    while ((await deriveRollups(db)) > 0);
    expect(
      await rollupsOf(
        db,
        DEVICES.map(([id]) => id + OFFSET),
      ),
    ).toEqual(before);
  });
  it('the ingest pipeline defers large batches and derives them; a restart derives what a crash left', async () => {
    const admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `RD-${engine}`, name: 'Derive site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-RD-${engine}`, type: 'ems' });
    const pcsSn = `PCS-RD-${engine}`;
    const pcs = await api('device/save', {
      siteId: site.data.id,
      sn: pcsSn,
      type: 'pcs',
      gatewayId: ems.data.id,
    });
    const directory = new DeviceDirectory(db);
    await directory.refresh();
    const hour = Math.floor((Date.now() - 2 * 3_600_000) / 3_600_000) * 3_600_000;
    const message = (i: number) =>
      Buffer.from(
        JSON.stringify({
          v: 1,
          id: `rd-${i}`,
          ts: hour + i * MIN,
          devices: [{ sn: pcsSn, type: 'pcs', points: { p_kw: i } }],
        }),
      );
    const rollup = async (bucketS: number) =>
      rowsOf<{ n: number; sum: number }>(
        await db.execute(sql`SELECT n, sum FROM telemetry_rollup
                             WHERE device_id = ${pcs.data.id} AND bucket_s = ${bucketS} AND point = 'p_kw'`),
      ).map((r) => [Number(r.n), Number(r.sum)]);

    // Every batch deferred; no pass until asked (a long delay).
    const first = new IngestPipeline(
      db,
      directory,
      ctx.app.log,
      {},
      {
        flushIntervalMs: 5,
        deferDerivedRows: 1,
        deriveDelayMs: 3_600_000,
      },
    );
    for (let i = 0; i < 20; i++) await first.accept(ems.data.secret.sn, 'telemetry', message(i));
    expect(first.stats.storedRows).toBe(20);
    // 20 readings of minute 0..19: quarters 0–14 and 15–19 are merged, the hour is not there yet.
    expect(await rollup(900)).toEqual([
      [15, 105],
      [5, 85],
    ]);
    expect(await rollup(3600)).toEqual([]);
    await first.deriveNow();
    expect(await rollup(3600)).toEqual([[20, 190]]);
    expect(await rollup(86400)).toEqual([[20, 190]]);

    // Ten more, then the process "dies" before a pass (no close): the hour and day stay behind, marked.
    for (let i = 20; i < 30; i++) await first.accept(ems.data.secret.sn, 'telemetry', message(i));
    expect(await rollup(3600)).toEqual([[20, 190]]);
    expect(await dirtyCount(db)).toBeGreaterThan(0);
    // The next start schedules a pass (device-service.ts start): it catches up.
    const second = new IngestPipeline(db, directory, ctx.app.log, {}, { deriveDelayMs: 10 });
    second.scheduleDerive();
    await expect.poll(() => dirtyCount(db)).toBe(0);
    expect(await rollup(3600)).toEqual([[30, 435]]);
    expect(await rollup(86400)).toEqual([[30, 435]]);
    await second.close();

    // A graceful close derives what its deferred batches left.
    const third = new IngestPipeline(
      db,
      directory,
      ctx.app.log,
      {},
      {
        flushIntervalMs: 5,
        deferDerivedRows: 1,
        deriveDelayMs: 3_600_000,
      },
    );
    await third.accept(ems.data.secret.sn, 'telemetry', message(30));
    expect(await dirtyCount(db)).toBeGreaterThan(0);
    await third.close();
    expect(await dirtyCount(db)).toBe(0);
    expect(await rollup(3600)).toEqual([[31, 465]]);
  });
});
