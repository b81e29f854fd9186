/**
 * Retention of the growing log tables: the scheduler's task `log-retention` (jobs/jobs-plugin.ts),
 * twice a day on one instance, and at start when no instance ran the last fire:
 *
 * - `operation_log` (who changed what, sign-in attempts) and `device_connection_log` (gateway
 *   online/offline changes): rows older than `LOG_RETENTION_DAYS` (default 365) are deleted. The
 *   setting cannot go below 180 days: the PRC Cybersecurity Law, art. 21(3), asks operators to keep
 *   network logs "不少于六个月" (no less than six months).
 * - `mail_outbox`: mails *sent* more than `MAIL_RETENTION_DAYS` (default 90) ago are deleted;
 *   queued and failed mails are never deleted (they are still to be delivered).
 * - `debug_frame` (frames relayed by transparent debugging, modules/debug) older than
 *   `LOG_RETENTION_DAYS`, as the operation log that also names them; then `debug_session` rows
 *   that expired before the cutoff (every frame extends its session, so their frames went too).
 *
 * Rows go in batches of {@link BATCH_ROWS} so a first run over a large table never holds one long
 * transaction. The log tables are read by their `ts` index (`device_connection_log` has only
 * `(device_id, ts)`: gateway state changes are few); the outbox by its `(state, …)` index.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { LogRetention } from '../core/config';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

export { type LogRetention, MIN_LOG_RETENTION_DAYS } from '../core/config';

const BATCH_ROWS = 10_000;

/** Rows deleted per table by one {@link purgeExpiredLogs} run. */
export interface PurgedRows {
  operationLog: number;
  connectionLog: number;
  sentMail: number;
  debugFrames: number;
  debugSessions: number;
}

/** Deletes, batch by batch, the rows `select` (a `SELECT id … LIMIT` of `table`) names. */
async function deleteInBatches(db: Db, table: SQL, select: SQL): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.execute(sql`
      WITH gone AS (DELETE FROM ${table} WHERE id IN (${select} LIMIT ${BATCH_ROWS}) RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    const n = Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
    total += n;
    if (n < BATCH_ROWS) return total;
  }
}

/** Deletes the log rows past their retention at `now`; answers how many went per table. */
export async function purgeExpiredLogs(
  db: Db,
  retention: LogRetention,
  now = new Date(),
): Promise<PurgedRows> {
  const logCutoff = new Date(now.getTime() - retention.logDays * 86_400_000).toISOString();
  const mailCutoff = new Date(now.getTime() - retention.sentMailDays * 86_400_000).toISOString();
  return {
    operationLog: await deleteInBatches(
      db,
      sql`operation_log`,
      sql`SELECT id FROM operation_log WHERE ts < ${logCutoff}::timestamptz`,
    ),
    connectionLog: await deleteInBatches(
      db,
      sql`device_connection_log`,
      sql`SELECT id FROM device_connection_log WHERE ts < ${logCutoff}::timestamptz`,
    ),
    sentMail: await deleteInBatches(
      db,
      sql`mail_outbox`,
      sql`SELECT id FROM mail_outbox WHERE state = 'sent' AND sent_at < ${mailCutoff}::timestamptz`,
    ),
    debugFrames: await deleteInBatches(
      db,
      sql`debug_frame`,
      sql`SELECT id FROM debug_frame WHERE at < ${logCutoff}::timestamptz`,
    ),
    debugSessions: await deleteInBatches(
      db,
      sql`debug_session`,
      sql`SELECT id FROM debug_session WHERE expires_at < ${logCutoff}::timestamptz`,
    ),
  };
}
