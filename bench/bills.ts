/**
 * Monthly bills (design §6 "monthly bills: 100 projects drafted ≤ 2 s"; issue 17 item 5): on a
 * fresh database (PGlite in the process, or a new PostgreSQL database dropped after),
 * {@link BILL_PROJECTS} projects in operation — self-investment, owner 40 % and two investors
 * 35 % / 25 %, one Asia/Shanghai site each with one storage meter (CT 40, secondary side) and a
 * four-tier tariff version — and each meter's energy per ToU period for July 2025 (31 days × 8
 * periods, as the `energy-tier` task stores it). Then the `bill-draft` task's work
 * (`BillService.draftAll` at 2025-08-01 12:00 UTC: last month of every project in operation):
 * first as new drafts, then again (each draft recomputed in place). Prints wall time, time per
 * project and the lines per bill.
 */
import type { TouSchemeDocument, TouTier } from '@ess/contract';
import type { Db } from '../apps/server/src/core/db/database';
import {
  company,
  device,
  energyTierDay,
  project,
  projectInvestor,
  projectMeter,
  projectSite,
  site,
  siteTariff,
} from '../apps/server/src/core/db/schema';
import { BillService } from '../apps/server/src/modules/bill/bill-service';
import { freshDatabase } from './device-ingest';

/** Projects drafted (BENCH_BILL_PROJECTS). */
export const BILL_PROJECTS = Number(process.env.BENCH_BILL_PROJECTS ?? 100);

/** The ToU day of every site: 8 periods, four tiers (hours local). */
const DAY: { start: number; end: number; tier: TouTier; price: number }[] = [
  { start: 0, end: 8, tier: 'off_peak', price: 0.28 },
  { start: 8, end: 10, tier: 'shoulder', price: 0.62 },
  { start: 10, end: 12, tier: 'peak', price: 1.02 },
  { start: 12, end: 14, tier: 'shoulder', price: 0.62 },
  { start: 14, end: 17, tier: 'off_peak', price: 0.28 },
  { start: 17, end: 19, tier: 'peak', price: 1.02 },
  { start: 19, end: 21, tier: 'sharp', price: 1.28 },
  { start: 21, end: 24, tier: 'shoulder', price: 0.62 },
];

const hhmm = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

const DOC: TouSchemeDocument = {
  dailyPlans: [
    {
      key: 1,
      name: 'bench',
      periods: DAY.map((p) => ({
        start: hhmm(p.start),
        end: hhmm(p.end),
        tier: p.tier,
        priceCnyPerKwh: p.price,
        action:
          p.tier === 'off_peak'
            ? ('charge' as const)
            : p.tier === 'shoulder'
              ? ('idle' as const)
              : ('discharge' as const),
        powerKw: 100,
        socMinPct: 10,
        socMaxPct: 90,
      })),
    },
  ],
  weeklyPlans: [],
  yearlyPlans: [],
  exceptionPlans: [],
  defaultDailyPlanKey: 1,
  defaultWeeklyPlanKey: null,
};

export interface BillFigures {
  engine: 'pglite' | 'postgres';
  projects: number;
  periodRows: number;
  linesPerBill: number;
  /** First run: every bill a new draft. */
  firstMs: number;
  /** Second run: every draft recomputed in place. */
  againMs: number;
  perProjectMs: number;
  failed: number;
}

export async function benchBills(postgresUrl: string | undefined): Promise<BillFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  const { db } = database;
  try {
    const periodRows = await seedBillProjects(db, BILL_PROJECTS);
    const service = new BillService(db);
    const at = Date.UTC(2025, 7, 1, 12);
    let t = performance.now();
    const first = await service.draftAll(at);
    const firstMs = performance.now() - t;
    t = performance.now();
    const again = await service.draftAll(at);
    const againMs = performance.now() - t;
    const [one] = (await service.pageList({ all: true }, { pageNum: 1, pageSize: 1 })).list;
    const detail = one ? await service.detail({ all: true }, one.id) : null;
    return {
      engine: postgresUrl ? 'postgres' : 'pglite',
      projects: first.drafted,
      periodRows,
      linesPerBill: detail?.document.lines.length ?? 0,
      firstMs: Math.round(firstMs),
      againMs: Math.round(againMs),
      perProjectMs: Math.round((Math.max(firstMs, againMs) / Math.max(1, first.drafted)) * 10) / 10,
      failed: first.failed.length + again.failed.length,
    };
  } finally {
    await drop();
  }
}

/**
 * {@link BILL_PROJECTS}-style fixture: `count` projects of a new company (see the module note),
 * with July 2025's stored ToU periods; answers the number of period rows written.
 */
export async function seedBillProjects(db: Db, count: number): Promise<number> {
  const [co] = await db
    .insert(company)
    .values({ type: 'agent', name: 'bench bills', status: 'enabled' })
    .returning({ id: company.id });
  const companyId = co!.id;
  const investors = await db
    .insert(company)
    .values([
      { type: 'investor', parentId: companyId, name: 'bench investor 1', status: 'enabled' },
      { type: 'investor', parentId: companyId, name: 'bench investor 2', status: 'enabled' },
    ])
    .returning({ id: company.id });
  let periodRows = 0;
  for (let i = 0; i < count; i++) {
    const [s] = await db
      .insert(site)
      .values({ companyId, code: `BENCH-BILL-${i}`, name: `bench site ${i}`, timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    const [meter] = await db
      .insert(device)
      .values({ companyId, siteId: s!.id, sn: `BENCH-MTR-${i}`, type: 'meter' })
      .returning({ id: device.id });
    const [p] = await db
      .insert(project)
      .values({
        companyId,
        name: `bench project ${String(i).padStart(3, '0')}`,
        contractStart: '2025-01-01',
        contractYears: 10,
        status: 'in_operation',
        incomeMode: 'self_investment',
        ownerSharePct: 40,
        maintenanceCnyPerMonth: 800,
        insuranceCnyPerMonth: 120,
        costBearer: 'investors',
      })
      .returning({ id: project.id });
    await db.insert(projectInvestor).values([
      { companyId, projectId: p!.id, investorCompanyId: investors[0]!.id, ratioPct: 35, sort: 1 },
      { companyId, projectId: p!.id, investorCompanyId: investors[1]!.id, ratioPct: 25, sort: 2 },
    ]);
    await db
      .insert(projectSite)
      .values({ companyId, projectId: p!.id, siteId: s!.id, boundFrom: '2025-01-01' });
    await db.insert(projectMeter).values({
      companyId,
      projectId: p!.id,
      deviceId: meter!.id,
      ctRatio: 40,
      ptRatio: 1,
      readsSecondary: true,
    });
    const [tariff] = await db
      .insert(siteTariff)
      .values({
        companyId,
        siteId: s!.id,
        effectiveFrom: '2025-01-01',
        schemeName: 'bench',
        schemeVersion: 1,
        document: DOC,
      })
      .returning({ id: siteTariff.id });
    // July 2025 in Shanghai (UTC+8): each period's registers advance by a few secondary kWh.
    let charge = 10_000 + i;
    let discharge = 9_000 + i;
    const rows: (typeof energyTierDay.$inferInsert)[] = [];
    for (let d = 1; d <= 31; d++) {
      const day = `2025-07-${String(d).padStart(2, '0')}`;
      const midnight = Date.UTC(2025, 6, d) - 8 * 3_600_000;
      for (const period of DAY) {
        const c = period.tier === 'off_peak' ? 2.5 : 0;
        const x = period.tier === 'peak' || period.tier === 'sharp' ? 2.1 : 0;
        rows.push({
          companyId,
          siteId: s!.id,
          deviceId: meter!.id,
          day,
          startAt: new Date(midnight + period.start * 3_600_000),
          endAt: new Date(midnight + period.end * 3_600_000),
          startHhmm: hhmm(period.start),
          endHhmm: hhmm(period.end),
          tier: period.tier,
          priceCnyPerKwh: period.price,
          siteTariffId: tariff!.id,
          chargedKwh: c * 40,
          dischargedKwh: x * 40,
          source: 'registers',
          chargeStart: charge,
          chargeEnd: charge + c,
          dischargeStart: discharge,
          dischargeEnd: discharge + x,
          multiplier: 40,
        });
        charge += c;
        discharge += x;
      }
    }
    await db.insert(energyTierDay).values(rows);
    periodRows += rows.length;
  }

  return periodRows;
}
