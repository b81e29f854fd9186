/**
 * Monthly bills (issue 17 item 5): drafting, settling and correcting a project's month, and the
 * reads behind the list, the detail, the xlsx and the print page. The arithmetic is the contract's
 * money/bill.ts `computeBill`; this file gathers its input from the database:
 *
 * - the contract: `project` + `project_investor` (names from `company`), checked by
 *   `projectContractProblem` inside `computeBill` (-100 naming the field);
 * - the sites bound during the month (`project_site`, local dates `[bound_from, bound_to)`), their
 *   zone, their tariff versions (`site_tariff`, one version per `effective_from`; the two-part
 *   charge with it) and their storage meters (`project_meter`: CT, PT, secondary side; a meter
 *   swapped in the field, `project_meter_swap`, is one part per physical meter: {@link meterParts});
 *   a site without a declared storage meter is billed on the registers devices/tier-energy.ts
 *   `storageMeters` prices for it (its PCS's AC charge/discharge registers, × 1; a gateway-only
 *   site's gateway), each line naming the device type — never on a site's grid meter;
 * - each meter's energy per ToU period (`energy_tier_day`, filled by the `energy-tier` task from
 *   the registers at each period's bounds, or the 15-minute rollups when a reading is missing:
 *   such lines are flagged `rollup` on the bill).
 *
 * - each site's maximum demand in the month with and without storage (devices/site-demand.ts
 *   `siteDemand`, rule and source in contract money/demand.ts): the highest 15-minute mean grid
 *   import, and the highest of grid + battery, over the quarter hours of the days the site was
 *   bound in the month (a site bound part of the month: that part; the demand charge is then
 *   prorated by bound days ÷ days of the month, money/bill.ts step 4). A site without a grid
 *   figure in those days (no grid meter, no gateway grid point, no rollups) has null figures: a
 *   max-demand basis then changes nothing and the bill says the demand was not measured.
 *
 * States (contract api/bill.ts): draft → confirmed; a confirmed month answers 7060 to a draft or a
 * second confirm; a correction is a new version (7063 unless the latest version is confirmed). A
 * month that has not ended in the zone of every site bound in it can be drafted (month to date) but
 * not settled (7064; the service's clock, injectable for tests, says what "now" is).
 * Every write is one transaction holding the project row (`FOR UPDATE`), so two drafts of one
 * month (the monthly task and an operator) never make two versions.
 *
 * Who: a draft and a settlement store the employee (`created_by_id`, `confirmed_by_id`) and their
 * name at the time (`created_by`, `confirmed_by`); the list and detail show the employee's current
 * name, else the stored one (a deleted employee), like the project history; a bill drafted by the
 * monthly task has none (the console says so).
 */
import {
  BILL_DEFAULT_TIME_ZONE,
  type BillDetail,
  type BillInput,
  BillInputError,
  type BillMeterInput,
  type BillPeriodEnergy,
  type BillResult,
  type BillRow,
  type BillSiteInput,
  type BillState,
  type BillTariff,
  billMonthEndMs,
  computeBill,
  ErrorCode,
  localDateStart,
  localTimeOf,
  NO_TWO_PART,
  nextMonthStart,
  type ProjectIncomeMode,
  previousMonth,
  type TierKwh,
  TOU_TIERS,
  type TouSchemeDocument,
  type TouTier,
} from '@ess/contract';
import { and, asc, count, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type CompanyScope, inScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { rowsOf } from '../../core/db/rows';
import {
  bill,
  company,
  device,
  employee,
  energyTierDay,
  project,
  projectInvestor,
  projectMeter,
  projectMeterSwap,
  projectSite,
  site,
  siteTariff,
} from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import { siteDemand } from '../../devices/site-demand';
import { storageMeters } from '../../devices/tier-energy';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Who drafts or settles: an employee, or the server itself (a test, the demo) named by `name`. */
export interface BillActor {
  employeeId: number | null;
  name?: string;
}

/** The employees named on a bill row: who drafted it and who settled it. */
const drafter = alias(employee, 'drafter');
const settler = alias(employee, 'settler');

/** The id and name an actor is stored with (`created_by_id` + `created_by`, likewise confirmed). */
async function actorColumns(
  db: Db | Tx,
  actor: BillActor | null,
): Promise<{ id: number | null; name: string | null }> {
  if (!actor) return { id: null, name: null };
  if (actor.employeeId === null) return { id: null, name: actor.name ?? null };
  const [row] = await db
    .select({ name: employee.name })
    .from(employee)
    .where(eq(employee.id, actor.employeeId));
  return { id: row ? actor.employeeId : null, name: row?.name ?? actor.name ?? null };
}

/** Projects the monthly task drafts at once (bench/bills.ts: 100 projects ≤ 2 s, design §6). */
export const DRAFT_CONCURRENCY = 4;

/** The per-tier prices of a tariff document: each tier's first price in the default daily plan (display). */
function tierPrices(doc: TouSchemeDocument): TierKwh {
  const plan = doc.dailyPlans.find((p) => p.key === doc.defaultDailyPlanKey) ?? doc.dailyPlans[0];
  const out = Object.fromEntries(TOU_TIERS.map((t) => [t, 0])) as TierKwh;
  for (const t of TOU_TIERS) {
    const period = plan?.periods.find((p) => p.tier === t && p.priceCnyPerKwh !== null);
    out[t] = period?.priceCnyPerKwh ?? 0;
  }
  return out;
}

/** A declared storage meter as project_meter holds it (the meter in place now). */
interface DeclaredMeter {
  deviceId: number;
  ct: number;
  pt: number;
  secondary: boolean;
  sn: string;
  siteId: number | null;
  type: string;
}

/**
 * The physical meters behind the declared storage meters (issue 17 meter swap; contract
 * money/bill.ts: a swap is two meters): a device with recorded swaps (`project_meter_swap`) is one
 * part per physical meter — up to the first swap with that swap's old CT/PT/side and old serial,
 * between two swaps with the later one's old ratios, after the last with the `project_meter` row's
 * — each `installedAtMs`/`removedAtMs` at its swaps, so each part bills the stored periods of its
 * own time (devices/tier-energy.ts splits the period holding a swap) with its own multiplier. A
 * part's SN is its serial as recorded, else the device's.
 */
async function meterParts(
  db: Db | Tx,
  declared: readonly DeclaredMeter[],
): Promise<Array<DeclaredMeter & { installedAtMs: number | null; removedAtMs: number | null }>> {
  const swaps = declared.length
    ? await db
        .select()
        .from(projectMeterSwap)
        .where(
          inArray(
            projectMeterSwap.deviceId,
            declared.map((m) => m.deviceId),
          ),
        )
        .orderBy(asc(projectMeterSwap.swappedAt))
    : [];
  return declared.flatMap((m) => {
    const mine = swaps.filter((s) => s.deviceId === m.deviceId);
    if (!mine.length) return [{ ...m, installedAtMs: null, removedAtMs: null }];
    return [...mine, null].map((s, i) => {
      const prev = i > 0 ? mine[i - 1]! : null;
      return {
        ...m,
        ct: s ? s.oldCtRatio : m.ct,
        pt: s ? s.oldPtRatio : m.pt,
        secondary: s ? s.oldReadsSecondary : m.secondary,
        sn: prev?.newSerial ?? s?.oldSerial ?? m.sn,
        installedAtMs: prev ? prev.swappedAt.getTime() : null,
        removedAtMs: s ? s.swappedAt.getTime() : null,
      };
    });
  });
}

export class BillService {
  /** `now`: the clock deciding whether a month has ended (UTC ms; tests pass a fixed one). */
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** The project row in scope (7001 otherwise), locked when `lock`. */
  private async requireProject(db: Db | Tx, scope: CompanyScope, id: number, lock = false) {
    const q = db
      .select()
      .from(project)
      .where(and(eq(project.id, id), inScope(scope, project.companyId)));
    const [row] = lock ? await q.for('update') : await q;
    if (!row) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
    return row;
  }

  /** The last month in the zone of the project's first bound site (Asia/Shanghai without one). */
  async defaultMonth(projectId: number, nowMs: number): Promise<string> {
    const [row] = await this.db
      .select({ tz: site.timezone })
      .from(projectSite)
      .innerJoin(site, eq(site.id, projectSite.siteId))
      .where(eq(projectSite.projectId, projectId))
      .orderBy(asc(projectSite.boundFrom))
      .limit(1);
    return previousMonth(localTimeOf(nowMs, row?.tz ?? BILL_DEFAULT_TIME_ZONE).date);
  }

  /**
   * When `month` of the project has ended everywhere (money/bill.ts `billMonthEndMs`): the zones of
   * the sites bound to it in the month; none bound then → the zones of all its sites (a bill
   * without sites still belongs to the project's place), none at all → Asia/Shanghai.
   */
  private async monthEndMs(db: Db | Tx, projectId: number, month: string): Promise<number> {
    const first = `${month}-01`;
    const next = nextMonthStart(month);
    const rows = await db
      .select({
        tz: site.timezone,
        inMonth: sql<boolean>`(${projectSite.boundFrom} < ${next} AND (${projectSite.boundTo} IS NULL OR ${projectSite.boundTo} > ${first}))`,
      })
      .from(projectSite)
      .innerJoin(site, eq(site.id, projectSite.siteId))
      .where(eq(projectSite.projectId, projectId));
    const truthy = (v: unknown) => v === true || v === 't';
    const inMonth = rows.filter((r) => truthy(r.inMonth)).map((r) => r.tz);
    return billMonthEndMs(month, inMonth.length ? inMonth : rows.map((r) => r.tz));
  }

  /** Whether a site was bound to the project on a day of `month` (local dates `[bound_from, bound_to)`). */
  private async anySiteBound(db: Db | Tx, projectId: number, month: string): Promise<boolean> {
    const [row] = await db
      .select({ id: projectSite.id })
      .from(projectSite)
      .where(
        and(
          eq(projectSite.projectId, projectId),
          lt(projectSite.boundFrom, nextMonthStart(month)),
          sql`(${projectSite.boundTo} IS NULL OR ${projectSite.boundTo} > ${`${month}-01`})`,
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  /** Gathers {@link computeBill}'s input for `projectId` × `month` (see the module note). */
  async input(db: Db | Tx, projectRow: typeof project.$inferSelect, month: string): Promise<BillInput> {
    const first = `${month}-01`;
    const next = nextMonthStart(month);
    const investors = await db
      .select({
        companyId: projectInvestor.investorCompanyId,
        ratioPct: projectInvestor.ratioPct,
        name: company.name,
      })
      .from(projectInvestor)
      .innerJoin(company, eq(company.id, projectInvestor.investorCompanyId))
      .where(eq(projectInvestor.projectId, projectRow.id))
      .orderBy(asc(projectInvestor.sort), asc(projectInvestor.id));
    const [owner] = projectRow.ownerCompanyId
      ? await db
          .select({ companyId: company.id, name: company.name })
          .from(company)
          .where(eq(company.id, projectRow.ownerCompanyId))
      : [];
    const bindings = await db
      .select({
        siteId: projectSite.siteId,
        from: projectSite.boundFrom,
        to: projectSite.boundTo,
        name: site.name,
        tz: site.timezone,
      })
      .from(projectSite)
      .innerJoin(site, eq(site.id, projectSite.siteId))
      .where(
        and(
          eq(projectSite.projectId, projectRow.id),
          lt(projectSite.boundFrom, next),
          sql`(${projectSite.boundTo} IS NULL OR ${projectSite.boundTo} > ${first})`,
        ),
      );
    const declaredRows = await db
      .select({
        deviceId: projectMeter.deviceId,
        ct: projectMeter.ctRatio,
        pt: projectMeter.ptRatio,
        secondary: projectMeter.readsSecondary,
        sn: device.sn,
        siteId: device.siteId,
        type: device.type,
      })
      .from(projectMeter)
      .innerJoin(device, eq(device.id, projectMeter.deviceId))
      .where(eq(projectMeter.projectId, projectRow.id));
    const declared = await meterParts(db, declaredRows);
    const siteIds = [...new Set(bindings.map((b) => b.siteId))];
    // Sites without a declared storage meter: the registers the energy-tier task prices for them.
    const withMeter = new Set(declared.map((m) => m.siteId));
    const undeclared = siteIds.filter((id) => !withMeter.has(id));
    const fallback = undeclared.length ? await storageMeters(db as Db, undeclared) : [];
    const fallbackDevices = fallback.length
      ? await db
          .select({ id: device.id, sn: device.sn, type: device.type })
          .from(device)
          .where(
            inArray(
              device.id,
              fallback.map((m) => m.deviceId),
            ),
          )
      : [];
    const meters = [
      ...declared,
      ...fallback.map((m) => {
        const d = fallbackDevices.find((x) => x.id === m.deviceId);
        return {
          deviceId: m.deviceId,
          ct: 1,
          pt: 1,
          secondary: false,
          sn: d?.sn ?? String(m.deviceId),
          siteId: m.siteId,
          type: d?.type ?? 'pcs',
          installedAtMs: null,
          removedAtMs: null,
        };
      }),
    ];
    const tariffs = siteIds.length
      ? await db
          .select()
          .from(siteTariff)
          .where(inArray(siteTariff.siteId, siteIds))
          .orderBy(asc(siteTariff.effectiveFrom))
      : [];
    const deviceIds = [...new Set(meters.map((m) => m.deviceId))];
    // The month's stored periods as one JSON text: ~250 rows a meter decoded row by row cost
    // 5× more on PGlite (bench/bills.ts); epoch ms and numbers come as JSON numbers.
    type PeriodTuple = [
      number,
      number,
      number,
      string | null,
      number | null,
      number | null,
      number | null,
      number | null,
      number | null,
      number,
      number,
      string,
    ];
    const [agg] = deviceIds.length
      ? rowsOf<{ j: string | null }>(
          await db.execute(sql`
            SELECT json_agg(json_build_array(
              ${energyTierDay.deviceId},
              (extract(epoch FROM ${energyTierDay.startAt}) * 1000)::bigint,
              (extract(epoch FROM ${energyTierDay.endAt}) * 1000)::bigint,
              ${energyTierDay.tier}, ${energyTierDay.priceCnyPerKwh},
              ${energyTierDay.chargeStart}, ${energyTierDay.chargeEnd},
              ${energyTierDay.dischargeStart}, ${energyTierDay.dischargeEnd},
              ${energyTierDay.chargedKwh}, ${energyTierDay.dischargedKwh}, ${energyTierDay.source}
            ) ORDER BY ${energyTierDay.startAt})::text AS j
            FROM ${energyTierDay}
            WHERE ${and(
              inArray(energyTierDay.deviceId, deviceIds),
              gte(energyTierDay.day, first),
              lt(energyTierDay.day, next),
            )}`),
        )
      : [];
    const periodsOf = new Map<number, BillPeriodEnergy[]>();
    for (const p of agg?.j ? (JSON.parse(agg.j) as PeriodTuple[]) : []) {
      const list = periodsOf.get(p[0]) ?? [];
      list.push({
        startMs: Number(p[1]),
        endMs: Number(p[2]),
        tier: p[3] as TouTier | null,
        priceCnyPerKwh: p[4] === null ? null : Number(p[4]),
        chargeStart: p[5],
        chargeEnd: p[6],
        dischargeStart: p[7],
        dischargeEnd: p[8],
        chargedKwh: Number(p[9]),
        dischargedKwh: Number(p[10]),
        source: p[11] === 'power' ? 'power' : 'registers',
      });
      periodsOf.set(p[0], list);
    }
    // The quarter hours of the bound days of the month, in each site's zone.
    const demandOf = await siteDemand(
      db,
      bindings.map((b) => ({
        siteId: b.siteId,
        startMs: localDateStart(b.from > first ? b.from : first, b.tz),
        endMs: localDateStart(b.to === null || b.to > next ? next : b.to, b.tz),
      })),
    );
    const sites: BillSiteInput[] = siteIds.map((siteId) => {
      const bs = bindings.filter((b) => b.siteId === siteId);
      const versions = tariffs.filter((t) => t.siteId === siteId);
      const billTariffs: BillTariff[] = versions.map((t, i) => ({
        from: t.effectiveFrom,
        to: versions[i + 1]?.effectiveFrom ?? null,
        pricesCnyPerKwh: tierPrices(t.document),
        twoPart: t.twoPart ?? NO_TWO_PART,
      }));
      const siteMeters: BillMeterInput[] = meters
        .filter((m) => m.siteId === siteId)
        .map((m) => ({
          meterId: m.deviceId,
          sn: m.sn,
          deviceType: withMeter.has(siteId) ? 'meter' : m.type,
          ctRatio: m.ct,
          ptRatio: m.pt,
          readsSecondary: m.secondary,
          installedAtMs: m.installedAtMs,
          removedAtMs: m.removedAtMs,
          readings: [],
          periods: periodsOf.get(m.deviceId) ?? [],
        }));
      return {
        siteId,
        siteName: bs[0]!.name,
        timeZone: bs[0]!.tz,
        bound: bs.map((b) => ({ from: b.from, to: b.to })),
        tariffs: billTariffs,
        demand: demandOf.get(siteId) ?? { maxDemandKw: null, baselineMaxDemandKw: null },
        meters: siteMeters,
      };
    });
    return {
      month,
      owner: owner ?? null,
      contract: {
        contractStart: projectRow.contractStart,
        contractYears: projectRow.contractYears,
        incomeMode: projectRow.incomeMode as ProjectIncomeMode,
        ownerSharePct: projectRow.ownerSharePct,
        rentBasis: projectRow.rentBasis as BillInput['contract']['rentBasis'],
        rentCny: projectRow.rentCny,
        capacityKwh: projectRow.capacityKwh,
        maintenanceCnyPerMonth: projectRow.maintenanceCnyPerMonth,
        insuranceCnyPerMonth: projectRow.insuranceCnyPerMonth,
        costBearer: projectRow.costBearer as BillInput['contract']['costBearer'],
        investors: investors.map((i) => ({ companyId: i.companyId, ratioPct: i.ratioPct, name: i.name })),
      },
      sites,
    };
  }

  /** computeBill with its refusals as -100 naming the field, in `lang`. */
  private compute(input: BillInput, lang: 'zh' | 'en'): BillResult {
    try {
      return computeBill(input);
    } catch (err) {
      if (err instanceof BillInputError) {
        throw new ApiError(ErrorCode.PARAM_ERROR, {}, `${err.field}: ${lang === 'zh' ? err.zh : err.en}`);
      }
      throw err;
    }
  }

  private versions(db: Db | Tx, projectId: number, month: string) {
    return db
      .select({ id: bill.id, version: bill.version, state: bill.state })
      .from(bill)
      .where(and(eq(bill.projectId, projectId), eq(bill.month, month)))
      .orderBy(desc(bill.version));
  }

  /**
   * Drafts (or re-drafts) `month` of a project: 7060 when a version is confirmed and none is a
   * later draft; a later draft (a correction) is recomputed in place, as is a plain draft; 7065
   * when no site was bound to the project on any day of the month (a bill of costs only, with no
   * energy, is not made; issue 17 review), nothing written.
   */
  async draft(
    scope: CompanyScope,
    projectId: number,
    month: string,
    actor: BillActor | null,
    lang: 'zh' | 'en',
    reason: string | null = null,
    correctionOf: number | null = null,
  ): Promise<{ id: number; version: number }> {
    return this.db.transaction(async (tx) => {
      const p = await this.requireProject(tx, scope, projectId, true);
      const versions = await this.versions(tx, projectId, month);
      const latest = versions[0];
      if (correctionOf !== null) {
        if (!latest || latest.id !== correctionOf || latest.state !== 'confirmed') {
          throw new ApiError(ErrorCode.BILL_NOT_CORRECTABLE);
        }
      } else if (latest?.state === 'confirmed') {
        throw new ApiError(ErrorCode.SETTLEMENT_ALREADY_DONE);
      }
      if (!(await this.anySiteBound(tx, projectId, month))) throw new ApiError(ErrorCode.BILL_NO_SITE_BOUND);
      const doc = this.compute(await this.input(tx, p, month), lang);
      const by = await actorColumns(tx, actor);
      const values = {
        incomeMode: doc.incomeMode,
        costCny: doc.totals.costCny,
        valueCny: doc.totals.valueCny,
        netBenefitCny: doc.totals.netBenefitCny,
        document: doc,
        createdBy: by.name,
        createdById: by.id,
      };
      if (latest && latest.state === 'draft') {
        await tx
          .update(bill)
          .set({ ...values, createdAt: new Date() })
          .where(eq(bill.id, latest.id));
        return { id: latest.id, version: latest.version };
      }
      const version = (latest?.version ?? 0) + 1;
      const [row] = await tx
        .insert(bill)
        .values({ ...values, companyId: p.companyId, projectId, month, version, state: 'draft', reason })
        .returning({ id: bill.id });
      return { id: row!.id, version };
    });
  }

  /** The bill in scope (7062 otherwise). */
  private async requireBill(db: Db | Tx, scope: CompanyScope, id: number) {
    const [row] = await db
      .select()
      .from(bill)
      .where(and(eq(bill.id, id), inScope(scope, bill.companyId)));
    if (!row) throw new ApiError(ErrorCode.BILL_NOT_FOUND);
    return row;
  }

  /**
   * Settles a draft: 7060 when it, or a later version, is already confirmed; 7064 while its month
   * has not ended in the zone of every site bound to the project in it (nothing is changed).
   */
  async confirm(scope: CompanyScope, id: number, actor: BillActor): Promise<typeof bill.$inferSelect> {
    return this.db.transaction(async (tx) => {
      const b = await this.requireBill(tx, scope, id);
      await this.requireProject(tx, scope, b.projectId, true);
      const [latest] = await this.versions(tx, b.projectId, b.month);
      if (b.state === 'confirmed' || latest!.id !== b.id)
        throw new ApiError(ErrorCode.SETTLEMENT_ALREADY_DONE);
      if (this.now() < (await this.monthEndMs(tx, b.projectId, b.month)))
        throw new ApiError(ErrorCode.BILL_MONTH_NOT_ENDED);
      const by = await actorColumns(tx, actor);
      const [row] = await tx
        .update(bill)
        .set({ state: 'confirmed', confirmedAt: new Date(), confirmedBy: by.name, confirmedById: by.id })
        .where(and(eq(bill.id, id), eq(bill.state, 'draft')))
        .returning();
      if (!row) throw new ApiError(ErrorCode.SETTLEMENT_ALREADY_DONE);
      return row;
    });
  }

  /** A correction of a settled bill: a new draft version recomputed from today's data, with the reason. */
  async correct(scope: CompanyScope, id: number, reason: string, actor: BillActor, lang: 'zh' | 'en') {
    const b = await this.requireBill(this.db, scope, id);
    return this.draft(scope, b.projectId, b.month, actor, lang, reason, b.id);
  }

  private rowQuery(db: Db | Tx) {
    return db
      .select({
        b: bill,
        companyName: company.name,
        projectName: project.name,
        createdBy: sql<string | null>`coalesce(${drafter.name}, ${bill.createdBy})`,
        confirmedBy: sql<string | null>`coalesce(${settler.name}, ${bill.confirmedBy})`,
        superseded: sql<boolean>`EXISTS (SELECT 1 FROM bill later WHERE later.project_id = ${bill.projectId} AND later.month = ${bill.month} AND later.version > ${bill.version})`,
      })
      .from(bill)
      .innerJoin(project, eq(project.id, bill.projectId))
      .innerJoin(company, eq(company.id, bill.companyId))
      .leftJoin(drafter, eq(drafter.id, bill.createdById))
      .leftJoin(settler, eq(settler.id, bill.confirmedById));
  }

  private toRow(r: {
    b: typeof bill.$inferSelect;
    companyName: string;
    projectName: string;
    createdBy: string | null;
    confirmedBy: string | null;
    superseded: boolean;
  }): BillRow {
    const { b } = r;
    return {
      id: b.id,
      companyId: b.companyId,
      companyName: r.companyName,
      projectId: b.projectId,
      projectName: r.projectName,
      month: b.month,
      version: b.version,
      state: b.state as BillState,
      reason: b.reason,
      incomeMode: b.incomeMode as ProjectIncomeMode,
      costCny: b.costCny,
      valueCny: b.valueCny,
      netBenefitCny: b.netBenefitCny,
      rollupLines: b.document.flags.rollupLines,
      backwardsLines: b.document.flags.backwardsLines,
      createdAt: b.createdAt.getTime(),
      createdBy: r.createdBy,
      confirmedAt: b.confirmedAt?.getTime() ?? null,
      confirmedBy: r.confirmedBy,
      superseded: r.superseded === true || (r.superseded as unknown) === 't',
      monthEndMs: billMonthEndMs(
        b.month,
        b.document.sites.map((s) => s.timeZone),
      ),
    };
  }

  /** One page of bills in scope, newest month first, then project, then version (highest first). */
  async pageList(
    scope: CompanyScope,
    q: { pageNum: number; pageSize: number; projectId?: number; month?: string; state?: BillState },
  ) {
    const where = and(
      inScope(scope, bill.companyId),
      q.projectId ? eq(bill.projectId, q.projectId) : undefined,
      q.month ? eq(bill.month, q.month) : undefined,
      q.state ? eq(bill.state, q.state) : undefined,
    );
    const [{ total }] = (await this.db.select({ total: count() }).from(bill).where(where)) as [
      { total: number },
    ];
    const rows = await this.rowQuery(this.db)
      .where(where)
      .orderBy(desc(bill.month), asc(project.name), desc(bill.version))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return { list: rows.map((r) => this.toRow(r)), total: Number(total) };
  }

  /** A bill with its document and the names of its sites. */
  async detail(scope: CompanyScope, id: number): Promise<BillDetail> {
    const [r] = await this.rowQuery(this.db).where(and(eq(bill.id, id), inScope(scope, bill.companyId)));
    if (!r) throw new ApiError(ErrorCode.BILL_NOT_FOUND);
    const siteNames = Object.fromEntries(r.b.document.sites.map((s) => [String(s.siteId), s.siteName]));
    return { ...this.toRow(r), document: r.b.document, siteNames };
  }

  /**
   * Drafts the last month of every project in operation (the `bill-draft` task): projects whose
   * month is settled are counted in `settled`, projects with no site bound in the month (7065:
   * before their first binding, after their last) in `skipped`; refusals (a contract that breaks
   * the rule, a date without a tariff) are reported per project and do not stop the others.
   */
  async draftAll(nowMs: number): Promise<{
    drafted: number;
    settled: number;
    skipped: number;
    failed: { projectId: number; error: string }[];
  }> {
    const projects = await this.db
      .select({ id: project.id })
      .from(project)
      .where(eq(project.status, 'in_operation'))
      .orderBy(asc(project.id));
    const out = { drafted: 0, settled: 0, skipped: 0, failed: [] as { projectId: number; error: string }[] };
    const draftOne = async (projectId: number) => {
      try {
        await this.draft({ all: true }, projectId, await this.defaultMonth(projectId, nowMs), null, 'en');
        out.drafted += 1;
      } catch (err) {
        if (err instanceof ApiError && err.code === ErrorCode.SETTLEMENT_ALREADY_DONE) out.settled += 1;
        else if (err instanceof ApiError && err.code === ErrorCode.BILL_NO_SITE_BOUND) out.skipped += 1;
        else out.failed.push({ projectId, error: (err as Error).message });
      }
    };
    // A few projects at once: each is its own transaction holding only its project row, so they
    // never wait for each other (PostgreSQL runs them on several pool connections; PGlite, one
    // connection, takes them in turn).
    let next = 0;
    const worker = async () => {
      while (next < projects.length) await draftOne(projects[next++]!.id);
    };
    await Promise.all(Array.from({ length: Math.min(DRAFT_CONCURRENCY, projects.length) }, worker));
    out.failed.sort((a, b) => a.projectId - b.projectId);
    return out;
  }
}
