/**
 * The month's maximum demand of sites, with storage and without (contract money/demand.ts
 * `monthDemand`: the rule and its source), measured from the 15-minute rollups
 * (`telemetry_rollup`, `bucket_s` 900; a bucket's mean power = sum ÷ n):
 *
 * - grid (kW, + = import): the site-figure rule's `gridKw` sources (devices/site-figures.ts
 *   {@link figureSourcesSql}: the site's meters other than a project's declared storage meter,
 *   `p_kw`, else its gateway's `grid_kw`), summed over those devices per quarter hour;
 * - battery (kW, + = discharging): the `batteryKw` sources (the PCSs' `p_kw`, else the
 *   gateway's), summed likewise.
 *
 * The sources are the site's devices today (as the site figures): a meter moved away takes its
 * rollups with it.
 *
 * **Closed days are stored** (`site_demand_day`, {@link computeMissingDemandDays}, run by
 * closed-days.ts `closeDays` with the energy per tier when a day closes): each site-local day's
 * two maxima, with the zone and the sources ({@link demandStamps}) they were computed with.
 * {@link siteDemand} takes a stored day whose zone and sources are still the site's, reads the
 * quarter hours of the other days (today, a day not stored yet, a day whose sources changed, a
 * part day), then combines the parts (`combineDemand`: a maximum of maxima, the same figures as
 * one pass over every quarter hour). A month's bills so read 31 rows a site instead of about
 * 6,000 quarter-hour rows (bench/bills.ts, README "Benchmarks: bills"). Like the energy per tier,
 * a day is closed 30 minutes after it ends: quarter hours that arrive later for a stored day do
 * not change it.
 *
 * Quarter hours are read by one statement for all the sites, each source through a LATERAL
 * subquery kept apart by `OFFSET 0`, so the interval is part of the primary-key index condition
 * (device, 900, point, bucket_start range) whatever the planner's statistics. Joined flat, a
 * database without statistics — PGlite always (it never analyzes), PostgreSQL until autovacuum has
 * analyzed the table — read every 15-minute row of the device and point since it first reported
 * and filtered the range afterwards. The statement answers each site's (or day's) quarter series as
 * one JSON text, decoded here, and the contract's rule turns it into the two maxima, so the rule
 * lives in one place.
 */
import {
  addDays,
  combineDemand,
  type DemandQuarter,
  localDateStart,
  localTimeOf,
  type MonthDemand,
  monthDemand,
} from '@ess/contract';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { figureSourcesSql } from './site-figures';
import { DAY_CLOSED_AFTER_MS } from './tier-energy';

/** An instant range `[startMs, endMs)` (UTC ms) of one site, e.g. a bound part of a local month. */
export interface DemandInterval {
  siteId: number;
  startMs: number;
  endMs: number;
}

/** Quarter hours of 900 s: the rollup bucket the demand is read from. */
const QUARTER_S = 900;

/** What a site's stored demand days hold for: its zone and its grid/battery sources. */
export interface DemandStamp {
  timezone: string;
  /** `figure:device_id:point` of each source, sorted, `;`-separated ('' when none). */
  sources: string;
}

const NOT_MEASURED: MonthDemand = { maxDemandKw: null, baselineMaxDemandKw: null };

/** The site ids as a one-column VALUES list. */
const idList = (ids: readonly number[]): SQL =>
  sql`VALUES ${sql.join(
    ids.map((id) => sql`(${id}::int)`),
    sql`, `,
  )}`;

/**
 * CTEs `ids(site_id)` (the sites) and `stamp(site_id, timezone, sources)` (each existing site's
 * {@link DemandStamp}), to prefix a statement with.
 */
function stampCtes(siteIds: readonly number[]): SQL {
  return sql`ids(site_id) AS (${idList(siteIds)}),
    src AS ${figureSourcesSql(sql`SELECT site_id FROM ids`, ['gridKw', 'batteryKw'])},
    stamp AS (
      SELECT s.id AS site_id, s.timezone,
             coalesce(string_agg(src.figure || ':' || src.device_id || ':' || src.point, ';'
                                 ORDER BY src.figure, src.device_id, src.point), '') AS sources
      FROM site s LEFT JOIN src ON src.site_id = s.id
      WHERE s.id IN (SELECT site_id FROM ids)
      GROUP BY s.id, s.timezone)`;
}

/** The stamp of each of `siteIds` that exists, by site id. */
export async function demandStamps(
  db: Pick<Db, 'execute'>,
  siteIds: readonly number[],
): Promise<Map<number, DemandStamp>> {
  const out = new Map<number, DemandStamp>();
  if (siteIds.length === 0) return out;
  const rows = rowsOf<{ site_id: number; timezone: string; sources: string }>(
    await db.execute(sql`WITH ${stampCtes(siteIds)} SELECT site_id, timezone, sources FROM stamp`),
  );
  for (const r of rows) out.set(Number(r.site_id), { timezone: r.timezone, sources: r.sources });
  return out;
}

/** A range of one site whose quarter hours are read, tagged with a key the answers group by. */
interface QuarterRange {
  siteId: number;
  key: string;
  startMs: number;
  endMs: number;
}

/**
 * The quarter hours of each range (buckets starting in `[startMs, endMs)`), as {@link monthDemand}
 * of each key's ranges together; keys without a grid figure are missing from the answer.
 */
async function quarterDemand(
  db: Pick<Db, 'execute'>,
  ranges: readonly QuarterRange[],
): Promise<Map<string, MonthDemand>> {
  const out = new Map<string, MonthDemand>();
  if (ranges.length === 0) return out;
  const values = sql.join(
    ranges.map(
      (r) =>
        sql`(${r.siteId}::int, ${r.key}::text, ${new Date(r.startMs).toISOString()}::timestamptz, ${new Date(r.endMs).toISOString()}::timestamptz)`,
    ),
    sql`, `,
  );
  const rows = rowsOf<{ key: string; j: string | null }>(
    await db.execute(sql`
      WITH iv(site_id, key, t0, t1) AS (VALUES ${values}),
      src AS ${figureSourcesSql(sql`SELECT site_id FROM iv`, ['gridKw', 'batteryKw'])},
      quarter AS (
        SELECT iv.key, r.bucket_start,
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
        GROUP BY iv.key, r.bucket_start
      )
      SELECT key, json_agg(json_build_array(grid_kw, battery_kw))::text AS j
      FROM quarter GROUP BY key`),
  );
  for (const r of rows) {
    const quarters: DemandQuarter[] = (r.j ? (JSON.parse(r.j) as [number | null, number | null][]) : []).map(
      ([gridKw, batteryKw]) => ({ gridKw, batteryKw }),
    );
    out.set(r.key, monthDemand(quarters));
  }
  return out;
}

/** The site-local days `[first, last]` whose whole day lies in `[startMs, endMs)`. */
function wholeDays(startMs: number, endMs: number, timezone: string): string[] {
  const days: string[] = [];
  let day = localTimeOf(startMs, timezone).date;
  if (localDateStart(day, timezone) < startMs) day = addDays(day, 1);
  while (localDateStart(addDays(day, 1), timezone) <= endMs) {
    days.push(day);
    day = addDays(day, 1);
  }
  return days;
}

/**
 * Maximum demand with and without storage of each site over its `intervals` (quarter hours whose
 * bucket starts in one of them; a site's intervals may be several, e.g. bound, unbound and bound
 * again within the month, and should not overlap). Whole site-local days stored with the site's
 * current stamp are read from `site_demand_day`, the rest from the quarter hours (module note).
 * Answers a map by site id with an entry for every site of `intervals`: both figures null when no
 * grid figure was measured in them (no grid meter or gateway grid point, or no rollups).
 */
export async function siteDemand(
  db: Pick<Db, 'execute'>,
  intervals: readonly DemandInterval[],
): Promise<Map<number, MonthDemand>> {
  const out = new Map<number, MonthDemand>();
  const ranges = intervals.filter((iv) => iv.endMs > iv.startMs);
  for (const iv of intervals) out.set(iv.siteId, NOT_MEASURED);
  if (ranges.length === 0) return out;
  const siteIds = [...new Set(ranges.map((r) => r.siteId))];
  // Each site's zone and the stored days that still hold (same zone and sources), in one statement.
  const fromDay = new Date(Math.min(...ranges.map((r) => r.startMs)) - 86_400_000).toISOString().slice(0, 10);
  const toDay = new Date(Math.max(...ranges.map((r) => r.endMs)) + 86_400_000).toISOString().slice(0, 10);
  const stampRows = rowsOf<{ site_id: number; timezone: string; j: string | null }>(
    await db.execute(sql`
      WITH ${stampCtes(siteIds)}
      SELECT st.site_id, st.timezone,
             json_agg(json_build_array(to_char(d.day, 'YYYY-MM-DD'), d.max_demand_kw, d.baseline_max_demand_kw))
               FILTER (WHERE d.site_id IS NOT NULL)::text AS j
      FROM stamp st
      LEFT JOIN site_demand_day d ON d.site_id = st.site_id AND d.timezone = st.timezone
        AND d.sources = st.sources AND d.day >= ${fromDay}::date AND d.day <= ${toDay}::date
      GROUP BY st.site_id, st.timezone`),
  );
  const zones = new Map<number, string>();
  const stored = new Map<string, MonthDemand>();
  for (const r of stampRows) {
    zones.set(Number(r.site_id), r.timezone);
    for (const [day, max, baseline] of r.j
      ? (JSON.parse(r.j) as [string, number | null, number | null][])
      : [])
      stored.set(`${r.site_id}|${day}`, { maxDemandKw: max, baselineMaxDemandKw: baseline });
  }

  // Each interval: its stored whole days as parts, the rest as quarter-hour ranges.
  const parts = new Map<number, MonthDemand[]>(siteIds.map((id) => [id, []]));
  const live: QuarterRange[] = [];
  for (const iv of ranges) {
    const tz = zones.get(iv.siteId);
    let from = iv.startMs;
    for (const day of tz ? wholeDays(iv.startMs, iv.endMs, tz) : []) {
      const got = stored.get(`${iv.siteId}|${day}`);
      if (!got) continue;
      const dayStart = localDateStart(day, tz!);
      if (dayStart > from)
        live.push({ siteId: iv.siteId, key: String(iv.siteId), startMs: from, endMs: dayStart });
      parts.get(iv.siteId)!.push(got);
      from = localDateStart(addDays(day, 1), tz!);
    }
    if (iv.endMs > from)
      live.push({ siteId: iv.siteId, key: String(iv.siteId), startMs: from, endMs: iv.endMs });
  }
  const read = await quarterDemand(db, live);
  for (const [key, demand] of read) parts.get(Number(key))!.push(demand);
  for (const [siteId, list] of parts) out.set(siteId, combineDemand(list));
  return out;
}

/** What a run of {@link computeMissingDemandDays} stored. */
export interface DemandDaysResult {
  sites: number;
  days: number;
}

/**
 * Stores the maximum demand of every closed site-local day (ended at least 30 minutes before
 * `nowMs`) of the last `lookbackDays` days of `siteIds` (closed-days.ts `closeDays` passes every
 * site when it is given none) that has a daily
 * rollup of a grid source and no stored row with the site's current stamp; a day without a grid
 * figure in its quarter hours is stored as not measured (both null). Idempotent (an upsert per
 * site and day); stops early when `signal` is aborted.
 */
export async function computeMissingDemandDays(
  db: Pick<Db, 'execute'>,
  opts: { nowMs: number; lookbackDays: number; siteIds: readonly number[]; signal?: AbortSignal },
): Promise<DemandDaysResult> {
  const stamps = await demandStamps(db, opts.siteIds);
  const result: DemandDaysResult = { sites: 0, days: 0 };
  for (const [siteId, stamp] of stamps) {
    if (opts.signal?.aborted) break;
    if (!stamp.sources.includes('gridKw:')) continue;
    const tz = stamp.timezone;
    const today = localTimeOf(opts.nowMs, tz).date;
    const closedUntil = localTimeOf(opts.nowMs - DAY_CLOSED_AFTER_MS, tz).date; // days before it are closed
    const from = addDays(today, -opts.lookbackDays);
    const missing = rowsOf<{ day: string }>(
      await db.execute(sql`
        WITH src AS ${figureSourcesSql(sql`SELECT ${siteId}::int`, ['gridKw'])}
        SELECT DISTINCT to_char((r.bucket_start AT TIME ZONE ${tz})::date, 'YYYY-MM-DD') AS day
        FROM src
        JOIN telemetry_rollup r ON r.device_id = src.device_id AND r.point = src.point AND r.bucket_s = 86400
         AND r.bucket_start >= ${new Date(localDateStart(from, tz)).toISOString()}::timestamptz
         AND r.bucket_start < ${new Date(localDateStart(closedUntil, tz)).toISOString()}::timestamptz
        WHERE NOT EXISTS (
          SELECT 1 FROM site_demand_day d
          WHERE d.site_id = ${siteId} AND d.day = (r.bucket_start AT TIME ZONE ${tz})::date
            AND d.timezone = ${tz} AND d.sources = ${stamp.sources})
        ORDER BY 1`),
    ).map((r) => String(r.day));
    if (missing.length === 0) continue;
    result.sites++;
    for (let i = 0; i < missing.length && !opts.signal?.aborted; i += 31) {
      const days = missing.slice(i, i + 31);
      const read = await quarterDemand(
        db,
        days.map((day) => ({
          siteId,
          key: day,
          startMs: localDateStart(day, tz),
          endMs: localDateStart(addDays(day, 1), tz),
        })),
      );
      const values = sql.join(
        days.map((day) => {
          const d = read.get(day) ?? NOT_MEASURED;
          return sql`(${siteId}::int, ${day}::date, ${tz}::text, ${stamp.sources}::text, ${d.maxDemandKw}::float8, ${d.baselineMaxDemandKw}::float8)`;
        }),
        sql`, `,
      );
      await db.execute(sql`
        INSERT INTO site_demand_day (site_id, day, timezone, sources, max_demand_kw, baseline_max_demand_kw)
        VALUES ${values}
        ON CONFLICT (site_id, day) DO UPDATE SET
          timezone = excluded.timezone, sources = excluded.sources,
          max_demand_kw = excluded.max_demand_kw,
          baseline_max_demand_kw = excluded.baseline_max_demand_kw, computed_at = now()`);
      result.days += days.length;
    }
  }
  return result;
}
