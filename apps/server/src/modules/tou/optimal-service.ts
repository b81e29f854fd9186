/**
 * The optimal charge schedule of a day's tariff (issue 17 item 6, call `tou/optimalPlan`): the
 * contract builds the linear programme (packages/contract/src/tou/optimal.ts, the model and its
 * assumptions), HiGHS solves it here on the server (the `highs` package: HiGHS compiled to
 * WebAssembly, one-shot `solve` of CPLEX LP text), and the contract turns the solution into a
 * daily plan that keeps every rule of tou/rules.ts.
 *
 * The battery is the site's: storage capacity (kWh) and PCS rating (kW) as the ToU screens show
 * them (devices/site-figures.ts), the site read within the caller's company scope (3036). The
 * tariff periods are checked with the plan rules first (3070–3094, where in words); a site without
 * capacity or rating answers 3095. HiGHS is loaded once per process (its WebAssembly module
 * compiled once); a solve that throws drops the instance so the next call loads a fresh one.
 */
import {
  buildOptimalLp,
  describeIssuePath,
  ErrorCode,
  type Lang,
  type OptimalInput,
  periodIssues,
  planFromSchedule,
  previewOptimalPlan,
  scheduleFromSolution,
  type TouOptimalPlanRequest,
  type TouOptimalPlanResponse,
} from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import highsLoader, { type Highs } from 'highs';
import { type CompanyScope, requireSiteInScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { site } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import { siteCapacityKwhSql, siteRatedPowerKwSql } from '../../devices/site-figures';

let highs: Promise<Highs> | null = null;

/** The process's HiGHS instance (loaded on first use). */
function solver(): Promise<Highs> {
  highs ??= highsLoader().catch((error: unknown) => {
    highs = null;
    throw error;
  });
  return highs;
}

export interface SolvedDay {
  schedule: ReturnType<typeof scheduleFromSolution>;
  periods: ReturnType<typeof planFromSchedule>;
  preview: ReturnType<typeof previewOptimalPlan>;
}

/**
 * Solve the LP of `input` and make its plan. Throws when HiGHS does not find an optimum (the LP
 * always has one: doing nothing is feasible and the objective is bounded by the rating).
 */
export async function solveOptimalDay(input: OptimalInput): Promise<SolvedDay> {
  const lp = buildOptimalLp(input);
  const instance = await solver();
  let result: ReturnType<Highs['solve']>;
  try {
    result = instance.solve(lp, { output_flag: false });
  } catch (error) {
    highs = null;
    throw error;
  }
  if (result.Status !== 'Optimal') throw new Error(`HiGHS ended with status ${result.Status}`);
  const columns = result.Columns as Record<string, { Primal?: number }>;
  const schedule = scheduleFromSolution(input, (name) => columns[name]?.Primal, result.ObjectiveValue);
  const periods = planFromSchedule(input, schedule);
  return { schedule, periods, preview: previewOptimalPlan(input, periods) };
}

/** `tou/optimalPlan`: the site's battery, the request's tariff and assumptions (see the module note). */
export async function optimalPlanOfSite(
  db: Db,
  scope: CompanyScope,
  body: TouOptimalPlanRequest,
  lang: Lang,
): Promise<TouOptimalPlanResponse> {
  // Only the tariff matters (times, tiers, prices): the periods' own strategies are not checked.
  const tariff = body.periods.map((p) => ({ ...p, action: 'idle' as const }));
  const [issue] = periodIssues(tariff);
  if (issue) {
    const where = describeIssuePath(
      { dailyPlans: [{ key: 1, name: '', periods: tariff }] } as never,
      ['dailyPlans', 0, ...issue.path],
      lang,
    );
    throw new ApiError(issue.code, issue.params ?? {}, where || undefined);
  }
  const target = await requireSiteInScope(db, scope, body.siteId);
  // Written out qualified, as tou-service.ts does (a bare "id" would mean the device's).
  const [figures] = await db
    .select({
      capacityKwh: siteCapacityKwhSql(sql`"site"."id"`),
      ratedPowerKw: siteRatedPowerKwSql(sql`"site"."id"`),
    })
    .from(site)
    .where(eq(site.id, target.id));
  const capacityKwh = Number(figures?.capacityKwh ?? 0);
  const ratedPowerKw = Number(figures?.ratedPowerKw ?? 0);
  if (!(capacityKwh > 0 && ratedPowerKw > 0)) throw new ApiError(ErrorCode.TOU_SITE_NO_BATTERY);

  const input: OptimalInput = {
    periods: tariff,
    battery: {
      capacityKwh,
      ratedPowerKw,
      roundTripEfficiencyPct: body.roundTripEfficiencyPct,
      socMinPct: body.socMinPct,
      socMaxPct: body.socMaxPct,
      degradationCostCnyPerKwh: body.degradationCostCnyPerKwh,
    },
    demand: {
      chargeCnyPerKwMonth: body.demandChargeCnyPerKwMonth,
      monthPeakKw: body.monthPeakKw,
      ...(body.loadKw ? { loadKw: body.loadKw } : {}),
    },
  };
  const { schedule, periods, preview } = await solveOptimalDay(input);
  return {
    siteId: target.id,
    capacityKwh,
    ratedPowerKw,
    objectiveCny: schedule.objectiveCny,
    chargeKw: schedule.chargeKw,
    dischargeKw: schedule.dischargeKw,
    socPct: schedule.socPct,
    periods,
    plan: {
      chargedKwh: preview.chargedKwh,
      dischargedKwh: preview.dischargedKwh,
      costCny: preview.costCny,
      revenueCny: preview.revenueCny,
      degradationCny: preview.degradationCny,
      demandCostCny: preview.demandCostCny,
      netCny: Math.round((preview.netCny - preview.demandCostCny) * 100) / 100,
      cycles: preview.cycles,
    },
    planSocPct: preview.socPct,
  };
}
