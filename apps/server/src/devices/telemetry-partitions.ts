/**
 * Monthly partitions of `telemetry` (docs/architecture.md "Telemetry store"): partitions for the
 * previous, current and next two months (UTC) are created before the device side starts
 * (device-service.ts) and twice a day by the scheduler (jobs/jobs-plugin.ts); partitions
 * wholly older than the retention are dropped, which frees space at once and never scans rows.
 * Rows outside every monthly partition land in `telemetry_default`.
 */
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

const NAME = /^telemetry_y(\d{4})m(\d{2})$/;

function monthStart(year: number, month0: number): Date {
  return new Date(Date.UTC(year, month0, 1));
}

/** Name of the partition holding month `month0` (0–11) of `year`. */
export function partitionName(year: number, month0: number): string {
  return `telemetry_y${year}m${String(month0 + 1).padStart(2, '0')}`;
}

/** Creates missing partitions from one month back to two ahead of `now`. */
export async function ensurePartitions(db: Db, log: FastifyBaseLogger, now = new Date()): Promise<void> {
  for (let offset = -1; offset <= 2; offset++) {
    const from = monthStart(now.getUTCFullYear(), now.getUTCMonth() + offset);
    const to = monthStart(from.getUTCFullYear(), from.getUTCMonth() + 1);
    const name = partitionName(from.getUTCFullYear(), from.getUTCMonth());
    try {
      await db.execute(
        sql.raw(
          `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF telemetry FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
        ),
      );
    } catch (err) {
      // The default partition already holds rows of that month: they stay there.
      log.warn({ err: (err as Error).message, partition: name }, 'telemetry partition not created');
    }
  }
}

/** Drops monthly partitions that end before `now − retentionDays`; answers their names. */
export async function dropExpiredPartitions(
  db: Db,
  retentionDays: number,
  now = new Date(),
): Promise<string[]> {
  const cutoff = now.getTime() - retentionDays * 86_400_000;
  const result = await db.execute(sql`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'telemetry'`);
  const dropped: string[] = [];
  for (const { name } of rowsOf<{ name: string }>(result)) {
    const m = NAME.exec(name);
    if (!m) continue;
    const end = monthStart(Number(m[1]), Number(m[2])); // month index m[2] is 1-based → next month
    if (end.getTime() <= cutoff) {
      await db.execute(sql.raw(`DROP TABLE IF EXISTS ${name}`));
      dropped.push(name);
    }
  }
  return dropped;
}
