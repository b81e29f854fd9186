/**
 * A project's declared storage meter is not the site's grid meter (contract
 * device/site-figures.ts, `FigureDevice.storageMeter`; server devices/site-figures.ts
 * `figureSourcesSql`), on both engines. Two sites, each with its gateway (EMS) and a PCS, the
 * storage meter declared through `project/save` `meters` (issue 17 item 1):
 *
 * - "grid + storage": a grid meter beside the storage meter — the grid power is the grid
 *   meter's alone, not the two summed;
 * - "storage only": the storage meter is the site's only meter — the grid power is the gateway's
 *   `grid_kw`, not the storage meter's reading (nor nothing at all).
 *
 * Observed where a user sees it: the dashboard's and site monitoring's grid power, the site
 * monitoring energy flow and the big screen's devices (each device says whether it is a storage
 * meter, and the console's `siteFigures` over the answer gives the same grid power), the big
 * screen's grid import today, and the bill's maximum demand with and without storage (issue 17
 * "demand charge change"; figures by hand below).
 */
import {
  dashboardResponse,
  endpoints,
  NO_TWO_PART,
  screenSiteResponse,
  siteFigures,
  siteMonitorDetailResponse,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { deviceLatest, site, siteTariff, telemetryRollup } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { addRole, addStaff, conforms, unique } from './support/fixtures';
import { addCompanyUnder } from './support/org';
import { addSiteDevice, rollupRow } from './support/project';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { FLAT_TOU } from './support/tou';

const ZONE = 'Asia/Shanghai';

describe.each(engines)('a declared storage meter is not the grid meter on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let token: string;
  let companyId: number;
  let investor: number;
  /** The two sites and their devices. */
  const both = { siteId: 0, ems: 0, pcs: 0, grid: 0, storage: 0, projectId: 0 };
  const storageOnly = { siteId: 0, ems: 0, pcs: 0, storage: 0, projectId: 0 };

  const api = (path: string, body: object) => call(ctx.app, path, body, { token });

  const addDevice = (siteId: number, type: string, gatewayId?: number) =>
    addSiteDevice(db, { companyId, siteId, type, sn: unique(type.toUpperCase()), gatewayId });

  /**
   * A site with a gateway and a PCS on the bill tests' two-price scheme ({@link FLAT_TOU}) with a
   * max-demand charge of 40 CNY/kW·month.
   */
  async function addSite() {
    const [s] = await db
      .insert(site)
      .values({ companyId, code: unique('SM').slice(0, 30), name: unique('储能表站'), timezone: ZONE })
      .returning({ id: site.id });
    await db.insert(siteTariff).values({
      companyId,
      siteId: s!.id,
      effectiveFrom: '2025-01-01',
      schemeName: 'flat two-part',
      schemeVersion: 1,
      document: FLAT_TOU,
      twoPart: { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40, demandBasis: 'max_demand' },
    });
    const ems = await addDevice(s!.id, 'ems');
    return { siteId: s!.id, ems, pcs: await addDevice(s!.id, 'pcs', ems) };
  }

  /** A project over `siteId` from 2025-06-01 declaring `meterId` its storage meter, through the API. */
  async function declareStorageMeter(siteId: number, meterId: number) {
    const saved = await api(endpoints.project.save.path, {
      name: unique('储能表项目'),
      companyId,
      contractStart: '2025-01-01',
      contractYears: 10,
      incomeMode: 'self_investment',
      ownerSharePct: 20,
      investors: [{ companyId: investor, ratioPct: 80 }],
      maintenanceCnyPerMonth: 0,
      insuranceCnyPerMonth: 0,
      costBearer: 'investors',
      siteIds: [siteId],
      boundFrom: '2025-06-01',
      meters: [{ deviceId: meterId, ctRatio: 1, ptRatio: 1 }],
    });
    expect(saved.code, saved.msg).toBe(0);
    return saved.data.id as number;
  }

  const latest = (deviceId: number, points: Record<string, number>) =>
    db.insert(deviceLatest).values({ deviceId, ts: new Date(Date.now() - 5_000), points });

  /** A 15-minute rollup of `point` of `deviceId` at Shanghai wall time `local` (`YYYY-MM-DDTHH:mm`), one sample. */
  const quarter = (deviceId: number, local: string, value: number, point = 'p_kw') =>
    rollupRow(deviceId, point, Date.parse(`${local}:00+08:00`), [value]);

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyId = await addCompanyUnder(db, { type: 'agent', parentId: null });
    investor = await addCompanyUnder(db, { type: 'investor', parentId: companyId });
    const staff = await addStaff(db, {
      companyId,
      roleIds: [await addRole(db, { companyId, isAdmin: true })],
    });
    token = (await signIn(ctx.app, staff.account, staff.password)).token;

    Object.assign(both, await addSite());
    both.grid = await addDevice(both.siteId, 'meter', both.ems);
    both.storage = await addDevice(both.siteId, 'meter', both.ems);
    both.projectId = await declareStorageMeter(both.siteId, both.storage);
    Object.assign(storageOnly, await addSite());
    storageOnly.storage = await addDevice(storageOnly.siteId, 'meter', storageOnly.ems);
    storageOnly.projectId = await declareStorageMeter(storageOnly.siteId, storageOnly.storage);

    // Now: the PCS charges 80 kW through the storage meter (+ import = charging); the grid meter
    // reads 120 kW import, the gateway 55 kW (grid + storage: the grid meter wins) / 40 kW.
    await latest(both.ems, { grid_kw: 55 });
    await latest(both.pcs, { p_kw: -80 });
    await latest(both.grid, { p_kw: 120 });
    await latest(both.storage, { p_kw: 80 });
    await latest(storageOnly.ems, { grid_kw: 40 });
    await latest(storageOnly.pcs, { p_kw: -80 });
    await latest(storageOnly.storage, { p_kw: 80 });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('grid power: the grid meter beside a storage meter; the gateway where the storage meter is the only meter', async () => {
    const dash = conforms(dashboardResponse, (await api(endpoints.dashboard.overview.path, {})).data);
    const gridOf = (siteId: number) => dash.sites.find((s) => s.siteId === siteId)?.gridPowerKw;
    // grid + storage: 120 (not 120 + 80 = 200); storage only: the gateway's 40 (not the meter's 80, not null)
    expect([gridOf(both.siteId), gridOf(storageOnly.siteId)]).toEqual([120, 40]);

    for (const [s, gridKw] of [
      [both, 120],
      [storageOnly, 40],
    ] as const) {
      const answer = await api(endpoints.siteMonitor.site.path, { siteId: s.siteId });
      expect(answer.code, answer.msg).toBe(0);
      const d = conforms(siteMonitorDetailResponse, answer.data);
      expect(d.site.gridPowerKw).toBe(gridKw);
      // load = grid + PV + battery: 120 − 80 = 40 / 40 − 80 = −40
      expect(d.panels.energyFlow).toMatchObject({
        gridKw,
        batteryKw: -80,
        loadKw: gridKw - 80,
        gridDirection: 'in',
      });
      // the storage meter is still on the meter panel with its reading, and flagged in the devices
      expect(d.panels.meter.find((m) => m.deviceId === s.storage)?.pKw).toBe(80);
      expect(d.devices.filter((x) => x.storageMeter).map((x) => x.id)).toEqual([s.storage]);
      // the console's rule over the answer's devices (after a live update) agrees
      expect(siteFigures(d.devices).gridKw).toBe(gridKw);

      const screen = await api(endpoints.screen.site.path, { siteId: s.siteId });
      expect(screen.code, screen.msg).toBe(0);
      const data = conforms(screenSiteResponse, screen.data);
      expect(data.devices.filter((x) => x.storageMeter).map((x) => x.id)).toEqual([s.storage]);
      expect(siteFigures(data.devices).gridKw).toBe(gridKw);
    }
  });

  it("the big screen's grid import today is the grid meter's, not the storage meter's charging", async () => {
    /** Today's site-local date as the database sees it. */
    const today = async () =>
      rowsOf<{ d: string }>(
        await db.execute(sql`SELECT to_char(now() AT TIME ZONE ${ZONE}, 'YYYY-MM-DD') AS d`),
      )[0]!.d;
    // Daily rollups of today's import registers (grid meter 1,000 → 1,150; storage meter 500 → 560),
    // written for the day the answer is read on (again should midnight pass in between).
    let importKwh: number | null = null;
    for (let attempt = 0; attempt < 2 && importKwh === null; attempt++) {
      const day = await today();
      const midnight = new Date(
        rowsOf<{ t: string }>(
          await db.execute(sql`SELECT (${day}::date::timestamp AT TIME ZONE ${ZONE})::text AS t`),
        )[0]!.t,
      );
      for (const [deviceId, first, last] of [
        [both.grid, 1000, 1150],
        [both.storage, 500, 560],
      ] as const) {
        await db
          .insert(telemetryRollup)
          .values(rollupRow(deviceId, 'e_import_total_kwh', midnight.getTime(), [first, last], 86_400))
          .onConflictDoNothing();
      }
      const answer = await api(endpoints.screen.site.path, { siteId: both.siteId });
      expect(answer.code, answer.msg).toBe(0);
      if ((await today()) === day) importKwh = conforms(screenSiteResponse, answer.data).today.importKwh;
    }
    // 1,150 − 1,000 = 150 kWh (not 150 + 60 = 210)
    expect(importKwh).toBe(150);
  });

  it("the bill's maximum demand with and without storage reads the grid meter, else the gateway's grid_kw", async () => {
    const pcsAndStorage = (s: { pcs: number; storage: number }) => [
      // night charge: PCS −150 through the storage meter (+150)
      quarter(s.pcs, '2025-07-03T02:00', -150),
      quarter(s.storage, '2025-07-03T02:00', 150),
      // evening: PCS discharging 250 (storage meter −250)
      quarter(s.pcs, '2025-07-03T19:00', 250),
      quarter(s.storage, '2025-07-03T19:00', -250),
    ];
    await db.insert(telemetryRollup).values([
      ...pcsAndStorage(both),
      quarter(both.grid, '2025-07-03T02:00', 200),
      quarter(both.grid, '2025-07-03T19:00', 100),
      // the gateway's grid_kw is not read where a grid meter is
      quarter(both.ems, '2025-07-03T02:00', 999, 'grid_kw'),
      ...pcsAndStorage(storageOnly),
      quarter(storageOnly.ems, '2025-07-03T02:00', 200, 'grid_kw'),
      quarter(storageOnly.ems, '2025-07-03T19:00', 100, 'grid_kw'),
    ]);
    // Both sites: measured = max(200, 100) = 200 kW; baseline = max(200 − 150, 100 + 250) = 350 kW;
    // baseline 350 × 40 = 14,000.00, measured 200 × 40 = 8,000.00, change 6,000.00.
    // (Summing the storage meter into the grid: 350 / 200; taking it as the grid: 150 / 0.)
    for (const projectId of [both.projectId, storageOnly.projectId]) {
      const drafted = await api(endpoints.bill.draft.path, { projectId, month: '2025-07' });
      expect(drafted.code, drafted.msg).toBe(0);
      const detail = await api(endpoints.bill.detail.path, { id: drafted.data.id });
      expect(detail.code, detail.msg).toBe(0);
      expect(detail.data.document.demand).toEqual([
        expect.objectContaining({
          baselineKw: 350,
          measuredKw: 200,
          baselineCny: 14_000,
          measuredCny: 8_000,
          changeCny: 6_000,
        }),
      ]);
    }
  });
});
