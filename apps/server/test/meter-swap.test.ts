/**
 * Meter swaps (issue 17: "a meter reading that goes backwards (meter replaced: record the swap,
 * bill both parts)"; modules/project/meter-swaps.ts, devices/tier-energy.ts, bill-service.ts
 * `meterParts`) on both engines:
 * - a swap mid-July recorded through `project/recordMeterSwap`: the site's energy per tier is
 *   re-priced in the same request (the ToU period holding the swap stored as two rows), and the
 *   July bill bills both parts, each with its own CT × PT (figures by hand below); before the swap
 *   was recorded the register went backwards and the bill flagged it;
 * - each refusal in zh and en with no row written: -100 a negative reading, 7004 in the future,
 *   7005 in a settled month, 7006 the old final reading below the last stored one, 7007 a second
 *   swap at the same instant, 7008 deleting a swap that is not the latest; deleting the latest
 *   restores the old CT/PT and re-prices;
 * - declaring a storage meter on a site whose days were priced from its PCS re-prices them.
 * No assertion depends on the wall clock: every instant is in 2025, the future one in 2099.
 */
import { ErrorCode, endpoints, errorMessage } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { device, projectMeter, projectMeterSwap, telemetryRollup } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { addRole, addStaff, unique } from './support/fixtures';
import { addCompanyUnder } from './support/org';
import {
  addFlatSite,
  addSelfInvestmentProject,
  addSiteDevice,
  declareMeter,
  rollupRow,
} from './support/project';
import { createTestApp, engines, type TestContext } from './support/test-app';

const calls = endpoints.project;

const H = 3_600_000;
const Q = 900_000;
/** 2025-07-10 00:00 in Shanghai (UTC+8). */
const D0 = Date.UTC(2025, 6, 9, 16);

describe.each(engines)('meter swaps on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let token: string;
  let companyId: number;

  /** One 15-minute rollup bucket of `point` starting at `startMs` (first = last = `value`). */
  async function quarter(deviceId: number, startMs: number, point: string, value: number) {
    await db.insert(telemetryRollup).values(rollupRow(deviceId, point, startMs, [value]));
  }

  /** The daily rollup the energy-tier run looks for (a day with data of `point`). */
  async function day(deviceId: number, dayStartMs: number, point: string) {
    await db.insert(telemetryRollup).values(rollupRow(deviceId, point, dayStartMs, [0], 86400));
  }

  /** A site with a meter and a PCS, bound from 2025-06-01 to a self-investment project, a flat tariff. */
  async function addProject(declareStorageMeter: boolean) {
    const { projectId } = await addSelfInvestmentProject(db, {
      companyId,
      ownerSharePct: 20,
      investorRatiosPct: [80],
      name: unique('换表项目'),
    });
    const { siteId, code } = await addFlatSite(db, {
      companyId,
      projectId,
      codePrefix: 'SW',
      name: unique('换表站'),
    });
    const ems = await addSiteDevice(db, { companyId, siteId, sn: `${code}-EMS`, type: 'ems' });
    const meterId = await addSiteDevice(db, {
      companyId,
      siteId,
      gatewayId: ems,
      sn: `${code}-MTR`,
      type: 'meter',
    });
    const pcsId = await addSiteDevice(db, {
      companyId,
      siteId,
      gatewayId: ems,
      sn: `${code}-PCS`,
      type: 'pcs',
    });
    await db.update(device).set({ projectId }).where(eq(device.siteId, siteId));
    // CT 200/5 = 40, PT 1, the meter reads the secondary side: × 40.
    if (declareStorageMeter) await declareMeter(db, { companyId, projectId, deviceId: meterId, ctRatio: 40 });
    return { projectId, siteId, meterId, pcsId };
  }

  /**
   * The meter's registers on 2025-07-10 (secondary kWh; the reading at a bound is the last value of
   * the quarter hour before it): 00:00 import 500 export 100 | 12:00 import 520 export 100 |
   * 24:00 import 0 export 27 — the new meter's, installed at 14:30 with import 0 export 0.
   */
  async function swapDayReadings(meterId: number) {
    for (const [t, imp, exp] of [
      [D0, 500, 100],
      [D0 + 12 * H, 520, 100],
      [D0 + 24 * H, 0, 27],
    ] as const) {
      await quarter(meterId, t - Q, 'e_import_total_kwh', imp);
      await quarter(meterId, t - Q, 'e_export_total_kwh', exp);
    }
    await day(meterId, D0, 'e_export_total_kwh');
  }

  const api = (path: string, body: object, lang: 'zh' | 'en' = 'zh') =>
    call(ctx.app, path, body, { token, lang });

  const swapBody = (projectId: number, deviceId: number, over: Record<string, unknown> = {}) => ({
    id: projectId,
    deviceId,
    swappedAt: '2025-07-10 14:30',
    oldImportKwh: 520,
    oldExportKwh: 118,
    newImportKwh: 0,
    newExportKwh: 0,
    newCtRatio: 50,
    newPtRatio: 1,
    newReadsSecondary: true,
    oldSerial: 'OLD-0001',
    newSerial: 'NEW-0002',
    note: '电表故障更换',
    ...over,
  });

  const swapCount = async (deviceId: number) =>
    (await db.select().from(projectMeterSwap).where(eq(projectMeterSwap.deviceId, deviceId))).length;

  const tierRows = async (deviceId: number) =>
    rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT to_char(start_at AT TIME ZONE 'Asia/Shanghai', 'HH24:MI') AS start,
               to_char(end_at AT TIME ZONE 'Asia/Shanghai', 'HH24:MI') AS "end", tier,
               charged_kwh::float8 AS c, discharged_kwh::float8 AS d, source, multiplier
        FROM energy_tier_day WHERE device_id = ${deviceId} ORDER BY start_at`),
    );

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyId = await addCompanyUnder(db, { type: 'agent', parentId: null });
    const staff = await addStaff(db, {
      companyId,
      roleIds: [await addRole(db, { companyId, isAdmin: true })],
    });
    token = (await signIn(ctx.app, staff.account, staff.password)).token;
  }, 120_000);
  afterAll(async () => ctx?.close());

  it('a swap mid-month: energy split at the instant, the bill bills both parts (hand figures)', async () => {
    const p = await addProject(true);
    await swapDayReadings(p.meterId);
    // Before the swap is recorded: the export register goes 100 → 27 in the peak period, the
    // energy-tier run cannot use it (power fallback, no power either) and the bill flags the line.
    const { fillTierDaysFrom } = await import('../src/devices/tier-energy');
    await fillTierDaysFrom(db, p.siteId, '2025-07-10', Date.UTC(2025, 7, 1));
    const unrecorded = await api(endpoints.bill.draft.path, { projectId: p.projectId, month: '2025-07' });
    expect(unrecorded.code).toBe(0);
    const before = await api(endpoints.bill.detail.path, { id: unrecorded.data.id });
    expect(before.data.backwardsLines).toBe(1);

    const answer = await api(calls.recordMeterSwap.path, swapBody(p.projectId, p.meterId));
    expect(answer.code).toBe(0);
    // re-priced in the same request: 2025-07-10, one closed day, three rows (the peak period split)
    expect(answer.data.repriced).toEqual({ fromDay: '2025-07-10', days: 1, rows: 3 });
    expect(await tierRows(p.meterId)).toEqual([
      // (520 − 500) × 40 = 800 kWh charged
      { start: '00:00', end: '12:00', tier: 'off_peak', c: 800, d: 0, source: 'registers', multiplier: 40 },
      // old meter to its final reading: (118 − 100) × 40 = 720 kWh discharged
      { start: '12:00', end: '14:30', tier: 'peak', c: 0, d: 720, source: 'registers', multiplier: 40 },
      // new meter from its initial reading, CT 50: (27 − 0) × 50 = 1,350 kWh discharged
      { start: '14:30', end: '00:00', tier: 'peak', c: 0, d: 1350, source: 'registers', multiplier: 50 },
    ]);
    // the meter now has the new meter's CT; the old one's is kept with the swap
    const [pm] = await db.select().from(projectMeter).where(eq(projectMeter.deviceId, p.meterId));
    expect(pm).toMatchObject({ ctRatio: 50, ptRatio: 1, readsSecondary: true });
    const detail = await api(calls.detail.path, { id: p.projectId }, 'en');
    const [listed] = detail.data.meters[0].swaps;
    expect(listed).toMatchObject({
      swappedAt: '2025-07-10 14:30',
      oldCtRatio: 40,
      newCtRatio: 50,
      oldSerial: 'OLD-0001',
      newSerial: 'NEW-0002',
      deletable: true,
    });
    expect(detail.data.meters[0].timezone).toBe('Asia/Shanghai');

    const drafted = await api(endpoints.bill.draft.path, { projectId: p.projectId, month: '2025-07' });
    expect(drafted.code).toBe(0);
    const bill = await api(endpoints.bill.detail.path, { id: drafted.data.id });
    const lines = bill.data.document.lines.map(
      (l: {
        meterSn: string;
        tier: string;
        multiplier: number;
        chargedKwh: number;
        dischargedKwh: number;
        netCny: number;
      }) => [l.meterSn, l.tier, l.multiplier, l.chargedKwh, l.dischargedKwh, l.netCny],
    );
    // old part (OLD-0001, × 40): off-peak 800 kWh × 0.3 = −240.00; peak 720 kWh × 1.2 = 864.00
    // new part (NEW-0002, × 50): peak 1,350 kWh × 1.2 = 1,620.00
    expect(lines).toEqual([
      ['OLD-0001', 'peak', 40, 0, 720, 864],
      ['OLD-0001', 'off_peak', 40, 800, 0, -240],
      ['NEW-0002', 'peak', 50, 0, 1350, 1620],
    ]);
    // cost 240.00, value 864 + 1,620 = 2,484.00, net 2,244.00; nothing flagged any more
    expect(bill.data.document.totals).toMatchObject({ costCny: 240, valueCny: 2484, netBenefitCny: 2244 });
    expect(bill.data.backwardsLines).toBe(0);

    // deleting the swap (a mistake): the old CT back, the day re-priced as before the swap
    const removed = await api(calls.deleteMeterSwap.path, { id: p.projectId, swapId: listed.id });
    expect(removed.code).toBe(0);
    expect(removed.data.repriced).toEqual({ fromDay: '2025-07-10', days: 1, rows: 2 });
    expect(await swapCount(p.meterId)).toBe(0);
    const [restored] = await db.select().from(projectMeter).where(eq(projectMeter.deviceId, p.meterId));
    expect(restored).toMatchObject({ ctRatio: 40 });
    expect((await tierRows(p.meterId)).map((r) => r.source)).toEqual(['registers', 'none']);
  });

  it('refusals in zh and en, nothing written', async () => {
    const p = await addProject(true);
    await swapDayReadings(p.meterId);
    const refused = async (over: Record<string, unknown>, code: number, msg: { zh: string; en: string }) => {
      for (const lang of ['zh', 'en'] as const) {
        const answer = await api(calls.recordMeterSwap.path, swapBody(p.projectId, p.meterId, over), lang);
        expect(answer).toEqual({ code, msg: msg[lang], data: null });
      }
      expect(await swapCount(p.meterId)).toBe(0);
      const [pm] = await db.select().from(projectMeter).where(eq(projectMeter.deviceId, p.meterId));
      expect(pm!.ctRatio).toBe(40);
    };
    await refused({ oldExportKwh: -1 }, ErrorCode.PARAM_ERROR, {
      zh: `${errorMessage(ErrorCode.PARAM_ERROR, 'zh')}：oldExportKwh: 读数不能为负数`,
      en: `${errorMessage(ErrorCode.PARAM_ERROR, 'en')}: oldExportKwh: A reading cannot be negative`,
    });
    await refused({ swappedAt: '2099-01-01 08:00' }, ErrorCode.METER_SWAP_IN_FUTURE, {
      zh: '换表时间不能晚于当前时间',
      en: 'The meter swap cannot be in the future',
    });
    // the last stored export reading before 14:30 is 100 kWh (the 11:45 quarter hour)
    await refused({ oldExportKwh: 90 }, ErrorCode.METER_SWAP_READING_BACKWARDS, {
      zh: '旧表反向有功（放电）止码90 kWh低于换表前最后一次读数100 kWh（2025-07-10 11:45:00 Asia/Shanghai）',
      en: 'The old meter’s final export (discharge) reading, 90 kWh, is lower than its last reading before the swap, 100 kWh (2025-07-10 11:45:00 Asia/Shanghai)',
    });
    // June settled: a confirmed bill covers the site
    await db.execute(sql`
      INSERT INTO bill (company_id, project_id, month, version, state, income_mode, cost_cny, value_cny, net_benefit_cny, document)
      VALUES (${companyId}, ${p.projectId}, '2025-06', 1, 'confirmed', 'self_investment', 0, 0, 0,
              ${JSON.stringify({ sites: [{ siteId: p.siteId }] })}::jsonb)`);
    await refused({ swappedAt: '2025-06-20 10:00' }, ErrorCode.METER_SWAP_SETTLED, {
      zh: '换表时间不能早于2025-07-01（之前的月份已结算）',
      en: 'The meter swap cannot be before 2025-07-01 (the months before are settled)',
    });
    // a device that is not a declared storage meter of the project
    const notDeclared = await api(calls.recordMeterSwap.path, swapBody(p.projectId, p.pcsId), 'en');
    expect(notDeclared.msg).toBe(
      `${errorMessage(ErrorCode.PARAM_ERROR, 'en')}: deviceId: must be a storage meter the project declares`,
    );

    // recorded once; the same instant (or an earlier one) again → 7007
    expect((await api(calls.recordMeterSwap.path, swapBody(p.projectId, p.meterId))).code).toBe(0);
    for (const lang of ['zh', 'en'] as const) {
      const again = await api(calls.recordMeterSwap.path, swapBody(p.projectId, p.meterId), lang);
      expect(again).toEqual({
        code: ErrorCode.METER_SWAP_NOT_LATEST,
        msg: errorMessage(ErrorCode.METER_SWAP_NOT_LATEST, lang, { at: '2025-07-10 14:30:00 Asia/Shanghai' }),
        data: null,
      });
    }
    expect(await swapCount(p.meterId)).toBe(1);
    // a later swap; then the earlier one is not the latest any more → 7008, nothing deleted
    const later = await api(
      calls.recordMeterSwap.path,
      swapBody(p.projectId, p.meterId, { swappedAt: '2025-07-20 09:00', oldImportKwh: 5, oldExportKwh: 40 }),
    );
    expect(later.code).toBe(0);
    const swaps = (await api(calls.detail.path, { id: p.projectId })).data.meters[0].swaps;
    expect(swaps.map((s: { swappedAt: string; deletable: boolean }) => [s.swappedAt, s.deletable])).toEqual([
      ['2025-07-20 09:00', true],
      ['2025-07-10 14:30', false],
    ]);
    for (const lang of ['zh', 'en'] as const) {
      const answer = await api(calls.deleteMeterSwap.path, { id: p.projectId, swapId: swaps[1].id }, lang);
      expect(answer).toEqual({
        code: ErrorCode.METER_SWAP_NOT_DELETABLE,
        msg: errorMessage(ErrorCode.METER_SWAP_NOT_DELETABLE, lang),
        data: null,
      });
    }
    expect(await swapCount(p.meterId)).toBe(2);
  });

  it('declaring a storage meter re-prices the days priced from the PCS', async () => {
    const p = await addProject(false);
    // The PCS's registers on 2025-07-10: charge 10 → 14 by 12:00, discharge 0 → 3 by 24:00 (× 1).
    for (const [t, c, d] of [
      [D0, 10, 0],
      [D0 + 12 * H, 14, 0],
      [D0 + 24 * H, 14, 3],
    ] as const) {
      await quarter(p.pcsId, t - Q, 'e_charge_total_kwh', c);
      await quarter(p.pcsId, t - Q, 'e_discharge_total_kwh', d);
    }
    await day(p.pcsId, D0, 'e_discharge_total_kwh');
    // The meter's registers the same day (secondary kWh): import 500 → 520, export 100 → 118.
    for (const [t, imp, exp] of [
      [D0, 500, 100],
      [D0 + 12 * H, 520, 100],
      [D0 + 24 * H, 520, 118],
    ] as const) {
      await quarter(p.meterId, t - Q, 'e_import_total_kwh', imp);
      await quarter(p.meterId, t - Q, 'e_export_total_kwh', exp);
    }
    await day(p.meterId, D0, 'e_export_total_kwh');
    const { fillTierDaysFrom } = await import('../src/devices/tier-energy');
    await fillTierDaysFrom(db, p.siteId, '2025-07-10', Date.UTC(2025, 7, 1));
    expect((await tierRows(p.pcsId)).map((r) => [r.c, r.d])).toEqual([
      [4, 0],
      [0, 3],
    ]);
    const detail = (await api(calls.detail.path, { id: p.projectId })).data;
    const {
      id,
      meters: _m,
      sites: _s,
      nextStatuses: _n,
      investors,
      construction,
      agent,
      owner,
      ...rest
    } = detail;
    const update = await api(calls.update.path, {
      ...rest,
      id,
      constructionCompanyId: null,
      agentCompanyId: null,
      ownerCompanyId: null,
      investors: investors.map((i: { companyId: number; ratioPct: number }) => ({
        companyId: i.companyId,
        ratioPct: i.ratioPct,
      })),
      meters: [{ deviceId: p.meterId, ctRatio: 40, ptRatio: 1, readsSecondary: true }],
      companyName: undefined,
      status: undefined,
      siteCount: undefined,
      investorCount: undefined,
      contractEnd: undefined,
      createdAt: undefined,
      updatedAt: undefined,
      companyId: undefined,
    });
    expect(update.code).toBe(0);
    // the PCS rows are gone; the meter's, × 40: (520 − 500) × 40 = 800 charged, (118 − 100) × 40 = 720 discharged
    expect(await tierRows(p.pcsId)).toEqual([]);
    expect((await tierRows(p.meterId)).map((r) => [r.tier, r.c, r.d])).toEqual([
      ['off_peak', 800, 0],
      ['peak', 0, 720],
    ]);
  });
});
