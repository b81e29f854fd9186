/**
 * Revenue statistics (issue 17 item 4; contract api/revenue.ts): a site's, project's or company's
 * energy per tier over a site-local day, month or year, valued by the one money rule (contract
 * money/valuation.ts `valueEnergy`), with the previous period and the arbitrage expectation.
 *
 * Lines: one per site, day and ToU period — the stored `energy_tier_day` rows of the site's storage
 * meters summed per period (closed days; yesterday is computed on demand if the task has not yet),
 * plus today so far (tier-energy.ts `todayTierLines`). A project counts a site on the days of its
 * bindings (`project_site` `[bound_from, bound_to)`); a company its sites and those of companies
 * below it, within the caller's scope. Errors: 3036 site, 7001 project, 6000 company (outside the
 * scope answers as absent).
 */
import {
  addDays,
  type BatteryForPreview,
  ErrorCode,
  equivalentFullCycles,
  localTimeOf,
  nextMonthStart,
  previewArbitrage,
  type RevenueFigures,
  type RevenueGranularity,
  type RevenuePoint,
  type RevenueScope,
  type RevenueStatResponse,
  type RevenueTargetsResponse,
  resolveDay,
  roundKwh,
  storageEfficiencyPct,
  type TouTier,
  valueEnergy,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { type CompanyScope, companyTree, inScopeSql, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { numOrZero, rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';
import { siteCapacityKwhSql, siteRatedPowerKwSql } from '../../devices/site-figures';
import { tariffsForDays, versionOfDay } from '../../devices/tariff-history';
import { computeMissingTierDays, type SiteDayLine, siteDayLines } from '../../devices/tier-energy';

/** Round trip assumed by the expectation (vendor sheets: system efficiency ≥ 90 %; shared data README). */
export const EXPECTATION_ROUND_TRIP_PCT = 90;

/** A site counted, on which local days (inclusive bounds; null = open). */
interface CountedSite {
  siteId: number;
  timezone: string;
  capacityKwh: number;
  ratedPowerKw: number;
  fromDay: string | null;
  /** Last day counted (inclusive). */
  toDay: string | null;
}

type Line = SiteDayLine;

/** First and last day (inclusive) of a period, and the previous period's label. */
export function periodBounds(
  granularity: RevenueGranularity,
  period: string,
): { from: string; to: string; previous: string } {
  if (granularity === 'day') return { from: period, to: period, previous: addDays(period, -1) };
  if (granularity === 'month') {
    const [y, m] = period.split('-').map(Number) as [number, number];
    const from = `${period}-01`;
    const to = addDays(nextMonthStart(period), -1);
    const previous = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
    return { from, to, previous };
  }
  return { from: `${period}-01-01`, to: `${period}-12-31`, previous: String(Number(period) - 1) };
}

const emptyFigures = (): RevenueFigures => ({
  chargedKwh: 0,
  dischargedKwh: 0,
  costCny: 0,
  valueCny: 0,
  netCny: 0,
  efficiencyPct: null,
  cycles: null,
});

export class RevenueService {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sites, projects and companies in scope. */
  async targets(scope: CompanyScope): Promise<RevenueTargetsResponse> {
    const sites = rowsOf<Record<string, unknown>>(
      await this.db.execute(
        sql`SELECT id, name, code, timezone FROM site WHERE ${inScopeSql(scope, 'company_id')} ORDER BY code`,
      ),
    );
    const projects = rowsOf<Record<string, unknown>>(
      await this.db.execute(
        sql`SELECT id, name FROM project WHERE ${inScopeSql(scope, 'company_id')} ORDER BY name`,
      ),
    );
    const companies = rowsOf<Record<string, unknown>>(
      await this.db.execute(
        sql`SELECT c.id, c.name FROM company c WHERE ${inScopeSql(scope, 'c.id')}
            AND EXISTS (SELECT 1 FROM site s WHERE s.company_id = c.id) ORDER BY c.id`,
      ),
    );
    return {
      sites: sites.map((r) => ({
        id: numOrZero(r.id),
        name: String(r.name),
        code: String(r.code),
        timezone: String(r.timezone),
      })),
      projects: projects.map((r) => ({ id: numOrZero(r.id), name: String(r.name) })),
      companies: companies.map((r) => ({ id: numOrZero(r.id), name: String(r.name) })),
    };
  }

  /** The statistics of one target and period (see the module note). */
  async stat(
    scope: CompanyScope,
    q: { scope: RevenueScope; id: number; granularity: RevenueGranularity; period: string },
  ): Promise<RevenueStatResponse> {
    const { name, sites } = await this.target(scope, q.scope, q.id);
    const bounds = periodBounds(q.granularity, q.period);
    const prevBounds = periodBounds(q.granularity, bounds.previous);
    const nowMs = this.now();
    if (sites.length > 0) {
      // Days that closed since the tier task last ran (yesterday after midnight).
      await computeMissingTierDays(this.db, { nowMs, lookbackDays: 2, siteIds: sites.map((s) => s.siteId) });
    }
    const lines = await siteDayLines(this.db, sites, prevBounds.from, bounds.to, nowMs);
    const inRange = (l: Line, from: string, to: string) => l.day >= from && l.day <= to;
    const current = lines.filter((l) => inRange(l, bounds.from, bounds.to));
    const previous = lines.filter((l) => inRange(l, prevBounds.from, prevBounds.to));
    const capacityKwh = sites.reduce((s, x) => s + x.capacityKwh, 0);
    const valued = valueEnergy(current.filter((l) => l.priced));
    const sources = { registers: 0, power: 0, none: 0 };
    for (const l of current) {
      if (l.source === 'registers' || l.source === 'power' || l.source === 'none') sources[l.source]++;
    }
    return {
      scope: q.scope,
      id: q.id,
      name,
      granularity: q.granularity,
      period: q.period,
      from: bounds.from,
      to: bounds.to,
      previousPeriod: bounds.previous,
      siteCount: sites.length,
      capacityKwh: roundKwh(capacityKwh),
      totals: this.figures(current, capacityKwh),
      previous: this.figures(previous, capacityKwh),
      perTier: valued.perTier,
      series: this.series(q.granularity, current),
      expected: await this.expected(sites, bounds.from, bounds.to, nowMs),
      sources,
      unpricedKwh: roundKwh(
        current.filter((l) => !l.priced).reduce((s, l) => s + l.chargedKwh + l.dischargedKwh, 0),
      ),
    };
  }

  private figures(lines: readonly Line[], capacityKwh: number): RevenueFigures {
    if (lines.length === 0) return emptyFigures();
    const v = valueEnergy(lines.filter((l) => l.priced));
    const charged = roundKwh(lines.reduce((s, l) => s + l.chargedKwh, 0));
    const discharged = roundKwh(lines.reduce((s, l) => s + l.dischargedKwh, 0));
    return {
      chargedKwh: charged,
      dischargedKwh: discharged,
      costCny: v.costCny,
      valueCny: v.valueCny,
      netCny: v.netCny,
      efficiencyPct: storageEfficiencyPct(charged, discharged),
      cycles: equivalentFullCycles(discharged, capacityKwh),
    };
  }

  /** Day: per ToU period (summed over sites); month: per day; year: per month. */
  private series(granularity: RevenueGranularity, lines: readonly Line[]): RevenuePoint[] {
    const groups = new Map<string, { tier: TouTier | null; price: number | null; lines: Line[] }>();
    for (const l of lines) {
      const key =
        granularity === 'day' ? `${l.start}-${l.end}` : granularity === 'month' ? l.day : l.day.slice(0, 7);
      const g = groups.get(key) ?? {
        tier: granularity === 'day' ? l.tier : null,
        price: granularity === 'day' && l.priced ? l.priceCnyPerKwh : null,
        lines: [],
      };
      if (granularity === 'day' && g.price !== l.priceCnyPerKwh) g.price = l.priced ? g.price : null;
      g.lines.push(l);
      groups.set(key, g);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([label, g]) => {
        const v = valueEnergy(g.lines.filter((l) => l.priced));
        return {
          label,
          tier: g.tier,
          priceCnyPerKwh: g.price,
          chargedKwh: roundKwh(g.lines.reduce((s, l) => s + l.chargedKwh, 0)),
          dischargedKwh: roundKwh(g.lines.reduce((s, l) => s + l.dischargedKwh, 0)),
          costCny: v.costCny,
          valueCny: v.valueCny,
          netCny: v.netCny,
        };
      });
  }

  /** The arbitrage preview of each counted day up to today (see api/revenue.ts `expected`). */
  private async expected(
    sites: readonly CountedSite[],
    from: string,
    to: string,
    nowMs: number,
  ): Promise<RevenueStatResponse['expected']> {
    const versions = await tariffsForDays(
      this.db,
      sites.map((s) => s.siteId),
    );
    const cache = new Map<string, ReturnType<typeof previewArbitrage>>();
    let charged = 0;
    let discharged = 0;
    let netCny = 0;
    let days = 0;
    for (const s of sites) {
      const today = localTimeOf(nowMs, s.timezone).date;
      const battery: BatteryForPreview = {
        capacityKwh: s.capacityKwh,
        ratedPowerKw: s.ratedPowerKw,
        roundTripEfficiencyPct: EXPECTATION_ROUND_TRIP_PCT,
      };
      for (let day = from; day <= to && day <= today; day = addDays(day, 1)) {
        if ((s.fromDay !== null && day < s.fromDay) || (s.toDay !== null && day > s.toDay)) continue;
        const version = versionOfDay(versions.get(s.siteId) ?? [], day);
        if (!version) continue;
        const plan = resolveDay(version.document, day).dailyPlan;
        const key = `${s.siteId}|${version.id}|${plan.key}`;
        let preview = cache.get(key);
        if (!preview) {
          preview = previewArbitrage(plan, battery);
          cache.set(key, preview);
        }
        charged += preview.chargedKwh;
        discharged += preview.dischargedKwh;
        netCny += preview.netCny;
        days++;
      }
    }
    if (days === 0) return null;
    return {
      chargedKwh: roundKwh(charged),
      dischargedKwh: roundKwh(discharged),
      netCny: Math.round(netCny * 100) / 100,
      days,
    };
  }

  /** The target's name and the sites it counts (errors: 3036, 7001, 6000). */
  private async target(
    scope: CompanyScope,
    kind: RevenueScope,
    id: number,
  ): Promise<{ name: string; sites: CountedSite[] }> {
    const siteRow = (r: Record<string, unknown>): CountedSite => ({
      siteId: numOrZero(r.id),
      timezone: String(r.timezone),
      capacityKwh: numOrZero(r.capacity_kwh),
      ratedPowerKw: numOrZero(r.rated_power_kw),
      fromDay: r.from_day ? String(r.from_day) : null,
      toDay: r.to_day ? String(r.to_day) : null,
    });
    const figures = sql`${siteCapacityKwhSql(sql`s.id`)} AS capacity_kwh, ${siteRatedPowerKwSql(sql`s.id`)} AS rated_power_kw`;
    if (kind === 'site') {
      const rows = rowsOf<Record<string, unknown>>(
        await this.db.execute(sql`
          SELECT s.id, s.name, s.timezone, ${figures} FROM site s
          WHERE s.id = ${id} AND ${inScopeSql(scope, 's.company_id')}`),
      );
      if (!rows[0]) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
      return { name: String(rows[0].name), sites: rows.map(siteRow) };
    }
    if (kind === 'project') {
      const [project] = rowsOf<Record<string, unknown>>(
        await this.db.execute(
          sql`SELECT id, name FROM project WHERE id = ${id} AND ${inScopeSql(scope, 'company_id')}`,
        ),
      );
      if (!project) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
      const rows = rowsOf<Record<string, unknown>>(
        await this.db.execute(sql`
          SELECT s.id, s.timezone, ${figures}, to_char(ps.bound_from, 'YYYY-MM-DD') AS from_day,
                 to_char(ps.bound_to - 1, 'YYYY-MM-DD') AS to_day
          FROM project_site ps JOIN site s ON s.id = ps.site_id
          WHERE ps.project_id = ${id} AND ${inScopeSql(scope, 's.company_id')}
          ORDER BY s.id, ps.bound_from`),
      );
      return { name: String(project.name), sites: rows.map(siteRow) };
    }
    if (!scopeIncludes(scope, id)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const [company] = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`SELECT id, name FROM company WHERE id = ${id}`),
    );
    if (!company) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const tree = (await companyTree(this.db, id)).filter((c) => scopeIncludes(scope, c));
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT s.id, s.timezone, ${figures} FROM site s
        WHERE s.company_id IN (${sql.join(
          (tree.length ? tree : [-1]).map((c) => sql`${c}::int`),
          sql`, `,
        )}) ORDER BY s.id`),
    );
    return { name: String(company.name), sites: rows.map(siteRow) };
  }
}
