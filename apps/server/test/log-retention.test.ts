/**
 * Log retention (jobs/log-retention.ts): operation and connection log rows and debugging frames
 * and sessions past LOG_RETENTION_DAYS, and mails sent more than MAIL_RETENTION_DAYS ago, are
 * deleted; younger rows, and queued or failed mails of any age, stay. More rows than one batch go
 * in one run.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { purgeExpiredLogs } from '../src/jobs/log-retention';
import { createTestApp, engines, type TestContext } from './support/test-app';

const NOW = new Date('2026-11-21T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

describe.each(engines)('log retention on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    db = ctx.database.db;
  });
  afterAll(async () => ctx?.close());

  const count = async (query: ReturnType<typeof sql>) =>
    Number(rowsOf<{ n: number }>(await db.execute(query))[0]!.n);

  it('deletes what is past its retention and keeps the rest', async () => {
    const marker = `retention-${engine}-${Date.now()}`;
    // 12 000 operation log rows 400 days old (more than one batch), 3 of 100 days.
    await db.execute(sql`
      INSERT INTO operation_log (ts, action, code, account)
      SELECT ${daysAgo(400)}::timestamptz, 'user.login', 0, ${marker} FROM generate_series(1, 12000)`);
    await db.execute(sql`
      INSERT INTO operation_log (ts, action, code, account)
      SELECT ${daysAgo(100)}::timestamptz, 'user.login', 0, ${marker} FROM generate_series(1, 3)`);
    await db.execute(sql`
      INSERT INTO device_connection_log (device_id, ts, online, reason) VALUES
        (999001, ${daysAgo(400)}::timestamptz, false, 'timeout'),
        (999001, ${daysAgo(10)}::timestamptz, true, null)`);
    const mail = (state: string, sentDaysAgo: number | null, createdDaysAgo: number) => sql`
      INSERT INTO mail_outbox (company_id, to_address, lang, subject, body, alarm_ids, state, created_at, sent_at)
      VALUES (1, ${`${state}@example.com`}, 'zh', ${marker}, 'body', '[]'::jsonb, ${state},
              ${daysAgo(createdDaysAgo)}::timestamptz,
              ${sentDaysAgo === null ? null : daysAgo(sentDaysAgo)}::timestamptz)`;
    await db.execute(mail('sent', 120, 120));
    await db.execute(mail('sent', 30, 30));
    await db.execute(mail('queued', null, 200));
    await db.execute(mail('failed', null, 200));

    // Debugging: a session that ended 400 days ago with its frame, and a recent one with a frame.
    const [admin] = rowsOf<{ id: number; company_id: number }>(
      await db.execute(sql`SELECT id, company_id FROM employee ORDER BY id LIMIT 1`),
    );
    const [gw] = rowsOf<{ id: number }>(
      await db.execute(sql`
        INSERT INTO site (company_id, code, name) VALUES (${admin!.company_id}, ${`R${engine}`}, 'retention')
        RETURNING id`),
    );
    const [gateway] = rowsOf<{ id: number }>(
      await db.execute(sql`
        INSERT INTO device (company_id, site_id, sn, type) VALUES (${admin!.company_id}, ${gw!.id}, ${`RET-${engine}`}, 'ems')
        RETURNING id`),
    );
    const session = (id: string, days: number) => sql`
      INSERT INTO debug_session (id, gateway_id, company_id, employee_id, opened_at, expires_at, closed_at)
      VALUES (${id}, ${gateway!.id}, ${admin!.company_id}, ${admin!.id}, ${daysAgo(days)}::timestamptz,
              ${daysAgo(days)}::timestamptz, ${daysAgo(days)}::timestamptz)`;
    const frame = (sessionId: string, days: number) => sql`
      INSERT INTO debug_frame (session_id, gateway_id, company_id, employee_id, at, port, request_hex)
      VALUES (${sessionId}, ${gateway!.id}, ${admin!.company_id}, ${admin!.id}, ${daysAgo(days)}::timestamptz,
              'internal', '01 04 00 00 00 01 31 CA')`;
    await db.execute(session(`old-${marker}`, 400));
    await db.execute(frame(`old-${marker}`, 400));
    await db.execute(session(`new-${marker}`, 5));
    await db.execute(frame(`new-${marker}`, 5));

    const purged = await purgeExpiredLogs(db, { logDays: 365, sentMailDays: 90 }, NOW);

    expect(purged).toEqual({
      operationLog: 12_000,
      connectionLog: 1,
      sentMail: 1,
      debugFrames: 1,
      debugSessions: 1,
    });
    expect(
      rowsOf<{ id: string }>(
        await db.execute(sql`SELECT session_id AS id FROM debug_frame WHERE gateway_id = ${gateway!.id}`),
      ),
    ).toEqual([{ id: `new-${marker}` }]);
    expect(await count(sql`SELECT count(*)::int AS n FROM operation_log WHERE account = ${marker}`)).toBe(3);
    expect(
      rowsOf<{ online: boolean }>(
        await db.execute(sql`SELECT online FROM device_connection_log WHERE device_id = 999001`),
      ),
    ).toEqual([{ online: true }]);
    const mails = rowsOf<{ state: string }>(
      await db.execute(sql`SELECT state FROM mail_outbox WHERE subject = ${marker} ORDER BY state`),
    );
    expect(mails.map((m) => m.state)).toEqual(['failed', 'queued', 'sent']);

    // A second run finds nothing more.
    expect(await purgeExpiredLogs(db, { logDays: 365, sentMailDays: 90 }, NOW)).toEqual({
      operationLog: 0,
      connectionLog: 0,
      sentMail: 0,
      debugFrames: 0,
      debugSessions: 0,
    });
  });
});
