/**
 * Delivery of ToU schemes to the sites' EMS (issue 6 item 4; docs/device-protocol.md
 * `set_tou_plan`): one `tou_push` row per site that runs a scheme says which scheme and version
 * the site should run and how its delivery went:
 *
 *   pending → sent → applied (the EMS answered ok; `applied_at`)
 *                  ↘ failed  (the EMS refused: its error text; no reply: 'timeout'; the send
 *                             itself failed: the error)
 *
 * A row is pending while the site's gateway is offline or has never connected. Sends happen
 * when a scheme the site runs is saved, when sites are assigned, when the site's time zone
 * changes (part of the params), on the `push` call (which waits for the reply), whenever the
 * site's gateway comes online or announces itself online again (the scheme is sent even when it
 * was applied: an EMS that lost it — the demo fleet keeps it in memory — gets it back), and at
 * start for every row not applied (rows left `sent` by a previous run are pending again: no
 * command of that run is out any more). Failed rows go out again at the next of these; nothing is
 * dropped silently.
 *
 * One send per site at a time (in this process): a request while one is out waits for it and
 * then looks again at what is due. Each send bumps the row's `attempt`; its reply settles the
 * row only while the row is still `sent` for the same scheme, version and attempt. So a late
 * reply to another scheme's send, to an older version, or to a send that timed out changes
 * nothing. A send reads the site's scheme and time zone and marks the row `sent` in one
 * transaction holding share locks on the site and the scheme, so a save or an assignment either
 * comes before it (and is what goes out) or after it (and moves the row back to pending, which
 * its reply then leaves alone); a row never moves back to an older version.
 *
 * The site's gateway is its device without a gateway of its own, an EMS first (lowest id).
 * Background sends never throw: failures are stored on the row and logged.
 */

import {
  type CommandName,
  ErrorCode,
  type SetTouPlanParams,
  type TouPushRow,
  type TouPushState,
} from '@ess/contract';
import { and, asc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type CompanyScope, inScope } from '../access/company-scope';
import type { Db } from '../core/db/database';
import { device, site, touPush, touScheme } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import { NO_REPLY } from './commands';
import type { DeviceService } from './device-service';

type GatewayRecord = Pick<typeof device.$inferSelect, 'id' | 'sn' | 'type' | 'online' | 'lastSeenAt'>;
type SchemeRecord = typeof touScheme.$inferSelect;

/** The site's gateway: an EMS first, then any other device without a gateway; lowest id first. */
export function siteGateway<T extends Pick<GatewayRecord, 'id' | 'type'>>(gateways: readonly T[]): T | null {
  const sorted = [...gateways].sort((a, b) => a.id - b.id);
  return sorted.find((g) => g.type === 'ems') ?? sorted[0] ?? null;
}

/** Rows not applied at their scheme's current version: what the start sends again. */
const notApplied = or(
  ne(touPush.state, 'applied'),
  sql`${touPush.pushedVersion} IS DISTINCT FROM ${touPush.schemeVersion}`,
);

/**
 * How one delivery runs. `force`: send even when the row is applied at the current version (the
 * gateway came online, the time zone changed, the `push` call); `manual`: the `push` call, which
 * throws the outcome's code.
 */
interface SendMode {
  manual: boolean;
  force: boolean;
}

/** What a send claimed in its transaction: the scheme and zone it sends, and its attempt. */
interface Claim {
  scheme: SchemeRecord;
  timezone: string;
  /** The attempt marked `sent`; null when nothing goes out (not due, or the gateway is offline). */
  attempt: number | null;
}

export class TouPushService {
  private devices: DeviceService | null = null;
  private unlisten: (() => void) | null = null;
  private closed = false;
  /** Rows left `sent` by the previous run set back to pending: once, before any send. */
  private recovery: Promise<void> | null = null;
  /** Background sends still running (awaited by tests through `settled`). */
  private readonly running = new Set<Promise<unknown>>();
  /** Per site: the end of the last send queued (one send per site at a time). */
  private readonly tails = new Map<number, Promise<void>>();
  /** Per site: a background request waiting for its turn; later requests join it. */
  private readonly waiting = new Map<number, SendMode>();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Starts (or re-targets) delivery through `devices`: listens for gateways coming online and
   * sends what is due at once. The first start also sets rows a previous run left `sent` back to
   * pending. Without devices every row stays pending.
   */
  start(devices: DeviceService | null): void {
    this.unlisten?.();
    this.devices = devices;
    this.closed = false;
    const resend = (change: { siteId: number; online: boolean }) => {
      if (change.online) this.request(change.siteId, { manual: false, force: true });
    };
    this.unlisten = devices?.listen({ onStatus: resend, onReannounce: resend }) ?? null;
    this.recovery ??= this.recoverSent();
    this.background(this.recovery.then(() => (devices ? this.resendDue() : undefined)));
  }

  /** Stops listening; sends still waiting for a reply end with the command service. */
  stop(): void {
    this.closed = true;
    this.unlisten?.();
    this.unlisten = null;
  }

  /** Resolves once every background send started so far has finished (tests). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Sends the sites' schemes in the background when due (after a save or an assignment). */
  deliver(siteIds: readonly number[]): void {
    for (const siteId of siteIds) this.request(siteId, { manual: false, force: false });
  }

  /**
   * The site's time zone changed (registry): the scheme goes out again with the new zone. The
   * row is pending until the EMS applies it; a reply to a send with the old zone is ignored.
   */
  timezoneChanged(siteId: number): void {
    this.background(
      this.db
        .update(touPush)
        .set({ state: 'pending', reason: null, requestedAt: new Date() })
        .where(eq(touPush.siteId, siteId))
        .then(() => this.request(siteId, { manual: false, force: true })),
    );
  }

  /**
   * The `push` call: sends the site's scheme now (after a send already out for the site) and
   * waits for the EMS's reply; answers the row. Errors: 3036 (checked by the caller), 3060 the
   * site runs no scheme, 3033 no gateway or it never connected, 3034 gateway offline (the row is
   * left as it was and goes out at the reconnect), 3035 the send failed, was refused or timed
   * out (the row says why).
   */
  async pushNow(siteId: number): Promise<TouPushRow> {
    await this.exclusive(siteId, () => this.send(siteId, { manual: true, force: true }));
    const [row] = await this.statusOfSites([siteId]);
    return row!;
  }

  /** Delivery rows of the given sites (those that run a scheme), by site id. */
  async statusOfSites(siteIds: readonly number[]): Promise<TouPushRow[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.db
      .select({
        siteId: site.id,
        siteName: site.name,
        currentVersion: touScheme.version,
        push: touPush,
      })
      .from(site)
      .innerJoin(touScheme, eq(touScheme.id, site.touSchemeId))
      .leftJoin(touPush, eq(touPush.siteId, site.id))
      .where(inArray(site.id, [...siteIds]))
      .orderBy(asc(site.id));
    const gateways = await this.gatewaysOf(rows.map((r) => r.siteId));
    return rows.map((r) => {
      const gateway = siteGateway(gateways.filter((g) => g.siteId === r.siteId));
      const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
      return {
        siteId: r.siteId,
        siteName: r.siteName,
        gatewaySn: gateway?.sn ?? null,
        gatewayOnline: gateway ? this.isOnline(gateway) : false,
        schemeVersion: r.push?.schemeVersion ?? r.currentVersion,
        pushedVersion: r.push?.pushedVersion ?? null,
        state: (r.push?.state ?? 'pending') as TouPushState,
        reason: r.push?.reason ?? null,
        requestedAt: iso(r.push?.requestedAt),
        sentAt: iso(r.push?.sentAt),
        appliedAt: iso(r.push?.appliedAt),
      };
    });
  }

  /** Delivery rows of the sites in `scope` running scheme `schemeId`. */
  async statusOfScheme(scope: CompanyScope, schemeId: number): Promise<TouPushRow[]> {
    const sites = await this.db
      .select({ id: site.id })
      .from(site)
      .where(and(eq(site.touSchemeId, schemeId), inScope(scope, site.companyId)));
    return this.statusOfSites(sites.map((s) => s.id));
  }

  private gatewaysOf(siteIds: number[]) {
    if (siteIds.length === 0) return Promise.resolve([]);
    return this.db
      .select({
        id: device.id,
        siteId: device.siteId,
        sn: device.sn,
        type: device.type,
        online: device.online,
        lastSeenAt: device.lastSeenAt,
      })
      .from(device)
      .where(and(inArray(device.siteId, siteIds), isNull(device.gatewayId)));
  }

  private isOnline(gateway: Pick<GatewayRecord, 'id' | 'online'>): boolean {
    return this.devices ? this.devices.tracker.isOnline(gateway.id) : gateway.online;
  }

  /** Rows a previous run left `sent` are pending again: no command of that run is out any more. */
  private async recoverSent(): Promise<void> {
    const rows = await this.db
      .update(touPush)
      .set({ state: 'pending' })
      .where(eq(touPush.state, 'sent'))
      .returning({ siteId: touPush.siteId });
    if (rows.length)
      this.log.info({ sites: rows.length }, 'ToU pushes left sent by the last run are pending');
  }

  /** Sends every row not applied at its scheme's current version. */
  private async resendDue(): Promise<void> {
    const due = await this.db.select({ siteId: touPush.siteId }).from(touPush).where(notApplied);
    for (const row of due) this.request(row.siteId, { manual: false, force: false });
  }

  private background(task: Promise<unknown>): void {
    const tracked = task.catch((err: unknown) => {
      if (!this.closed) this.log.error({ err }, 'ToU push failed unexpectedly');
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /**
   * Queues a background send for the site. A request while another waits for its turn joins it
   * (forced if either is): the waiting send looks at what is due when it runs.
   */
  private request(siteId: number, mode: SendMode): void {
    const queued = this.waiting.get(siteId);
    if (queued) {
      queued.force ||= mode.force;
      return;
    }
    const entry = { ...mode };
    this.waiting.set(siteId, entry);
    this.background(
      this.exclusive(siteId, () => {
        this.waiting.delete(siteId);
        return this.send(siteId, entry);
      }),
    );
  }

  /**
   * Runs `task` once every send queued before it for the site has finished (and, for the first,
   * once the start's recovery of rows left `sent` is done, so that it cannot undo this send).
   */
  private exclusive<T>(siteId: number, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(siteId) ?? (this.recovery ?? Promise.resolve()).catch(() => undefined);
    const result = before.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(siteId, tail);
    void tail.then(() => {
      if (this.tails.get(siteId) === tail) this.tails.delete(siteId);
    });
    return result;
  }

  /**
   * Reads what the site should run and marks its row `sent` when a send is due and the gateway
   * is online, in one transaction with share locks on the site and its scheme (a save, an
   * assignment or a time-zone change waits for it, or it for them). The row is created, or moved
   * to the site's scheme or a newer version of it — never back.
   */
  private claim(siteId: number, mode: SendMode, online: boolean): Promise<Claim | null> {
    return this.db.transaction(async (tx) => {
      const [target] = await tx
        .select({ timezone: site.timezone, schemeId: site.touSchemeId })
        .from(site)
        .where(eq(site.id, siteId))
        .for('share');
      if (target?.schemeId == null) return null;
      const [scheme] = await tx
        .select()
        .from(touScheme)
        .where(eq(touScheme.id, target.schemeId))
        .for('share');
      if (!scheme) return null;
      const now = new Date();
      await tx
        .insert(touPush)
        .values({ siteId, schemeId: scheme.id, schemeVersion: scheme.version, requestedAt: now })
        .onConflictDoUpdate({
          target: touPush.siteId,
          set: {
            schemeId: scheme.id,
            schemeVersion: scheme.version,
            // What was last sent of another scheme says nothing about this one.
            pushedVersion: sql`CASE WHEN ${touPush.schemeId} = ${scheme.id} THEN ${touPush.pushedVersion} END`,
            state: 'pending',
            reason: null,
            requestedAt: now,
          },
          setWhere: sql`${touPush.schemeId} <> ${scheme.id} OR ${touPush.schemeVersion} < ${scheme.version}`,
        });
      const [row] = await tx.select().from(touPush).where(eq(touPush.siteId, siteId));
      const due = mode.force || row?.state !== 'applied' || row.pushedVersion !== scheme.version;
      if (!due || !online) return { scheme, timezone: target.timezone, attempt: null };
      const [marked] = await tx
        .update(touPush)
        .set({
          state: 'sent',
          pushedVersion: scheme.version,
          attempt: sql`${touPush.attempt} + 1`,
          sentAt: now,
          reason: null,
        })
        .where(
          and(
            eq(touPush.siteId, siteId),
            eq(touPush.schemeId, scheme.id),
            eq(touPush.schemeVersion, scheme.version),
          ),
        )
        .returning({ attempt: touPush.attempt });
      return { scheme, timezone: target.timezone, attempt: marked?.attempt ?? null };
    });
  }

  /**
   * One delivery for a site (run through `exclusive`). In the background the outcome is only
   * stored; `manual` (the push call) also throws it.
   */
  private async send(siteId: number, mode: SendMode): Promise<void> {
    const gateway = siteGateway(await this.gatewaysOf([siteId]));
    const online = Boolean(gateway && this.devices && this.isOnline(gateway));
    const claim = await this.claim(siteId, mode, online);
    if (!claim) {
      if (mode.manual) throw new ApiError(ErrorCode.NO_EMS_TIME_PERIOD_CONFIG);
      return;
    }
    if (!gateway || (!this.isOnline(gateway) && gateway.lastSeenAt === null)) {
      if (mode.manual) throw new ApiError(ErrorCode.DEVICE_NOT_CONNECTED);
      return;
    }
    if (!online) {
      if (mode.manual) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
      return;
    }
    const { scheme, attempt } = claim;
    // Not due (applied at this version), or a save or reassignment came first: nothing to send.
    if (attempt === null) return;
    const version = scheme.version;
    const params: SetTouPlanParams = {
      schemeId: scheme.id,
      version,
      timezone: claim.timezone,
      scheme: scheme.document,
    };
    const name: CommandName = 'set_tou_plan';
    let failure: string | null = null;
    let offline = false;
    try {
      const reply = await this.devices!.commands.send(gateway.sn, name, params);
      if (!reply.ok) failure = reply.error?.trim() || 'refused';
    } catch (err) {
      if (err instanceof ApiError && err.code === ErrorCode.DEVICE_OFFLINE) offline = true;
      else if (err instanceof ApiError && err.detail === NO_REPLY) failure = 'timeout';
      else failure = (err instanceof ApiError ? err.detail : undefined) ?? (err as Error).message;
    }
    // This send's row only: still sent, same scheme, version and attempt.
    const settle = and(
      eq(touPush.siteId, siteId),
      eq(touPush.schemeId, scheme.id),
      eq(touPush.pushedVersion, version),
      eq(touPush.attempt, attempt),
      eq(touPush.state, 'sent'),
    );
    const context = { siteId, sn: gateway.sn, schemeId: scheme.id, version, attempt };
    if (offline) {
      // Went offline between the check and the send: it goes out at the reconnect.
      await this.db.update(touPush).set({ state: 'pending' }).where(settle);
      if (mode.manual) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
      return;
    }
    if (failure === null) {
      const settled = await this.db
        .update(touPush)
        .set({ state: 'applied', appliedAt: new Date(), reason: null })
        .where(settle)
        .returning({ siteId: touPush.siteId });
      this.log.info(
        { ...context, recorded: settled.length > 0 },
        settled.length ? 'ToU scheme applied by the EMS' : 'ToU reply to a superseded send ignored',
      );
      return;
    }
    await this.db
      .update(touPush)
      .set({ state: 'failed', reason: failure.slice(0, 500) })
      .where(settle);
    this.log.warn({ ...context, reason: failure }, 'ToU push failed');
    if (mode.manual) throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, failure);
  }
}
