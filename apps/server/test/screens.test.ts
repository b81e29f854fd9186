/**
 * Big screens: the public cockpit answers aggregates of the installation and
 * nothing per site (no names, codes, SNs, companies, exact positions); the signed-in cockpit
 * answers the caller's sites only; the site screens' data is limited to the caller's scope
 * (3036 otherwise) and carries latest points, BMS cells, today's energy, revenue and alarms.
 */
import {
  cockpitAggregatesSchema,
  cockpitResponse,
  ErrorCode,
  endpoints,
  errorMessage,
  screenSiteResponse,
  type TouSchemeDocument,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { device, deviceLatest, site, touScheme } from '../src/core/db/schema';
import { FleetSnapshot } from '../src/devices/fleet-snapshot';
import { type EventRow, storeBatch } from '../src/devices/telemetry-store';
import { PUBLIC_COCKPIT_RATE_PER_MINUTE } from '../src/modules/screen/screen-routes';
import { PUBLIC_CACHE_MS, ScreenService } from '../src/modules/screen/screen-service';
import { call, type SignedIn, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms, uniqueIp } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

/** One plan every day: valley 0.3 charging 00–08 and 22–24, peak 1.2 discharging 08–22. */
const SCHEME: TouSchemeDocument = {
  dailyPlans: [
    {
      key: 1,
      name: 'Every day',
      periods: [
        {
          start: '00:00',
          end: '08:00',
          tier: 'off_peak',
          priceCnyPerKwh: 0.3,
          action: 'charge',
          powerKw: 100,
          socMinPct: 5,
          socMaxPct: 95,
        },
        {
          start: '08:00',
          end: '22:00',
          tier: 'peak',
          priceCnyPerKwh: 1.2,
          action: 'discharge',
          powerKw: 100,
          socMinPct: 5,
          socMaxPct: 95,
        },
        {
          start: '22:00',
          end: '00:00',
          tier: 'off_peak',
          priceCnyPerKwh: 0.3,
          action: 'charge',
          powerKw: 100,
          socMinPct: 5,
          socMaxPct: 95,
        },
      ],
    },
  ],
  weeklyPlans: [],
  yearlyPlans: [],
  exceptionPlans: [],
  defaultDailyPlanKey: 1,
  defaultWeeklyPlanKey: null,
};

describe.each(engines)('big screens on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let adminA: SignedIn;
  let adminB: SignedIn;
  let noRight: SignedIn;
  let siteA1: number;
  let siteA2: number;
  let siteB: number;
  let bmsA1: number;
  /** Yesterday (Asia/Shanghai) is in this month: then its energy counts for the month. */
  let yesterdayInMonth: boolean;

  async function addSite(
    companyId: number,
    code: string,
    name: string,
    lat: number,
    lon: number,
    schemeId: number | null,
  ) {
    const [row] = await db
      .insert(site)
      .values({
        companyId,
        code,
        name,
        latitude: lat,
        longitude: lon,
        touSchemeId: schemeId,
        address: `${name} road 1`,
      })
      .returning({ id: site.id });
    return row!.id;
  }
  async function addDevice(
    companyId: number,
    siteId: number,
    sn: string,
    type: string,
    gatewayId: number | null,
    extra: object = {},
  ) {
    const [row] = await db
      .insert(device)
      .values({ companyId, siteId, sn, type, gatewayId, online: gatewayId === null, ...extra })
      .returning({ id: device.id });
    return row!.id;
  }
  /** Daily rollups of a PCS register: yesterday first→last, today's last (site-local days). */
  async function addEnergy(deviceId: number, point: string, yFirst: number, yLast: number, tLast: number) {
    const day = sql`date_trunc('day', now() AT TIME ZONE 'Asia/Shanghai') AT TIME ZONE 'Asia/Shanghai'`;
    for (const [start, first, last] of [
      [sql`${day} - interval '1 day'`, yFirst, yLast],
      [day, yLast, tLast],
    ] as const) {
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        VALUES (${deviceId}, 86400, ${start}, ${point}, 2, ${first + last}, ${first}, ${last}, ${start}, ${first}, ${start}, ${last})`);
    }
  }
  async function addSiteDevices(
    companyId: number,
    siteId: number,
    prefix: string,
    energy: { charge: [number, number, number]; discharge: [number, number, number] },
  ) {
    const ems = await addDevice(companyId, siteId, `EMS-${prefix}`, 'ems', null, {
      firmwareVersion: 'EMS-2.4.1',
    });
    const pcs = await addDevice(companyId, siteId, `PCS-${prefix}`, 'pcs', ems, { ratedPowerKw: 100 });
    const bms = await addDevice(companyId, siteId, `BMS-${prefix}`, 'bms', ems, { capacityKwh: 215 });
    await db.insert(deviceLatest).values([
      { deviceId: pcs, ts: new Date(), points: { p_kw: 40, t_igbt_c: 51.5, state: 2 } },
      {
        deviceId: bms,
        ts: new Date(),
        points: { soc_pct: 60, u_cell_max_v: 3.35, u_cell_max_no: 2 },
        cells: { u_v: [3.31, 3.35, 3.32], t_c: [25.1, 26.4, 25.8] },
        cellsTs: new Date(),
      },
    ]);
    await addEnergy(pcs, 'e_charge_total_kwh', ...energy.charge);
    await addEnergy(pcs, 'e_discharge_total_kwh', ...energy.discharge);
    return { ems, pcs, bms };
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    const A = (await addCompany(db, { name: 'Alpha储能公司' })).id;
    const B = (await addCompany(db, { name: 'Beta储能公司' })).id;
    const [scheme] = await db
      .insert(touScheme)
      .values({ companyId: A, name: 'Alpha ToU', document: SCHEME })
      .returning({ id: touScheme.id });
    siteA1 = await addSite(A, 'ALPHA-001', 'Alpha西湖储能站', 30.2741, 120.1551, scheme!.id);
    siteA2 = await addSite(A, 'ALPHA-002', 'Alpha滨江储能站', 30.2084, 120.2119, null);
    siteB = await addSite(B, 'BETA-001', 'Beta深圳储能站', 22.5431, 114.0579, null);
    // Energies (kWh): yesterday = last − first, today = today's last − yesterday's last.
    const a1 = await addSiteDevices(A, siteA1, 'ALPHA1', {
      charge: [1000, 1050, 1150],
      discharge: [500, 540, 630],
    });
    bmsA1 = a1.bms;
    const a2 = await addSiteDevices(A, siteA2, 'ALPHA2', { charge: [0, 10, 30], discharge: [0, 8, 24] });
    await addSiteDevices(B, siteB, 'BETA1', { charge: [0, 0, 200], discharge: [0, 0, 180] });
    // Alarms through the ingest's store (events + the `alarm` lifecycle). The raised-and-cleared
    // pair is stored first, so event ids and alarm ids differ.
    const ev = (e: Omit<EventRow, 'companyId' | 'siteId' | 'gatewayId' | 'msgIndex' | 'value'>) => ({
      ...e,
      companyId: A,
      siteId: siteA1,
      gatewayId: a1.ems,
      msgIndex: 0,
      value: null,
    });
    const now = Date.now();
    const store = (events: EventRow[]) => storeBatch(db, [], events, new Map());
    // Raised and cleared: not active.
    await store([
      ev({
        deviceId: a1.pcs,
        msgId: 'e3',
        ts: now - 40_000,
        kind: 'produce',
        code: 'pcs.grid_overvoltage',
        level: 'warning',
        content: '1.11 Un',
      }),
      ev({
        deviceId: a1.pcs,
        msgId: 'e4',
        ts: now - 30_000,
        kind: 'disappear',
        code: 'pcs.grid_overvoltage',
        level: 'warning',
        content: '1.11 Un',
      }),
    ]);
    await store([
      ev({
        deviceId: a1.bms,
        msgId: 'e1',
        ts: now - 60_000,
        kind: 'produce',
        code: 'bms.cell_overvoltage',
        level: 'warning',
        content: 'Cell 2 at 3.61 V',
      }),
      ev({
        deviceId: a1.pcs,
        msgId: 'e2',
        ts: now - 50_000,
        kind: 'produce',
        code: 'pcs.over_temperature',
        level: 'fault',
        content: 'IGBT 96 °C',
      }),
    ]);
    // Site A2: the clearing arrives before the raise, both at the same device time. The alarm
    // lifecycle raises and clears it (not active), though the newest stored event is a produce.
    const a2ev = (kind: 'produce' | 'disappear', msgId: string) => ({
      ...ev({
        deviceId: a2.pcs,
        msgId,
        ts: now - 20_000,
        kind,
        code: 'pcs.dc_overcurrent',
        level: 'warning',
        content: 'DC 1.2 In',
      }),
      siteId: siteA2,
      gatewayId: a2.ems,
    });
    await store([a2ev('disappear', 'e5')]);
    await store([a2ev('produce', 'e6')]);
    const [month] = rowsOf<{ same: boolean }>(
      await db.execute(sql`
        SELECT date_trunc('month', now() AT TIME ZONE 'Asia/Shanghai')
             = date_trunc('month', (now() AT TIME ZONE 'Asia/Shanghai') - interval '1 day') AS same`),
    );
    yesterdayInMonth = Boolean(month?.same);
    const staffA = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
    });
    const staffB = await addStaff(db, {
      companyId: B,
      roleIds: [await addRole(db, { companyId: B, isAdmin: true })],
    });
    const staffNoRight = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, menuIds: [] })],
    });
    adminA = await signIn(ctx.app, staffA.account, staffA.password);
    adminB = await signIn(ctx.app, staffB.account, staffB.password);
    noRight = await signIn(ctx.app, staffNoRight.account, staffNoRight.password);
  });
  afterAll(async () => ctx?.close());

  it('the public cockpit answers aggregates of the installation and nothing per site', async () => {
    const answer = await call(ctx.app, endpoints.screen.cockpitPublic.path, {}, { ip: uniqueIp() });
    expect(answer.code).toBe(0);
    const data = conforms(cockpitAggregatesSchema.strict(), answer.data);
    expect(Object.keys(data).sort()).toEqual(Object.keys(cockpitAggregatesSchema.shape).sort());
    // Whole installation: both companies' sites.
    expect(data.sites).toBe(3);
    expect(data.capacityKwh).toBe(645);
    expect(data.ratedPowerKw).toBe(300);
    expect(data.todayChargeKwh).toBe(100 + 20 + 200);
    expect(data.todayDischargeKwh).toBe(90 + 16 + 180);
    const yCharge = yesterdayInMonth ? 50 + 10 + 0 : 0;
    const yDischarge = yesterdayInMonth ? 40 + 8 + 0 : 0;
    expect(data.monthChargeKwh).toBe(320 + yCharge);
    expect(data.monthDischargeKwh).toBe(286 + yDischarge);
    // Revenue is the one money rule over energy per ToU period (revenue.test.ts "big screens"): these
    // sites have daily rollups only and no tariff version, so nothing is valued.
    expect(data.revenue).toEqual({ todayCny: 0, monthCny: 0, sitesByScheme: 0, sitesByDefault: 3 });
    expect(data.alarms).toEqual({ warning: 1, fault: 1 });
    // Map: whole degrees only; the two Hangzhou sites share a cell.
    expect(data.mapCells).toEqual([
      { latitude: 30, longitude: 120, sites: 2 },
      { latitude: 23, longitude: 114, sites: 1 },
    ]);
    // Nothing private in the text of the answer.
    const text = JSON.stringify(answer.data);
    for (const secret of [
      'Alpha',
      'Beta',
      'ALPHA',
      'BETA',
      '储能站',
      'road',
      'PCS-',
      'BMS-',
      'EMS-',
      '30.27',
      '120.15',
      '22.54',
      'IGBT',
      'Cell 2',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    // In English too (no translated text either).
    const en = await call(ctx.app, endpoints.screen.cockpitPublic.path, {}, { ip: uniqueIp(), lang: 'en' });
    expect(en.data.sites).toBe(3);
  });

  it('the public cockpit builds one answer at a time and serves the last one while refreshing', async () => {
    const dashboard = new FleetSnapshot(db);
    let builds = 0;
    let release: () => void = () => undefined;
    let gate = Promise.resolve();
    const sites = dashboard.sites.bind(dashboard);
    dashboard.sites = async (scope, siteId) => {
      builds += 1;
      await gate;
      return sites(scope, siteId);
    };
    const screens = new ScreenService(db, dashboard);
    let clock = Date.now();
    const now = vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      // A slow first build: every caller waits for that one build.
      gate = new Promise((r) => {
        release = r;
      });
      const first = [screens.publicCockpit(), screens.publicCockpit(), screens.publicCockpit()];
      // Wait for the build to start (it reads the fleet's time base first, a database call of
      // any length on a busy machine), then give the other callers time to start their own.
      await vi.waitFor(() => expect(builds).toBeGreaterThanOrEqual(1));
      await new Promise((r) => setTimeout(r, 20));
      expect(builds).toBe(1);
      release();
      const answers = await Promise.all(first);
      expect(answers[0]!.sites).toBe(3);
      expect(answers[1]).toBe(answers[0]);
      // Fresh: no new build.
      clock += PUBLIC_CACHE_MS - 1;
      expect(await screens.publicCockpit()).toBe(answers[0]);
      expect(builds).toBe(1);
      // Stale: one refresh starts; while it runs, callers get the last answer at once.
      clock += 2;
      gate = new Promise((r) => {
        release = r;
      });
      expect(await screens.publicCockpit()).toBe(answers[0]);
      clock += PUBLIC_CACHE_MS * 10; // the refresh is slow: still no second build
      expect(await screens.publicCockpit()).toBe(answers[0]);
      await vi.waitFor(() => expect(builds).toBeGreaterThanOrEqual(2));
      await new Promise((r) => setTimeout(r, 20));
      expect(builds).toBe(2);
      release();
      await vi.waitFor(async () => expect(await screens.publicCockpit()).not.toBe(answers[0]));
      // Stamped when the refresh settled: fresh again, no third build.
      expect(builds).toBe(2);
    } finally {
      now.mockRestore();
    }
  });

  it('the public cockpit is rate-limited per client address', async () => {
    const ip = uniqueIp();
    for (let i = 0; i < PUBLIC_COCKPIT_RATE_PER_MINUTE; i++) {
      expect((await call(ctx.app, endpoints.screen.cockpitPublic.path, {}, { ip })).code).toBe(0);
    }
    const refused = await call(ctx.app, endpoints.screen.cockpitPublic.path, {}, { ip });
    expect(refused.code).toBe(ErrorCode.TOO_MANY_REQUESTS);
    expect(refused.data).toBeNull();
    expect((await call(ctx.app, endpoints.screen.cockpitPublic.path, {}, { ip: uniqueIp() })).code).toBe(0);
  });

  it('the signed-in cockpit answers the caller’s sites with names, and no other company’s', async () => {
    const a = await call(ctx.app, endpoints.screen.cockpit.path, {}, { token: adminA.token });
    expect(a.code).toBe(0);
    const data = conforms(cockpitResponse, a.data);
    expect(data.sites).toBe(2);
    expect(data.siteList.map((s) => s.name).sort()).toEqual(['Alpha滨江储能站', 'Alpha西湖储能站']);
    expect(data.siteList.find((s) => s.siteId === siteA1)).toMatchObject({
      latitude: 30.2741,
      longitude: 120.1551,
    });
    expect(data.todayChargeKwh).toBe(120);
    expect(data.topSiteIds).toEqual([siteA1, siteA2]);
    expect(data.siteList.map((s) => [s.siteId, s.activeAlarms])).toEqual([
      [siteA1, 2],
      [siteA2, 0],
    ]);
    expect(data.alarms).toEqual({ warning: 1, fault: 1 });
    expect(JSON.stringify(a.data)).not.toContain('Beta');
    const b = await call(ctx.app, endpoints.screen.cockpit.path, {}, { token: adminB.token });
    expect(b.data.siteList.map((s: { name: string }) => s.name)).toEqual(['Beta深圳储能站']);
    expect(b.data.alarms).toEqual({ warning: 0, fault: 0 });
    expect((await call(ctx.app, endpoints.screen.cockpit.path, {})).code).toBe(ErrorCode.TOKEN_INVALID);
    // Exact positions and revenue need screen:view, not only a session.
    const refused = await call(ctx.app, endpoints.screen.cockpit.path, {}, { token: noRight.token });
    expect(refused.code).toBe(ErrorCode.NO_PERMISSION);
    expect(refused.data).toBeNull();
  });

  it('the site picker and the site data are limited to the caller’s scope', async () => {
    const sites = await call(ctx.app, endpoints.screen.sites.path, {}, { token: adminA.token });
    expect(sites.data.map((s: { siteId: number }) => s.siteId).sort()).toEqual([siteA1, siteA2].sort());
    const foreign = await call(
      ctx.app,
      endpoints.screen.site.path,
      { siteId: siteB },
      { token: adminA.token },
    );
    expect(foreign.code).toBe(ErrorCode.SITE_NOT_FOUND);
    expect(foreign.msg).toBe(errorMessage(ErrorCode.SITE_NOT_FOUND, 'zh'));
    expect(foreign.data).toBeNull();
    const missing = await call(
      ctx.app,
      endpoints.screen.site.path,
      { siteId: 999_999 },
      { token: adminA.token },
    );
    expect(missing.code).toBe(ErrorCode.SITE_NOT_FOUND);
    expect(
      (await call(ctx.app, endpoints.screen.site.path, { siteId: siteA1 }, { token: noRight.token })).code,
    ).toBe(ErrorCode.NO_PERMISSION);
    expect((await call(ctx.app, endpoints.screen.site.path, { siteId: siteA1 })).code).toBe(
      ErrorCode.TOKEN_INVALID,
    );
  });

  it('the site data carries devices, latest points, cells, today’s energy, revenue and active alarms', async () => {
    const answer = await call(
      ctx.app,
      endpoints.screen.site.path,
      { siteId: siteA1 },
      { token: adminA.token },
    );
    expect(answer.code).toBe(0);
    const data = conforms(screenSiteResponse, answer.data);
    expect(data.site).toMatchObject({
      name: 'Alpha西湖储能站',
      companyName: 'Alpha储能公司',
      touSchemeName: 'Alpha ToU',
      capacityKwh: 215,
      ratedPowerKw: 100,
      online: true,
    });
    expect(data.devices.map((d) => d.type)).toEqual(['ems', 'bms', 'pcs']);
    expect(data.devices[0]).toMatchObject({ isGateway: true, firmwareVersion: 'EMS-2.4.1' });
    const bms = data.devices.find((d) => d.id === bmsA1)!;
    expect(bms.cells).toEqual({ u_v: [3.31, 3.35, 3.32], t_c: [25.1, 26.4, 25.8] });
    expect(bms.points.soc_pct).toBe(60);
    expect(bms.firstDataAt).toBeNull();
    expect(data.devices.find((d) => d.type === 'pcs')!.firstDataAt).not.toBeNull();
    expect(data.today).toMatchObject({ chargeKwh: 100, dischargeKwh: 90 });
    // Daily rollups only, no tariff version: not valued (the rule: revenue.test.ts "big screens").
    expect(data.today.revenueCny).toBe(0);
    expect(data.alarms.map((a) => a.code)).toEqual(['pcs.over_temperature', 'bms.cell_overvoltage']);
    // The ids are the alarms' (as on the alarms page), not the events'.
    const active = rowsOf<{ id: number }>(
      await db.execute(
        sql`SELECT id FROM alarm WHERE site_id = ${siteA1} AND cleared_at IS NULL ORDER BY produced_at DESC`,
      ),
    );
    expect(data.alarms.map((a) => a.id)).toEqual(active.map((r) => Number(r.id)));
    // Site A2's alarm was cleared (the `alarm` table), though its newest event is a produce.
    const a2 = await call(ctx.app, endpoints.screen.site.path, { siteId: siteA2 }, { token: adminA.token });
    expect(a2.data.alarms).toEqual([]);
  });
});
