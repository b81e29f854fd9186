/**
 * Site monitoring (`/zdjkshow`): the site list answers the caller's sites only,
 * with position, map status (online / offline / alarm), SOC, battery kW, today's kWh and active
 * alarms — the same figures as the dashboard; the site detail answers energy flow and the PCS,
 * BMS, meter, PV, environment and air-conditioner panels from device_latest; a site outside the
 * caller's scope, or none at all, answers 3036; without the right, 5034.
 */
import {
  buildSitePanels,
  ErrorCode,
  endpoints,
  errorMessage,
  type SiteDetailDevice,
  siteMonitorDetailResponse,
  siteMonitorListResponse,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { device, deviceLatest, site } from '../src/core/db/schema';
import { FleetSnapshot } from '../src/devices/fleet-snapshot';
import { type EventRow, storeBatch } from '../src/devices/telemetry-store';
import { SiteMonitorService } from '../src/modules/monitor/site-monitor-service';
import { call, type SignedIn, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

/** Menu id of "Site monitoring" (migration 0008, permission monitor:site:list). */
const SITE_MONITORING_MENU = 501;

describe('buildSitePanels (contract)', () => {
  const dev = (id: number, type: string, points: Record<string, number>): SiteDetailDevice => ({
    id,
    sn: `D${id}`,
    type,
    model: null,
    online: true,
    ts: 1_000 + id,
    points,
    storageMeter: false,
  });

  it('derives directions, load and the cell spread; a missing reading stays null', () => {
    const panels = buildSitePanels([
      dev(1, 'meter', { p_kw: -5 }),
      dev(2, 'pcs', { p_kw: 50 }),
      dev(3, 'pcs', { p_kw: 25 }),
      dev(4, 'bms', { u_cell_max_v: 3.412, u_cell_min_v: 3.398 }),
    ]);
    expect(panels.energyFlow).toEqual({
      gridKw: -5,
      pvKw: null,
      batteryKw: 75,
      loadKw: 70,
      gridDirection: 'out',
      batteryDirection: 'out',
      ts: 1_003,
    });
    expect(panels.bms[0]!.uCellDiffMv).toBe(14);
    expect(panels.bms[0]!.socPct).toBeNull();
    expect(panels.pcs.map((p) => p.deviceId)).toEqual([2, 3]);
  });

  it('is idle below 0.05 kW and without readings', () => {
    const flow = buildSitePanels([dev(1, 'meter', { p_kw: 0.01 })]).energyFlow;
    expect(flow.gridDirection).toBe('idle');
    expect(flow.batteryDirection).toBe('idle');
    expect(flow.batteryKw).toBeNull();
    expect(buildSitePanels([]).energyFlow.loadKw).toBeNull();
  });
});

describe.each(engines)('site monitoring on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let adminA: SignedIn;
  let monitorOnlyA: SignedIn;
  let adminB: SignedIn;
  let noRight: SignedIn;
  let siteA1: number;
  let siteA2: number;
  let siteA3: number;
  let siteB: number;
  const ids: Record<string, number> = {};

  async function addSite(
    companyId: number,
    code: string,
    name: string,
    lat: number | null,
    lon: number | null,
  ) {
    const [row] = await db
      .insert(site)
      .values({ companyId, code, name, latitude: lat, longitude: lon, address: `${name} 1号` })
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
  async function latest(deviceId: number, points: Record<string, number>, agoMs = 5_000) {
    await db.insert(deviceLatest).values({ deviceId, ts: new Date(Date.now() - agoMs), points });
  }
  /** Daily rollups of a PCS register: yesterday's last and today's last (site-local days). */
  async function addEnergy(deviceId: number, point: string, yLast: number, tLast: number) {
    const day = sql`date_trunc('day', now() AT TIME ZONE 'Asia/Shanghai') AT TIME ZONE 'Asia/Shanghai'`;
    for (const [start, first, last] of [
      [sql`${day} - interval '1 day'`, yLast - 10, yLast],
      [day, yLast, tLast],
    ] as const) {
      await db.execute(sql`
        INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max, first_ts, first_value, last_ts, last_value)
        VALUES (${deviceId}, 86400, ${start}, ${point}, 2, ${first + last}, ${first}, ${last}, ${start}, ${first}, ${start}, ${last})`);
    }
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    const A = (await addCompany(db, { name: '监控甲公司' })).id;
    const B = (await addCompany(db, { name: '监控乙公司' })).id;
    siteA1 = await addSite(A, 'MON-A1', '甲·西湖储能站', 30.2741, 120.1551);
    siteA2 = await addSite(A, 'MON-A2', '甲·滨江储能站', 30.2084, 120.2119);
    siteA3 = await addSite(A, 'MON-A3', '甲·无坐标站', null, null);
    siteB = await addSite(B, 'MON-B1', '乙·深圳储能站', 22.5431, 114.0579);

    // A1: every device type, charging at 40 kW from grid 30 kW + PV 20 kW (load 10 kW).
    const ems = await addDevice(A, siteA1, 'MON-EMS-A1', 'ems', null);
    ids.pcs = await addDevice(A, siteA1, 'MON-PCS-A1', 'pcs', ems, { ratedPowerKw: 100 });
    ids.bms = await addDevice(A, siteA1, 'MON-BMS-A1', 'bms', ems, { capacityKwh: 215 });
    ids.meter = await addDevice(A, siteA1, 'MON-MTR-A1', 'meter', ems);
    ids.pv = await addDevice(A, siteA1, 'MON-PV-A1', 'pv', ems);
    ids.env = await addDevice(A, siteA1, 'MON-ENV-A1', 'env_sensor', ems);
    ids.ac = await addDevice(A, siteA1, 'MON-AC-A1', 'air_conditioner', ems);
    await latest(ids.pcs, {
      p_kw: -40,
      q_kvar: 1.5,
      pf: 0.99,
      freq_hz: 50.02,
      u_a_v: 230.1,
      u_b_v: 229.8,
      u_c_v: 231.2,
      i_a_a: 58.1,
      i_b_a: 57.9,
      i_c_a: 58.4,
      dc_u_v: 768.4,
      dc_i_a: -52.6,
      t_igbt_c: 48.5,
      state: 1,
    });
    await latest(ids.bms, {
      soc_pct: 63.5,
      soh_pct: 98.2,
      u_pack_v: 768.4,
      i_pack_a: -52.6,
      u_cell_max_v: 3.352,
      u_cell_max_no: 131,
      u_cell_min_v: 3.301,
      u_cell_min_no: 7,
      t_cell_max_c: 31.4,
      t_cell_max_no: 88,
      t_cell_min_c: 24.9,
      t_cell_min_no: 3,
    });
    await latest(ids.meter, { p_kw: 30, freq_hz: 50.01, u_a_v: 230.5, e_import_total_kwh: 1234.5 });
    await latest(ids.pv, { p_kw: 20, e_total_kwh: 5678 });
    await latest(ids.env, { t_c: 26.5, rh_pct: 55, smoke: 0, water: 0, door: 1 });
    await latest(ids.ac, {
      state: 1,
      t_supply_c: 18.5,
      t_return_c: 27.1,
      cooling_start_c: 28,
      heating_start_c: 10,
    });
    await addEnergy(ids.pcs, 'e_charge_total_kwh', 1050, 1150);
    await addEnergy(ids.pcs, 'e_discharge_total_kwh', 540, 630);
    // Alarms through the ingest's store (events + the `alarm` lifecycle, which decides "active").
    const alarmEv = (msgId: string, kind: 'produce' | 'disappear', code: string, ts: number): EventRow => ({
      companyId: A,
      siteId: siteA1,
      deviceId: ids.bms!,
      gatewayId: ems,
      msgId,
      msgIndex: 0,
      ts,
      kind,
      code,
      level: 'warning',
      content: 'Cell 131 at 3.61 V',
      value: null,
    });
    await storeBatch(
      db,
      [],
      [alarmEv('mon-e1', 'produce', 'bms.cell_overvoltage', Date.now() - 60_000)],
      new Map(),
    );
    // Cleared before it was raised, at the same device time (batches out of order): the alarm is
    // raised and cleared at once — not active, though its newest stored event is a produce.
    const t = Date.now() - 30_000;
    await storeBatch(db, [], [alarmEv('mon-e2', 'disappear', 'bms.cell_undervoltage', t)], new Map());
    await storeBatch(db, [], [alarmEv('mon-e3', 'produce', 'bms.cell_undervoltage', t)], new Map());

    // A2: online, idle, no alarm. A3: gateway offline.
    const ems2 = await addDevice(A, siteA2, 'MON-EMS-A2', 'ems', null);
    const bms2 = await addDevice(A, siteA2, 'MON-BMS-A2', 'bms', ems2, { capacityKwh: 100 });
    await latest(bms2, { soc_pct: 80 });
    await addDevice(A, siteA3, 'MON-EMS-A3', 'ems', null, { online: false, offlineReason: 'lwt' });
    const emsB = await addDevice(B, siteB, 'MON-EMS-B1', 'ems', null);
    await latest(await addDevice(B, siteB, 'MON-BMS-B1', 'bms', emsB, { capacityKwh: 100 }), { soc_pct: 10 });

    const staffA = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
    });
    const monitorOnly = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, menuIds: [SITE_MONITORING_MENU] })],
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
    monitorOnlyA = await signIn(ctx.app, monitorOnly.account, monitorOnly.password);
    adminB = await signIn(ctx.app, staffB.account, staffB.password);
    noRight = await signIn(ctx.app, staffNoRight.account, staffNoRight.password);
  });
  afterAll(async () => ctx?.close());

  it("lists the caller's sites with position, status and the dashboard's figures", async () => {
    const answer = await call(ctx.app, endpoints.siteMonitor.sites.path, {}, { token: monitorOnlyA.token });
    expect(answer.code, answer.msg).toBe(0);
    const { sites } = conforms(siteMonitorListResponse, answer.data);
    expect(sites.map((s) => s.code)).toEqual(['MON-A1', 'MON-A2', 'MON-A3']);
    const [a1, a2, a3] = sites;
    expect(a1).toMatchObject({
      siteId: siteA1,
      name: '甲·西湖储能站',
      status: 'alarm',
      online: true,
      latitude: 30.2741,
      longitude: 120.1551,
      address: '甲·西湖储能站 1号',
      timezone: 'Asia/Shanghai',
      socPct: 63.5,
      batteryPowerKw: -40,
      gridPowerKw: 30,
      todayChargeKwh: 100,
      todayDischargeKwh: 90,
      activeAlarms: 1,
      capacityKwh: 215,
      ratedPowerKw: 100,
    });
    expect(a2).toMatchObject({ siteId: siteA2, status: 'online', socPct: 80, activeAlarms: 0 });
    expect(a3).toMatchObject({
      siteId: siteA3,
      status: 'offline',
      online: false,
      latitude: null,
      longitude: null,
    });

    // The same per-site figures as the dashboard (one source).
    const dash = await call(ctx.app, endpoints.dashboard.overview.path, {}, { token: adminA.token });
    for (const s of dash.data.sites as { siteId: number }[]) {
      const mine = sites.find((m) => m.siteId === s.siteId)!;
      expect(mine).toMatchObject(s);
    }

    const other = await call(ctx.app, endpoints.siteMonitor.sites.path, {}, { token: adminB.token });
    expect(other.data.sites.map((s: { code: string }) => s.code)).toEqual(['MON-B1']);
  });

  it('answers the energy flow and every panel of a site from device_latest', async () => {
    const answer = await call(
      ctx.app,
      endpoints.siteMonitor.site.path,
      { siteId: siteA1 },
      { token: monitorOnlyA.token },
    );
    expect(answer.code, answer.msg).toBe(0);
    const detail = conforms(siteMonitorDetailResponse, answer.data);
    expect(detail.site).toMatchObject({ siteId: siteA1, status: 'alarm', socPct: 63.5 });
    expect(detail.devices.map((d) => d.type)).toEqual([
      'ems',
      'pcs',
      'bms',
      'meter',
      'pv',
      'env_sensor',
      'air_conditioner',
    ]);
    expect(detail.devices.every((d) => d.online)).toBe(true);
    const { panels } = detail;
    expect(panels.energyFlow).toMatchObject({
      gridKw: 30,
      pvKw: 20,
      batteryKw: -40,
      loadKw: 10,
      gridDirection: 'in',
      batteryDirection: 'in',
    });
    expect(panels.energyFlow.ts).toBeGreaterThan(Date.now() - 60_000);
    expect(panels.pcs).toEqual([
      expect.objectContaining({
        deviceId: ids.pcs,
        sn: 'MON-PCS-A1',
        pKw: -40,
        freqHz: 50.02,
        uAV: 230.1,
        uBV: 229.8,
        uCV: 231.2,
        iAA: 58.1,
        iCA: 58.4,
        dcUV: 768.4,
        tIgbtC: 48.5,
        state: 1,
      }),
    ]);
    expect(panels.bms).toEqual([
      expect.objectContaining({
        deviceId: ids.bms,
        socPct: 63.5,
        sohPct: 98.2,
        uPackV: 768.4,
        iPackA: -52.6,
        uCellMaxV: 3.352,
        uCellMaxNo: 131,
        uCellMinV: 3.301,
        uCellMinNo: 7,
        uCellDiffMv: 51,
        tCellMaxC: 31.4,
        tCellMaxNo: 88,
        tCellMinC: 24.9,
        tCellMinNo: 3,
        chargeLimitKw: null,
      }),
    ]);
    expect(panels.meter[0]).toMatchObject({
      pKw: 30,
      freqHz: 50.01,
      uAV: 230.5,
      eImportTotalKwh: 1234.5,
      pf: null,
    });
    expect(panels.pv[0]).toMatchObject({ pKw: 20, eTotalKwh: 5678 });
    expect(panels.env[0]).toMatchObject({ tC: 26.5, rhPct: 55, smoke: 0, water: 0, door: 1 });
    expect(panels.airConditioner[0]).toMatchObject({
      state: 1,
      tSupplyC: 18.5,
      tReturnC: 27.1,
      coolingStartC: 28,
    });
  });

  it('marks the devices of an offline gateway offline', async () => {
    const answer = await call(
      ctx.app,
      endpoints.siteMonitor.site.path,
      { siteId: siteA3 },
      { token: adminA.token },
    );
    expect(answer.code, answer.msg).toBe(0);
    expect(answer.data.site.status).toBe('offline');
    expect(answer.data.devices).toEqual([expect.objectContaining({ online: false, ts: null, points: {} })]);
    expect(answer.data.panels.energyFlow.loadKw).toBeNull();
  });

  it('reads the figures of the one site asked for, not of the whole scope', async () => {
    const dashboard = new FleetSnapshot(db);
    const asked: (number | undefined)[] = [];
    const sites = dashboard.sites.bind(dashboard);
    dashboard.sites = (scope, siteId) => {
      asked.push(siteId);
      return sites(scope, siteId);
    };
    const service = new SiteMonitorService(db, dashboard);
    const detail = await service.site({ all: true }, siteA1);
    expect(detail.site).toMatchObject({
      siteId: siteA1,
      status: 'alarm',
      activeAlarms: 1,
      todayChargeKwh: 100,
    });
    expect(asked).toEqual([siteA1]);
    // The filtered read keeps the scope: another company's site is not found.
    expect(await sites({ all: false, companyIds: [-1] }, siteA1)).toEqual([]);
    expect((await sites({ all: true }, siteA2)).map((s) => s.siteId)).toEqual([siteA2]);
  });

  it('answers 3036 for a site outside the scope or absent, 5034 without the right', async () => {
    for (const [token, siteId] of [
      [adminB.token, siteA1],
      [adminA.token, siteB],
      [adminA.token, 2_000_000_000],
    ] as const) {
      const answer = await call(ctx.app, endpoints.siteMonitor.site.path, { siteId }, { token });
      expect(answer.code).toBe(ErrorCode.SITE_NOT_FOUND);
      expect(answer.msg).toBe(errorMessage(ErrorCode.SITE_NOT_FOUND, 'zh'));
      expect(answer.data).toBeNull();
    }
    const en = await call(
      ctx.app,
      endpoints.siteMonitor.site.path,
      { siteId: siteB },
      { token: adminA.token, lang: 'en' },
    );
    expect(en.msg).toBe('Site not found');
    for (const path of [endpoints.siteMonitor.sites.path, endpoints.siteMonitor.site.path]) {
      const answer = await call(ctx.app, path, { siteId: siteA1 }, { token: noRight.token });
      expect(answer.code).toBe(ErrorCode.NO_PERMISSION);
    }
  });
});
