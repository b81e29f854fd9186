/**
 * The one rule for daily register energy (charged / discharged kWh of a PCS, imported /
 * exported of a meter, produced of PV), used by the dashboard, site monitoring, history energy,
 * export and the big screens so they agree:
 *
 *   energy of a site-local day = the day's last reading of the cumulative register
 *                              − the last reading of the previous site-local day,
 *
 * both from the site-local daily rollups (`telemetry_rollup`, `bucket_s` 86400). The previous
 * day is the previous daily bucket in bucket order, accepted only when its local date is the
 * day before (so 23 h and 25 h days around a DST change are handled; no "24 h back"). When
 * there is no reading on the previous local day, the day's own last − first is used. Never
 * below 0 per device (a register reset or replacement does not count negative).
 */
import { type SQL, sql } from 'drizzle-orm';

/** The cumulative registers (kWh) that daily energy is computed for. */
export const ENERGY_POINTS = [
  'e_charge_total_kwh',
  'e_discharge_total_kwh',
  'e_import_total_kwh',
  'e_export_total_kwh',
  'e_total_kwh',
] as const;

/**
 * A subquery of daily energy per device, register and site-local day.
 *
 * - `devices`: a query with columns `device_id`, `timezone` (the site's zone), one row per device.
 * - `points`: the registers.
 * - `from`: timestamptz; days whose bucket starts at or after it. May refer to `dv.timezone`
 *   (e.g. `date_trunc('day', now() AT TIME ZONE dv.timezone) AT TIME ZONE dv.timezone`).
 * - `to` (optional): timestamptz; days whose bucket starts before it.
 *
 * Columns: `device_id`, `point`, `bucket_start` (timestamptz, the local midnight), `day`
 * (`YYYY-MM-DD`, site-local), `kwh` (≥ 0). Use as `FROM ${dailyEnergySql(…)} e`.
 */
export function dailyEnergySql(opts: { devices: SQL; points: readonly string[]; from: SQL; to?: SQL }): SQL {
  const points = sql.join(
    opts.points.map((p) => sql`${p}`),
    sql`, `,
  );
  return sql`(
    SELECT device_id, point, bucket_start, to_char(local_day, 'YYYY-MM-DD') AS day,
           greatest(0, last_value - CASE WHEN prev_day = local_day - 1 THEN prev_last ELSE first_value END) AS kwh
    FROM (
      SELECT r.device_id, r.point, r.bucket_start, r.first_value, r.last_value,
             (r.bucket_start AT TIME ZONE dv.timezone)::date AS local_day,
             lag((r.bucket_start AT TIME ZONE dv.timezone)::date) OVER w AS prev_day,
             lag(r.last_value) OVER w AS prev_last,
             r.bucket_start >= ${opts.from} AS in_range
      FROM (${opts.devices}) dv
      JOIN telemetry_rollup r ON r.device_id = dv.device_id AND r.bucket_s = 86400
           AND r.point IN (${points})
           AND r.bucket_start >= ${opts.from} - interval '3 days'
           ${opts.to ? sql`AND r.bucket_start < ${opts.to}` : sql``}
      WINDOW w AS (PARTITION BY r.device_id, r.point ORDER BY r.bucket_start)
    ) days WHERE in_range)`;
}
