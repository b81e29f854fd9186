/**
 * Monthly bills (modules/bill, contract api/bill.ts + money/bill.ts; issue 17 item 5) on both
 * engines: a project's July drafted from its stored ToU periods (figures by hand below), settled,
 * settled twice → 7060 "electricity settlement already done", drafted over → 7060, corrected → a
 * new version with its reason while the settled one stays as it was; tenancy (another company's
 * administrator gets 7062 and an empty list); the `bill-draft` task drafting last month of every
 * project in operation; the xlsx export; a month is settled only once it has ended in the zone of
 * every site bound in it (7064 before; the service's clock injected), also with a Berlin site; a
 * month in which no site was bound is refused (7065, nothing written) and skipped by the task;
 * a max-demand two-part tariff priced on the month's maximum demand with and without storage
 * from the 15-minute rollups (hand figures in the test), a site without grid metering (null
 * figures, change 0); the drafter's and settler's names.
 */
import { ErrorCode, endpoints, NO_TWO_PART } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { bill, employee, projectSite, telemetryRollup } from '../src/core/db/schema';
import { BillService } from '../src/modules/bill/bill-service';
import { billDraftKind } from '../src/modules/bill/bill-task';
import { call, signIn } from './support/client';
import { addRole, addStaff, unique } from './support/fixtures';
import { addCompanyUnder, expectRefusal } from './support/org';
import {
  addFlatSite,
  addFlatTierDay,
  addSelfInvestmentProject,
  addSiteDevice,
  declareMeter,
  rollupRow,
} from './support/project';
import { createTestApp, engines, type TestContext } from './support/test-app';

const calls = endpoints.bill;

describe.each(engines)('bill calls on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let tokenA: string;
  let tokenB: string;
  let companyA: number;
  /** The employee behind tokenA. */
  let adminA: number;
  const tester = { employeeId: null, name: 'test' };

  async function companyAdmin(companyId: number) {
    const staff = await addStaff(db, {
      companyId,
      roleIds: [await addRole(db, { companyId, isAdmin: true })],
    });
    return {
      token: (await signIn(ctx.app, staff.account, staff.password)).token,
      employeeId: staff.employeeId,
    };
  }

  /** A self-investment project (owner 20 %, investors 50 % / 30 %) with one site and meter and two July periods. */
  async function addProject(status = 'in_operation') {
    const { projectId } = await addSelfInvestmentProject(db, {
      companyId: companyA,
      ownerSharePct: 20,
      investorRatiosPct: [50, 30],
      status,
    });
    const { siteId, tariffId } = await addFlatSite(db, { companyId: companyA, projectId, codePrefix: 'B' });
    const meter = await addSiteDevice(db, { companyId: companyA, siteId, sn: unique('MTR'), type: 'meter' });
    await declareMeter(db, { companyId: companyA, projectId, deviceId: meter, ctRatio: 40 });
    // 2025-07-03 Shanghai: 00:00–12:00 off-peak charged (125 − 100) × 40 = 1,000 kWh at 0.3;
    // 12:00–24:00 peak discharged (72.5 − 50) × 40 = 900 kWh at 1.2
    await addFlatTierDay(db, {
      companyId: companyA,
      siteId,
      deviceId: meter,
      siteTariffId: tariffId,
      multiplier: 40,
      charge: { from: 100, to: 125, kwh: 1000 },
      discharge: { from: 50, to: 72.5, kwh: 900 },
    });
    return projectId;
  }

  /** A second site in `timezone` bound to `projectId` from 2025-06-01, with the flat tariff. */
  async function addSite(projectId: number, timezone: string) {
    return (await addFlatSite(db, { companyId: companyA, projectId, codePrefix: 'B', timezone })).siteId;
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
    companyA = await addCompanyUnder(db, { type: 'agent', parentId: null });
    const companyB = await addCompanyUnder(db, { type: 'agent', parentId: null });
    const a = await companyAdmin(companyA);
    tokenA = a.token;
    adminA = a.employeeId;
    await db.update(employee).set({ name: '王结算' }).where(eq(employee.id, adminA));
    tokenB = (await companyAdmin(companyB)).token;
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const api = (path: string, body: object, lang: 'zh' | 'en' = 'zh', token = tokenA) =>
    call(ctx.app, path, body, { token, lang });

  it('drafts, settles once (7060 after), corrects as a new version; tenancy; xlsx', async () => {
    const projectId = await addProject();
    const drafted = await api(calls.draft.path, { projectId, month: '2025-07' });
    expect(drafted.code).toBe(0);
    expect(drafted.data.version).toBe(1);
    const id = drafted.data.id as number;

    const detail = await api(calls.detail.path, { id });
    expect(detail.code).toBe(0);
    // cost 1,000 × 0.3 = 300.00; value 900 × 1.2 = 1,080.00; net 780.00
    expect(detail.data).toMatchObject({
      state: 'draft',
      month: '2025-07',
      costCny: 300,
      valueCny: 1080,
      netBenefitCny: 780,
    });
    const doc = detail.data.document;
    expect(
      doc.lines.map((l: { tier: string; multiplier: number; chargedKwh: number; dischargedKwh: number }) => [
        l.tier,
        l.multiplier,
        l.chargedKwh,
        l.dischargedKwh,
      ]),
    ).toEqual([
      ['peak', 40, 0, 900],
      ['off_peak', 40, 1000, 0],
    ]);
    expect(doc.lines[0].periods[0]).toMatchObject({ dischargeStart: 50, dischargeEnd: 72.5 });
    // owner 20 % 156.00, investors 50 % 390.00 and 30 % 234.00
    expect(doc.parties.map((p: { payableCny: number }) => p.payableCny)).toEqual([156, 390, 234]);

    // drafting again before settling recomputes the same version
    expect((await api(calls.draft.path, { projectId, month: '2025-07' })).data).toEqual({ id, version: 1 });

    expect((await api(calls.confirm.path, { id })).code).toBe(0);
    expectRefusal(await api(calls.confirm.path, { id }), ErrorCode.SETTLEMENT_ALREADY_DONE, 'zh');
    expect((await api(calls.confirm.path, { id }, 'en')).msg).toBe('Electricity settlement already done');
    expectRefusal(
      await api(calls.draft.path, { projectId, month: '2025-07' }),
      ErrorCode.SETTLEMENT_ALREADY_DONE,
      'zh',
    );

    // a correction: version 2 with its reason; version 1 unchanged and still settled
    const before = await db.select().from(bill).where(eq(bill.id, id));
    const corrected = await api(calls.correct.path, { id, reason: '电表读数更正' });
    expect(corrected.data).toMatchObject({ version: 2 });
    const after = await db.select().from(bill).where(eq(bill.id, id));
    expect(after).toEqual(before);
    expectRefusal(
      await api(calls.correct.path, { id, reason: 'again' }),
      ErrorCode.BILL_NOT_CORRECTABLE,
      'zh',
    );
    const list = await api(calls.pageList.path, { pageNum: 1, pageSize: 10, projectId });
    expect(
      list.data.list.map(
        (r: { version: number; state: string; reason: string | null; superseded: boolean }) => [
          r.version,
          r.state,
          r.reason,
          r.superseded,
        ],
      ),
    ).toEqual([
      [2, 'draft', '电表读数更正', false],
      [1, 'confirmed', null, true],
    ]);
    expect((await api(calls.confirm.path, { id: corrected.data.id })).code).toBe(0);

    // another company: as if absent
    expectRefusal(await api(calls.detail.path, { id }, 'zh', tokenB), ErrorCode.BILL_NOT_FOUND, 'zh');
    expect((await api(calls.pageList.path, { pageNum: 1, pageSize: 10 }, 'zh', tokenB)).data.total).toBe(0);
    expectRefusal(
      await api(calls.draft.path, { projectId }, 'zh', tokenB),
      ErrorCode.PROJECT_NOT_FOUND,
      'zh',
    );

    const xlsx = await ctx.app.inject({
      method: 'POST',
      url: calls.exportXlsx.path,
      payload: { id },
      headers: { 'x-token': tokenA, 'content-type': 'application/json' },
    });
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
  });

  it('the bill-draft task drafts last month of every project in operation', async () => {
    const running = await addProject('in_operation');
    const building = await addProject('under_construction');
    const kind = billDraftKind(db);
    // fired 2025-08-01 12:00 UTC: last month in Shanghai is 2025-07
    const result = (await kind.run(
      {
        fireAt: new Date(Date.UTC(2025, 7, 1, 12)),
        signal: new AbortController().signal,
        trigger: 'schedule',
      },
      {},
    )) as { drafted: number };
    expect(result.drafted).toBeGreaterThanOrEqual(1);
    const rows = await db
      .select()
      .from(bill)
      .where(and(eq(bill.projectId, running), eq(bill.month, '2025-07')));
    expect(rows.map((r) => [r.version, r.state, r.netBenefitCny])).toEqual([[1, 'draft', 780]]);
    expect(await db.select().from(bill).where(eq(bill.projectId, building))).toEqual([]);
  });

  it('7065: a month in which no site was bound is not billed (call refused, nothing written; the task skips it)', async () => {
    const projectId = await addProject(); // its site is bound from 2025-06-01
    for (const lang of ['zh', 'en'] as const) {
      expectRefusal(
        await api(calls.draft.path, { projectId, month: '2025-05' }, lang),
        ErrorCode.BILL_NO_SITE_BOUND,
        lang,
      );
    }
    const refused = await api(calls.draft.path, { projectId, month: '2025-05' }, 'en');
    expect(refused.msg).toContain('No site was bound to the project in that month; there is nothing to bill');
    expect(await db.select().from(bill).where(eq(bill.projectId, projectId))).toEqual([]);

    // The monthly task fired 2025-06-01 12:00 UTC (last month 2025-05): the project is skipped.
    const result = (await billDraftKind(db).run(
      {
        fireAt: new Date(Date.UTC(2025, 5, 1, 12)),
        signal: new AbortController().signal,
        trigger: 'schedule',
      },
      {},
    )) as { skipped: number; failed: { projectId: number }[] };
    expect(result.skipped).toBeGreaterThanOrEqual(1);
    expect(result.failed.map((f) => f.projectId)).not.toContain(projectId);
    expect(await db.select().from(bill).where(eq(bill.projectId, projectId))).toEqual([]);

    // A binding that ended before the month does not count either; the bound month drafts.
    await db.update(projectSite).set({ boundTo: '2025-07-01' }).where(eq(projectSite.projectId, projectId));
    expect((await api(calls.draft.path, { projectId, month: '2025-07' })).code).toBe(
      ErrorCode.BILL_NO_SITE_BOUND,
    );
    expect((await api(calls.draft.path, { projectId, month: '2025-06' })).code).toBe(0);
  });

  it('a month is settled only once it has ended in every bound site’s zone (7064 before, nothing changed)', async () => {
    const all = { all: true } as const;
    const projectId = await addProject();
    const drafted = await api(calls.draft.path, { projectId, month: '2025-07' });
    expect(drafted.code).toBe(0);
    const id = drafted.data.id as number;
    const stored = async () => (await db.select().from(bill).where(eq(bill.id, id)))[0]!;
    const before = await stored();
    // July 2025 ends in Shanghai at 2025-08-01 00:00 +08:00 = 2025-07-31 16:00 UTC
    const shanghaiEnd = Date.UTC(2025, 6, 31, 16);
    expect((await api(calls.detail.path, { id })).data.monthEndMs, 'the row says when the month ends').toBe(
      shanghaiEnd,
    );
    for (const now of [Date.UTC(2025, 6, 20, 4), shanghaiEnd - 1]) {
      const running = new BillService(db, () => now);
      await expect(running.confirm(all, id, tester)).rejects.toMatchObject({
        code: ErrorCode.BILL_MONTH_NOT_ENDED,
      });
    }
    expect(await stored(), 'a refused settle changes nothing').toEqual(before);
    // drafting the running month stays allowed (month to date)
    expect((await api(calls.draft.path, { projectId, month: '2025-07' })).data).toEqual({ id, version: 1 });

    // the first local day after the month: settled
    const settled = await new BillService(db, () => shanghaiEnd).confirm(all, id, tester);
    expect(settled.state).toBe('confirmed');
    expect((await stored()).state).toBe('confirmed');

    // through the API (the server's own clock): a month far ahead answers 7064 in zh and en
    const future = await api(calls.draft.path, { projectId, month: '2099-01' });
    expect(future.code).toBe(0);
    expectRefusal(
      await api(calls.confirm.path, { id: future.data.id }),
      ErrorCode.BILL_MONTH_NOT_ENDED,
      'zh',
    );
    expect((await api(calls.confirm.path, { id: future.data.id }, 'zh')).msg).toBe(
      '账单月份尚未结束，月末后才能结算',
    );
    expect((await api(calls.confirm.path, { id: future.data.id }, 'en')).msg).toBe(
      'The month has not ended yet; it can be settled after its last day',
    );
    const futureRow = (await db.select().from(bill).where(eq(bill.id, future.data.id)))[0]!;
    expect([futureRow.state, futureRow.confirmedAt]).toEqual(['draft', null]);
  });

  it('a project with a Berlin site: Shanghai’s month has ended, Berlin’s not yet → 7064', async () => {
    const all = { all: true } as const;
    const projectId = await addProject();
    await addSite(projectId, 'Europe/Berlin');
    const drafted = await api(calls.draft.path, { projectId, month: '2025-07' });
    expect(drafted.code, drafted.msg).toBe(0);
    const id = drafted.data.id as number;
    // Berlin (CEST, +02:00) ends July at 2025-07-31 22:00 UTC, six hours after Shanghai
    const berlinEnd = Date.UTC(2025, 6, 31, 22);
    expect((await api(calls.detail.path, { id })).data.monthEndMs).toBe(berlinEnd);
    await expect(
      new BillService(db, () => Date.UTC(2025, 6, 31, 18)).confirm(all, id, tester),
    ).rejects.toMatchObject({ code: ErrorCode.BILL_MONTH_NOT_ENDED });
    await expect(new BillService(db, () => berlinEnd - 1).confirm(all, id, tester)).rejects.toMatchObject({
      code: ErrorCode.BILL_MONTH_NOT_ENDED,
    });
    expect((await db.select().from(bill).where(eq(bill.id, id)))[0]!.state).toBe('draft');
    expect((await new BillService(db, () => berlinEnd).confirm(all, id, tester)).state).toBe('confirmed');
  });

  /**
   * A project over one Shanghai site with a PCS (its AC registers are billed: no storage meter
   * declared) and, when `gridMeter`, a grid meter (`MTR`), on the flat tariff with a max-demand
   * two-part charge of 40 CNY/kW·month; July's stored periods as in {@link addProject}
   * (1,000 kWh charged at 0.3, 900 kWh discharged at 1.2 → 780.00).
   */
  async function addDemandProject(gridMeter: boolean) {
    const { projectId } = await addSelfInvestmentProject(db, {
      companyId: companyA,
      ownerSharePct: 20,
      investorRatiosPct: [50, 30],
      name: unique('需量项目'),
    });
    const { siteId, tariffId } = await addFlatSite(db, {
      companyId: companyA,
      projectId,
      codePrefix: 'D',
      schemeName: 'flat two-part',
      twoPart: { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40, demandBasis: 'max_demand' },
    });
    const pcs = await addSiteDevice(db, { companyId: companyA, siteId, sn: unique('PCS'), type: 'pcs' });
    const mtr = gridMeter
      ? await addSiteDevice(db, { companyId: companyA, siteId, sn: unique('MTR'), type: 'meter' })
      : null;
    // 2025-07-03 Shanghai, the PCS's registers (× 1): off-peak charged 6000 − 5000 = 1,000 kWh at 0.3;
    // peak discharged 4900 − 4000 = 900 kWh at 1.2
    await addFlatTierDay(db, {
      companyId: companyA,
      siteId,
      deviceId: pcs,
      siteTariffId: tariffId,
      multiplier: 1,
      charge: { from: 5000, to: 6000, kwh: 1000 },
      discharge: { from: 4000, to: 4900, kwh: 900 },
    });
    return { projectId, pcsId: pcs, meterId: mtr };
  }

  /** A rollup row of `p_kw` of `deviceId` starting at Shanghai wall time `local` (`YYYY-MM-DDTHH:mm`), mean of `samples`. */
  const rollup = (deviceId: number, local: string, samples: number[], bucketS = 900) =>
    rollupRow(deviceId, 'p_kw', Date.parse(`${local}:00+08:00`), samples, bucketS);

  it('a max-demand two-part tariff: measured and baseline maximum demand from the 15-minute rollups; drafter and settler names', async () => {
    const { projectId, pcsId, meterId } = await addDemandProject(true);
    const grid = meterId!;
    await db.insert(telemetryRollup).values([
      // outside July (Shanghai): 2025-06-30 23:45 and 2025-08-01 00:00 — not counted
      rollup(grid, '2025-06-30T23:45', [900]),
      rollup(pcsId, '2025-06-30T23:45', [500]),
      rollup(grid, '2025-08-01T00:00', [950]),
      // an hour bucket is not a quarter: not counted
      rollup(grid, '2025-07-15T10:00', [5000], 3600),
      // July's first quarter: grid 200, no PCS figure (battery idle) → 200 / 200
      rollup(grid, '2025-07-01T00:00', [200]),
      // night charge: grid 180, PCS −100 → 180 / 80
      rollup(grid, '2025-07-03T02:00', [170, 190]),
      rollup(pcsId, '2025-07-03T02:00', [-100]),
      // evening peak: grid 270, PCS discharging 150 → 270 / 420
      rollup(grid, '2025-07-03T19:00', [270]),
      rollup(pcsId, '2025-07-03T19:00', [150]),
      // samples 240, 300, 360: the quarter's mean 900 ÷ 3 = 300 counts, not its highest sample 360 → 300 / 300
      rollup(grid, '2025-07-10T14:00', [240, 300, 360]),
      // PV export −50 with the PCS charging 20: export is not demand → 0 / 0
      rollup(grid, '2025-07-12T13:00', [-50]),
      rollup(pcsId, '2025-07-12T13:00', [-20]),
      // 20 July: grid 280, PCS discharging 250 → 280 / 530
      rollup(grid, '2025-07-20T15:00', [280]),
      rollup(pcsId, '2025-07-20T15:00', [250]),
      // a PCS quarter without a grid figure is not measured (skipped)
      rollup(pcsId, '2025-07-25T03:00', [999]),
    ]);
    const drafted = await api(calls.draft.path, { projectId, month: '2025-07' });
    expect(drafted.code, drafted.msg).toBe(0);
    const id = drafted.data.id as number;
    let detail = await api(calls.detail.path, { id });
    // measured = max(200, 180, 270, 300, 0, 280) = 300 kW; baseline = max(200, 80, 420, 300, 0, 530) = 530 kW
    // baseline charge 530 × 40 = 21,200.00; measured 300 × 40 = 12,000.00; change 9,200.00
    expect(detail.data.document.demand).toEqual([
      {
        siteId: expect.any(Number),
        from: '2025-07-01',
        to: '2025-08-01',
        monthFraction: 1,
        baselineKw: 530,
        measuredKw: 300,
        baselineCny: 21_200,
        measuredCny: 12_000,
        changeCny: 9_200,
      },
    ]);
    // net benefit = energy 1,080 − 300 = 780 + demand 9,200 = 9,980.00;
    // owner 20 % 1,996.00, investors 50 % 4,990.00 and 30 % 2,994.00
    expect(detail.data.document.totals).toMatchObject({
      energyNetCny: 780,
      demandChangeCny: 9_200,
      netBenefitCny: 9_980,
    });
    expect(detail.data.netBenefitCny).toBe(9_980);
    expect(detail.data.document.parties.map((p: { payableCny: number }) => p.payableCny)).toEqual([
      1_996, 4_990, 2_994,
    ]);
    // the drafter by name (not "employee N"), in the detail and the list
    expect(detail.data.createdBy).toBe('王结算');
    const listed = await api(calls.pageList.path, { pageNum: 1, pageSize: 10, projectId });
    expect(listed.data.list.map((r: { createdBy: string | null }) => r.createdBy)).toEqual(['王结算']);

    // The site bound only 1–15 July (unbound from the 16th): the maximum is of those days and the
    // charge prorated 15/31 — baseline max(200, 80, 420, 300, 0) = 420 kW (20 July's 530 is
    // outside), measured 300 kW; 420 × 40 × 15/31 = 8,129.032… → 8,129.03,
    // 300 × 40 × 15/31 = 5,806.451… → 5,806.45; change 2,322.58; net 780 + 2,322.58 = 3,102.58
    await db.update(projectSite).set({ boundTo: '2025-07-16' }).where(eq(projectSite.projectId, projectId));
    expect((await api(calls.draft.path, { projectId, month: '2025-07' })).data).toEqual({ id, version: 1 });
    detail = await api(calls.detail.path, { id });
    expect(detail.data.document.demand).toEqual([
      expect.objectContaining({
        from: '2025-07-01',
        to: '2025-07-16',
        baselineKw: 420,
        measuredKw: 300,
        baselineCny: 8_129.03,
        measuredCny: 5_806.45,
        changeCny: 2_322.58,
      }),
    ]);
    expect(detail.data.document.demand[0].monthFraction).toBeCloseTo(15 / 31, 10);
    expect(detail.data.netBenefitCny).toBe(3_102.58);

    // the xlsx carries the demand line in kW and CNY (en)
    const xlsx = await ctx.app.inject({
      method: 'POST',
      url: calls.exportXlsx.path,
      payload: { id },
      headers: { 'x-token': tokenA, 'content-type': 'application/json', 'accept-language': 'en' },
    });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    book.worksheets[0]!.eachRow((r) => {
      rows.push((r.values as unknown[]).slice(1));
    });
    const head = rows.findIndex((r) => r.includes('Max demand without storage (kW)'));
    expect(head).toBeGreaterThan(0);
    expect(rows[head + 1]!.slice(1)).toEqual([
      '2025-07-01 – 2025-07-16',
      0.4839,
      420,
      300,
      8_129.03,
      5_806.45,
      2_322.58,
    ]);

    // settled by the same employee: named; a renamed employee reads with the current name
    expect((await api(calls.confirm.path, { id })).code).toBe(0);
    expect((await api(calls.detail.path, { id })).data.confirmedBy).toBe('王结算');
    await db.update(employee).set({ name: '王会计' }).where(eq(employee.id, adminA));
    const renamed = (await api(calls.detail.path, { id })).data;
    expect([renamed.createdBy, renamed.confirmedBy]).toEqual(['王会计', '王会计']);
    await db.update(employee).set({ name: '王结算' }).where(eq(employee.id, adminA));
  });

  it('a site without grid metering: the demand is not measured (null kW) and changes nothing', async () => {
    const { projectId, pcsId } = await addDemandProject(false);
    // the PCS ran (charging 100, discharging 150), but nothing measured the grid
    await db
      .insert(telemetryRollup)
      .values([rollup(pcsId, '2025-07-03T02:00', [-100]), rollup(pcsId, '2025-07-03T19:00', [150])]);
    const drafted = await api(calls.draft.path, { projectId, month: '2025-07' });
    expect(drafted.code, drafted.msg).toBe(0);
    const detail = await api(calls.detail.path, { id: drafted.data.id });
    expect(detail.data.document.demand).toEqual([
      expect.objectContaining({
        baselineKw: null,
        measuredKw: null,
        baselineCny: 0,
        measuredCny: 0,
        changeCny: 0,
      }),
    ]);
    // net benefit = energy only: 780.00
    expect(detail.data.document.totals).toMatchObject({ demandChangeCny: 0, netBenefitCny: 780 });
    // drafted by the monthly task: no drafter
    await billDraftKind(db).run(
      {
        fireAt: new Date(Date.UTC(2025, 7, 1, 12)),
        signal: new AbortController().signal,
        trigger: 'schedule',
      },
      {},
    );
    expect((await api(calls.detail.path, { id: drafted.data.id })).data.createdBy).toBeNull();
  });
});
