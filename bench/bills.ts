/**
 * Monthly bills (design §6 "monthly bills: 100 projects drafted ≤ 2 s"; issue 17 item 5): on a
 * fresh database (PGlite in the process, or a new PostgreSQL database dropped after),
 * {@link BILL_PROJECTS} projects in operation — self-investment, owner 40 % and two investors
 * 35 % / 25 %, one Asia/Shanghai site each with a grid meter, a PCS and one declared storage
 * meter (CT 40, secondary side) and a four-tier tariff version — and each storage meter's energy
 * per ToU period for July 2025 (31 days × 8 periods, as the `energy-tier` task stores it).
 *
 * With `history`, each site also has the 15-minute rollups (`telemetry_rollup`, bucket 900 s,
 * written by one `INSERT … SELECT` over `generate_series`; not timed) of the points a bill reads —
 * the grid meter's and the PCS's `p_kw` (the maximum demand, devices/site-demand.ts) and the
 * storage meter's `e_import_total_kwh` / `e_export_total_kwh` (the registers the `energy-tier`
 * task prices, devices/tier-energy.ts) — for July and the {@link BILL_HISTORY_MONTHS} − 1 months
 * before it (4 × 2,976 rows a site for July), as a site in operation has them: a month stored
 * before the billed one shows whether the demand read stays within the month; and the daily
 * rollups of the grid meter's and the PCS's `p_kw` (ingest writes them with the quarters; the
 * closing of a day looks for them). Without history the demand query finds nothing, which is
 * cheaper than any real month.
 *
 * Then the `bill-draft` task's work (`BillService.draftAll` at 2025-08-01 12:00 UTC: last month
 * of every project in operation): first as new drafts, then again (each draft recomputed in
 * place). With history the days are not closed yet at first (every quarter hour of the month is
 * read, as before days were stored); then the `energy-tier` task's closing of the days' maximum
 * demand runs (`closeDays`, as it does hourly; timed apart) and the drafts are
 * recomputed once more — the figure a month's bills take once its days are closed, which the
 * budget is judged on. Prints wall time, time per project and the lines per bill.
 */
import type { TouSchemeDocument, TouTier } from '@ess/contract';
import { sql } from 'drizzle-orm';
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
import { closeDays } from '../apps/server/src/devices/closed-days';
import { BillService } from '../apps/server/src/modules/bill/bill-service';
import { freshDatabase } from './device-ingest';

/** Projects drafted (BENCH_BILL_PROJECTS). */
export const BILL_PROJECTS = Number(process.env.BENCH_BILL_PROJECTS ?? 100);

/** Months of 15-minute rollups a site has with history, ending with the billed July (BENCH_BILL_HISTORY_MONTHS). */
export const BILL_HISTORY_MONTHS = Number(process.env.BENCH_BILL_HISTORY_MONTHS ?? 2);

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
  /** Whether the sites had July's 15-minute rollups ({@link seedBillHistory}). */
  history: boolean;
  projects: number;
  periodRows: number;
  /** 15-minute rollup rows written (0 without history). */
  rollupRows: number;
  linesPerBill: number;
  /** First run: every bill a new draft. */
  firstMs: number;
  /** Second run: every draft recomputed in place (with history: the days not closed yet). */
  againMs: number;
  /** With history: closing every site's days (their maximum demand stored), the task's work. */
  closeDaysMs: number | null;
  /** With history: the drafts recomputed once the days are closed. */
  closedMs: number | null;
  /** Per project, of the run the budget is judged on (with history: `closedMs`). */
  perProjectMs: number;
  failed: number;
}

export async function benchBills(postgresUrl: string | undefined, history: boolean): Promise<BillFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  const { db } = database;
  try {
    const { periodRows, sites } = await seedBillProjects(db, BILL_PROJECTS);
    const rollupRows = history ? await seedBillHistory(db, sites) : 0;
    if (postgresUrl) await db.execute(sql`ANALYZE`);
    const service = new BillService(db);
    const at = Date.UTC(2025, 7, 1, 12);
    let t = performance.now();
    const first = await service.draftAll(at);
    const firstMs = performance.now() - t;
    t = performance.now();
    const again = await service.draftAll(at);
    const againMs = performance.now() - t;
    let closeDaysMs: number | null = null;
    let closedMs: number | null = null;
    let closedFailed = 0;
    if (history) {
      t = performance.now();
      await closeDays(db, { nowMs: at, lookbackDays: 31 * BILL_HISTORY_MONTHS + 1 });
      closeDaysMs = performance.now() - t;
      t = performance.now();
      closedFailed = (await service.draftAll(at)).failed.length;
      closedMs = performance.now() - t;
    }
    const judged = closedMs ?? Math.max(firstMs, againMs);
    const [one] = (await service.pageList({ all: true }, { pageNum: 1, pageSize: 1 })).list;
    const detail = one ? await service.detail({ all: true }, one.id) : null;
    return {
      engine: postgresUrl ? 'postgres' : 'pglite',
      history,
      projects: first.drafted,
      periodRows,
      rollupRows,
      linesPerBill: detail?.document.lines.length ?? 0,
      firstMs: Math.round(firstMs),
      againMs: Math.round(againMs),
      closeDaysMs: closeDaysMs === null ? null : Math.round(closeDaysMs),
      closedMs: closedMs === null ? null : Math.round(closedMs),
      perProjectMs: Math.round((judged / Math.max(1, first.drafted)) * 10) / 10,
      failed: first.failed.length + again.failed.length + closedFailed,
    };
  } finally {
    await drop();
  }
}

/** The devices of a bench site: its grid meter, its PCS and its declared storage meter. */
export interface BillBenchSite {
  siteId: number;
  gridMeterId: number;
  pcsId: number;
  storageMeterId: number;
}

/**
 * {@link BILL_PROJECTS}-style fixture: `count` projects of a new company (see the module note),
 * with July 2025's stored ToU periods; answers the number of period rows written and the sites.
 */
export async function seedBillProjects(
  db: Db,
  count: number,
): Promise<{ periodRows: number; sites: BillBenchSite[] }> {
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
  const sites: BillBenchSite[] = [];
  for (let i = 0; i < count; i++) {
    const [s] = await db
      .insert(site)
      .values({ companyId, code: `BENCH-BILL-${i}`, name: `bench site ${i}`, timezone: 'Asia/Shanghai' })
      .returning({ id: site.id });
    const [meter] = await db
      .insert(device)
      .values({ companyId, siteId: s!.id, sn: `BENCH-MTR-${i}`, type: 'meter' })
      .returning({ id: device.id });
    const [grid, pcs] = await db
      .insert(device)
      .values([
        { companyId, siteId: s!.id, sn: `BENCH-GRID-${i}`, type: 'meter' },
        { companyId, siteId: s!.id, sn: `BENCH-PCS-${i}`, type: 'pcs' },
      ])
      .returning({ id: device.id });
    sites.push({ siteId: s!.id, gridMeterId: grid!.id, pcsId: pcs!.id, storageMeterId: meter!.id });
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

  return { periodRows, sites };
}

/**
 * The 15-minute rollups of `sites` (module note) from the start of the `months` − 1 months before
 * July 2025 to the end of July (Asia/Shanghai, UTC+8), in one `INSERT … SELECT`: 15 samples a
 * quarter (a reading a minute). Site-local hour h: the battery (PCS `p_kw`, + = discharging)
 * charges 80 kW in the off-peak hours and discharges 90 kW in the peak and sharp ones (the
 * bench's ToU day); the load follows a day curve of 110–234 kW that varies by day and site, and
 * the grid meter's `p_kw` (+ = import) is load − battery. The storage meter's registers rise by
 * 0.5 and 0.4 secondary kWh a quarter. Answers the rows written.
 */
export async function seedBillHistory(
  db: Db,
  sites: readonly BillBenchSite[],
  months = BILL_HISTORY_MONTHS,
): Promise<number> {
  if (sites.length === 0) return 0;
  const firstMs = Date.UTC(2025, 7 - months, 1) - 8 * 3_600_000;
  const endMs = Date.UTC(2025, 7, 1) - 8 * 3_600_000;
  const series = sql.join(
    sites.flatMap((s, k) => [
      sql`(${s.gridMeterId}::int, 'p_kw', 'grid', ${k}::int)`,
      sql`(${s.pcsId}::int, 'p_kw', 'battery', ${k}::int)`,
      sql`(${s.storageMeterId}::int, 'e_import_total_kwh', 'import', ${k}::int)`,
      sql`(${s.storageMeterId}::int, 'e_export_total_kwh', 'export', ${k}::int)`,
    ]),
    sql`, `,
  );
  await db.execute(sql`
    WITH s(device_id, point, role, k) AS (VALUES ${series}),
    q AS (
      SELECT b, i - 1 AS i, extract(hour FROM b AT TIME ZONE 'Asia/Shanghai')::int AS h
      FROM generate_series(${new Date(firstMs).toISOString()}::timestamptz,
                           ${new Date(endMs - 900_000).toISOString()}::timestamptz,
                           interval '15 minutes') WITH ORDINALITY AS g(b, i)
    ),
    v AS (
      SELECT s.device_id, s.point, q.b,
             s.role IN ('import', 'export') AS is_register,
             CASE s.role
               WHEN 'import' THEN 10000 + s.k + 0.5 * q.i
               WHEN 'export' THEN 9000 + s.k + 0.4 * q.i
               WHEN 'grid' THEN load_kw - battery_kw
               ELSE battery_kw
             END AS kw
      FROM s CROSS JOIN q
      CROSS JOIN LATERAL (SELECT
        CASE WHEN q.h < 8 OR q.h BETWEEN 14 AND 16 THEN -80
             WHEN q.h BETWEEN 10 AND 11 OR q.h BETWEEN 17 AND 20 THEN 90
             ELSE 0 END::float8 AS battery_kw,
        (160 + 50 * sin(2 * pi() * (q.i % 96 - 36) / 96.0) + 6 * ((q.i / 96 * 7 + s.k) % 5))::float8 AS load_kw
      ) f
    )
    INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max,
                                  first_ts, first_value, last_ts, last_value)
    SELECT device_id, 900, b, point, 15, 15 * kw, kw - CASE WHEN is_register THEN 0 ELSE 3 END,
           kw + CASE WHEN is_register THEN 0 ELSE 3 END, b, kw, b + interval '14 minutes', kw
    FROM v`);
  // The days of the power points, from their quarters (Shanghai days), as ingest keeps them.
  const powerIds = sites.flatMap((s) => [s.gridMeterId, s.pcsId]);
  await db.execute(sql`
    INSERT INTO telemetry_rollup (device_id, bucket_s, bucket_start, point, n, sum, min, max,
                                  first_ts, first_value, last_ts, last_value)
    SELECT device_id, 86400, d, point, sum(n)::int, sum(sum), min(min), max(max),
           min(first_ts), (array_agg(first_value ORDER BY bucket_start))[1],
           max(last_ts), (array_agg(last_value ORDER BY bucket_start DESC))[1]
    FROM (
      SELECT r.*, ((bucket_start AT TIME ZONE 'Asia/Shanghai')::date::timestamp AT TIME ZONE 'Asia/Shanghai') AS d
      FROM telemetry_rollup r
      WHERE bucket_s = 900 AND point = 'p_kw' AND device_id IN (${sql.join(
        powerIds.map((id) => sql`${id}::int`),
        sql`, `,
      )})
    ) q
    GROUP BY device_id, point, d`);
  const days = (endMs - firstMs) / 86_400_000;
  return sites.length * 4 * ((endMs - firstMs) / 900_000) + powerIds.length * days;
}
