/**
 * Alarms for the console (contract api/alarm.ts): the active list, the event
 * history (alarm produce / disappear and EMS online / offline changes), acknowledgement, filter
 * options and the mail outbox. Every query is limited to the caller's company scope
 * (tenancy/company-scope.ts): a row outside it answers as if it did not exist (3100, 3103).
 *
 * Times are UTC ms; the rows carry the site's time zone for display.
 */
import {
  type AlarmAckResponse,
  type AlarmActiveListRequest,
  type AlarmFilterOptions,
  type AlarmHistoryListRequest,
  type AlarmHistoryRow,
  type AlarmLifecycleRow,
  checkTimeRange,
  ErrorCode,
  HISTORY_MAX_DAYS,
  type MailOutboxDetail,
  type MailOutboxRow,
  type MailState,
  type TimeRange,
} from '@ess/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type CompanyScope, type DataScope, inScopeSql } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { numOrNull, rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';

const num = (v: unknown): number => Number(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** The history's range when the request names none: the last 30 days (docs/api.md "Alarms"). */
export const HISTORY_DEFAULT_DAYS = 30;
const ms = (column: string) => sql.raw(`(extract(epoch FROM ${column}) * 1000)::float8`);

/** The range checked like every range of the console (3120 inverted, 3121 > 400 days, 3122 future). */
function checkRange(range: TimeRange | undefined): void {
  if (!range) return;
  const issue = checkTimeRange(range, { maxDays: HISTORY_MAX_DAYS, nowMs: Date.now() });
  if (issue) throw new ApiError(issue.code, issue.params);
}

function and(parts: (SQL | undefined)[]): SQL {
  const kept = parts.filter((p): p is SQL => p !== undefined);
  return kept.length ? sql.join(kept, sql` AND `) : sql`TRUE`;
}

export class AlarmService {
  constructor(private readonly db: Db) {}

  /** Conditions on an alarm row `a` (joined with `d` device, `g` gateway) shared by the lists. */
  private alarmConditions(
    q: Pick<AlarmActiveListRequest, 'siteId' | 'deviceId' | 'level' | 'code' | 'keyword' | 'acknowledged'>,
    alias: {
      company: string;
      site: string;
      device: string;
      gateway: string;
      code: string;
      level: string;
      content: string;
    },
  ): (SQL | undefined)[] {
    const keyword = q.keyword ? likePattern(q.keyword) : null;
    return [
      q.siteId ? sql`${sql.raw(alias.site)} = ${q.siteId}` : undefined,
      q.deviceId
        ? sql`(${sql.raw(alias.device)} = ${q.deviceId} OR ${sql.raw(alias.gateway)} = ${q.deviceId})`
        : undefined,
      q.level ? sql`${sql.raw(alias.level)} = ${q.level}` : undefined,
      q.code ? sql`${sql.raw(alias.code)} = ${q.code}` : undefined,
      keyword
        ? sql`(${sql.raw(alias.code)} ILIKE ${keyword} OR ${sql.raw(alias.content)} ILIKE ${keyword}
               OR d.sn ILIKE ${keyword} OR g.sn ILIKE ${keyword})`
        : undefined,
    ];
  }

  /** Active alarms (not yet cleared), newest first. */
  async activeList(
    scope: CompanyScope,
    q: AlarmActiveListRequest,
  ): Promise<{ list: AlarmLifecycleRow[]; total: number }> {
    checkRange(q.range);
    const where = and([
      sql`a.cleared_at IS NULL`,
      inScopeSql(scope, 'a.company_id'),
      ...this.alarmConditions(q, {
        company: 'a.company_id',
        site: 'a.site_id',
        device: 'a.device_id',
        gateway: 'a.gateway_id',
        code: 'a.code',
        level: 'a.level',
        content: 'a.content',
      }),
      q.acknowledged === undefined
        ? undefined
        : q.acknowledged
          ? sql`a.ack_at IS NOT NULL`
          : sql`a.ack_at IS NULL`,
      q.range
        ? sql`a.produced_at >= ${new Date(q.range.startMs)} AND a.produced_at < ${new Date(q.range.endMs)}`
        : undefined,
    ]);
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT a.id, a.site_id, s.name AS site_name, s.timezone, a.device_id, d.sn AS device_sn,
               d.type AS device_type, g.sn AS ems_sn, a.code, a.level, a.content, a.value,
               ${ms('a.produced_at')} AS produced_at, ${ms('a.cleared_at')} AS cleared_at, a.clear_content,
               ${ms('a.ack_at')} AS ack_at, a.ack_by, count(*) OVER () AS total
        FROM alarm a
        JOIN site s ON s.id = a.site_id
        JOIN device d ON d.id = a.device_id
        JOIN device g ON g.id = a.gateway_id
        WHERE ${where}
        ORDER BY a.produced_at DESC, a.id DESC
        LIMIT ${q.pageSize} OFFSET ${(q.pageNum - 1) * q.pageSize}`),
    );
    return {
      total: rows[0] ? num(rows[0].total) : await this.countAlarms(where),
      list: rows.map((r) => ({
        id: num(r.id),
        siteId: num(r.site_id),
        siteName: String(r.site_name),
        siteTimezone: String(r.timezone),
        deviceId: num(r.device_id),
        deviceSn: String(r.device_sn),
        deviceType: String(r.device_type),
        emsSn: String(r.ems_sn),
        code: String(r.code),
        level: r.level as AlarmLifecycleRow['level'],
        content: String(r.content),
        value: numOrNull(r.value),
        producedAt: Math.round(num(r.produced_at)),
        clearedAt: r.cleared_at === null ? null : Math.round(num(r.cleared_at)),
        clearContent: strOrNull(r.clear_content),
        ackAt: r.ack_at === null ? null : Math.round(num(r.ack_at)),
        ackBy: strOrNull(r.ack_by),
      })),
    };
  }

  /** Total of a page asked beyond the last row (the window count is then unavailable). */
  private async countAlarms(where: SQL): Promise<number> {
    const rows = rowsOf<{ n: number }>(
      await this.db.execute(sql`
        SELECT count(*)::int AS n FROM alarm a
        JOIN site s ON s.id = a.site_id JOIN device d ON d.id = a.device_id JOIN device g ON g.id = a.gateway_id
        WHERE ${where}`),
    );
    return num(rows[0]?.n ?? 0);
  }

  /**
   * The event history, newest first, within `q.range` (default: the last
   * {@link HISTORY_DEFAULT_DAYS} days; a chosen range may span up to 400 days): alarm events (with their alarm's state and
   * acknowledgement) and, unless a filter only alarms have is set (level, code, acknowledged,
   * state), the EMS's online / offline changes.
   */
  async historyList(
    scope: CompanyScope,
    q: AlarmHistoryListRequest,
  ): Promise<{ list: AlarmHistoryRow[]; total: number }> {
    checkRange(q.range);
    // No range: the last HISTORY_DEFAULT_DAYS days (never a scan of the whole history).
    // (No upper bound then: an event stamped a little ahead by a device clock still shows.)
    const startMs = q.range?.startMs ?? Date.now() - HISTORY_DEFAULT_DAYS * 86_400_000;
    const types = new Set(q.types ?? ['produce', 'disappear', 'online', 'offline']);
    const alarmKinds = ['produce', 'disappear'].filter((t) => types.has(t as 'produce'));
    const alarmOnly =
      q.level !== undefined || q.code !== undefined || q.acknowledged !== undefined || q.state !== undefined;
    const connectionKinds = alarmOnly ? [] : ['online', 'offline'].filter((t) => types.has(t as 'online'));
    const rangeOn = (column: string) =>
      q.range
        ? sql`${sql.raw(column)} >= ${new Date(startMs)} AND ${sql.raw(column)} < ${new Date(q.range.endMs)}`
        : sql`${sql.raw(column)} >= ${new Date(startMs)}`;
    const parts: SQL[] = [];
    if (alarmKinds.length > 0) {
      const where = and([
        inScopeSql(scope, 'e.company_id'),
        sql`e.kind IN (${sql.join(
          alarmKinds.map((k) => sql`${k}`),
          sql`, `,
        )})`,
        ...this.alarmConditions(q, {
          company: 'e.company_id',
          site: 'e.site_id',
          device: 'e.device_id',
          gateway: 'e.gateway_id',
          code: 'e.code',
          level: 'e.level',
          content: 'e.content',
        }),
        q.acknowledged === undefined
          ? undefined
          : q.acknowledged
            ? sql`al.ack_at IS NOT NULL`
            : sql`al.id IS NOT NULL AND al.ack_at IS NULL`,
        q.state === undefined
          ? undefined
          : q.state === 'active'
            ? sql`al.id IS NOT NULL AND al.cleared_at IS NULL`
            : sql`al.cleared_at IS NOT NULL`,
        rangeOn('e.ts'),
      ]);
      parts.push(sql`
        SELECT 'e' || e.id AS key, e.kind AS type, e.ts, e.site_id, e.device_id, e.gateway_id,
               e.code, e.level, e.content, NULL::text AS reason, e.alarm_id,
               CASE WHEN al.id IS NULL THEN NULL ELSE al.cleared_at IS NULL END AS alarm_active,
               al.ack_at, al.ack_by, e.id AS tiebreak
        FROM alarm_event e
        JOIN device d ON d.id = e.device_id
        JOIN device g ON g.id = e.gateway_id
        LEFT JOIN alarm al ON al.id = e.alarm_id
        WHERE ${where}`);
    }
    if (connectionKinds.length > 0) {
      const keyword = q.keyword ? likePattern(q.keyword) : null;
      const where = and([
        inScopeSql(scope, 'g.company_id'),
        connectionKinds.length === 1 ? sql`l.online = ${connectionKinds[0] === 'online'}` : undefined,
        q.siteId ? sql`g.site_id = ${q.siteId}` : undefined,
        q.deviceId ? sql`g.id = ${q.deviceId}` : undefined,
        keyword ? sql`(g.sn ILIKE ${keyword} OR l.reason ILIKE ${keyword})` : undefined,
        rangeOn('l.ts'),
      ]);
      parts.push(sql`
        SELECT 'c' || l.id AS key, CASE WHEN l.online THEN 'online' ELSE 'offline' END AS type, l.ts,
               g.site_id, g.id AS device_id, g.id AS gateway_id, NULL::text AS code, NULL::text AS level,
               NULL::text AS content, l.reason, NULL::int AS alarm_id, NULL::boolean AS alarm_active,
               NULL::timestamptz AS ack_at, NULL::text AS ack_by, -l.id AS tiebreak
        FROM device_connection_log l
        JOIN device g ON g.id = l.device_id
        WHERE ${where}`);
    }
    if (parts.length === 0) return { list: [], total: 0 };
    const union = sql.join(parts, sql` UNION ALL `);
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        WITH h AS (${union})
        SELECT h.key, h.type, ${ms('h.ts')} AS ts, h.site_id, s.name AS site_name, s.timezone,
               h.device_id, d.sn AS device_sn, d.type AS device_type, g.sn AS ems_sn,
               h.code, h.level, h.content, h.reason, h.alarm_id, h.alarm_active,
               ${ms('h.ack_at')} AS ack_at, h.ack_by, count(*) OVER () AS total
        FROM h
        JOIN site s ON s.id = h.site_id
        JOIN device d ON d.id = h.device_id
        JOIN device g ON g.id = h.gateway_id
        ORDER BY h.ts DESC, h.tiebreak DESC
        LIMIT ${q.pageSize} OFFSET ${(q.pageNum - 1) * q.pageSize}`),
    );
    let total = rows[0] ? num(rows[0].total) : 0;
    if (!rows[0] && q.pageNum > 1) {
      const counted = rowsOf<{ n: number }>(
        await this.db.execute(sql`
          WITH h AS (${union})
          SELECT count(*)::int AS n FROM h JOIN site s ON s.id = h.site_id`),
      );
      total = num(counted[0]?.n ?? 0);
    }
    return {
      total,
      list: rows.map((r) => ({
        key: String(r.key),
        type: r.type as AlarmHistoryRow['type'],
        ts: Math.round(num(r.ts)),
        siteId: num(r.site_id),
        siteName: String(r.site_name),
        siteTimezone: String(r.timezone),
        deviceId: num(r.device_id),
        deviceSn: String(r.device_sn),
        deviceType: String(r.device_type),
        emsSn: String(r.ems_sn),
        code: strOrNull(r.code),
        level: strOrNull(r.level) as AlarmHistoryRow['level'],
        content: strOrNull(r.content),
        reason: strOrNull(r.reason),
        alarmId: numOrNull(r.alarm_id),
        alarmActive: r.alarm_active === null || r.alarm_active === undefined ? null : Boolean(r.alarm_active),
        ackAt: r.ack_at === null ? null : Math.round(num(r.ack_at)),
        ackBy: strOrNull(r.ack_by),
      })),
    };
  }

  /**
   * Acknowledges alarms `ids` as employee `employeeId`: records who ("account (name)") and when.
   * All or nothing on existence: any id missing or outside the scope → 3100 and nothing changes.
   * Alarms already acknowledged keep their first acknowledgement (`alreadyAcknowledged`); when
   * every one was → 3101.
   */
  async acknowledge(scope: CompanyScope, employeeId: number, ids: number[]): Promise<AlarmAckResponse> {
    const wanted = [...new Set(ids)];
    return this.db.transaction(async (tx) => {
      const found = rowsOf<{ id: number; ack_at: unknown }>(
        await tx.execute(sql`
          SELECT id, ack_at FROM alarm
          WHERE id IN (${sql.join(
            wanted.map((i) => sql`${i}`),
            sql`, `,
          )}) AND ${inScopeSql(scope, 'company_id')}
          FOR UPDATE`),
      );
      if (found.length !== wanted.length) throw new ApiError(ErrorCode.ALARM_NOT_FOUND);
      const already = found.filter((r) => r.ack_at !== null).map((r) => num(r.id));
      const todo = found.filter((r) => r.ack_at === null).map((r) => num(r.id));
      if (todo.length === 0) throw new ApiError(ErrorCode.ALARM_ALREADY_ACKNOWLEDGED);
      const who = rowsOf<{ account: string; name: string }>(
        await tx.execute(sql`
          SELECT u.account, e.name FROM employee e JOIN user_account u ON u.id = e.user_id
          WHERE e.id = ${employeeId}`),
      )[0];
      const ackBy = who ? `${who.account} (${who.name})` : `#${employeeId}`;
      const at = new Date();
      await tx.execute(sql`
        UPDATE alarm SET ack_at = ${at}, ack_employee_id = ${employeeId}, ack_by = ${ackBy}
        WHERE id IN (${sql.join(
          todo.map((i) => sql`${i}`),
          sql`, `,
        )}) AND ack_at IS NULL`);
      return {
        acknowledged: todo.sort((a, b) => a - b),
        alreadyAcknowledged: already.sort((a, b) => a - b),
        ackAt: at.getTime(),
        ackBy,
      };
    });
  }

  /** Sites in scope with their devices, for the filters. */
  async filterOptions(scope: CompanyScope): Promise<AlarmFilterOptions> {
    const rows = rowsOf<{
      site_id: number;
      site_name: string;
      id: number | null;
      sn: string | null;
      type: string | null;
    }>(
      await this.db.execute(sql`
        SELECT s.id AS site_id, s.name AS site_name, d.id, d.sn, d.type
        FROM site s LEFT JOIN device d ON d.site_id = s.id
        WHERE ${inScopeSql(scope, 's.company_id')}
        ORDER BY s.name, s.id, d.gateway_id NULLS FIRST, d.sn`),
    );
    const sites = new Map<number, AlarmFilterOptions['sites'][number]>();
    for (const r of rows) {
      const siteId = num(r.site_id);
      let entry = sites.get(siteId);
      if (!entry) {
        entry = { id: siteId, name: String(r.site_name), devices: [] };
        sites.set(siteId, entry);
      }
      if (r.id !== null) entry.devices.push({ id: num(r.id), sn: String(r.sn), type: String(r.type) });
    }
    return { sites: [...sites.values()] };
  }

  /**
   * Mails of the caller's data scope, newest first: mails of the scope's companies; with a
   * department / department-and-below / self data scope only mails to employees of those
   * departments or to the caller (tenancy/company-scope.ts `employeeInScope`, same rule).
   */
  async outboxList(
    scope: DataScope,
    q: { pageNum: number; pageSize: number; state?: MailState | undefined; keyword?: string | undefined },
  ): Promise<{ list: MailOutboxRow[]; total: number }> {
    const keyword = q.keyword ? likePattern(q.keyword) : null;
    const where = and([
      this.outboxInScope(scope),
      q.state ? sql`m.state = ${q.state}` : undefined,
      keyword ? sql`(m.to_address ILIKE ${keyword} OR m.subject ILIKE ${keyword})` : undefined,
    ]);
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT ${this.outboxColumns()}, count(*) OVER () AS total
        FROM mail_outbox m JOIN company c ON c.id = m.company_id LEFT JOIN employee e ON e.id = m.employee_id
        WHERE ${where}
        ORDER BY m.id DESC
        LIMIT ${q.pageSize} OFFSET ${(q.pageNum - 1) * q.pageSize}`),
    );
    let total = rows[0] ? num(rows[0].total) : 0;
    if (!rows[0] && q.pageNum > 1) {
      total = num(
        rowsOf<{ n: number }>(
          await this.db.execute(
            sql`SELECT count(*)::int AS n FROM mail_outbox m LEFT JOIN employee e ON e.id = m.employee_id WHERE ${where}`,
          ),
        )[0]?.n ?? 0,
      );
    }
    return { total, list: rows.map((r) => this.outboxRow(r)) };
  }

  /** One mail with its text; 3103 when missing or outside the data scope (as `outboxList`). */
  async outboxDetail(scope: DataScope, id: number): Promise<MailOutboxDetail> {
    const row = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT ${this.outboxColumns()}, m.body
        FROM mail_outbox m JOIN company c ON c.id = m.company_id LEFT JOIN employee e ON e.id = m.employee_id
        WHERE m.id = ${id} AND ${this.outboxInScope(scope)}`),
    )[0];
    if (!row) throw new ApiError(ErrorCode.MAIL_NOT_FOUND);
    return { ...this.outboxRow(row), body: String(row.body) };
  }

  /** Mail `m` (joined with its employee `e`) within the data scope. */
  private outboxInScope(scope: DataScope): SQL {
    const byCompany = inScopeSql(scope.companies, 'm.company_id');
    if (scope.departmentIds === null) return byCompany;
    const own = sql`m.employee_id = ${scope.employeeId}`;
    const byDepartment = scope.departmentIds.length
      ? sql`(e.department_id IN (${sql.join(
          scope.departmentIds.map((d) => sql`${d}`),
          sql`, `,
        )}) OR ${own})`
      : own;
    return sql`${byCompany} AND ${byDepartment}`;
  }

  private outboxColumns(): SQL {
    return sql`m.id, c.name AS company_name, e.name AS recipient_name, m.to_address, m.lang, m.subject,
      jsonb_array_length(m.alarm_ids) AS alarm_count, m.state, m.attempts, m.last_error,
      ${ms('m.created_at')} AS created_at, ${ms('m.sent_at')} AS sent_at,
      ${ms('m.next_attempt_at')} AS next_attempt_at`;
  }

  private outboxRow(r: Record<string, unknown>): MailOutboxRow {
    const state = r.state as MailState;
    return {
      id: num(r.id),
      companyName: String(r.company_name),
      recipientName: strOrNull(r.recipient_name),
      toAddress: String(r.to_address),
      lang: r.lang === 'en' ? 'en' : 'zh',
      subject: String(r.subject),
      alarmCount: num(r.alarm_count),
      state,
      attempts: num(r.attempts),
      lastError: strOrNull(r.last_error),
      createdAt: Math.round(num(r.created_at)),
      sentAt: r.sent_at === null ? null : Math.round(num(r.sent_at)),
      nextAttemptAt:
        // Not for a sent mail, nor for one refused for good (SMTP 5xx: next attempt = infinity).
        state === 'sent' || r.next_attempt_at === null || !Number.isFinite(num(r.next_attempt_at))
          ? null
          : Math.round(num(r.next_attempt_at)),
    };
  }
}
