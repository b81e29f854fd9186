/**
 * Transparent debugging (issue 15 item 5; rules: packages/contract api/debug.ts; protocol:
 * docs/device-protocol.md "Transparent debugging"): sessions on gateways and frames relayed
 * through them with the `debug_frame` command of the command service (devices/commands.ts).
 *
 * - **Sessions** (`debug_session`): one open per gateway across server instances — a partial
 *   unique index on the gateway where `closed_at IS NULL`; opening first closes, in the same
 *   transaction, a session of the gateway whose `expires_at` has passed, then inserts; two
 *   instances inserting at once meet at the index and the loser answers 3043 (or the winner's
 *   session, when it is the caller's own). A session belongs to the employee who opened it: only
 *   that employee sends through it or closes it; to anyone else it answers 3044 as if it did not
 *   exist. Each frame moves `expires_at` to its time + DEBUG_IDLE_TIMEOUT_S; re-opening one's own
 *   session answers it, with its expiry moved the same way.
 * - **Frames** (`debug_frame`): checked and counted under a row lock of the session (`SELECT …
 *   FOR UPDATE`, so two instances count one after the other); the row is written before the
 *   command goes out, so frames in flight count towards DEBUG_MAX_FRAMES_PER_MINUTE (a rolling
 *   minute on their `at`), and completed with the answer.
 * - **Time**: expiry and the rolling minute run on {@link DebugService.now} (the server's clock;
 *   tests replace it); the round trip is measured with the monotonic `performance.now()`.
 *
 * Codes: 3030 gateway not in the caller's scope (or not a gateway), 3033 never connected, 3034
 * offline, 3035 the EMS refused or the send failed, 3043 held by another (`{name}` and `{until}`:
 * the session's end as `YYYY-MM-DD HH:mm:ss UTC±h` in the site's zone), 3044 ended / not one's
 * own, 3045 rate (`{max}`), 3046 a write without `confirmWrite`, -100 a malformed frame.
 */
import { randomUUID } from 'node:crypto';
import {
  DEBUG_DEFAULT_TIMEOUT_MS,
  DEBUG_IDLE_TIMEOUT_S,
  DEBUG_MAX_FRAMES_PER_MINUTE,
  type DebugFrame,
  type DebugPort,
  type DebugSession,
  debugFrameResult,
  ErrorCode,
  type Lang,
  localDateTimeText,
  MODBUS_MAX_FRAME_BYTES,
  type Page,
  utcOffsetText,
} from '@ess/contract';
import { and, count, desc, eq, gt, isNull, lte, type SQL } from 'drizzle-orm';
import { type CompanyScope, inScope, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import {
  type DebugFrameErrorRecord,
  debugFrame,
  debugSession,
  device,
  employee,
  site,
} from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import { NO_REPLY } from '../../devices/commands';
import type { DeviceService } from '../../devices/device-service';
import { type DebugFrameInput, frameView, outgoingFrame, storedHex } from './debug-frames';

/** The caller as the auth hook knows it. */
export interface DebugCaller {
  employeeId: number;
  companyId: number;
}

/** What the operation log is told as a call goes (`recordChange`'s argument). */
export type AuditNote = (change: { targetId?: number; after?: Record<string, unknown> }) => void;

/** A `debug/send` body as its schema parsed it. */
export interface DebugSendInput {
  sessionId: string;
  port: DebugPort;
  frame: DebugFrameInput;
  timeoutMs?: number;
  confirmWrite?: boolean;
}

const MINUTE_MS = 60_000;
const IDLE_MS = DEBUG_IDLE_TIMEOUT_S * 1000;
const SESSION_UQ = 'debug_session_open_uq';

type GatewayRow = {
  id: number;
  sn: string;
  companyId: number;
  siteName: string;
  timezone: string;
  lastSeenAt: Date | null;
};

/** `{until}` of 3043: the end of a session in the site's zone, with its offset. */
export function untilText(ms: number, timezone: string): string {
  return `${localDateTimeText(ms, timezone)} ${utcOffsetText(ms, timezone)}`;
}

export class DebugService {
  /** The clock of session expiry and the per-minute count (UTC ms); tests replace it. */
  now: () => number = Date.now;

  constructor(
    private readonly db: Db,
    /** The device side as it is at call time (null: none; a test may put its own on the app). */
    private readonly devices: () => DeviceService | null,
  ) {}

  /** The gateway `gatewayId` if it is a gateway in `scope`; 3030 otherwise. */
  private async requireGateway(scope: CompanyScope, gatewayId: number): Promise<GatewayRow> {
    const [row] = await this.db
      .select({
        id: device.id,
        sn: device.sn,
        companyId: device.companyId,
        siteName: site.name,
        timezone: site.timezone,
        lastSeenAt: device.lastSeenAt,
      })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId))
      .where(and(eq(device.id, gatewayId), isNull(device.gatewayId), inScope(scope, device.companyId)));
    if (!row) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    return row;
  }

  private isOnline(gatewayId: number): boolean {
    return this.devices()?.tracker.isOnline(gatewayId) ?? false;
  }

  /** The session as the API shows it. */
  private async sessionView(id: string, gateway: GatewayRow): Promise<DebugSession> {
    const [row] = await this.db
      .select({ s: debugSession, name: employee.name })
      .from(debugSession)
      .innerJoin(employee, eq(employee.id, debugSession.employeeId))
      .where(eq(debugSession.id, id));
    if (!row) throw new ApiError(ErrorCode.DEBUG_SESSION_ENDED);
    return {
      sessionId: row.s.id,
      gatewayId: gateway.id,
      gatewaySn: gateway.sn,
      siteName: gateway.siteName,
      timezone: gateway.timezone,
      openedBy: row.name,
      openedAt: row.s.openedAt.toISOString(),
      expiresAt: row.s.expiresAt.toISOString(),
      idleTimeoutS: DEBUG_IDLE_TIMEOUT_S,
      maxFramesPerMinute: DEBUG_MAX_FRAMES_PER_MINUTE,
      maxFrameBytes: MODBUS_MAX_FRAME_BYTES,
    };
  }

  /**
   * Opens a session on gateway `gatewayId` for `caller`, or answers the caller's own open one
   * (its expiry moved to now + idle timeout). 3030, 3033 (never connected), 3034 (offline), 3043
   * (another employee holds it: `{name}`, `{until}` in the site's zone).
   */
  async open(caller: DebugCaller, scope: CompanyScope, gatewayId: number): Promise<DebugSession> {
    const gateway = await this.requireGateway(scope, gatewayId);
    if (!this.isOnline(gateway.id)) {
      throw new ApiError(
        gateway.lastSeenAt === null ? ErrorCode.DEVICE_NOT_CONNECTED : ErrorCode.DEVICE_OFFLINE,
      );
    }
    // The insert meets another open session at the unique index; when that one is gone by the
    // time it is read (closed or expired in between), try again.
    for (let attempt = 1; ; attempt++) {
      try {
        return this.sessionView(await this.tryOpen(caller, gateway), gateway);
      } catch (err) {
        if (!isUniqueViolation(err, SESSION_UQ)) throw err;
        const held = await this.holderOrBusy(caller, gateway);
        if (held !== null) return this.sessionView(held, gateway);
        if (attempt === 3) throw err;
      }
    }
  }

  /** One attempt of {@link open}: its session's id; a unique violation when another holds the gateway. */
  private async tryOpen(caller: DebugCaller, gateway: GatewayRow): Promise<string> {
    const now = new Date(this.now());
    const expires = new Date(now.getTime() + IDLE_MS);
    return await this.db.transaction(async (tx) => {
      await tx
        .update(debugSession)
        .set({ closedAt: debugSession.expiresAt, closeReason: 'expired' })
        .where(
          and(
            eq(debugSession.gatewayId, gateway.id),
            isNull(debugSession.closedAt),
            lte(debugSession.expiresAt, now),
          ),
        );
      const [own] = await tx
        .update(debugSession)
        .set({ expiresAt: expires })
        .where(
          and(
            eq(debugSession.gatewayId, gateway.id),
            isNull(debugSession.closedAt),
            eq(debugSession.employeeId, caller.employeeId),
          ),
        )
        .returning({ id: debugSession.id });
      if (own) return own.id;
      const fresh = randomUUID();
      await tx.insert(debugSession).values({
        id: fresh,
        gatewayId: gateway.id,
        companyId: gateway.companyId,
        employeeId: caller.employeeId,
        openedAt: now,
        expiresAt: expires,
      });
      return fresh;
    });
  }

  /**
   * The open session of the gateway: the caller's own id, 3043 naming another holder, null when
   * there is none (any more).
   */
  private async holderOrBusy(caller: DebugCaller, gateway: GatewayRow): Promise<string | null> {
    const [held] = await this.db
      .select({
        id: debugSession.id,
        employeeId: debugSession.employeeId,
        expiresAt: debugSession.expiresAt,
        name: employee.name,
      })
      .from(debugSession)
      .innerJoin(employee, eq(employee.id, debugSession.employeeId))
      .where(and(eq(debugSession.gatewayId, gateway.id), isNull(debugSession.closedAt)));
    if (!held) return null;
    if (held.employeeId === caller.employeeId) return held.id;
    throw new ApiError(ErrorCode.DEBUG_SESSION_BUSY, {
      name: held.name,
      until: untilText(held.expiresAt.getTime(), gateway.timezone),
    });
  }

  /**
   * Relays one frame through the caller's session and waits for the answer. The frame is
   * checked (-100), then under the session's lock: 3044 ended / not the caller's, 3046 a write
   * without `confirmWrite`, 3045 the per-minute limit, 3034 gateway offline; then stored and
   * sent. A silent bus or an EMS that never answers is not an error (`timeout: true`); a refusal
   * answers 3035 with the EMS's reason (the frame is stored with it).
   */
  async send(
    caller: DebugCaller,
    scope: CompanyScope,
    input: DebugSendInput,
    lang: Lang,
    note: AuditNote,
  ): Promise<{ frame: DebugFrame; expiresAt: string }> {
    const out = outgoingFrame(input.frame, lang);
    const requestHex = storedHex(out.bytes);
    note({ after: { sessionId: input.sessionId, port: input.port, requestHex, write: out.write } });
    const now = new Date(this.now());
    const claimed = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .select({ s: debugSession, sn: device.sn, deviceCompany: device.companyId })
        .from(debugSession)
        .innerJoin(device, eq(device.id, debugSession.gatewayId))
        .where(and(eq(debugSession.id, input.sessionId), eq(debugSession.employeeId, caller.employeeId)))
        .for('update', { of: debugSession });
      if (!row || row.s.closedAt !== null) throw new ApiError(ErrorCode.DEBUG_SESSION_ENDED);
      const session = row.s;
      note({ targetId: session.gatewayId });
      if (session.expiresAt.getTime() <= now.getTime()) {
        await tx
          .update(debugSession)
          .set({ closedAt: session.expiresAt, closeReason: 'expired' })
          .where(eq(debugSession.id, session.id));
        return { expired: true as const };
      }
      // A gateway moved out of the caller's sight since: the session is gone for the caller.
      if (!scopeIncludes(scope, row.deviceCompany)) throw new ApiError(ErrorCode.DEBUG_SESSION_ENDED);
      if (out.write && !input.confirmWrite) throw new ApiError(ErrorCode.DEBUG_WRITE_NOT_CONFIRMED);
      const [recent] = await tx
        .select({ n: count() })
        .from(debugFrame)
        .where(
          and(eq(debugFrame.sessionId, session.id), gt(debugFrame.at, new Date(now.getTime() - MINUTE_MS))),
        );
      if ((recent?.n ?? 0) >= DEBUG_MAX_FRAMES_PER_MINUTE) {
        throw new ApiError(ErrorCode.DEBUG_RATE_LIMITED, { max: DEBUG_MAX_FRAMES_PER_MINUTE });
      }
      if (!this.isOnline(session.gatewayId)) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
      const expiresAt = new Date(now.getTime() + IDLE_MS);
      const [frame] = await tx
        .insert(debugFrame)
        .values({
          sessionId: session.id,
          gatewayId: session.gatewayId,
          companyId: session.companyId,
          employeeId: caller.employeeId,
          at: now,
          port: input.port,
          requestHex,
          write: out.write,
        })
        .returning({ id: debugFrame.id });
      await tx
        .update(debugSession)
        .set({ lastFrameAt: now, expiresAt })
        .where(eq(debugSession.id, session.id));
      return { expired: false as const, frameId: frame!.id, sn: row.sn, expiresAt };
    });
    // Outside the transaction that marked it, so that the expiry is kept.
    if (claimed.expired) throw new ApiError(ErrorCode.DEBUG_SESSION_ENDED);

    const result = await this.exchange(claimed.sn, {
      port: input.port,
      hex: Buffer.from(out.bytes).toString('hex'),
      timeoutMs: input.timeoutMs ?? DEBUG_DEFAULT_TIMEOUT_MS,
    });
    await this.db
      .update(debugFrame)
      .set({
        responseHex: result.responseHex,
        rttMs: result.rttMs,
        timeout: result.timeout,
        error: result.error,
      })
      .where(eq(debugFrame.id, claimed.frameId));
    note({
      after: {
        sessionId: input.sessionId,
        port: input.port,
        requestHex,
        write: out.write,
        confirmWrite: input.confirmWrite ?? false,
        responseHex: result.responseHex,
        timeout: result.timeout,
        rttMs: result.rttMs,
        ...(result.error ? { error: result.error } : {}),
      },
    });
    if (result.fail) throw result.fail;
    const [view] = await this.frameRows(eq(debugFrame.id, claimed.frameId), 1, 0, lang);
    return { frame: view!, expiresAt: claimed.expiresAt.toISOString() };
  }

  /** Sends `debug_frame` and reads the answer; a refusal or send failure comes back as `fail`. */
  private async exchange(
    sn: string,
    params: { port: DebugPort; hex: string; timeoutMs: number },
  ): Promise<{
    responseHex: string | null;
    rttMs: number | null;
    timeout: boolean;
    error: DebugFrameErrorRecord | null;
    fail?: ApiError;
  }> {
    const devices = this.devices();
    const offline = { responseHex: null, rttMs: null, timeout: false, error: { kind: 'offline' as const } };
    if (!devices) return { ...offline, fail: new ApiError(ErrorCode.DEVICE_OFFLINE) };
    const started = performance.now();
    let reply: Awaited<ReturnType<DeviceService['commands']['send']>>;
    try {
      reply = await devices.commands.send(sn, 'debug_frame', params);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === ErrorCode.DEVICE_SEND_FAILED && err.detail === NO_REPLY) {
        return { responseHex: null, rttMs: null, timeout: true, error: { kind: 'noReply' } };
      }
      if (err.code === ErrorCode.DEVICE_OFFLINE) return { ...offline, fail: err };
      return {
        responseHex: null,
        rttMs: null,
        timeout: false,
        error: { kind: 'sendFailed', detail: err.detail ?? String(err.code) },
        fail: err,
      };
    }
    const rttMs = Math.round(performance.now() - started);
    if (!reply.ok) {
      const text = reply.error ?? '';
      return {
        responseHex: null,
        rttMs,
        timeout: false,
        error: { kind: 'ems', text },
        fail: new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, text || undefined),
      };
    }
    const parsed = debugFrameResult.safeParse(reply.result);
    if (!parsed.success) return { responseHex: null, rttMs, timeout: false, error: { kind: 'badReply' } };
    if (parsed.data.hex === null) return { responseHex: null, rttMs: null, timeout: true, error: null };
    return {
      responseHex: storedHex(Buffer.from(parsed.data.hex, 'hex')),
      rttMs,
      timeout: false,
      error: null,
    };
  }

  /** Ends the caller's open session `sessionId`; answers its gateway. 3044 when none. */
  async close(caller: DebugCaller, sessionId: string): Promise<{ gatewayId: number }> {
    const now = new Date(this.now());
    const [row] = await this.db
      .update(debugSession)
      .set({ closedAt: now, closeReason: 'closed' })
      .where(
        and(
          eq(debugSession.id, sessionId),
          eq(debugSession.employeeId, caller.employeeId),
          isNull(debugSession.closedAt),
          gt(debugSession.expiresAt, now),
        ),
      )
      .returning({ gatewayId: debugSession.gatewayId });
    if (!row) throw new ApiError(ErrorCode.DEBUG_SESSION_ENDED);
    return row;
  }

  /** The frames sent through gateway `gatewayId` (every session), newest first. 3030. */
  async frames(
    scope: CompanyScope,
    query: { gatewayId: number; pageNum: number; pageSize: number },
    lang: Lang,
  ): Promise<Page<DebugFrame>> {
    const gateway = await this.requireGateway(scope, query.gatewayId);
    // The frames of the gateway while it belonged to a company in sight (a gateway moved in
    // from another company does not bring that company's frames along).
    const where = and(eq(debugFrame.gatewayId, gateway.id), inScope(scope, debugFrame.companyId))!;
    const [total] = await this.db.select({ n: count() }).from(debugFrame).where(where);
    const list = await this.frameRows(where, query.pageSize, (query.pageNum - 1) * query.pageSize, lang);
    return { list, total: Number(total?.n ?? 0) };
  }

  private async frameRows(where: SQL, limit: number, offset: number, lang: Lang): Promise<DebugFrame[]> {
    const rows = await this.db
      .select({
        id: debugFrame.id,
        at: debugFrame.at,
        by: employee.name,
        port: debugFrame.port,
        requestHex: debugFrame.requestHex,
        responseHex: debugFrame.responseHex,
        rttMs: debugFrame.rttMs,
        timeout: debugFrame.timeout,
        write: debugFrame.write,
        error: debugFrame.error,
      })
      .from(debugFrame)
      .innerJoin(employee, eq(employee.id, debugFrame.employeeId))
      .where(where)
      .orderBy(desc(debugFrame.at), desc(debugFrame.id))
      .limit(limit)
      .offset(offset);
    return rows.map((r) => frameView(r, lang));
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Transparent debugging: sessions and frames (plugin `ess-services`; modules/debug). */
    debugSessions: DebugService;
  }
}
