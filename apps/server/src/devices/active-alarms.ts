/**
 * The one rule for "active alarm": a row of `alarm` whose `cleared_at` is
 * null — raised by a device's `produce` event, cleared by the `disappear` of the same device,
 * code and level (devices/alarm-lifecycle.ts). The alarms page, the dashboard, site monitoring
 * and the big screens all count and list from this, so they agree.
 */
import { type SQL, sql } from 'drizzle-orm';

/**
 * A subquery of the active alarms matching `where` (a condition on alias `a`, the `alarm` row,
 * e.g. `inScopeSql(scope, 'a.company_id')` or `sql\`a.site_id = ${id}\``). Columns: `id` (the
 * alarm id), `company_id`, `site_id`, `device_id`, `code`, `level` (warning | fault), `content`,
 * `value`, `produced_at` (timestamptz). Use as `FROM ${activeAlarmsSql(…)} x`.
 */
export function activeAlarmsSql(where: SQL): SQL {
  return sql`(SELECT a.id, a.company_id, a.site_id, a.device_id, a.code, a.level, a.content,
                     a.value, a.produced_at
              FROM alarm a WHERE a.cleared_at IS NULL AND ${where})`;
}
