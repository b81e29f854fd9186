/**
 * Closing of site-local days (issue 17 items 3 and 5): what is stored of each day once it has
 * ended (30 minutes after, so its last quarter hour is in) — the energy per tier of its storage
 * metering devices (tier-energy.ts `computeMissingTierDays`, `energy_tier_day`) and its maximum
 * demand with and without storage (site-demand.ts `computeMissingDemandDays`, `site_demand_day`),
 * both of which the monthly bills read. Run hourly by the `energy-tier` task and by the demo
 * fleet once its past is written. (Screens that only need the energy — revenue statistics —
 * catch up with `computeMissingTierDays` alone.)
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { computeMissingDemandDays, type DemandDaysResult } from './site-demand';
import { computeMissingTierDays, type TierRunResult } from './tier-energy';

/** What a run of {@link closeDays} stored. */
export interface ClosedDaysResult extends TierRunResult {
  /** Site-days whose maximum demand was stored. */
  demandDays: number;
}

/**
 * Stores what is missing of every closed day of the last `lookbackDays` days of `siteIds`
 * (default every site): energy per tier, then maximum demand. Idempotent; stops early when
 * `signal` is aborted.
 */
export async function closeDays(
  db: Db,
  opts: { nowMs: number; lookbackDays: number; siteIds?: readonly number[]; signal?: AbortSignal },
): Promise<ClosedDaysResult> {
  // Every site when none are given, read once for both.
  const siteIds =
    opts.siteIds ??
    rowsOf<{ id: number }>(await db.execute(sql`SELECT id FROM site ORDER BY id`)).map((r) => Number(r.id));
  const tiers = await computeMissingTierDays(db, { ...opts, siteIds });
  const demand: DemandDaysResult = opts.signal?.aborted
    ? { sites: 0, days: 0 }
    : await computeMissingDemandDays(db, { ...opts, siteIds });
  return { ...tiers, demandDays: demand.days };
}
