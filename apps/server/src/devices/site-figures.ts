/**
 * The contract's site-figure rule (`@ess/contract` device/site-figures.ts) in SQL: which
 * devices of a site provide its SOC, battery/grid/PV power and charge/discharge registers, and
 * which make its capacity and rated power; a project's declared storage meter provides none
 * ({@link isStorageMeterSql}). Built from the contract's tables, so the fleet figures (dashboard,
 * site list, site monitoring, big screens, live push), the registry and ToU screens and the
 * console's own `siteFigures` cannot disagree about who provides a figure.
 */
import {
  SITE_CAPACITY_TYPES,
  SITE_FIGURE_SOURCES,
  SITE_FIGURES,
  SITE_RATED_POWER_TYPES,
  type SiteFigure,
} from '@ess/contract';
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';

/**
 * Whether the device whose id is the SQL expression or column `deviceId` (e.g. `sql\`d.id\``) is
 * a storage meter a project declares (a row of `project_meter`, issue 17 item 1): the contract's
 * `FigureDevice.storageMeter`, which the answers handing device lists to the console's
 * `siteFigures` carry. A boolean expression.
 */
export function isStorageMeterSql(deviceId: SQLWrapper): SQL<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM project_meter pm WHERE pm.device_id = ${deviceId})`;
}

/**
 * A subquery of the devices providing each figure at each site: for each site of `siteIds` (a
 * query answering one column of site ids) and each of `figures`, the site's devices of the first
 * source type it has, each with the source's point. A storage meter a project declares
 * ({@link isStorageMeterSql}) is left out before the ranking: it provides no figure, and a site
 * whose only meter is a storage meter ranks its gateway first for the grid (`grid_kw`). Columns:
 * `site_id`, `figure` (a {@link SiteFigure}), `device_id`, `point`; one row per device and figure
 * (a device/point pair belongs to one figure at most). Join the latest values or the rollups on
 * (device_id, point): a device that has not reported the point adds nothing. Use as
 * `FROM ${figureSourcesSql(…)} src`.
 */
export function figureSourcesSql(siteIds: SQL, figures: readonly SiteFigure[] = SITE_FIGURES): SQL {
  const sources = figures.flatMap((figure) =>
    SITE_FIGURE_SOURCES[figure].map(
      (s, rank) => sql`(${figure}::text, ${rank}::int, ${s.type}::text, ${s.point}::text)`,
    ),
  );
  return sql`(
    SELECT site_id, figure, device_id, point FROM (
      SELECT d.site_id, src.figure, d.id AS device_id, src.point, src.src_rank,
             min(src.src_rank) OVER (PARTITION BY d.site_id, src.figure) AS first_rank
      FROM (VALUES ${sql.join(sources, sql`, `)}) AS src(figure, src_rank, device_type, point)
      JOIN device d ON d.type = src.device_type AND d.site_id IN (${siteIds})
      WHERE NOT ${isStorageMeterSql(sql`d.id`)}
    ) ranked WHERE src_rank = first_rank)`;
}

/** Sum of `column` over the site's devices of the first type in `types` that has it set. */
function firstTypeSum(column: SQL, types: readonly string[]): SQL {
  return sql`coalesce(${sql.join(
    types.map((t) => sql`sum(${column}) FILTER (WHERE d.type = ${t}::text)`),
    sql`, `,
  )})`;
}

/**
 * Storage capacity (kWh) of the site whose id is the SQL expression or column `siteId` (e.g.
 * `sql\`s.id\`` of an outer query, or the `site.id` column): the BMSs' capacities, else the gateway's (contract `SITE_CAPACITY_TYPES`); 0
 * when none is set. A scalar subquery (float8).
 */
export function siteCapacityKwhSql(siteId: SQLWrapper): SQL<number> {
  return sql<number>`(SELECT coalesce(${firstTypeSum(sql`d.capacity_kwh`, SITE_CAPACITY_TYPES)}, 0)::float8
    FROM device d WHERE d.site_id = ${siteId})`;
}

/** Rated power (kW) of the site `siteId`: the PCSs', else the gateway's (`SITE_RATED_POWER_TYPES`); 0 when none. */
export function siteRatedPowerKwSql(siteId: SQLWrapper): SQL<number> {
  return sql<number>`(SELECT coalesce(${firstTypeSum(sql`d.rated_power_kw`, SITE_RATED_POWER_TYPES)}, 0)::float8
    FROM device d WHERE d.site_id = ${siteId})`;
}
