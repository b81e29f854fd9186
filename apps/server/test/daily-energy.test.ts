/**
 * Daily register energy has one rule (modules/dashboard/energy.ts): a site-local day's kWh =
 * the day's last register reading − the previous site-local day's last (the previous daily
 * bucket, whatever its length: 23 h and 25 h days around DST), else the day's last − first.
 * Seeded on a Europe/Berlin site: history energy and the daily-energy export answer the same
 * kWh across both 2026 DST changes, and "today" is the same on the dashboard, site monitoring,
 * history energy, the export and the big screens.
 */
import { endpoints } from '@ess/contract';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { company, device, site } from '../src/core/db/schema';
import { dailyEnergySql } from '../src/devices/daily-energy';
import { call, type SignedIn, signIn } from './support/client';
import { unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const TZ = 'Europe/Berlin';
/** Berlin midnights (UTC ms): CET +1 h, CEST +2 h; 29 March has 23 h, 25 October 25 h. */
const MARCH = {
  d28: Date.UTC(2026, 2, 27, 23),
  d29: Date.UTC(2026, 2, 28, 23),
  d30: Date.UTC(2026, 2, 29, 22),
  d31: Date.UTC(2026, 2, 30, 22),
};
const OCTOBER = {
  d24: Date.UTC(2026, 9, 23, 22),
  d25: Date.UTC(2026, 9, 24, 22),
  d26: Date.UTC(2026, 9, 25, 23),
  d27: Date.UTC(2026, 9, 26, 23),
  d28: Date.UTC(2026, 9, 27, 23),
  d29: Date.UTC(2026, 9, 28, 23),
};

describe.each(engines)('daily energy on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let admin: SignedIn;
  let agentId: number;
  let siteId: number;
  let pcs: number;
  let todayStart: number;

  /** One daily bucket of both PCS registers: charge first→last; discharge = charge × 0.5. */
  async function day(startMs: number, first: number, last: number) {
    for (const [point, f] of [
      ['e_charge_total_kwh', 1],
      ['e_discharge_total_kwh', 0.5],
    ] as const) {
      const at = sql`to_timestamp(${startMs / 1000})`;
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        VALUES (${pcs}, 86400, ${at}, ${point}, 2, ${(first + last) * f}, ${first * f}, ${last * f},
                ${at}, ${first * f}, ${at}, ${last * f})`);
    }
  }

  async function energyBars(startMs: number, endMs: number) {
    const r = await call(
      ctx.app,
      endpoints.monitor.energy.path,
      { siteId, granularity: 'day', startMs, endMs },
      { token: admin.token },
    );
    expect(r.code, r.msg).toBe(0);
    return (r.data.bars as { label: string; chargeKwh: number | null; dischargeKwh: number | null }[]).map(
      (b) => [b.label, b.chargeKwh, b.dischargeKwh],
    );
  }

  async function exportRows(startMs: number, endMs: number) {
    const response = await ctx.app.inject({
      method: 'POST',
      url: endpoints.export.xlsx.path,
      payload: {
        agentId,
        siteId,
        startMs,
        endMs,
        type: 'dailyEnergy',
        deviceIds: [pcs],
        items: ['e_charge_total_kwh', 'e_discharge_total_kwh'],
      },
      headers: { 'content-type': 'application/json', 'accept-language': 'en-US', 'x-token': admin.token },
    });
    expect(response.statusCode, response.body.slice(0, 200)).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as never);
    const sheet = workbook.worksheets.find(
      (w) => w.actualRowCount > 0 && w.name !== workbook.worksheets[0]!.name,
    )!;
    const rows: unknown[][] = [];
    sheet.eachRow((row, n) => {
      if (n > 1) {
        const v = (row.values as unknown[]).slice(1);
        rows.push([v[0], v[3] ?? null, v[4] ?? null]);
      }
    });
    return rows;
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    const [platform] = rowsOf<{ id: number }>(
      await db.execute(sql`SELECT id FROM company WHERE type = 'platform' LIMIT 1`),
    );
    const [agent] = await db
      .insert(company)
      .values({ type: 'agent', name: unique('柏林代理商'), parentId: platform!.id })
      .returning({ id: company.id });
    agentId = agent!.id;
    const code = unique('BER')
      .replace(/[^A-Za-z0-9-]/g, '')
      .slice(0, 24);
    const [s] = await db
      .insert(site)
      .values({
        companyId: agentId,
        code,
        name: '柏林储能站',
        timezone: TZ,
        latitude: 52.52,
        longitude: 13.4,
      })
      .returning({ id: site.id });
    siteId = s!.id;
    const [ems] = await db
      .insert(device)
      .values({ companyId: agentId, siteId, sn: `${code}-EMS`, type: 'ems', online: true })
      .returning({ id: device.id });
    const [p] = await db
      .insert(device)
      .values({ companyId: agentId, siteId, sn: `${code}-PCS`, type: 'pcs', gatewayId: ems!.id })
      .returning({ id: device.id });
    pcs = p!.id;
    // Each day's first reading comes a while after midnight (the register already moved), so
    // "last − first" and "last − previous day's last" differ.
    await day(MARCH.d28, 100, 150); // no previous day: 150 − 100 = 50
    await day(MARCH.d29, 155, 170); // 23 h day: 170 − 150 = 20
    await day(MARCH.d30, 180, 230); // after the 23 h day: 230 − 170 = 60
    await day(OCTOBER.d24, 1000, 1040); // no previous day: 40
    await day(OCTOBER.d25, 1045, 1100); // 25 h day: 60
    await day(OCTOBER.d26, 1110, 1130); // after the 25 h day: 30
    await day(OCTOBER.d28, 1200, 1210); // 27 October has no reading: 1210 − 1200 = 10
    const [t] = rowsOf<{ today: number; yesterday: number }>(
      await db.execute(sql`
        SELECT (extract(epoch FROM date_trunc('day', now() AT TIME ZONE ${TZ}) AT TIME ZONE ${TZ}) * 1000)::float8 AS today,
               (extract(epoch FROM (date_trunc('day', now() AT TIME ZONE ${TZ}) - interval '1 day') AT TIME ZONE ${TZ}) * 1000)::float8 AS yesterday`),
    );
    todayStart = Number(t!.today);
    await day(Number(t!.yesterday), 2000, 2100);
    await day(todayStart, 2104, 2142); // today: 2142 − 2100 = 42 charged, 21 discharged
    admin = await signIn(ctx.app);
  }, 120_000);
  afterAll(async () => ctx?.close());

  it('the shared rule takes the previous daily bucket by local date, not 24 h back', async () => {
    const rows = rowsOf<{ day: string; point: string; kwh: number }>(
      await db.execute(sql`
        SELECT e.day, e.point, e.kwh FROM ${dailyEnergySql({
          devices: sql`SELECT ${pcs}::int AS device_id, ${TZ}::text AS timezone`,
          points: ['e_charge_total_kwh'],
          from: sql`to_timestamp(${MARCH.d29 / 1000})`,
          to: sql`to_timestamp(${OCTOBER.d29 / 1000})`,
        })} e ORDER BY e.bucket_start`),
    );
    // 29 March still finds 28 March (23 h before its end), 30 March finds 29 March (23 h back,
    // not 24 h), 26 October finds 25 October (25 h back); 24 October and 28 October have no
    // previous local day in the data: last − first.
    expect(rows.map((r) => [r.day, Number(r.kwh)])).toEqual([
      ['2026-03-29', 20],
      ['2026-03-30', 60],
      ['2026-10-24', 40],
      ['2026-10-25', 60],
      ['2026-10-26', 30],
      ['2026-10-28', 10],
    ]);
  });

  it('history energy counts the days around the spring change from the previous day’s last', async () => {
    expect(await energyBars(MARCH.d28, MARCH.d31)).toEqual([
      ['2026-03-28', 50, 25],
      ['2026-03-29', 20, 10],
      ['2026-03-30', 60, 30],
    ]);
  });

  it('history energy counts the days around the autumn change; after a day without readings, last − first', async () => {
    expect(await energyBars(OCTOBER.d24, OCTOBER.d29)).toEqual([
      ['2026-10-24', 40, 20],
      ['2026-10-25', 60, 30],
      ['2026-10-26', 30, 15],
      ['2026-10-27', null, null],
      ['2026-10-28', 10, 5],
    ]);
  });

  it('the daily-energy export answers the same kWh as history energy', async () => {
    expect(await exportRows(MARCH.d28, MARCH.d31)).toEqual([
      ['2026-03-28', 50, 25],
      ['2026-03-29', 20, 10],
      ['2026-03-30', 60, 30],
    ]);
    expect(await exportRows(OCTOBER.d24, OCTOBER.d29)).toEqual([
      ['2026-10-24', 40, 20],
      ['2026-10-25', 60, 30],
      ['2026-10-26', 30, 15],
      ['2026-10-28', 10, 5],
    ]);
  });

  it('today’s kWh is the same on the dashboard, site monitoring, history, export and big screens', async () => {
    const opts = { token: admin.token };
    const dashboard = await call(ctx.app, endpoints.dashboard.overview.path, {}, opts);
    expect(dashboard.data.sites.find((s: { siteId: number }) => s.siteId === siteId)).toMatchObject({
      todayChargeKwh: 42,
      todayDischargeKwh: 21,
    });
    const monitor = await call(ctx.app, endpoints.siteMonitor.site.path, { siteId }, opts);
    expect(monitor.data.site).toMatchObject({ todayChargeKwh: 42, todayDischargeKwh: 21 });
    const bars = await energyBars(todayStart, Date.now());
    expect(bars.map((b) => b.slice(1))).toEqual([[42, 21]]);
    const exported = await exportRows(todayStart, Date.now());
    expect(exported.map((r) => r.slice(1))).toEqual([[42, 21]]);
    const screen = await call(ctx.app, endpoints.screen.site.path, { siteId }, opts);
    expect(screen.data.today).toMatchObject({ chargeKwh: 42, dischargeKwh: 21 });
    const cockpit = await call(ctx.app, endpoints.screen.cockpit.path, {}, opts);
    expect(cockpit.data.siteList.find((s: { siteId: number }) => s.siteId === siteId)).toMatchObject({
      todayChargeKwh: 42,
      todayDischargeKwh: 21,
    });
  });
});
