/**
 * Alarms: lifecycle from ingested events (produce → active, disappear →
 * cleared, warning and fault apart), acknowledgement with who and when (3100, 3101), company
 * scope, online/offline changes in the history, range checks; and alarm mail: subscribers only,
 * in their language with the site's time, burst digests, the hourly rate, SMTP down → kept and
 * retried, the outbox in the console. Events enter through the ingest's batch writer
 * (`storeBatch`), as MQTT messages do.
 */
import { ErrorCode, endpoints } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import {
  alarm,
  alarmMailPending,
  company,
  department,
  device,
  deviceConnectionLog,
  employee,
  mailOutbox,
  role,
  site,
} from '../src/core/db/schema';
import type { EventRow } from '../src/devices/telemetry-store';
import { storeBatch } from '../src/devices/telemetry-store';
import { AlarmMailer } from '../src/jobs/alarm-mail';
import { call, type SignedIn, signIn } from './support/client';
import { addRole, addStaff, type Staff, unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

interface Received {
  to: string[];
  raw: string;
}

/** A local SMTP server that keeps what it receives. */
async function smtpServer(port = 0): Promise<{ server: SMTPServer; port: number; mails: Received[] }> {
  const mails: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.server.address();
  return { server, port: typeof address === 'object' && address ? address.port : port, mails };
}

const close = (s: SMTPServer) => new Promise<void>((resolve) => s.close(() => resolve()));

/** The text part of a received mail (quoted-printable / base64 undone by a simple decode). */
function textOf(raw: string): string {
  const [, body = ''] =
    raw.split(/\r?\n\r?\n/, 2).length === 2
      ? [raw.slice(0, 0), raw.slice(raw.search(/\r?\n\r?\n/))]
      : [raw, ''];
  if (/Content-Transfer-Encoding: base64/i.test(raw))
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(raw)) {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

describe.each(engines)('alarms on %s', (engine) => {
  let ctx: TestContext;
  let db: Db;
  let A: number;
  let B: number;
  let siteA: number;
  let siteB: number;
  let gwA: number;
  let bmsA: number;
  let gwB: number;
  const snGwA = unique('EMS-A').slice(-30);
  const snBmsA = unique('BMS-A').slice(-30);
  let adminA: Staff;
  let adminB: Staff;
  let viewerA: Staff;
  let sA: SignedIn;
  let sB: SignedIn;
  let sViewer: SignedIn;
  let msg = 0;

  /** Stores events as the ingest does (one gateway message). */
  async function events(
    gatewayId: number,
    list: Omit<EventRow, 'gatewayId' | 'msgId' | 'msgIndex' | 'companyId' | 'siteId' | 'value'>[],
  ): Promise<void> {
    const msgId = `m-${++msg}`;
    const siteOf = gatewayId === gwB ? { companyId: B, siteId: siteB } : { companyId: A, siteId: siteA };
    await storeBatch(
      db,
      [],
      list.map((e, i) => ({ ...siteOf, ...e, gatewayId, msgId, msgIndex: i, value: null })),
      new Map(),
    );
  }

  beforeAll(async () => {
    ctx = await createTestApp(engine, { MAIL_JOB_INTERVAL_S: '0', PUBLIC_URL: 'https://ess.example.com' });
    db = ctx.database.db;
    const [platform] = await db.select().from(company).where(eq(company.type, 'platform'));
    const [a] = await db
      .insert(company)
      .values({ type: 'owner', name: unique('alarm-A'), parentId: platform!.id })
      .returning();
    const [b] = await db
      .insert(company)
      .values({ type: 'owner', name: unique('alarm-B'), parentId: platform!.id })
      .returning();
    A = a!.id;
    B = b!.id;
    const [sa] = await db
      .insert(site)
      .values({ companyId: A, code: unique('SA').slice(-30), name: 'Site Alpha', timezone: 'Europe/Berlin' })
      .returning();
    const [sb] = await db
      .insert(site)
      .values({ companyId: B, code: unique('SB').slice(-30), name: 'Site Bravo' })
      .returning();
    siteA = sa!.id;
    siteB = sb!.id;
    const [g] = await db
      .insert(device)
      .values({ companyId: A, siteId: siteA, sn: snGwA, type: 'ems' })
      .returning();
    gwA = g!.id;
    const [bm] = await db
      .insert(device)
      .values({ companyId: A, siteId: siteA, sn: snBmsA, type: 'bms', gatewayId: gwA })
      .returning();
    bmsA = bm!.id;
    const [gb] = await db
      .insert(device)
      .values({ companyId: B, siteId: siteB, sn: unique('EMS-B').slice(-30), type: 'ems' })
      .returning();
    gwB = gb!.id;
    adminA = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
    });
    adminB = await addStaff(db, {
      companyId: B,
      roleIds: [await addRole(db, { companyId: B, isAdmin: true })],
    });
    // May list alarms (menu 504) but not acknowledge them (button 505).
    viewerA = await addStaff(db, {
      companyId: A,
      roleIds: [await addRole(db, { companyId: A, menuIds: [500, 504] })],
    });
    sA = await signIn(ctx.app, adminA.account, adminA.password);
    sB = await signIn(ctx.app, adminB.account, adminB.password);
    sViewer = await signIn(ctx.app, viewerA.account, viewerA.password);
  });

  afterAll(async () => {
    await ctx?.close();
  });

  describe('lifecycle, acknowledgement, scope', () => {
    const t0 = Date.now() - 600_000;

    it('a produce raises an active alarm with the spec §3 fields; a repeat raises nothing new', async () => {
      await events(gwA, [
        {
          deviceId: bmsA,
          ts: t0,
          kind: 'produce',
          code: 'bms.cell_overvoltage',
          level: 'warning',
          content: 'Cell 131 at 3.61 V',
        },
      ]);
      await events(gwA, [
        {
          deviceId: bmsA,
          ts: t0 + 1000,
          kind: 'produce',
          code: 'bms.cell_overvoltage',
          level: 'fault',
          content: 'Cell 131 at 3.66 V',
        },
        {
          deviceId: bmsA,
          ts: t0 + 2000,
          kind: 'produce',
          code: 'bms.cell_overvoltage',
          level: 'warning',
          content: 'again',
        },
      ]);
      const r = await call(ctx.app, endpoints.alarm.activeList.path, { siteId: siteA }, { token: sA.token });
      expect(r.code).toBe(0);
      expect(r.data.total).toBe(2);
      const [fault, warning] = r.data.list;
      expect(fault).toMatchObject({
        level: 'fault',
        code: 'bms.cell_overvoltage',
        content: 'Cell 131 at 3.66 V',
        emsSn: snGwA,
        deviceSn: snBmsA,
        deviceType: 'bms',
        siteName: 'Site Alpha',
        siteTimezone: 'Europe/Berlin',
        producedAt: t0 + 1000,
        clearedAt: null,
        ackAt: null,
        ackBy: null,
      });
      expect(warning).toMatchObject({ level: 'warning', content: 'Cell 131 at 3.61 V', producedAt: t0 });
    });

    it('a disappear clears only the alarm of its level; the history shows both events', async () => {
      await events(gwA, [
        {
          deviceId: bmsA,
          ts: t0 + 5000,
          kind: 'disappear',
          code: 'bms.cell_overvoltage',
          level: 'fault',
          content: 'Cell 131 back at 3.60 V',
        },
      ]);
      const active = await call(
        ctx.app,
        endpoints.alarm.activeList.path,
        { siteId: siteA },
        { token: sA.token },
      );
      expect(active.data.list.map((a: { level: string }) => a.level)).toEqual(['warning']);
      const history = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { siteId: siteA, types: ['produce', 'disappear'], code: 'bms.cell_overvoltage', level: 'fault' },
        { token: sA.token },
      );
      expect(history.data.list.map((h: { type: string }) => h.type)).toEqual(['disappear', 'produce']);
      expect(history.data.list[0]).toMatchObject({ ts: t0 + 5000, alarmActive: false, emsSn: snGwA });
      expect(history.data.list[1].alarmId).toBe(history.data.list[0].alarmId);
      const cleared = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { state: 'cleared', siteId: siteA },
        { token: sA.token },
      );
      expect(cleared.data.list.every((h: { level: string }) => h.level === 'fault')).toBe(true);
      expect(cleared.data.total).toBe(2);
    });

    it('acknowledges with who and when; twice → 3101; unknown → 3100 and nothing changes', async () => {
      const [warning] = (
        await call(ctx.app, endpoints.alarm.activeList.path, { siteId: siteA }, { token: sA.token })
      ).data.list;
      const before = Date.now();
      const missing = await call(
        ctx.app,
        endpoints.alarm.ack.path,
        { ids: [warning.id, 99_999_999] },
        { token: sA.token },
      );
      expect(missing.code).toBe(ErrorCode.ALARM_NOT_FOUND);
      const notAcked = await call(
        ctx.app,
        endpoints.alarm.activeList.path,
        { acknowledged: false, siteId: siteA },
        { token: sA.token },
      );
      expect(notAcked.data.total).toBe(1);

      const ack = await call(
        ctx.app,
        endpoints.alarm.ack.path,
        { ids: [warning.id] },
        { token: sA.token, lang: 'en' },
      );
      expect(ack.code).toBe(0);
      expect(ack.data.acknowledged).toEqual([warning.id]);
      expect(ack.data.ackBy).toContain(adminA.account);
      const row = (
        await call(
          ctx.app,
          endpoints.alarm.activeList.path,
          { acknowledged: true, siteId: siteA },
          { token: sA.token },
        )
      ).data.list[0];
      expect(row.id).toBe(warning.id);
      expect(row.ackBy).toBe(ack.data.ackBy);
      expect(row.ackAt).toBeGreaterThanOrEqual(before - 1000);
      expect(row.ackAt).toBeLessThanOrEqual(Date.now() + 1000);

      const again = await call(
        ctx.app,
        endpoints.alarm.ack.path,
        { ids: [warning.id] },
        { token: sA.token, lang: 'en' },
      );
      expect(again.code).toBe(ErrorCode.ALARM_ALREADY_ACKNOWLEDGED);
      expect(again.msg).toBe('The alarm was already acknowledged');
      const noRight = await call(
        ctx.app,
        endpoints.alarm.ack.path,
        { ids: [warning.id] },
        { token: sViewer.token },
      );
      expect(noRight.code).toBe(ErrorCode.NO_PERMISSION);
    });

    it('another company sees none of it and cannot acknowledge it (3100, as if it did not exist)', async () => {
      await events(gwA, [
        {
          deviceId: gwA,
          ts: t0 + 9000,
          kind: 'produce',
          code: 'env.smoke',
          level: 'fault',
          content: 'Smoke detected',
        },
      ]);
      const own = await call(
        ctx.app,
        endpoints.alarm.activeList.path,
        { code: 'env.smoke' },
        { token: sA.token },
      );
      const smoke = own.data.list[0];
      expect(smoke.emsSn).toBe(snGwA);
      const foreign = await call(
        ctx.app,
        endpoints.alarm.activeList.path,
        { siteId: siteA },
        { token: sB.token },
      );
      expect(foreign.data).toMatchObject({ list: [], total: 0 });
      const history = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { pageSize: 500 },
        { token: sB.token },
      );
      expect(history.data.list.some((h: { siteId: number }) => h.siteId === siteA)).toBe(false);
      const ack = await call(ctx.app, endpoints.alarm.ack.path, { ids: [smoke.id] }, { token: sB.token });
      expect(ack.code).toBe(ErrorCode.ALARM_NOT_FOUND);
      const still = await call(
        ctx.app,
        endpoints.alarm.activeList.path,
        { code: 'env.smoke' },
        { token: sA.token },
      );
      expect(still.data.list[0].ackAt).toBeNull();
      const options = await call(ctx.app, endpoints.alarm.filterOptions.path, {}, { token: sB.token });
      expect(options.data.sites.map((s: { id: number }) => s.id)).toEqual([siteB]);
    });

    it('online/offline changes of the EMS appear in the history with the reason', async () => {
      await db.insert(deviceConnectionLog).values([
        { deviceId: gwA, ts: new Date(t0 + 20_000), online: false, reason: 'lwt' },
        { deviceId: gwA, ts: new Date(t0 + 30_000), online: true, reason: null },
      ]);
      const h = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { deviceId: gwA, types: ['online', 'offline'] },
        { token: sA.token },
      );
      expect(h.data.list.map((r: { type: string; reason: string | null }) => [r.type, r.reason])).toEqual([
        ['online', null],
        ['offline', 'lwt'],
      ]);
      expect(h.data.list[1]).toMatchObject({
        ts: t0 + 20_000,
        emsSn: snGwA,
        siteName: 'Site Alpha',
        code: null,
      });
      const all = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { siteId: siteA, pageSize: 3 },
        { token: sA.token },
      );
      expect(all.data.list.map((r: { type: string }) => r.type)).toEqual(['online', 'offline', 'produce']);
      const faultsOnly = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { siteId: siteA, level: 'fault' },
        { token: sA.token },
      );
      expect(faultsOnly.data.list.some((r: { type: string }) => r.type === 'offline')).toBe(false);
      const foreign = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { deviceId: gwA },
        { token: sB.token },
      );
      expect(foreign.data.total).toBe(0);
    });

    it('an inverted range answers 3120 with its text', async () => {
      const r = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { range: { startMs: t0, endMs: t0 - 1 } },
        { token: sA.token, lang: 'en' },
      );
      expect(r.code).toBe(ErrorCode.RANGE_INVERTED);
      expect(r.msg).toBe('The end time must be after the start time');
    });
  });

  describe('mail', () => {
    let now = Date.now();
    const clock = () => now;
    let smtp: Awaited<ReturnType<typeof smtpServer>>;
    let subscriber: Staff;
    let mailer: AlarmMailer;
    const code = () => unique('test.code');

    async function subscribe(staff: Staff, email: string, lang: 'zh' | 'en', on = 'Y') {
      await db
        .update(employee)
        .set({ email, isSubAlarm: on, mailLang: lang })
        .where(eq(employee.id, staff.employeeId));
    }
    /**
     * A new alarm at site A (or B) at the mock clock's time, then a run of `job` (as the job runs
     * soon after new events): its subscribers start waiting now.
     */
    async function raise(gateway = gwA, content = 'Cell 7 at 3.62 V', job = mailer) {
      await events(gateway, [
        { deviceId: gateway, ts: now - 1000, kind: 'produce', code: code(), level: 'warning', content },
      ]);
      await job.runOnce();
    }
    const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));

    beforeAll(async () => {
      smtp = await smtpServer();
      // Alarms raised above are not mailed again.
      await mailerFor(undefined).runOnce();
      await db.delete(mailOutbox);
      subscriber = await addStaff(db, {
        companyId: A,
        roleIds: [await addRole(db, { companyId: A, isAdmin: true })],
      });
      await subscribe(subscriber, 'ops-a@example.com', 'en');
      // Same company, not subscribed.
      await subscribe(adminA, 'admin-a@example.com', 'zh', 'N');
      // Subscribed, but site A is outside company B.
      await subscribe(adminB, 'ops-b@example.com', 'zh');
      mailer = mailerFor(`smtp://127.0.0.1:${smtp.port}`);
    });
    afterAll(async () => {
      await mailer?.stop();
      await close(smtp.server);
    });

    function mailerFor(smtpUrl: string | undefined, tuning = {}) {
      return new AlarmMailer(db, ctx.app.log, {
        smtpUrl,
        from: 'ESS <ess@example.com>',
        publicUrl: 'https://ess.example.com',
        intervalS: 0,
        clock,
        tuning: { gatherMs: 10_000, windowMs: 60_000, maxPerHour: 3, retryBaseMs: 30_000, ...tuning },
      });
    }

    it('mails subscribers who may see the site, in their language, with the site time and a link', async () => {
      now = Date.now();
      await raise(gwA, 'Cell 7 at 3.62 V');
      expect(smtp.mails).toHaveLength(0); // gathering alarms raised together
      now += 10_000;
      const run = await mailer.runOnce();
      expect(run.sent).toBe(1);
      expect(mailsTo('ops-a@example.com')).toHaveLength(1);
      expect(mailsTo('admin-a@example.com')).toHaveLength(0);
      expect(mailsTo('ops-b@example.com')).toHaveLength(0);
      const text = textOf(mailsTo('ops-a@example.com')[0]!.raw);
      expect(text).toContain('An alarm was raised at a site you follow');
      expect(text).toContain('Site: Site Alpha');
      expect(text).toContain(`EMS number: ${snGwA}`);
      expect(text).toContain('Content: Cell 7 at 3.62 V');
      expect(text).toContain('(Europe/Berlin)');
      expect(text).toContain('https://ess.example.com/alarm');
      const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, 'ops-a@example.com'));
      expect(row).toMatchObject({ state: 'sent', attempts: 1, lang: 'en' });

      // Company B's subscriber gets B's alarms (in Chinese).
      await raise(gwB, '烟雾');
      now += 10_000;
      await mailer.runOnce();
      expect(mailsTo('ops-b@example.com')).toHaveLength(1);
      expect(textOf(mailsTo('ops-b@example.com')[0]!.raw)).toContain('站点: Site Bravo');
    });

    it('a burst gives one digest per window, and the hourly rate holds alarms for a later digest', async () => {
      const before = mailsTo('ops-a@example.com').length;
      now += 1_000;
      for (let i = 0; i < 5; i++) await raise();
      now += 10_000;
      await mailer.runOnce();
      expect(mailsTo('ops-a@example.com').length).toBe(before); // previous mail < 60 s ago
      now += 60_000;
      await mailer.runOnce();
      expect(mailsTo('ops-a@example.com').length).toBe(before + 1);
      const digest = textOf(mailsTo('ops-a@example.com').at(-1)!.raw);
      expect(digest).toContain('5 alarms were raised');
      // Third mail of the hour (limit 3), then the fourth must wait for the hour.
      now += 61_000;
      await raise();
      now += 10_000;
      await mailer.runOnce();
      expect(mailsTo('ops-a@example.com').length).toBe(before + 2);
      now += 61_000;
      await raise();
      await raise();
      now += 61_000;
      await mailer.runOnce();
      expect(mailsTo('ops-a@example.com').length).toBe(before + 2);
      now += 3_600_000;
      await mailer.runOnce();
      expect(mailsTo('ops-a@example.com').length).toBe(before + 3);
      expect(textOf(mailsTo('ops-a@example.com').at(-1)!.raw)).toContain('2 alarms were raised');
    });

    it('SMTP down: the mail is kept, retried with backoff, and delivered once the server is back', async () => {
      const probe = await smtpServer();
      const port = probe.port;
      await close(probe.server);
      const down = mailerFor(`smtp://127.0.0.1:${port}`, { windowMs: 0, maxPerHour: 100 });
      now += 3_600_000;
      await raise(gwA, 'Cell 7 at 3.62 V', down);
      now += 10_000;
      const first = await down.runOnce();
      expect(first).toMatchObject({ sent: 0, failed: 1 });
      const [failed] = await db.select().from(mailOutbox).where(eq(mailOutbox.state, 'failed'));
      expect(failed).toMatchObject({ attempts: 1, toAddress: 'ops-a@example.com' });
      expect(failed!.lastError).toBeTruthy();
      expect(failed!.nextAttemptAt.getTime()).toBe(now + 30_000);
      now += 10_000;
      expect((await down.runOnce()).failed).toBe(0); // not due yet
      now += 20_000;
      expect((await down.runOnce()).failed).toBe(1);
      const [twice] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, failed!.id));
      expect(twice).toMatchObject({ state: 'failed', attempts: 2 });
      expect(twice!.nextAttemptAt.getTime()).toBe(now + 60_000);

      const back = await smtpServer(port);
      now += 60_000;
      expect((await down.runOnce()).sent).toBe(1);
      await down.stop();
      await close(back.server);
      expect(back.mails.map((m) => m.to)).toEqual([['ops-a@example.com']]);
      const [sent] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, failed!.id));
      expect(sent).toMatchObject({ state: 'sent', attempts: 3 });
    });

    it('without SMTP_URL mails stay queued in the outbox, which admins read within their scope', async () => {
      const keeper = mailerFor(undefined, { windowMs: 0, maxPerHour: 100 });
      now += 3_600_000;
      await raise(gwA, 'kept in the outbox', keeper);
      now += 10_000;
      await keeper.runOnce();
      await keeper.stop();
      const list = await call(
        ctx.app,
        endpoints.mail.outboxList.path,
        { state: 'queued' },
        { token: sA.token },
      );
      expect(list.code).toBe(0);
      const mail = list.data.list.find((m: { toAddress: string }) => m.toAddress === 'ops-a@example.com');
      expect(mail).toMatchObject({ state: 'queued', attempts: 0, alarmCount: 1, lang: 'en' });
      const detail = await call(
        ctx.app,
        endpoints.mail.outboxDetail.path,
        { id: mail.id },
        { token: sA.token },
      );
      expect(detail.data.body).toContain('Content: kept in the outbox');
      const foreign = await call(
        ctx.app,
        endpoints.mail.outboxList.path,
        { pageSize: 500 },
        { token: sB.token },
      );
      expect(foreign.data.list.some((m: { toAddress: string }) => m.toAddress === 'ops-a@example.com')).toBe(
        false,
      );
      expect(foreign.data.list.some((m: { toAddress: string }) => m.toAddress === 'ops-b@example.com')).toBe(
        true,
      );
      const hidden = await call(
        ctx.app,
        endpoints.mail.outboxDetail.path,
        { id: mail.id },
        { token: sB.token },
      );
      expect(hidden.code).toBe(ErrorCode.MAIL_NOT_FOUND);
      const platform = await signIn(ctx.app);
      const all = await call(
        ctx.app,
        endpoints.mail.outboxList.path,
        { pageSize: 500 },
        { token: platform.token },
      );
      expect(all.data.list.map((m: { toAddress: string }) => m.toAddress)).toEqual(
        expect.arrayContaining(['ops-a@example.com', 'ops-b@example.com']),
      );
    });
  });

  describe('review fixes', () => {
    let now2 = Date.now();
    const clock2 = () => now2;
    const code = () => unique('fix.code');

    function mailer2For(smtpUrl: string | undefined, tuning = {}, database: Db = db) {
      return new AlarmMailer(database, ctx.app.log, {
        smtpUrl,
        from: 'ESS <ess@example.com>',
        publicUrl: 'https://ess.example.com',
        intervalS: 0,
        clock: clock2,
        tuning: { gatherMs: 0, windowMs: 0, maxPerHour: 100, retryBaseMs: 30_000, ...tuning },
      });
    }

    /** A local SMTP server: `onMail` runs before each mail is accepted; `reject` answers RCPT. */
    async function scriptedSmtp(
      onMail: (to: string[]) => Promise<void> = async () => {},
      reject: (to: string) => { code: number; text: string } | null = () => null,
    ) {
      const mails: Received[] = [];
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['AUTH', 'STARTTLS'],
        logger: false,
        onRcptTo(address, _session, cb) {
          const r = reject(address.address);
          if (!r) return cb();
          const err = Object.assign(new Error(r.text), { responseCode: r.code });
          return cb(err);
        },
        onData(stream, session, done) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            const to = session.envelope.rcptTo.map((r) => r.address);
            void onMail(to).then(() => {
              mails.push({ to, raw: Buffer.concat(chunks).toString('utf8') });
              done();
            });
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.server.address();
      return { server, port: typeof address === 'object' && address ? address.port : 0, mails };
    }

    async function queueMail(to: string, extra: Partial<typeof mailOutbox.$inferInsert> = {}) {
      const [row] = await db
        .insert(mailOutbox)
        .values({
          companyId: A,
          toAddress: to,
          lang: 'en',
          subject: `fix ${to}`,
          body: 'body',
          alarmIds: [],
          state: 'queued',
          nextAttemptAt: new Date(now2 - 1000),
          createdAt: new Date(now2 - 1000),
          ...extra,
        })
        .returning();
      return row!;
    }

    beforeAll(async () => {
      // Mails left by the tests above are not part of these.
      await db.delete(mailOutbox).where(sql`state <> 'sent'`);
      await db.delete(alarmMailPending);
    });

    it('alarms and their events move with their site to another company', async () => {
      const [moving] = await db
        .insert(site)
        .values({ companyId: A, code: unique('MV').slice(-30), name: 'Moving site' })
        .returning();
      const [gw] = await db
        .insert(device)
        .values({ companyId: A, siteId: moving!.id, sn: unique('EMS-M').slice(-30), type: 'ems' })
        .returning();
      const c = code();
      await storeBatch(
        db,
        [],
        [
          {
            companyId: A,
            siteId: moving!.id,
            gatewayId: gw!.id,
            deviceId: gw!.id,
            msgId: `mv-${++msg}`,
            msgIndex: 0,
            ts: Date.now() - 60_000,
            kind: 'produce',
            code: c,
            level: 'fault',
            content: 'before the move',
            value: null,
          },
        ],
        new Map(),
      );
      expect(
        (await call(ctx.app, endpoints.alarm.activeList.path, { code: c }, { token: sA.token })).data.total,
      ).toBe(1);
      const platform = await signIn(ctx.app);
      const moved = await call(
        ctx.app,
        endpoints.site.moveCompany.path,
        { id: moving!.id, companyId: B },
        { token: platform.token },
      );
      expect(moved.code).toBe(0);
      const ownNow = await call(ctx.app, endpoints.alarm.activeList.path, { code: c }, { token: sB.token });
      expect(ownNow.data.total).toBe(1);
      expect(ownNow.data.list[0]).toMatchObject({ siteId: moving!.id, content: 'before the move' });
      const history = await call(ctx.app, endpoints.alarm.historyList.path, { code: c }, { token: sB.token });
      expect(history.data.list.map((h: { type: string }) => h.type)).toEqual(['produce']);
      expect(
        (await call(ctx.app, endpoints.alarm.activeList.path, { code: c }, { token: sA.token })).data.total,
      ).toBe(0);
      expect(
        (await call(ctx.app, endpoints.alarm.historyList.path, { code: c }, { token: sA.token })).data.total,
      ).toBe(0);
      const ack = await call(
        ctx.app,
        endpoints.alarm.ack.path,
        { ids: [ownNow.data.list[0].id] },
        { token: sA.token },
      );
      expect(ack.code).toBe(ErrorCode.ALARM_NOT_FOUND);
      expect(
        (
          await call(
            ctx.app,
            endpoints.alarm.ack.path,
            { ids: [ownNow.data.list[0].id] },
            { token: sB.token },
          )
        ).code,
      ).toBe(0);
    });

    it('the outbox follows the department part of the data scope', async () => {
      const [d1] = await db
        .insert(department)
        .values({ companyId: A, name: unique('dept-1') })
        .returning();
      const [d2] = await db
        .insert(department)
        .values({ companyId: A, name: unique('dept-2') })
        .returning();
      const roleId = await addRole(db, { companyId: A, menuIds: [500, 507] });
      await db.update(role).set({ dataScope: 'department' }).where(eq(role.id, roleId));
      const clerk = await addStaff(db, { companyId: A, roleIds: [roleId] });
      const colleague = await addStaff(db, { companyId: A });
      const other = await addStaff(db, { companyId: A });
      await db.update(employee).set({ departmentId: d1!.id }).where(eq(employee.id, clerk.employeeId));
      await db.update(employee).set({ departmentId: d1!.id }).where(eq(employee.id, colleague.employeeId));
      await db.update(employee).set({ departmentId: d2!.id }).where(eq(employee.id, other.employeeId));
      const tag = unique('scope').toLowerCase();
      const own = await queueMail(`${tag}-own@example.com`, { employeeId: clerk.employeeId });
      const same = await queueMail(`${tag}-same@example.com`, { employeeId: colleague.employeeId });
      const elsewhere = await queueMail(`${tag}-other@example.com`, { employeeId: other.employeeId });
      const s = await signIn(ctx.app, clerk.account, clerk.password);
      const list = await call(
        ctx.app,
        endpoints.mail.outboxList.path,
        { keyword: tag, pageSize: 50 },
        { token: s.token },
      );
      expect(list.code).toBe(0);
      expect(list.data.list.map((m: { id: number }) => m.id).sort()).toEqual([own.id, same.id].sort());
      expect(list.data.total).toBe(2);
      const hidden = await call(
        ctx.app,
        endpoints.mail.outboxDetail.path,
        { id: elsewhere.id },
        { token: s.token },
      );
      expect(hidden.code).toBe(ErrorCode.MAIL_NOT_FOUND);
      expect(
        (await call(ctx.app, endpoints.mail.outboxDetail.path, { id: same.id }, { token: s.token })).code,
      ).toBe(0);
      // Self scope: only one's own mail.
      await db.update(role).set({ dataScope: 'self' }).where(eq(role.id, roleId));
      const self = await call(ctx.app, endpoints.mail.outboxList.path, { keyword: tag }, { token: s.token });
      expect(self.data.list.map((m: { id: number }) => m.id)).toEqual([own.id]);
      // A company administrator sees all three.
      const admin = await call(
        ctx.app,
        endpoints.mail.outboxList.path,
        { keyword: tag },
        { token: sA.token },
      );
      expect(admin.data.total).toBe(3);
      await db.delete(mailOutbox).where(sql`to_address LIKE ${`${tag}%`}`);
    });

    it('the history without a range covers the last 30 days; an older event needs a range', async () => {
      const c = code();
      const old = Date.now() - 40 * 86_400_000;
      await events(gwA, [
        { deviceId: gwA, ts: old, kind: 'produce', code: c, level: 'warning', content: 'long ago' },
        { deviceId: gwA, ts: old + 1000, kind: 'disappear', code: c, level: 'warning', content: 'gone' },
      ]);
      const recent = await call(ctx.app, endpoints.alarm.historyList.path, { code: c }, { token: sA.token });
      expect(recent.code).toBe(0);
      expect(recent.data.total).toBe(0);
      const ranged = await call(
        ctx.app,
        endpoints.alarm.historyList.path,
        { code: c, range: { startMs: old - 86_400_000, endMs: Date.now() } },
        { token: sA.token },
      );
      expect(ranged.data.list.map((h: { type: string }) => h.type)).toEqual(['disappear', 'produce']);
    });

    it('a produce stored after its later disappear gives an alarm already cleared', async () => {
      const c = code();
      const t = Date.now() - 120_000;
      await events(gwA, [
        {
          deviceId: bmsA,
          ts: t + 5000,
          kind: 'disappear',
          code: c,
          level: 'fault',
          content: 'back to normal',
        },
      ]);
      await events(gwA, [
        { deviceId: bmsA, ts: t, kind: 'produce', code: c, level: 'fault', content: 'raised' },
      ]);
      const active = await call(ctx.app, endpoints.alarm.activeList.path, { code: c }, { token: sA.token });
      expect(active.data.total).toBe(0);
      const history = await call(ctx.app, endpoints.alarm.historyList.path, { code: c }, { token: sA.token });
      expect(history.data.list.map((h: { type: string }) => h.type)).toEqual(['disappear', 'produce']);
      const [d, p] = history.data.list;
      expect(d.alarmId).not.toBeNull();
      expect(p.alarmId).toBe(d.alarmId);
      expect(p.alarmActive).toBe(false);
      const [row] = await db.select().from(alarm).where(eq(alarm.id, d.alarmId));
      expect(row).toMatchObject({ clearContent: 'back to normal' });
      expect(row!.clearedAt!.getTime()).toBe(t + 5000);
      expect(row!.producedAt.getTime()).toBe(t);
      // A later produce raises a new active alarm.
      await events(gwA, [
        { deviceId: bmsA, ts: t + 9000, kind: 'produce', code: c, level: 'fault', content: 'again' },
      ]);
      const again = await call(ctx.app, endpoints.alarm.activeList.path, { code: c }, { token: sA.token });
      expect(again.data.list.map((a: { content: string }) => a.content)).toEqual(['again']);
    });

    it('a digest removes only the waiting alarms it lists (a row added meanwhile waits)', async () => {
      const c1 = code();
      const c2 = code();
      await events(gwA, [
        {
          deviceId: gwA,
          ts: Date.now() - 5000,
          kind: 'produce',
          code: c1,
          level: 'warning',
          content: 'first',
        },
        {
          deviceId: gwA,
          ts: Date.now() - 4000,
          kind: 'produce',
          code: c2,
          level: 'warning',
          content: 'second',
        },
      ]);
      const [a1] = await db.select().from(alarm).where(eq(alarm.code, c1));
      const [a2] = await db.select().from(alarm).where(eq(alarm.code, c2));
      // Not fanned out by the job (nor alarms raised by the tests above): waiting rows by hand.
      await db.update(alarm).set({ notifyState: 'done' }).where(eq(alarm.notifyState, 'pending'));
      const reader = await addStaff(db, { companyId: A });
      await db
        .update(employee)
        .set({ email: 'race@example.com', isSubAlarm: 'Y', mailLang: 'en' })
        .where(eq(employee.id, reader.employeeId));
      now2 = Date.now();
      await db
        .insert(alarmMailPending)
        .values({ employeeId: reader.employeeId, alarmId: a1!.id, createdAt: new Date(now2 - 60_000) });
      // Another instance's fan-out commits a2's waiting row while this digest is being made:
      // simulated by inserting it right after the digest's first read of the waiting rows.
      const dialect = new PgDialect();
      let injected = false;
      const wrapTx = <T extends object>(tx: T): T =>
        new Proxy(tx, {
          get(target, prop) {
            const value = Reflect.get(target, prop) as unknown;
            if (prop !== 'execute' || typeof value !== 'function') {
              return typeof value === 'function'
                ? (value as (...a: unknown[]) => unknown).bind(target)
                : value;
            }
            const execute = value as (q: unknown) => Promise<unknown>;
            return async (q: Parameters<Db['execute']>[0]) => {
              const result = await execute.call(target, q);
              const text = dialect.sqlToQuery(q as never);
              if (
                !injected &&
                /^\s*SELECT/i.test(text.sql) &&
                text.sql.includes('alarm_mail_pending') &&
                text.params.includes(reader.employeeId)
              ) {
                injected = true;
                await execute.call(
                  target,
                  sql`INSERT INTO alarm_mail_pending (employee_id, alarm_id, created_at)
                      VALUES (${reader.employeeId}, ${a2!.id}, ${new Date(now2)})`,
                );
              }
              return result;
            };
          },
        });
      const spied = new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (prop === 'transaction') {
            return (fn: (tx: unknown) => Promise<unknown>) =>
              target.transaction((tx) => fn(wrapTx(tx)) as never);
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as Db;
      const job = mailer2For(undefined, { gatherMs: 10_000 }, spied);
      await job.runOnce();
      await job.stop();
      expect(injected).toBe(true);
      const mails = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, 'race@example.com'));
      expect(mails.map((m) => m.alarmIds)).toEqual([[a1!.id]]);
      const waiting = await db
        .select()
        .from(alarmMailPending)
        .where(eq(alarmMailPending.employeeId, reader.employeeId));
      expect(waiting.map((w) => w.alarmId)).toEqual([a2!.id]);
      await db.update(employee).set({ isSubAlarm: 'N' }).where(eq(employee.id, reader.employeeId));
      await db.delete(alarmMailPending).where(eq(alarmMailPending.employeeId, reader.employeeId));
      await db.delete(mailOutbox).where(eq(mailOutbox.toAddress, 'race@example.com'));
    });

    it('a slow batch is not sent twice by a second instance: each mail is leased when it is sent', async () => {
      await db.delete(mailOutbox).where(sql`state <> 'sent'`);
      now2 = Date.now();
      const start = now2;
      const leaseMs = 120_000;
      let second: AlarmMailer | null = null;
      let secondRan = false;
      const smtp = await scriptedSmtp(async () => {
        // The first instance's sends take 0.6 lease each; once its first lease is over,
        // another instance runs (its own sends are quick).
        if (secondRan) return;
        now2 += 0.6 * leaseMs;
        if (now2 > start + leaseMs) {
          secondRan = true;
          await second!.runOnce();
        }
      });
      const tag = unique('lease').toLowerCase();
      for (const n of [1, 2, 3]) await queueMail(`${tag}-${n}@example.com`);
      const first = mailer2For(`smtp://127.0.0.1:${smtp.port}`, { leaseMs });
      second = mailer2For(`smtp://127.0.0.1:${smtp.port}`, { leaseMs });
      await first.runOnce();
      await first.stop();
      await second.stop();
      await close(smtp.server);
      expect(secondRan).toBe(true);
      const received = smtp.mails
        .map((m) => m.to[0])
        .filter((to) => to?.startsWith(tag))
        .sort();
      expect(received).toEqual([1, 2, 3].map((n) => `${tag}-${n}@example.com`));
      const rows = await db
        .select()
        .from(mailOutbox)
        .where(sql`to_address LIKE ${`${tag}%`}`);
      expect(rows.map((r) => [r.state, r.attempts])).toEqual([
        ['sent', 1],
        ['sent', 1],
        ['sent', 1],
      ]);
    });

    it('a backlog goes out within the hourly limit per recipient', async () => {
      await db.delete(mailOutbox).where(sql`state <> 'sent'`);
      now2 = Date.now() + 10 * 3_600_000;
      const smtp = await scriptedSmtp();
      const to = `${unique('flood').toLowerCase()}@example.com`;
      for (let i = 0; i < 5; i++) await queueMail(to, { createdAt: new Date(now2 - 86_400_000 + i) });
      const job = mailer2For(`smtp://127.0.0.1:${smtp.port}`, { maxPerHour: 3 });
      const got = () => smtp.mails.filter((m) => m.to.includes(to)).length;
      await job.runOnce();
      expect(got()).toBe(3);
      now2 += 600_000;
      await job.runOnce();
      expect(got()).toBe(3);
      const waiting = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, to));
      expect(waiting.filter((m) => m.state === 'queued')).toHaveLength(2);
      now2 += 3_600_000;
      await job.runOnce();
      await job.stop();
      await close(smtp.server);
      expect(got()).toBe(5);
    });

    it('a permanent refusal (5xx) fails for good with its error; a 4xx is retried', async () => {
      await db.delete(mailOutbox).where(sql`state <> 'sent'`);
      now2 = Date.now() + 20 * 3_600_000;
      const tag = unique('bounce').toLowerCase();
      const smtp = await scriptedSmtp(
        async () => {},
        (to) =>
          to.includes('-nobody')
            ? { code: 550, text: 'No such user' }
            : to.includes('-busy')
              ? { code: 451, text: 'Try again later' }
              : null,
      );
      const nobody = await queueMail(`${tag}-nobody@example.com`);
      const busy = await queueMail(`${tag}-busy@example.com`);
      const job = mailer2For(`smtp://127.0.0.1:${smtp.port}`);
      await job.runOnce();
      now2 += 2 * 3_600_000;
      await job.runOnce(); // only the 4xx is tried again
      await job.stop();
      await close(smtp.server);
      const list = await call(ctx.app, endpoints.mail.outboxList.path, { keyword: tag }, { token: sA.token });
      const byId = new Map(list.data.list.map((m: { id: number }) => [m.id, m]));
      expect(byId.get(nobody.id)).toMatchObject({ state: 'failed', attempts: 1, nextAttemptAt: null });
      expect((byId.get(nobody.id) as { lastError: string }).lastError).toContain('No such user');
      expect(byId.get(busy.id)).toMatchObject({ state: 'failed', attempts: 2 });
      expect((byId.get(busy.id) as { nextAttemptAt: number }).nextAttemptAt).toBe(now2 + 60_000);
      expect(
        rowsOf(
          await db.execute(sql`SELECT id FROM mail_outbox WHERE id = ${nobody.id} AND lease_until IS NULL`),
        ),
      ).toHaveLength(1);
    });
  });
});
