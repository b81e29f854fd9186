/**
 * Alarm mail (docs/operations.md "Alarm mail"): employees with
 * `is_sub_alarm = 'Y'` and an e-mail get a mail for the alarms raised at sites of their data
 * scope (tenancy/company-scope.ts), without mail storms, and no mail is ever lost.
 *
 * The scheduler's task `alarm-mail` (jobs/jobs-plugin.ts) runs it every `MAIL_JOB_INTERVAL_S`,
 * each fire on one instance (claimed in `job_run`); an instance also runs it soon after new alarm
 * events it ingested. Each step claims its rows in the database (`FOR UPDATE SKIP LOCKED`, or a
 * lease), so several server instances never do the same work twice:
 *
 * 1. **Fan-out**: alarms with `notify_state = 'pending'` whose level is in
 *    {@link MAIL_ALARM_LEVELS} → one `alarm_mail_pending` row per subscriber who may see the
 *    alarm's company; the alarm becomes `done`.
 * 2. **Digest**: a subscriber's waiting alarms go out in one mail when
 *    - the oldest has waited {@link MailTuning.gatherMs} (alarms raised together share a mail),
 *    - the subscriber's previous mail is at least {@link MailTuning.windowMs} old (a burst gives
 *      one mail now and one digest per window after it), and
 *    - fewer than {@link MailTuning.maxPerHour} mails went to them in the last hour; beyond it
 *      alarms wait for the next digest once the hour allows it.
 *    The mail (subject, text in the recipient's language, times in each site's zone, a link to
 *    the console) is written to `mail_outbox` as `queued` in the same transaction that removes
 *    the waiting rows. The employee row is the claim (`FOR UPDATE SKIP LOCKED`).
 * 3. **Delivery** (only with `SMTP_URL`): due `queued` / `failed` rows are leased one at a
 *    time, just before each is sent ({@link MailTuning.leaseMs}, longer than the SMTP timeouts
 *    {@link SMTP_TIMEOUTS}), and sent with nodemailer; the outcome is written only under the own
 *    lease. At most {@link MailTuning.maxPerHour} mails per recipient per hour are sent (the rest
 *    wait, e.g. when SMTP_URL is set after a long time without). Success → `sent`; a temporary
 *    failure (4xx, network) → `failed` with `attempts`, `last_error` and `next_attempt_at` =
 *    now + backoff (`retryBaseMs × 2^(attempts−1)`, at most `retryMaxMs`), retried; a permanent
 *    refusal (5xx) → `failed` for good (no retry). Without SMTP_URL mails stay `queued`: the
 *    outbox in the console is where they are read.
 */
import { alarmCodeLabel, type Lang, localDateTimeText } from '@ess/contract';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import { type CompanyScope, companyScope, scopeIncludes } from '../access/company-scope';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import type { DeviceService } from '../devices/device-service';

/** Levels that are mailed (ours): both — a warning is often the only early sign (cell overvoltage). */
export const MAIL_ALARM_LEVELS = ['warning', 'fault'] as const;

/**
 * SMTP timeouts in ms (nodemailer's defaults are 2 min for the connection and 10 min idle),
 * well below {@link MailTuning.leaseMs}: a send that hangs fails before its lease runs out.
 * Set in `SMTP_URL`'s query (e.g. `?socketTimeout=20000`) they win.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** `smtpUrl` with {@link SMTP_TIMEOUTS} added to its query (nodemailer reads them from there). */
export function withTimeouts(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  for (const [key, value] of Object.entries(SMTP_TIMEOUTS)) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** Timing of digests, rate limit, retries (defaults documented in docs/operations.md). */
export interface MailTuning {
  /** Wait this long after a subscriber's first waiting alarm, to group alarms raised together. */
  gatherMs: number;
  /** At least this long between two mails to one subscriber (one digest per window). */
  windowMs: number;
  /** At most this many mails per subscriber per rolling hour. */
  maxPerHour: number;
  /** First retry delay after a failed delivery; doubled per attempt. */
  retryBaseMs: number;
  /** Longest retry delay. */
  retryMaxMs: number;
  /** How long a sender holds a claimed mail before another instance may take it. */
  leaseMs: number;
  /** Mails delivered per run. */
  deliverBatch: number;
}

export const DEFAULT_MAIL_TUNING: MailTuning = {
  gatherMs: 10_000,
  windowMs: 60_000,
  maxPerHour: 10,
  retryBaseMs: 30_000,
  retryMaxMs: 3_600_000,
  leaseMs: 120_000,
  deliverBatch: 20,
};

export interface AlarmMailOptions {
  smtpUrl: string | undefined;
  from: string;
  /** Base of the link in mails, e.g. `https://ess.example.com`. */
  publicUrl: string;
  /**
   * Seconds between the scheduler's runs (the task is registered by jobs/jobs-plugin.ts); 0 = this
   * instance runs none, not even after new alarms (runs only when `runOnce` is called).
   */
  intervalS: number;
  tuning?: Partial<MailTuning>;
  /** Now in UTC ms (tests move it). */
  clock?: () => number;
}

/** What one run did. */
export interface MailRunResult {
  fannedOut: number;
  composed: number;
  sent: number;
  failed: number;
}

interface MailAlarm {
  id: number;
  code: string;
  level: string;
  content: string;
  producedAt: number;
  clearedAt: number | null;
  siteName: string;
  timezone: string;
  deviceSn: string;
  deviceType: string;
  emsSn: string;
}

const TEXT = {
  zh: {
    subjectOne: (a: MailAlarm, label: string, level: string) =>
      `[ESS 告警] ${level} · ${a.siteName} · ${label}`,
    subjectMany: (n: number, sites: string) => `[ESS 告警] ${n} 条告警 · ${sites}`,
    intro: (n: number) => (n === 1 ? '您订阅的站点产生了一条告警：' : `您订阅的站点产生了 ${n} 条告警：`),
    level: { warning: '告警', fault: '故障' } as Record<string, string>,
    site: '站点',
    device: '设备',
    ems: 'EMS编号',
    type: '告警类型',
    content: '内容',
    time: '产生时间',
    cleared: '已消除',
    active: '仍在告警',
    link: '在控制台查看：',
    footer: '您收到此邮件是因为您在 ESS 控制台中订阅了设备告警（个人设置 → 邮箱）。',
  },
  en: {
    subjectOne: (a: MailAlarm, label: string, level: string) =>
      `[ESS alarm] ${level} · ${a.siteName} · ${label}`,
    subjectMany: (n: number, sites: string) => `[ESS alarm] ${n} alarms · ${sites}`,
    intro: (n: number) =>
      n === 1 ? 'An alarm was raised at a site you follow:' : `${n} alarms were raised at sites you follow:`,
    level: { warning: 'Warning', fault: 'Fault' } as Record<string, string>,
    site: 'Site',
    device: 'Device',
    ems: 'EMS number',
    type: 'Alarm type',
    content: 'Content',
    time: 'Raised',
    cleared: 'cleared',
    active: 'still active',
    link: 'Open the console:',
    footer:
      'You receive this mail because you subscribed to device alarms in the ESS Console (profile → e-mail).',
  },
} as const;

/** `2026-07-01 14:03:22 (Asia/Shanghai)`: a UTC ms time on the wall clock of `timezone`. */
export function formatInZone(utcMs: number, timezone: string): string {
  return `${localDateTimeText(utcMs, timezone)} (${timezone})`;
}

/** Subject and text of a digest of `alarms` in `lang`, linking to `publicUrl`. */
export function composeMail(
  alarms: MailAlarm[],
  lang: Lang,
  publicUrl: string,
): { subject: string; body: string } {
  const t = TEXT[lang];
  const first = alarms[0]!;
  const subject =
    alarms.length === 1
      ? t.subjectOne(first, alarmCodeLabel(first.code, lang), t.level[first.level] ?? first.level)
      : t.subjectMany(
          alarms.length,
          [...new Set(alarms.map((a) => a.siteName))].slice(0, 3).join(', ') +
            (new Set(alarms.map((a) => a.siteName)).size > 3 ? ' …' : ''),
        );
  const blocks = alarms.map((a, i) =>
    [
      `${alarms.length > 1 ? `${i + 1}. ` : ''}[${t.level[a.level] ?? a.level}] ${alarmCodeLabel(a.code, lang)}${
        a.clearedAt === null ? '' : ` (${t.cleared} ${formatInZone(a.clearedAt, a.timezone)})`
      }`,
      `   ${t.site}: ${a.siteName}`,
      `   ${t.device}: ${a.deviceSn} (${a.deviceType.toUpperCase()})`,
      `   ${t.ems}: ${a.emsSn}`,
      `   ${t.type}: ${a.code}`,
      `   ${t.content}: ${a.content}`,
      `   ${t.time}: ${formatInZone(a.producedAt, a.timezone)}`,
    ].join('\n'),
  );
  const body = [
    t.intro(alarms.length),
    '',
    ...blocks.flatMap((b) => [b, '']),
    `${t.link} ${publicUrl}/alarm`,
    '',
    `-- `,
    t.footer,
  ].join('\n');
  return { subject, body };
}

/** The mail job; see the module comment. */
export class AlarmMailer {
  readonly tuning: MailTuning;
  private readonly clock: () => number;
  private transport: Transporter | null;
  private soon: NodeJS.Timeout | null = null;
  private running: Promise<MailRunResult> | null = null;
  private unlisten: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly options: AlarmMailOptions,
  ) {
    this.tuning = { ...DEFAULT_MAIL_TUNING, ...options.tuning };
    this.clock = options.clock ?? Date.now;
    this.transport = options.smtpUrl ? nodemailer.createTransport(withTimeouts(options.smtpUrl)) : null;
  }

  /** Whether mails are delivered (SMTP_URL set) or only kept in the outbox. */
  get smtpConfigured(): boolean {
    return this.transport !== null;
  }

  /** When devices run: an early run after new alarm events (the periodic runs are the scheduler's). */
  start(devices: DeviceService | null): void {
    this.unlisten?.();
    this.unlisten =
      devices?.listen({
        onEvents: (events) => {
          if (events.some((e) => e.kind === 'produce')) this.runSoon(this.tuning.gatherMs + 500);
        },
      }) ?? null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
    await this.running?.catch(() => {});
    this.transport?.close();
  }

  private runSoon(delayMs: number): void {
    if (this.soon || this.stopped || this.options.intervalS === 0) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      void this.runOnce().catch(() => {});
    }, delayMs);
    this.soon.unref();
  }

  /** One run of the three steps (runs do not overlap within an instance). */
  runOnce(): Promise<MailRunResult> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        const fannedOut = await this.fanOut();
        const composed = await this.composeDue();
        const { sent, failed } = await this.deliver();
        return { fannedOut, composed, sent, failed };
      } catch (err) {
        this.log.error({ err }, 'alarm mail run failed');
        throw err;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Step 1: subscribers of each new alarm. */
  private async fanOut(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const alarms = rowsOf<{ id: number; company_id: number; level: string }>(
        await tx.execute(sql`
          SELECT id, company_id, level FROM alarm WHERE notify_state = 'pending'
          ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED`),
      );
      if (alarms.length === 0) return 0;
      const subscribers = rowsOf<{ id: number; company_id: number }>(
        await tx.execute(sql`
          SELECT e.id, e.company_id FROM employee e JOIN company c ON c.id = e.company_id
          WHERE e.is_sub_alarm = 'Y' AND e.email IS NOT NULL AND e.email <> ''
            AND e.status = 'enabled' AND c.status = 'enabled'`),
      );
      const scopes = new Map<number, CompanyScope>();
      for (const s of subscribers) {
        scopes.set(
          Number(s.id),
          await companyScope(tx as unknown as Db, {
            companyId: Number(s.company_id),
            employeeId: Number(s.id),
          }),
        );
      }
      const pending: { e: number; a: number }[] = [];
      for (const a of alarms) {
        if (!(MAIL_ALARM_LEVELS as readonly string[]).includes(a.level)) continue;
        for (const [employeeId, scope] of scopes) {
          if (scopeIncludes(scope, Number(a.company_id))) pending.push({ e: employeeId, a: Number(a.id) });
        }
      }
      const now = new Date(this.clock());
      if (pending.length > 0) {
        await tx.execute(sql`
          INSERT INTO alarm_mail_pending (employee_id, alarm_id, created_at)
          SELECT (p->>'e')::int, (p->>'a')::int, ${now} FROM jsonb_array_elements(${JSON.stringify(pending)}::jsonb) AS p
          ON CONFLICT DO NOTHING`);
      }
      await tx.execute(sql`
        UPDATE alarm SET notify_state = 'done'
        WHERE id IN (${sql.join(
          alarms.map((a) => sql`${Number(a.id)}`),
          sql`, `,
        )})`);
      return pending.length;
    });
  }

  /** Step 2: one digest per subscriber whose waiting alarms are due. */
  private async composeDue(): Promise<number> {
    const now = this.clock();
    const t = this.tuning;
    const candidates = rowsOf<{ employee_id: number }>(
      await this.db.execute(sql`
        SELECT employee_id FROM alarm_mail_pending
        GROUP BY employee_id HAVING min(created_at) <= ${new Date(now - t.gatherMs)}`),
    );
    let composed = 0;
    for (const c of candidates) {
      if (await this.composeFor(Number(c.employee_id), now)) composed++;
    }
    return composed;
  }

  private async composeFor(employeeId: number, now: number): Promise<boolean> {
    const t = this.tuning;
    return this.db.transaction(async (tx) => {
      const [who] = rowsOf<{
        id: number;
        company_id: number;
        email: string | null;
        mail_lang: string | null;
        is_sub_alarm: string;
      }>(
        await tx.execute(sql`
          SELECT id, company_id, email, mail_lang, is_sub_alarm FROM employee WHERE id = ${employeeId}
          FOR UPDATE SKIP LOCKED`),
      );
      if (!who) return false; // another instance is on it
      if (who.is_sub_alarm !== 'Y' || !who.email) {
        // Unsubscribed (or e-mail removed) while alarms waited: nothing to send.
        await tx.execute(sql`DELETE FROM alarm_mail_pending WHERE employee_id = ${employeeId}`);
        return false;
      }
      const [recent] = rowsOf<{ last: unknown; n: number }>(
        await tx.execute(sql`
          SELECT max(created_at) AS last,
                 count(*) FILTER (WHERE created_at > ${new Date(now - 3_600_000)})::int AS n
          FROM mail_outbox WHERE employee_id = ${employeeId}`),
      );
      const last = recent?.last ? new Date(recent.last as string).getTime() : null;
      if (last !== null && now - last < t.windowMs) return false;
      if (Number(recent?.n ?? 0) >= t.maxPerHour) return false;
      // The waiting rows this digest takes: exactly these are removed below (rows another
      // instance's fan-out commits meanwhile wait for the next digest).
      const waiting = rowsOf<{ alarm_id: number }>(
        await tx.execute(sql`SELECT alarm_id FROM alarm_mail_pending WHERE employee_id = ${employeeId}`),
      ).map((r) => Number(r.alarm_id));
      if (waiting.length === 0) return false;
      const taken = sql.join(
        waiting.map((id) => sql`${id}`),
        sql`, `,
      );
      const alarms = rowsOf<Record<string, unknown>>(
        await tx.execute(sql`
          SELECT a.id, a.code, a.level, a.content,
                 (extract(epoch FROM a.produced_at) * 1000)::float8 AS produced_at,
                 (extract(epoch FROM a.cleared_at) * 1000)::float8 AS cleared_at,
                 s.name AS site_name, s.timezone, d.sn AS device_sn, d.type AS device_type, g.sn AS ems_sn
          FROM alarm_mail_pending p
          JOIN alarm a ON a.id = p.alarm_id
          JOIN site s ON s.id = a.site_id
          JOIN device d ON d.id = a.device_id
          JOIN device g ON g.id = a.gateway_id
          WHERE p.employee_id = ${employeeId} AND p.alarm_id IN (${taken})
          ORDER BY a.produced_at, a.id`),
      ).map(
        (r): MailAlarm => ({
          id: Number(r.id),
          code: String(r.code),
          level: String(r.level),
          content: String(r.content),
          producedAt: Math.round(Number(r.produced_at)),
          clearedAt: r.cleared_at === null ? null : Math.round(Number(r.cleared_at)),
          siteName: String(r.site_name),
          timezone: String(r.timezone),
          deviceSn: String(r.device_sn),
          deviceType: String(r.device_type),
          emsSn: String(r.ems_sn),
        }),
      );
      await tx.execute(
        sql`DELETE FROM alarm_mail_pending WHERE employee_id = ${employeeId} AND alarm_id IN (${taken})`,
      );
      if (alarms.length === 0) return false; // their sites or devices are gone
      const lang: Lang = who.mail_lang === 'en' ? 'en' : 'zh';
      const mail = composeMail(alarms, lang, this.options.publicUrl);
      await tx.execute(sql`
        INSERT INTO mail_outbox (company_id, employee_id, to_address, lang, subject, body, alarm_ids,
                                 state, next_attempt_at, created_at)
        VALUES (${Number(who.company_id)}, ${employeeId}, ${who.email}, ${lang}, ${mail.subject}, ${mail.body},
                ${JSON.stringify(alarms.map((a) => a.id))}::jsonb, 'queued', ${new Date(now)}, ${new Date(now)})`);
      return true;
    });
  }

  /**
   * Step 3: send due mails (SMTP_URL only), one at a time: each mail is leased just before it
   * is sent (the lease outlasts the transport's timeouts, {@link SMTP_TIMEOUTS}), and its
   * outcome is written only while the lease is still this sender's (`lease_until` = own lease),
   * so a mail another instance took over after an expired lease is not written twice.
   * A recipient who got {@link MailTuning.maxPerHour} mails in the last hour gets no more until
   * the hour allows it (mails wait, queued). A permanent refusal (SMTP 5xx) ends the mail as
   * `failed` for good (`next_attempt_at` = infinity: no retry, the error stays in the outbox);
   * 4xx and network errors are retried with backoff.
   */
  private async deliver(): Promise<{ sent: number; failed: number }> {
    if (!this.transport) return { sent: 0, failed: 0 };
    const t = this.tuning;
    let sent = 0;
    let failed = 0;
    for (let i = 0; i < t.deliverBatch && !this.stopped; i++) {
      const now = this.clock();
      const lease = new Date(now + t.leaseMs);
      const [m] = rowsOf<{
        id: number;
        to_address: string;
        subject: string;
        body: string;
        attempts: number;
      }>(
        await this.db.execute(sql`
          UPDATE mail_outbox SET lease_until = ${lease}
          WHERE id = (
            SELECT m.id FROM mail_outbox m
            WHERE m.state IN ('queued', 'failed') AND m.next_attempt_at <= ${new Date(now)}
              AND (m.lease_until IS NULL OR m.lease_until < ${new Date(now)})
              AND (SELECT count(*) FROM mail_outbox s
                   WHERE s.to_address = m.to_address AND s.state = 'sent'
                     AND s.sent_at > ${new Date(now - 3_600_000)}) < ${t.maxPerHour}
            ORDER BY m.next_attempt_at, m.id LIMIT 1
            FOR UPDATE SKIP LOCKED)
          RETURNING id, to_address, subject, body, attempts`),
      );
      if (!m) break;
      const id = Number(m.id);
      try {
        await this.transport.sendMail({
          from: this.options.from,
          to: m.to_address,
          subject: m.subject,
          text: m.body,
        });
        const done = rowsOf<{ id: number }>(
          await this.db.execute(sql`
            UPDATE mail_outbox SET state = 'sent', sent_at = ${new Date(this.clock())}, attempts = attempts + 1,
                   lease_until = NULL, last_error = NULL
            WHERE id = ${id} AND lease_until = ${lease}
            RETURNING id`),
        );
        if (done.length === 0) this.log.warn({ mailId: id }, 'alarm mail sent after its lease expired');
        sent++;
      } catch (err) {
        const attempts = Number(m.attempts) + 1;
        const message = err instanceof Error ? err.message : String(err);
        const responseCode = Number((err as { responseCode?: unknown }).responseCode);
        const permanent = responseCode >= 500 && responseCode < 600;
        const delay = Math.min(t.retryMaxMs, t.retryBaseMs * 2 ** (attempts - 1));
        const next = permanent ? sql`'infinity'::timestamptz` : sql`${new Date(this.clock() + delay)}`;
        await this.db.execute(sql`
          UPDATE mail_outbox SET state = 'failed', attempts = ${attempts}, last_error = ${message.slice(0, 500)},
                 next_attempt_at = ${next}, lease_until = NULL
          WHERE id = ${id} AND lease_until = ${lease}`);
        this.log.warn(
          { mailId: id, attempts, permanent, retryInMs: permanent ? null : delay, err: message },
          'alarm mail delivery failed',
        );
        failed++;
      }
    }
    return { sent, failed };
  }
}
