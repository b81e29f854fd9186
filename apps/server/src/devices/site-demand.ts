/**
 * The month's maximum demand of sites, with storage and without (contract money/demand.ts
 * `monthDemand`: the rule and its source), measured from the 15-minute rollups
 * (`telemetry_rollup`, `bucket_s` 900; a bucket's mean power = sum ÷ n):
 *
 * - grid (kW, + = import): the site-figure rule's `gridKw` sources (devices/site-figures.ts
 *   {@link figureSourcesSql}: the site's meters other than a project's declared storage meter, `p_kw`, else its gateway's `grid_kw`), summed
 *   over those devices per quarter hour;
 * - battery (kW, + = discharging): the `batteryKw` sources (the PCSs' `p_kw`, else the
 *   gateway's), summed likewise.
 *
 * One statement for all the sites of a bill; it answers each site's quarter series (as one JSON
 * text, decoded here) and the contract's rule turns it into the two maxima, so the rule lives in
 * one place. The sources are the site's devices today (as the site figures): a meter moved away
 * takes its rollups with it.
 *
 * Each source's quarters are read by a LATERAL subquery kept apart by `OFFSET 0`, so the interval
 * is part of the primary-key index condition (device, 900, point, bucket_start range) whatever the
 * planner's statistics. Joined flat, a database without statistics — PGlite always (it never
 * analyzes), PostgreSQL until autovacuum has analyzed the table — read every 15-minute row of the
 * device and point since it first reported and filtered the month afterwards: with three months
 * stored, 8,928 rows a device for the month's 2,976 (bench/bills.ts).
 */
import { type DemandQuarter, type MonthDemand, monthDemand } from '@ess/contract';
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { figureSourcesSql } from './site-figures';

/** An instant range `[startMs, endMs)` (UTC ms) of one site, e.g. a bound part of a local month. */
export interface DemandInterval {
  siteId: number;
  startMs: number;
  endMs: number;
}

/** Quarter hours of 900 s: the rollup bucket the demand is read from. */
const QUARTER_S = 900;

/**
 * Maximum demand with and without storage of each site over its `intervals` (quarter hours whose
 * bucket starts in one of them; a site's intervals may be several, e.g. bound, unbound and bound
 * again within the month, and should not overlap). Answers a map by site id with an entry for
 * every site of `intervals`: both figures null when no grid figure was measured in them (no grid
 * meter or gateway grid point, or no rollups).
 */
export async function siteDemand(
  db: Pick<Db, 'execute'>,
  intervals: readonly DemandInterval[],
): Promise<Map<number, MonthDemand>> {
  const out = new Map<number, MonthDemand>();
  const ranges = intervals.filter((iv) => iv.endMs > iv.startMs);
  for (const iv of intervals) out.set(iv.siteId, { maxDemandKw: null, baselineMaxDemandKw: null });
  if (ranges.length === 0) return out;
  const values = sql.join(
    ranges.map(
      (iv) =>
        sql`(${iv.siteId}::int, ${new Date(iv.startMs).toISOString()}::timestamptz, ${new Date(iv.endMs).toISOString()}::timestamptz)`,
    ),
    sql`, `,
  );
  const rows = rowsOf<{ site_id: number; j: string | null }>(
    await db.execute(sql`
      WITH iv(site_id, t0, t1) AS (VALUES ${values}),
      src AS ${figureSourcesSql(sql`SELECT site_id FROM iv`, ['gridKw', 'batteryKw'])},
      quarter AS (
        SELECT iv.site_id, r.bucket_start,
               sum(r.kw) FILTER (WHERE src.figure = 'gridKw') AS grid_kw,
               sum(r.kw) FILTER (WHERE src.figure = 'batteryKw') AS battery_kw
        FROM iv
        JOIN src ON src.site_id = iv.site_id
        CROSS JOIN LATERAL (
          SELECT t.bucket_start, t.sum / t.n AS kw FROM telemetry_rollup t
          WHERE t.device_id = src.device_id AND t.point = src.point AND t.bucket_s = ${QUARTER_S}::int
            AND t.bucket_start >= iv.t0 AND t.bucket_start < iv.t1 AND t.n > 0
          OFFSET 0
        ) r
        GROUP BY iv.site_id, r.bucket_start
      )
      SELECT site_id, json_agg(json_build_array(grid_kw, battery_kw))::text AS j
      FROM quarter GROUP BY site_id`),
  );
  for (const r of rows) {
    const quarters: DemandQuarter[] = (r.j ? (JSON.parse(r.j) as [number | null, number | null][]) : []).map(
      ([gridKw, batteryKw]) => ({ gridKw, batteryKw }),
    );
    out.set(Number(r.site_id), monthDemand(quarters));
  }
  return out;
}
