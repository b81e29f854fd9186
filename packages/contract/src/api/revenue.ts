/**
 * Revenue statistics (issue 17 item 4; `endpoints.revenue.*`, screen /project/revenue): charged
 * and discharged kWh per ToU tier, charging cost, discharge value, net benefit, efficiency and
 * equivalent full cycles of a site, a project or a company over a site-local day, month or year,
 * with the previous period and the arbitrage preview's expectation beside it.
 *
 * Figures come from the energy per tier of the sites' storage metering devices (server
 * modules/revenue/tier-energy.ts, table `energy_tier_day`; today so far computed on the fly)
 * valued by the one money rule (money/valuation.ts). Periods are site-local calendar days; a
 * project counts a site only on the days it is bound to it; a company counts its sites and those
 * of the companies below it that the caller sees.
 */
import { z } from 'zod';
import { TOU_TIERS } from '../tou/scheme';
import { userInfoEcho } from './envelope';
import { idSchema as id } from './primitives';

/** What the figures are of. */
export const REVENUE_SCOPES = ['site', 'project', 'company'] as const;
export type RevenueScope = (typeof REVENUE_SCOPES)[number];

/** Length of the period: a day (series per ToU period), a month (per day), a year (per month). */
export const REVENUE_GRANULARITIES = ['day', 'month', 'year'] as const;
export type RevenueGranularity = (typeof REVENUE_GRANULARITIES)[number];

/** `YYYY-MM-DD` (day), `YYYY-MM` (month) or `YYYY` (year) as the granularity asks. */
export const REVENUE_PERIOD_PATTERNS: Record<RevenueGranularity, RegExp> = {
  day: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  month: /^\d{4}-(0[1-9]|1[0-2])$/,
  year: /^\d{4}$/,
};

export const revenueStatRequest = z
  .object({
    userInfo: userInfoEcho,
    scope: z.enum(REVENUE_SCOPES),
    /** Site, project or company id. */
    id,
    granularity: z.enum(REVENUE_GRANULARITIES),
    /** The period: `YYYY-MM-DD`, `YYYY-MM` or `YYYY` (as `granularity`). */
    period: z.string().max(10),
  })
  .superRefine((v, ctx) => {
    if (!REVENUE_PERIOD_PATTERNS[v.granularity].test(v.period)) {
      ctx.addIssue({
        code: 'custom',
        path: ['period'],
        message: `period must be ${v.granularity === 'day' ? 'YYYY-MM-DD' : v.granularity === 'month' ? 'YYYY-MM' : 'YYYY'}`,
      });
    }
  });
export type RevenueStatRequest = z.infer<typeof revenueStatRequest>;

/** Energy and money of a stretch of time. kWh, CNY. */
export const revenueFiguresSchema = z.object({
  chargedKwh: z.number(),
  dischargedKwh: z.number(),
  /** Charging cost Σ charged × price. */
  costCny: z.number(),
  /** Discharge value Σ discharged × price. */
  valueCny: z.number(),
  /** value − cost. */
  netCny: z.number(),
  /** discharged ÷ charged, %; null when nothing was charged. */
  efficiencyPct: z.number().nullable(),
  /** discharged ÷ usable capacity; null without capacity. */
  cycles: z.number().nullable(),
});
export type RevenueFigures = z.infer<typeof revenueFiguresSchema>;

export const revenueTierSchema = z.object({
  tier: z.enum(TOU_TIERS),
  chargedKwh: z.number(),
  dischargedKwh: z.number(),
  costCny: z.number(),
  valueCny: z.number(),
  netCny: z.number(),
});

/** One point of the series: a ToU period (day), a day (month) or a month (year). */
export const revenuePointSchema = z.object({
  /** `HH:MM-HH:MM` of a period, `YYYY-MM-DD` of a day, `YYYY-MM` of a month. */
  label: z.string(),
  /** Tier of a period (day series); null otherwise or without tariff. */
  tier: z.enum(TOU_TIERS).nullable(),
  /** Price of a period (day series), CNY/kWh; null otherwise. */
  priceCnyPerKwh: z.number().nullable(),
  chargedKwh: z.number(),
  dischargedKwh: z.number(),
  costCny: z.number(),
  valueCny: z.number(),
  netCny: z.number(),
});
export type RevenuePoint = z.infer<typeof revenuePointSchema>;

export const revenueStatResponse = z.object({
  scope: z.enum(REVENUE_SCOPES),
  id,
  name: z.string(),
  granularity: z.enum(REVENUE_GRANULARITIES),
  period: z.string(),
  /** First and last site-local day of the period (inclusive). */
  from: z.string(),
  to: z.string(),
  previousPeriod: z.string(),
  /** Sites counted. */
  siteCount: z.number().int(),
  /** Usable storage capacity of the sites counted, kWh (for the cycles). */
  capacityKwh: z.number(),
  totals: revenueFiguresSchema,
  previous: revenueFiguresSchema,
  /** Per tier, sharp → off-peak. */
  perTier: z.array(revenueTierSchema),
  series: z.array(revenuePointSchema),
  /**
   * The arbitrage preview's expectation (contract tou/arbitrage.ts `previewArbitrage` of each day's
   * plan under that day's tariff, each site's capacity, rated power, 90 % round trip) over the days
   * of the period up to today; null when no site had a tariff.
   */
  expected: z
    .object({ chargedKwh: z.number(), dischargedKwh: z.number(), netCny: z.number(), days: z.number().int() })
    .nullable(),
  /** How the energy was measured: periods read from registers, from power (a reading missing), or not at all. */
  sources: z.object({ registers: z.number().int(), power: z.number().int(), none: z.number().int() }),
  /** kWh of periods without a tariff (not valued). */
  unpricedKwh: z.number(),
});
export type RevenueStatResponse = z.infer<typeof revenueStatResponse>;

export const revenueTargetsRequest = z.object({ userInfo: userInfoEcho });
/** What the caller may look at: sites, projects and companies in scope. */
export const revenueTargetsResponse = z.object({
  sites: z.array(z.object({ id, name: z.string(), code: z.string(), timezone: z.string() })),
  projects: z.array(z.object({ id, name: z.string() })),
  companies: z.array(z.object({ id, name: z.string() })),
});
export type RevenueTargetsResponse = z.infer<typeof revenueTargetsResponse>;
