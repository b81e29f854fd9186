/**
 * The demo fleet's past (demo/demo-history.ts, issue 14): written through the ingest, it stores
 * exactly what live ingest of the same readings stores (raw rows, 15 min / 1 h / day rollups,
 * latest values, alarm events and alarms — only the alarms' mail state differs: history is not
 * news); a restart during the backfill continues without duplicating, and one after it writes
 * nothing; the first start raises and clears alarms within the first simulated day; the sites'
 * daily energy differs; the live run starts where the past ends, and a restart resumes from what
 * was stored. The clock is injected (registration time and the ingest's clock): no wall clock.
 */
import {
  type FleetSite,
  type HistoryReading,
  historyStart,
  historyStep,
  type SiteState,
} from '@ess/simulator';
import { eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { site } from '../src/core/db/schema';
import { registerDemoFleet } from '../src/demo/demo-fleet';
import {
  type DemoSite,
  demoStartStates,
  type HistoryPlan,
  planDemoHistory,
  writeDemoHistory,
} from '../src/demo/demo-history';
import { dailyEnergySql } from '../src/devices/daily-energy';
import { DeviceDirectory } from '../src/devices/device-directory';
import { IngestPipeline } from '../src/devices/ingest';
import { createTestApp, engines, type TestContext } from './support/test-app';

const SEED = 1;
const SITES = 8; // the fleet of `npm start` (DEMO_SITES default)
const DAYS = 2;
/** Registration: 2026-08-24 00:00 Asia/Shanghai; the past covers 22 and 23 August (local). */
const REGISTERED = Date.UTC(2026, 7, 23, 16);
const FROM = REGISTERED - DAYS * 86_400_000;
/** The ingest's clock: an hour after the registration (the past is within its backfill window). */
const clock = () => REGISTERED + 3_600_000;

/** An ingest on `db` (its own directory), as the device side builds it, with the test's clock. */
async function ingestOn(db: Db, log: FastifyBaseLogger) {
  const directory = new DeviceDirectory(db, 5_000, log, clock);
  await directory.refresh();
  return new IngestPipeline(db, directory, log, {}, { now: clock });
}

/** Everything the ingest stored, by SN (ids differ between databases), in a stable order. */
async function snapshot(db: Db) {
  const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await db.execute(query));
  const ms = (col: string) => sql.raw(`(extract(epoch FROM ${col}) * 1000)::float8`);
  const round = (v: unknown) => (v === null ? null : Math.round(Number(v) * 1e6) / 1e6);
  const telemetry = await q<{ sn: string; ts: number; points: unknown }>(sql`
    SELECT d.sn, ${ms('t.ts')} AS ts, t.points FROM telemetry t JOIN device d ON d.id = t.device_id
    ORDER BY d.sn, t.ts`);
  const rollups = (
    await q<Record<string, unknown>>(sql`
      SELECT d.sn, r.bucket_s, ${ms('r.bucket_start')} AS start, r.point, r.n, r.sum, r.min, r.max,
             ${ms('r.first_ts')} AS first_ts, r.first_value, ${ms('r.last_ts')} AS last_ts, r.last_value
      FROM telemetry_rollup r JOIN device d ON d.id = r.device_id
      ORDER BY d.sn, r.bucket_s, r.bucket_start, r.point`)
  ).map((r) => ({ ...r, sum: round(r.sum) }));
  const latest = await q(sql`
    SELECT d.sn, ${ms('l.ts')} AS ts, l.points FROM device_latest l JOIN device d ON d.id = l.device_id
    ORDER BY d.sn`);
  const events = await q(sql`
    SELECT d.sn, e.msg_id, e.msg_index, ${ms('e.ts')} AS ts, e.kind, e.code, e.level, e.content, e.value,
           e.alarm_id IS NOT NULL AS linked
    FROM alarm_event e JOIN device d ON d.id = e.device_id ORDER BY e.ts, d.sn, e.msg_id, e.msg_index`);
  const alarms = await q<Record<string, unknown>>(sql`
    SELECT d.sn, a.code, a.level, a.content, a.value, ${ms('a.produced_at')} AS produced_at,
           ${ms('a.cleared_at')} AS cleared_at, a.clear_content, a.notify_state
    FROM alarm a JOIN device d ON d.id = a.device_id ORDER BY a.produced_at, d.sn, a.code, a.level`);
  return { telemetry, rollups, latest, events, alarms };
}

/** The readings of `plans`' pasts, all sites side by side in time order (as the backfill sends them). */
function readingsOf(plans: readonly HistoryPlan[]): Array<{ site: FleetSite; reading: HistoryReading }> {
  const cursors = plans.map((p) => ({
    p,
    state: historyStart(p.site, SEED, p.fromMs, p.touPlan) as SiteState,
  }));
  const out: Array<{ site: FleetSite; reading: HistoryReading }> = [];
  for (let moved = true; moved; ) {
    moved = false;
    for (const c of cursors) {
      if (c.state.timeMs >= c.p.toMs) continue;
      const { state, reading } = historyStep(c.p.site, c.state);
      c.state = state;
      moved = true;
      out.push({ site: c.p.site, reading });
    }
  }
  return out;
}

describe.each(engines)('the demo fleet’s past on %s', (engine) => {
  let a: TestContext; // the backfill
  let b: TestContext; // live ingest of the same readings
  let sites: DemoSite[];
  let plans: HistoryPlan[];

  beforeAll(async () => {
    [a, b] = await Promise.all([createTestApp(engine), createTestApp(engine)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('is written through the ingest as live ingest of the same readings would store it; a restart continues, never duplicates', async () => {
    const db = a.database.db;
    ({ sites } = await registerDemoFleet(db, { sites: SITES, seed: SEED, now: new Date(REGISTERED) }));
    plans = await planDemoHistory(db, sites, DAYS);
    expect(plans.map((p) => [p.fromMs, p.toMs])).toEqual(sites.map(() => [FROM, REGISTERED]));
    // The first C&I site runs the ToU scheme the demo gave it; the others their own strategy.
    expect(plans.map((p) => p.touPlan !== null)).toEqual(
      sites.map((s) => s.site.touTemplateId !== undefined),
    );
    expect(plans[0]!.touPlan?.scheme.dailyPlans.length).toBeGreaterThan(0);

    // A first start stopped once the live run would begin: the first reading of each site.
    const ingest = await ingestOn(db, a.app.log);
    const stop = new AbortController();
    const first = await writeDemoHistory(db, ingest, a.app.log, plans, {
      seed: SEED,
      signal: stop.signal,
      onFirst: () => stop.abort(),
    });
    expect(first).toMatchObject({ complete: false, messages: SITES, rows: expect.any(Number) });
    // The next start continues with what is missing …
    const resumed = await planDemoHistory(db, sites, DAYS);
    expect(resumed.map((p) => p.stored.size)).toEqual(sites.map(() => 1));
    const rest = await writeDemoHistory(db, ingest, a.app.log, resumed, { seed: SEED });
    expect(rest.complete).toBe(true);
    expect(first.messages + rest.messages).toBe(SITES * DAYS * 96);
    // … and the one after finds nothing to do.
    expect(await planDemoHistory(db, sites, DAYS)).toEqual([]);
    await ingest.close();

    // The same readings through live ingest, into a second database.
    const live = await registerDemoFleet(b.database.db, {
      sites: SITES,
      seed: SEED,
      now: new Date(REGISTERED),
    });
    expect(live.sites.map((s) => s.site.siteCode)).toEqual(sites.map((s) => s.site.siteCode));
    const liveIngest = await ingestOn(b.database.db, b.app.log);
    const readings = readingsOf(plans);
    for (let i = 0; i < readings.length; i += 200) {
      await Promise.all(
        readings
          .slice(i, i + 200)
          .flatMap(({ site: s, reading }) => [
            ...reading.events.map((e) =>
              liveIngest.accept(s.gatewaySn, 'event', Buffer.from(JSON.stringify(e))),
            ),
            liveIngest.accept(s.gatewaySn, 'telemetry', Buffer.from(JSON.stringify(reading.telemetry))),
          ]),
      );
    }
    await liveIngest.close();
    expect(liveIngest.stats).toMatchObject({ tooOld: 0, malformed: 0, unknownSn: 0, deadLettered: 0 });

    const backfilled = await snapshot(db);
    const ingested = await snapshot(b.database.db);
    expect(backfilled.telemetry.length).toBe(
      readings.reduce((n, r) => n + r.reading.telemetry.devices.length, 0),
    );
    expect(backfilled.rollups.length).toBeGreaterThan(backfilled.telemetry.length);
    expect(backfilled.alarms.length).toBeGreaterThan(0);
    expect(backfilled.telemetry).toEqual(ingested.telemetry);
    expect(backfilled.rollups).toEqual(ingested.rollups);
    expect(backfilled.latest).toEqual(ingested.latest);
    expect(backfilled.events).toEqual(ingested.events);
    // Alarms alike, but the past's are not news: not mailed (notify_state done), live ones are.
    const withoutMail = (rows: Record<string, unknown>[]) => rows.map(({ notify_state: _, ...r }) => r);
    expect(withoutMail(backfilled.alarms)).toEqual(withoutMail(ingested.alarms));
    expect(new Set(backfilled.alarms.map((r) => r.notify_state))).toEqual(new Set(['done']));
    expect(new Set(ingested.alarms.map((r) => r.notify_state))).toEqual(new Set(['pending']));
  }, 600_000);

  it('the first start raises and clears alarms within its first simulated day', async () => {
    const alarms = rowsOf<{ code: string; produced: number; cleared: number | null }>(
      await a.database.db.execute(sql`
        SELECT code, (extract(epoch FROM produced_at) * 1000)::float8 AS produced,
               (extract(epoch FROM cleared_at) * 1000)::float8 AS cleared
        FROM alarm ORDER BY produced_at`),
    );
    const firstDay = alarms.filter((r) => Number(r.produced) < FROM + 86_400_000);
    expect(firstDay.length).toBeGreaterThan(0);
    for (const r of firstDay) {
      expect(Number(r.produced)).toBeGreaterThan(FROM);
      expect(r.cleared).not.toBeNull();
      expect(Number(r.cleared)).toBeLessThan(FROM + 86_400_000);
    }
  });

  it('sites differ: each site’s daily energy is its own', async () => {
    const rows = rowsOf<{ sn: string; kwh: number }>(
      await a.database.db.execute(sql`
        SELECT d.sn, e.kwh FROM ${dailyEnergySql({
          devices: sql`SELECT d.id AS device_id, s.timezone FROM device d JOIN site s ON s.id = d.site_id WHERE d.type = 'pcs'`,
          points: ['e_discharge_total_kwh'],
          from: sql`to_timestamp(${(REGISTERED - 86_400_000) / 1000})`,
          to: sql`to_timestamp(${REGISTERED / 1000})`,
        })} e JOIN device d ON d.id = e.device_id ORDER BY d.sn`),
    );
    expect(rows).toHaveLength(SITES);
    const kwh = new Map(rows.map((r) => [r.sn, Math.round(Number(r.kwh) * 10) / 10]));
    expect([...kwh.values()].every((v) => v > 0)).toBe(true);
    expect(new Set(kwh.values()).size).toBe(SITES);
    // not one C&I pattern: the C&I sites' discharge spreads by more than a third
    const ci = sites.filter((s) => s.site.kind === 'ci').map((s) => kwh.get(`PCS-${s.site.siteCode}-01`)!);
    expect(Math.max(...ci) / Math.min(...ci)).toBeGreaterThan(1.3);
  });

  it('the live run starts where the past ends, and a restart resumes from what was stored', async () => {
    const db = a.database.db;
    // First start (nothing stored of the sites yet, as in a fresh database): the past's end.
    const fresh = await demoStartStates(b.database.db, [], plans, { seed: SEED, nowMs: clock() });
    for (const p of plans) expect(fresh.get(p.site.siteCode)!.timeMs).toBe(p.toMs);
    // A restart: registers and SOC as stored, alarms still active kept (to be cleared).
    await db.execute(sql`
      INSERT INTO alarm (company_id, site_id, device_id, gateway_id, code, level, content, produced_at, produce_event_id)
      SELECT d.company_id, d.site_id, d.id, d.gateway_id, 'env.door_open', 'warning', 'Cabinet door open', now(), 0
      FROM device d WHERE d.sn = ${sites[1]!.site.devices.find((x) => x.type === 'env_sensor')!.sn}`);
    const states = await demoStartStates(db, sites, [], { seed: SEED, nowMs: clock() });
    const [pcs] = rowsOf<{ points: Record<string, number> }>(
      await db.execute(sql`
        SELECT l.points FROM device_latest l JOIN device d ON d.id = l.device_id
        WHERE d.sn = ${sites[0]!.site.devices.find((x) => x.type === 'pcs')!.sn}`),
    );
    const s0 = states.get(sites[0]!.site.siteCode)!;
    expect(s0.timeMs).toBe(clock());
    expect(s0.registers.pcsDischargeKwh).toBe(pcs!.points.e_discharge_total_kwh);
    expect(states.get(sites[1]!.site.siteCode)!.alarms).toEqual(['env.door_open/warning']);
    const [row] = await db
      .select({ createdAt: site.createdAt })
      .from(site)
      .where(eq(site.id, sites[0]!.siteId));
    expect(row!.createdAt.getTime()).toBe(REGISTERED);
  });
});
