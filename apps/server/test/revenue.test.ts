/**
 * Tariff history, energy per tier and revenue statistics (issue 17 items 2–4) against hand-computed
 * figures (arithmetic in the comments):
 * - energy per ToU period from the storage meter's registers at the period bounds × CT × PT, a
 *   missing reading falling back to the 15-minute power (flagged `power`);
 * - a price change from a date (ToU update with `effectiveFrom`): days before keep the old price;
 * - a Europe/Berlin site's 23 h and 25 h days: periods keep wall-clock bounds, energy per period;
 * - revenue/stat per site, project and company, day and month, priced by the one money rule.
 */
import { endpoints, type TouSchemeDocument } from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { company, device, site, siteTariff } from '../src/core/db/schema';
import { FleetSnapshot } from '../src/devices/fleet-snapshot';
import { tariffVersions } from '../src/devices/tariff-history';
import { computeTierDays, storageMeters } from '../src/devices/tier-energy';
import { RevenueService } from '../src/modules/revenue/revenue-service';
import { ScreenService } from '../src/modules/screen/screen-service';
import { call, type SignedIn, signIn } from './support/client';
import { unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';

/** 00:00–08:00 off-peak 0.3, 08:00–12:00 peak 1.2, 12:00–24:00 shoulder 0.7 CNY/kWh, every day. */
function simpleScheme(peak = 1.2): TouSchemeDocument {
  const p = (start: string, end: string, tier: 'off_peak' | 'peak' | 'shoulder', price: number) => ({
    start,
    end,
    tier,
    priceCnyPerKwh: price,
    action: 'idle' as const,
    powerKw: 0,
    socMinPct: 5,
    socMaxPct: 95,
  });
  return {
    dailyPlans: [
      {
        key: 1,
        name: 'Day',
        periods: [
          p('00:00', '08:00', 'off_peak', 0.3),
          p('08:00', '12:00', 'peak', peak),
          p('12:00', '00:00', 'shoulder', 0.7),
        ],
      },
    ],
    weeklyPlans: [],
    yearlyPlans: [],
    exceptionPlans: [],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: null,
  };
}

describe.each(engines)('tariff history, energy per tier and revenue on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let admin: SignedIn;
  let companyId: number;
  let siteId: number;
  let meterId: number;
  let projectId: number;

  /** One 15-minute rollup bucket of `point` starting at `startMs`. */
  async function quarter(
    deviceId: number,
    startMs: number,
    point: string,
    first: number,
    last: number,
    mean = last,
  ) {
    const at = sql`to_timestamp(${startMs / 1000})`;
    await db.execute(sql`
      INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
      VALUES (${deviceId}, 900, ${at}, ${point}, 1, ${mean}, ${Math.min(first, last)}, ${Math.max(first, last)},
              ${at}, ${first}, ${at}, ${last})`);
  }

  const api = (path: string, body: Record<string, unknown>) =>
    call(ctx.app, path, body, { token: admin.token });

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    const [platform] = rowsOf<{ id: number }>(
      await db.execute(sql`SELECT id FROM company WHERE type = 'platform' LIMIT 1`),
    );
    const [c] = await db
      .insert(company)
      .values({ type: 'agent', name: unique('收益代理商'), parentId: platform!.id })
      .returning({ id: company.id });
    companyId = c!.id;
    const code = unique('REV')
      .replace(/[^A-Za-z0-9-]/g, '')
      .slice(0, 24);
    const [s] = await db
      .insert(site)
      .values({ companyId, code, name: '收益测试站', timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    siteId = s!.id;
    const [ems] = await db
      .insert(device)
      .values({ companyId, siteId, sn: `${code}-EMS`, type: 'ems' })
      .returning({ id: device.id });
    await db
      .insert(device)
      .values({ companyId, siteId, sn: `${code}-BMS`, type: 'bms', gatewayId: ems!.id, capacityKwh: 4000 });
    const [m] = await db
      .insert(device)
      .values({ companyId, siteId, sn: `${code}-MTR`, type: 'meter', gatewayId: ems!.id })
      .returning({ id: device.id });
    meterId = m!.id;
    // The project declares the meter a storage meter on the secondary side: CT 200/5 = 40, PT 10000/100 = 100.
    const [proj] = rowsOf<{ id: number }>(
      await db.execute(sql`
        INSERT INTO project (company_id, name, contract_start, contract_years, income_mode, owner_share_pct)
        VALUES (${companyId}, ${unique('收益项目')}, DATE '2026-01-01', 10, 'self_investment', 100) RETURNING id`),
    );
    projectId = proj!.id;
    await db.execute(sql`
      INSERT INTO project_meter (company_id, project_id, device_id, ct_ratio, pt_ratio, reads_secondary)
      VALUES (${companyId}, ${projectId}, ${meterId}, 40, 100, true)`);
    await db.execute(sql`
      INSERT INTO project_site (company_id, project_id, site_id, bound_from)
      VALUES (${companyId}, ${projectId}, ${siteId}, DATE '2026-06-01')`);
    // The site's tariff since 2026-06-01.
    await db.insert(siteTariff).values({
      companyId,
      siteId,
      effectiveFrom: '2026-06-01',
      schemeName: 'simple',
      schemeVersion: 1,
      document: simpleScheme(),
    });
    // 2026-06-10 in Shanghai (UTC+8) starts at 2026-06-09T16:00Z. Readings (secondary kWh) at the
    // bounds = last value of the quarter hour before each bound:
    //   00:00 import 100.0 export 50.0 | 08:00 import 100.5 export 50.0 | 12:00 import 100.5 export 50.4
    //   24:00 import 100.5, export: no reading → the 12:00–24:00 period falls back to power.
    const d0 = Date.UTC(2026, 5, 9, 16);
    const h = 3_600_000;
    const q = 900_000;
    for (const [t, imp, exp] of [
      [d0, 100, 50],
      [d0 + 8 * h, 100.5, 50],
      [d0 + 12 * h, 100.5, 50.4],
    ] as const) {
      await quarter(meterId, t - q, 'e_import_total_kwh', imp, imp);
      await quarter(meterId, t - q, 'e_export_total_kwh', exp, exp);
    }
    await quarter(meterId, d0 + 24 * h - q, 'e_import_total_kwh', 100.5, 100.5);
    // Power of the 12:00–24:00 period: 12:00 quarter −20 kW (export = discharging), 12:15 +8 kW (import).
    await quarter(meterId, d0 + 12 * h, 'p_kw', -20, -20, -20);
    await quarter(meterId, d0 + 12 * h + q, 'p_kw', 8, 8, 8);
    admin = await signIn(ctx.app);
  }, 120_000);
  afterAll(async () => ctx?.close());

  it('energy per period from the registers × CT × PT, a missing reading from power (flagged)', async () => {
    const [meter] = await storageMeters(db, [siteId]);
    expect(meter).toMatchObject({ deviceId: meterId, multiplier: 4000, chargePoint: 'e_import_total_kwh' });
    // two runs of the day at once (the task and a screen's catch-up): the day is written whole once
    const versions = await tariffVersions(db, [siteId]);
    await Promise.all([
      computeTierDays(db, meter!, ['2026-06-10'], versions),
      computeTierDays(db, meter!, ['2026-06-10'], versions),
    ]);
    const rows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT start_hhmm, end_hhmm, tier, price_cny_per_kwh::float8 AS price, charged_kwh::float8 AS c,
               discharged_kwh::float8 AS d, source
        FROM energy_tier_day WHERE device_id = ${meterId} AND day = DATE '2026-06-10' ORDER BY start_at`),
    );
    expect(rows).toEqual([
      // (100.5 − 100.0) × 40 × 100 = 2000 kWh charged; export 50 → 50: 0
      {
        start_hhmm: '00:00',
        end_hhmm: '08:00',
        tier: 'off_peak',
        price: 0.3,
        c: 2000,
        d: 0,
        source: 'registers',
      },
      // export (50.4 − 50.0) × 4000 = 1600 kWh discharged
      {
        start_hhmm: '08:00',
        end_hhmm: '12:00',
        tier: 'peak',
        price: 1.2,
        c: 0,
        d: 1600,
        source: 'registers',
      },
      // power: 20 kW × ¼ h × 4000 = 20 000 kWh discharged; 8 kW × ¼ h × 4000 = 8000 kWh charged
      {
        start_hhmm: '12:00',
        end_hhmm: '00:00',
        tier: 'shoulder',
        price: 0.7,
        c: 8000,
        d: 20000,
        source: 'power',
      },
    ]);
  });

  it('revenue/stat per site, project and company, day and month: the one money rule', async () => {
    // cost = 2000 × 0.3 + 8000 × 0.7 = 600 + 5600 = 6200
    // value = 1600 × 1.2 + 20000 × 0.7 = 1920 + 14000 = 15920; net = 15920 − 6200 = 9720
    // efficiency = 21600 ÷ 10000 = 216 %; cycles = 21600 ÷ 4000 kWh = 5.4
    const totals = {
      chargedKwh: 10000,
      dischargedKwh: 21600,
      costCny: 6200,
      valueCny: 15920,
      netCny: 9720,
      efficiencyPct: 216,
      cycles: 5.4,
    };
    for (const [scope, id] of [
      ['site', siteId],
      ['project', projectId],
      ['company', companyId],
    ] as const) {
      for (const [granularity, period] of [
        ['day', '2026-06-10'],
        ['month', '2026-06'],
      ] as const) {
        const r = await api(endpoints.revenue.stat.path, { scope, id, granularity, period });
        expect(r.code, `${scope} ${granularity}: ${r.msg}`).toBe(0);
        expect(r.data.totals, `${scope} ${granularity}`).toEqual(totals);
        expect(r.data.sources).toEqual({ registers: 2, power: 1, none: 0 });
      }
    }
    const day = await api(endpoints.revenue.stat.path, {
      scope: 'site',
      id: siteId,
      granularity: 'day',
      period: '2026-06-10',
    });
    expect(day.data.series.map((p: { label: string; netCny: number }) => [p.label, p.netCny])).toEqual([
      ['00:00-08:00', -600], // −2000 × 0.3
      ['08:00-12:00', 1920], // 1600 × 1.2
      ['12:00-00:00', 8400], // (20000 − 8000) × 0.7
    ]);
    expect(day.data.perTier.find((t: { tier: string }) => t.tier === 'peak')).toMatchObject({
      dischargedKwh: 1600,
      valueCny: 1920,
    });
    // the previous day had nothing
    expect(day.data.previous.netCny).toBe(0);
    const month = await api(endpoints.revenue.stat.path, {
      scope: 'site',
      id: siteId,
      granularity: 'month',
      period: '2026-06',
    });
    expect(month.data.series).toEqual([expect.objectContaining({ label: '2026-06-10', netCny: 9720 })]);
    // a malformed period names the field; another company's site answers 3036
    const bad = await api(endpoints.revenue.stat.path, {
      scope: 'site',
      id: siteId,
      granularity: 'month',
      period: '2026-6',
    });
    expect(bad.code).toBe(-100);
    expect(bad.msg).toContain('period');
  });

  it('a price change from a date: days before keep the old price', async () => {
    const name = unique('价格变更');
    const saved = await api(endpoints.tou.save.path, { name, document: validScheme() });
    expect(saved.code, saved.msg).toBe(0);
    const schemeId = saved.data.id as number;
    // assigned from 2026-06-20: a version of the scheme as it is (peak 1.1637)
    const assigned = await api(endpoints.tou.assign.path, {
      id: schemeId,
      siteIds: [siteId],
      effectiveFrom: '2026-06-20',
    });
    expect(assigned.code, assigned.msg).toBe(0);
    // edited from 2026-06-25: peak 1.5
    const doc = validScheme();
    doc.dailyPlans[0]!.periods[1]!.priceCnyPerKwh = 1.5;
    const updated = await api(endpoints.tou.update.path, {
      id: schemeId,
      version: 1,
      name,
      document: doc,
      effectiveFrom: '2026-06-25',
    });
    expect(updated.code, updated.msg).toBe(0);
    const versions = await tariffVersions(db, [siteId]);
    expect(versions.map((v) => [v.effectiveFrom, v.schemeVersion])).toEqual([
      ['2026-06-01', 1],
      ['2026-06-20', 1],
      ['2026-06-25', 2],
    ]);
    const [meter] = await storageMeters(db, [siteId]);
    // 2026-06-24 (Wednesday) and 2026-06-25 (Thursday): readings 0 at both bounds, whatever the prices
    await computeTierDays(db, meter!, ['2026-06-10', '2026-06-19', '2026-06-24', '2026-06-25'], versions);
    const peak = rowsOf<{ day: string; price: number }>(
      await db.execute(sql`
        SELECT to_char(day, 'YYYY-MM-DD') AS day, price_cny_per_kwh::float8 AS price FROM energy_tier_day
        WHERE device_id = ${meterId} AND tier = 'peak' ORDER BY day`),
    );
    expect(peak).toEqual([
      { day: '2026-06-10', price: 1.2 }, // the first version
      { day: '2026-06-19', price: 1.2 },
      { day: '2026-06-24', price: 1.1637 }, // assigned from the 20th
      { day: '2026-06-25', price: 1.5 }, // edited from the 25th
    ]);
    // a settled month is never re-priced: with June 2026 settled for the site, a version from
    // 2026-06-28 answers 7020 naming 2026-07-01 (the first unsettled day), one from July is taken
    await db.execute(sql`
      INSERT INTO bill (company_id, project_id, month, version, state, income_mode, cost_cny, value_cny, net_benefit_cny, document)
      VALUES (${companyId}, ${projectId}, '2026-06', 1, 'confirmed', 'self_investment', 0, 0, 0,
              ${JSON.stringify({ sites: [{ siteId }] })}::jsonb)`);
    const settled = await api(endpoints.tou.update.path, {
      id: schemeId,
      version: 2,
      name,
      document: doc,
      effectiveFrom: '2026-06-28',
    });
    expect(settled.code).toBe(7020);
    expect(settled.msg).toContain('2026-07-01');
    await db.execute(sql`DELETE FROM bill WHERE project_id = ${projectId}`);
    // a two-part charge lacking its basis names the field
    const twoPart = await api(endpoints.tou.update.path, {
      id: schemeId,
      version: 2,
      name,
      document: doc,
      twoPart: {
        demandChargeCnyPerKwMonth: 38,
        demandBasis: null,
        contractedDemandKw: null,
        capacityChargeCnyPerKvaMonth: null,
        transformerKva: null,
      },
    });
    expect(twoPart.code).toBe(-100);
    expect(twoPart.msg).toContain('twoPart.demandBasis');
  });

  it('big screens: today and this month by the same rule as revenue statistics (not the old estimate)', async () => {
    // The clock at 2026-06-10 23:59 in Shanghai (15:59Z): today so far = the day of the first test,
    // the running 12:00–24:00 period has no export reading in it → power, as the stored day.
    const now = () => Date.UTC(2026, 5, 10, 15, 59);
    const screens = new ScreenService(db, new FleetSnapshot(db), now);
    const stat = await new RevenueService(db, now).stat(
      { all: true },
      { scope: 'site', id: siteId, granularity: 'day', period: '2026-06-10' },
    );
    // 9720 = 15920 − 6200 (first test)
    expect(stat.totals.netCny).toBe(9720);
    const screen = await screens.site({ all: true }, siteId);
    expect(screen.today.revenueCny).toBe(9720);
    // the estimate this replaces: all discharge at the day's highest price, all charge at its lowest:
    // 21600 × 1.2 − 10000 × 0.3 = 25920 − 3000 = 22920 (+136 %)
    expect(screen.today.revenueCny).not.toBe(21600 * 1.2 - 10000 * 0.3);
    const cockpit = await screens.cockpit({ all: true });
    expect(cockpit.siteList.find((s) => s.siteId === siteId)?.monthRevenueCny).toBe(9720);
  });

  it('DST days of a Europe/Berlin site: 23 h and 25 h, periods keep their wall-clock bounds', async () => {
    const code = unique('BERREV')
      .replace(/[^A-Za-z0-9-]/g, '')
      .slice(0, 24);
    const [s] = await db
      .insert(site)
      .values({ companyId, code, name: 'Berlin storage', timezone: 'Europe/Berlin' })
      .returning({ id: site.id });
    const [pcs] = await db
      .insert(device)
      .values({ companyId, siteId: s!.id, sn: `${code}-PCS`, type: 'pcs' })
      .returning({ id: device.id });
    await db.insert(siteTariff).values({
      companyId,
      siteId: s!.id,
      effectiveFrom: '2026-01-01',
      schemeName: 'simple',
      schemeVersion: 1,
      document: simpleScheme(),
    });
    const q = 900_000;
    const reading = async (t: number, charge: number, discharge: number) => {
      await quarter(pcs!.id, t - q, 'e_charge_total_kwh', charge, charge);
      await quarter(pcs!.id, t - q, 'e_discharge_total_kwh', discharge, discharge);
    };
    // 25 October 2026: midnight CEST = 24 Oct 22:00Z; 08:00 CET = 07:00Z (9 h later); 12:00 = 11:00Z; 24:00 = 23:00Z
    await reading(Date.UTC(2026, 9, 24, 22), 10, 0);
    await reading(Date.UTC(2026, 9, 25, 7), 19, 0); // 9 kWh over the 9-hour off-peak period
    await reading(Date.UTC(2026, 9, 25, 11), 19, 4);
    await reading(Date.UTC(2026, 9, 25, 23), 19, 10);
    // 29 March 2026: midnight CET = 28 Mar 23:00Z; 08:00 CEST = 06:00Z (7 h later)
    await reading(Date.UTC(2026, 2, 28, 23), 100, 0);
    await reading(Date.UTC(2026, 2, 29, 6), 107, 0);
    await reading(Date.UTC(2026, 2, 29, 10), 107, 3);
    await reading(Date.UTC(2026, 2, 29, 22), 107, 3);
    const [meter] = await storageMeters(db, [s!.id]);
    expect(meter).toMatchObject({ deviceId: pcs!.id, chargePoint: 'e_charge_total_kwh', multiplier: 1 });
    await computeTierDays(db, meter!, ['2026-03-29', '2026-10-25'], await tariffVersions(db, [s!.id]));
    const rows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT to_char(day, 'YYYY-MM-DD') AS day, start_hhmm,
               round(extract(epoch FROM end_at - start_at) / 3600)::int AS hours,
               charged_kwh::float8 AS c, discharged_kwh::float8 AS d, source
        FROM energy_tier_day WHERE device_id = ${pcs!.id} ORDER BY start_at`),
    );
    expect(rows).toEqual([
      { day: '2026-03-29', start_hhmm: '00:00', hours: 7, c: 7, d: 0, source: 'registers' }, // 107 − 100
      { day: '2026-03-29', start_hhmm: '08:00', hours: 4, c: 0, d: 3, source: 'registers' },
      { day: '2026-03-29', start_hhmm: '12:00', hours: 12, c: 0, d: 0, source: 'registers' },
      { day: '2026-10-25', start_hhmm: '00:00', hours: 9, c: 9, d: 0, source: 'registers' }, // 19 − 10
      { day: '2026-10-25', start_hhmm: '08:00', hours: 4, c: 0, d: 4, source: 'registers' },
      { day: '2026-10-25', start_hhmm: '12:00', hours: 12, c: 0, d: 6, source: 'registers' }, // 10 − 4
    ]);
  });
});
