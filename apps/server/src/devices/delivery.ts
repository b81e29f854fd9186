/**
 * Desired-state delivery to devices (design §2 "device commands"; docs/device-protocol.md
 * "Delivery of desired state"): per kind and target one `device_delivery` row says what the
 * target should run — `desired` (the kind's identity of the document, e.g. ToU `{schemeId}`) at
 * `version` — and how its delivery went:
 *
 *   pending → sent → applied (the device answered ok; `settled_at`)
 *                  ↘ failed  (`reason`: the device's refusal, or 'refused' when it gave none;
 *                             'timeout' when no reply came in time; the send error)
 *
 * A kind plugs in with {@link DeliveryKind}: its name ('tou'), the command (`set_tou_plan`), how
 * to read the desired document of a target inside the claim transaction (locking what a save
 * changes, so a save either precedes the send and is what goes out, or follows it and moves the
 * row back to pending) and how to read the reply. A target is a site (`site:<id>`, sent to the
 * site's gateway: its EMS first) or a device (`device:<id>`, sent to its gateway).
 *
 * Claim, send, settle:
 *  - **Claim** (one transaction): the kind reads the desired document; the row is created or
 *    moved to it (never back to an older version of the same document); then one atomic
 *    `UPDATE … WHERE` lease free AND due marks it `sent`, bumps `attempt`, stores the new
 *    command's id and takes the lease (`claimed_by` = this instance, `lease_until` = now + reply
 *    timeout + grace). Two instances (or two requests) racing for a target: one UPDATE wins, the
 *    other matches no row and sends nothing. Due: pending, failed (not for a follow-up, see
 *    below), a `sent` row whose lease ran out, another version than the last sent, or a resend
 *    asked for (`resend_after` later than `sent_at`).
 *  - **Send** through the command service with the stored id, only while the target's gateway is
 *    online (otherwise the row stays pending and goes out at the reconnect).
 *  - **Settle**: the reply with that id — received by this instance, or by any other (the
 *    broker hands replies to one instance; `CommandService.onUnmatchedReply`) — settles the row
 *    only while it is `sent` with that command id; either way it frees the lease. So a late reply
 *    to an older attempt, an older version or another document changes nothing. No reply in the
 *    reply timeout: failed 'timeout'. The gateway gone offline meanwhile: pending again. A
 *    sender waiting for a reply that another instance settled notices it on the row (one query
 *    for all its waiting sends every `pollEveryMs`, 250 ms) and stops waiting: the operator's
 *    push answers the outcome whichever instance the reply reached.
 *  - After a send ends, the target is looked at again (follow-up): a save, a time-zone change or
 *    a reconnect during the send is sent now; a failed row is not retried in a loop.
 *  - **Resends**: a gateway that comes online, or announces itself online again, gets every
 *    target of its site resent unless a send started after its birth (`resend_after`): the
 *    birth's `ts` when within 5 min of the server's clock — the same for every instance that
 *    receives the birth, however late one handles it, so they send once between them — else the
 *    drop (a connection), the receipt (a live reannounce) or when the connection was first
 *    recorded (a retained birth at start: an instance (re)starting beside others sends nothing
 *    for an unchanged connection). `sendNow` (the operator's push) resends and waits; `start`
 *    sends every row not applied; `sweep` (every `sweepEveryMs`, and at start) frees leases that
 *    ran out — their instance died with the command out — and sends again. A failed row goes out
 *    again at the next of these or at a save; it is never retried in a loop.
 *
 * One send per target at a time: across instances by the lease, in this process also by a queue
 * (a request while a send is out waits for it, then looks again at what is due).
 * Every change of a row's state is published to the `onChange` listeners (the live hub's
 * `delivery:<kind>` channel, scoped by the site's company; contract api/live.ts).
 *
 * Background sends never throw: failures are stored on the row and logged. `sendNow` throws:
 * the kind's `nothingToSend` code when the target has no desired document, 3033 no gateway or it
 * never connected, 3034 gateway offline (the row goes out at the reconnect), 3035 the send
 * failed, was refused or timed out (detail: the row's reason).
 */

import { hostname } from 'node:os';
import {
  type CommandName,
  type DeliveryKindName,
  type DeliveryState,
  ErrorCode,
  type ErrorCodeValue,
  type LiveDeliveryMessage,
  MAX_CLOCK_SKEW_MS,
  type ReplyPayload,
} from '@ess/contract';
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { device, deviceConnectionLog, deviceDelivery, site } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import { NO_REPLY, newCommandId, STOPPING } from './commands';
import type { StatusChange } from './connection-tracker';
import type { DeviceService } from './device-service';

/** A transaction of `Db`, as handed to {@link DeliveryKind.readDesired}. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DeliveryRecord = typeof deviceDelivery.$inferSelect;

/** A site (its gateway receives) or a device (its gateway receives for it). */
export interface DeliveryTarget {
  siteId: number;
  deviceId: number | null;
}

/** The row key of a target: `site:<id>` or `device:<id>`. */
export function targetKey(target: DeliveryTarget): string {
  return target.deviceId === null ? `site:${target.siteId}` : `device:${target.deviceId}`;
}

/** What a target should run now, as its kind reads it. */
export interface DesiredDocument {
  /** Grows with every change of the document; the device acknowledges it. */
  version: number;
  /**
   * The document's identity stored on the row and sent in live messages (keep it small: ToU
   * `{schemeId}`). Another identity than the last sent resets `sent_version`.
   */
  desired: Record<string, unknown>;
  /** The command's params. */
  params: Record<string, unknown>;
}

/** How one kind of desired state is delivered. */
export interface DeliveryKind {
  readonly name: DeliveryKindName;
  readonly command: CommandName;
  /** What `sendNow` throws when the target has nothing to run (ToU: 3060). */
  readonly nothingToSend: ErrorCodeValue;
  /**
   * Reads, inside the claim transaction, what `target` should run; locks (FOR SHARE) the rows a
   * concurrent change writes. null: nothing (the row is left as it is and nothing is sent).
   */
  readDesired(tx: Tx, target: DeliveryTarget): Promise<DesiredDocument | null>;
  /** The reply's outcome: null applied, else the failure reason. Default: ok, or `error` / 'refused'. */
  interpretReply?(reply: ReplyPayload, sent: { version: number | null }): string | null;
}

/** A row's change of state with the company its site belongs to (for scoping). */
export interface DeliveryChange {
  companyId: number;
  message: LiveDeliveryMessage;
}

/** Where delivery changes are published (the live hub). */
export interface DeliveryPublisher {
  publishDelivery(companyId: number, message: LiveDeliveryMessage): void;
}

export interface DeliveryOptions {
  /** This instance in `claimed_by` (default `host:pid:random`). */
  instanceId?: string;
  /** The clock (ms since the epoch) of sent, settled, lease and resend times; tests inject one. */
  now?: () => number;
  /** Lease beyond the reply timeout before another instance may take the target (ms; 5 s). */
  leaseGraceMs?: number;
  /** How often leases that ran out are freed and their targets sent again (ms; 15 s). */
  sweepEveryMs?: number;
  /**
   * How often the sends waiting for a reply are checked (one query for all of them) for another
   * instance having settled them (ms; 250).
   */
  pollEveryMs?: number;
}

type GatewayRecord = Pick<typeof device.$inferSelect, 'id' | 'sn' | 'type' | 'online' | 'lastSeenAt'>;

/** The site's gateway: an EMS first, then any other device without a gateway; lowest id first. */
export function siteGateway<T extends Pick<GatewayRecord, 'id' | 'type'>>(gateways: readonly T[]): T | null {
  const sorted = [...gateways].sort((a, b) => a.id - b.id);
  return sorted.find((g) => g.type === 'ems') ?? sorted[0] ?? null;
}

/**
 * `manual`: `sendNow` (throws its outcome); `force`: due whatever the row says (the push);
 * `since`: when the request was made (ms) — a failed row is due only when its last send started
 * before (so a request that waited for a send of the same version does not repeat it); absent for
 * a follow-up after a send ended, for which a failed row is not due at all.
 */
interface SendMode {
  manual: boolean;
  force: boolean;
  since?: number;
}

interface Claim {
  rowId: number;
  doc: DesiredDocument;
  /** The attempt marked `sent`; null when nothing goes out. */
  attempt: number | null;
  commandId: string | null;
  /** Nothing went out because another send (here or elsewhere) holds the target. */
  held: boolean;
}

type Outcome =
  | { kind: 'reply'; reply: ReplyPayload }
  | { kind: 'error'; err: unknown }
  | { kind: 'elsewhere' };

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** The delivery message of a row (contract api/live.ts). */
export function deliveryMessage(row: DeliveryRecord): LiveDeliveryMessage {
  return {
    type: 'delivery',
    kind: row.kind as DeliveryKindName,
    siteId: row.siteId,
    deviceId: row.deviceId,
    desired: row.desired,
    version: row.version,
    sentVersion: row.sentVersion,
    state: row.state as DeliveryState,
    attempt: row.attempt,
    reason: row.reason,
    requestedAt: row.requestedAt.toISOString(),
    sentAt: iso(row.sentAt),
    settledAt: iso(row.settledAt),
  };
}

const defaultReply = (reply: ReplyPayload): string | null =>
  reply.ok ? null : reply.error?.trim() || 'refused';

export class DeliveryService {
  readonly instanceId: string;
  private devices: DeviceService | null = null;
  private unlisten: Array<() => void> = [];
  /** Kept after `stop` (see there); replaced at the next `start`. */
  private unlistenReplies: (() => void) | null = null;
  private closed = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  /** Leases that ran out freed (and rows left `sent` without one set pending) once, before any send. */
  private recovery: Promise<DeliveryTarget[]> | null = null;
  private readonly running = new Set<Promise<unknown>>();
  /** Sends of this instance waiting for their reply, by command id (see `watch`). */
  private readonly watched = new Map<string, { rowId: number; elsewhere: () => void }>();
  private watchTimer: NodeJS.Timeout | null = null;
  /** Per target key: the end of the last send queued (one send per target at a time). */
  private readonly tails = new Map<string, Promise<void>>();
  /** Per target key: a background request waiting for its turn; later requests join it. */
  private readonly waiting = new Map<string, SendMode>();
  private readonly listeners = new Set<(change: DeliveryChange) => void>();
  /** Per gateway: when this instance last saw it go offline (ms). */
  private readonly offlineAt = new Map<number, number>();
  private readonly now: () => number;
  private readonly leaseGraceMs: number;
  private readonly sweepEveryMs: number;
  private readonly pollEveryMs: number;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    readonly kind: DeliveryKind,
    options: DeliveryOptions = {},
  ) {
    this.instanceId =
      options.instanceId ?? `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
    this.now = options.now ?? Date.now;
    this.leaseGraceMs = options.leaseGraceMs ?? 5000;
    this.sweepEveryMs = options.sweepEveryMs ?? 15_000;
    this.pollEveryMs = options.pollEveryMs ?? 250;
  }

  /**
   * Starts (or re-targets) delivery through `devices`: listens for gateways coming online and for
   * replies other instances' commands got here, and sends what is due. The first start also frees
   * leases that ran out. Without devices every row stays as it is (pending rows pending).
   */
  start(devices: DeviceService | null): void {
    this.detach();
    this.unlistenReplies?.();
    this.unlistenReplies = null;
    this.devices = devices;
    this.closed = false;
    if (devices) {
      this.unlisten.push(
        devices.listen({
          onStatus: (change) => {
            if (!change.online) this.offlineAt.set(change.deviceId, change.at);
            else this.background(this.connected(change));
          },
          // Online again without having been seen offline: resend unless a send started since.
          onReannounce: (change) => this.background(this.reannounced(change)),
        }),
      );
      this.unlistenReplies = devices.commands.onUnmatchedReply((reply) => this.onReply(reply));
    }
    this.recovery ??= this.freeExpired();
    this.background(this.recovery.then(() => (devices ? this.resendDue() : undefined)));
    this.sweepTimer = setInterval(() => this.background(this.sweep()), this.sweepEveryMs);
    this.sweepTimer.unref();
  }

  /**
   * Stops listening for gateways and sweeping, and sends nothing more; sends still waiting for a
   * reply end with the command service. Replies other instances' commands got here are still
   * settled (the listener stays until the next `start`): until its broker connection closes, an
   * instance being stopped still receives its share of the replies, which would be lost otherwise.
   */
  stop(): void {
    this.closed = true;
    this.detach();
  }

  private detach(): void {
    for (const off of this.unlisten) off();
    this.unlisten = [];
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  /** Resolves once every background task started so far has finished (tests). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Calls `listener` with every change of a row's state; answers the unsubscribe. */
  onChange(listener: (change: DeliveryChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Publishes every change to `publisher` (the live hub); answers the unsubscribe. */
  publishTo(publisher: DeliveryPublisher): () => void {
    return this.onChange((c) => publisher.publishDelivery(c.companyId, c.message));
  }

  /**
   * The targets' desired documents changed (written by the kind's own storage, e.g. a save): their
   * rows are published as they are now and sent in the background when due.
   */
  changed(targets: readonly DeliveryTarget[]): void {
    if (targets.length === 0) return;
    const since = this.now();
    this.background(this.announce(targets).then(() => this.request(targets, since)));
  }

  /**
   * Sends the targets in the background when due; a failed row is due when its last send started
   * before `since` (the time of the change that asks for the send; default now).
   */
  request(targets: readonly DeliveryTarget[], since = this.now()): void {
    for (const target of targets) this.enqueue(target, { manual: false, force: false, since });
  }

  /**
   * Something the document's params depend on changed outside it (ToU: the site's time zone):
   * the rows are pending until the device applies it again; a reply to an earlier send is ignored.
   */
  reset(targets: readonly DeliveryTarget[]): void {
    if (targets.length === 0) return;
    const keys = targets.map(targetKey);
    const since = this.now();
    this.background(
      this.db
        .update(deviceDelivery)
        .set({ state: 'pending', reason: null, requestedAt: new Date(this.now()) })
        .where(and(eq(deviceDelivery.kind, this.kind.name), inArray(deviceDelivery.target, keys)))
        .returning()
        .then(async (rows) => {
          await this.publish(rows);
          this.request(targets, since);
        }),
    );
  }

  /**
   * A gateway of the site came online: every target of the site is sent again unless a send
   * started after the gateway's birth (see {@link bornAt}) — then it was a send on this
   * connection: another instance handled the same birth first, however much earlier. A birth whose
   * time cannot be trusted, or a gateway back without one (any message counts): unless a send
   * started after the gateway was last seen offline (by this instance, or by any: the connection
   * log). Never seen offline: resend unless sent.
   */
  private async connected(change: StatusChange): Promise<void> {
    const born = this.bornAt(change);
    if (born !== null) {
      this.resendSite(change.siteId, born);
      return;
    }
    const [logged] = await this.db
      .select({ ts: deviceConnectionLog.ts })
      .from(deviceConnectionLog)
      .where(and(eq(deviceConnectionLog.deviceId, change.deviceId), eq(deviceConnectionLog.online, false)))
      .orderBy(desc(deviceConnectionLog.ts))
      .limit(1);
    this.resendSite(
      change.siteId,
      Math.max(this.offlineAt.get(change.deviceId) ?? 0, logged?.ts.getTime() ?? 0),
    );
  }

  /**
   * A gateway already online announced itself online (a birth while this instance held it
   * online): every target of its site is sent again unless a send started after the birth (see
   * {@link bornAt}). A birth whose time cannot be trusted: a live one, unless a send started since
   * it was received; a retained one (this instance started while the gateway was online and its
   * birth is older than the trust window), unless a send started after the connection was first
   * recorded (the first `online` entry of the connection log after its last `offline` one, written
   * before any send for it). So an instance (re)starting beside others sends nothing for an
   * unchanged connection.
   */
  private async reannounced(change: StatusChange): Promise<void> {
    const born = this.bornAt(change);
    if (born !== null || !change.announced?.retained) {
      this.resendSite(change.siteId, born ?? this.now());
      return;
    }
    const log = deviceConnectionLog;
    const [dropped] = await this.db
      .select({ ts: log.ts })
      .from(log)
      .where(and(eq(log.deviceId, change.deviceId), eq(log.online, false)))
      .orderBy(desc(log.ts))
      .limit(1);
    const [connected] = await this.db
      .select({ ts: log.ts })
      .from(log)
      .where(
        and(
          eq(log.deviceId, change.deviceId),
          eq(log.online, true),
          dropped ? gt(log.ts, dropped.ts) : undefined,
        ),
      )
      .orderBy(asc(log.ts))
      .limit(1);
    // No entry (the log was pruned): when the gateway's row last changed state.
    const recorded =
      connected?.ts.getTime() ??
      (
        await this.db
          .select({ at: device.statusChangedAt })
          .from(device)
          .where(eq(device.id, change.deviceId))
      )[0]?.at?.getTime() ??
      0;
    this.resendSite(change.siteId, Math.min(recorded, this.now()));
  }

  /**
   * When the gateway announced itself, as every instance receiving the same birth reads it: the
   * birth's `ts` (the device's clock), at most now — but only when it is within
   * `MAX_CLOCK_SKEW_MS` (5 min) of now. Within that, a birth an instance handles late (it was
   * starting, or its broker session kept the message while it was away) still counts from the
   * same moment; beyond it, a clock that far off (or a birth that old) says nothing: null.
   */
  private bornAt(change: StatusChange): number | null {
    const ts = change.online ? change.announced?.ts : undefined;
    if (ts === undefined) return null;
    const now = this.now();
    return Math.abs(ts - now) <= MAX_CLOCK_SKEW_MS ? Math.min(ts, now) : null;
  }

  /**
   * Every target of the site is sent again unless a send started at or after `since` (ms).
   */
  resendSite(siteId: number, since = this.now()): void {
    const at = new Date(since).toISOString();
    this.background(
      this.db
        .update(deviceDelivery)
        .set({
          resendAfter: sql`GREATEST(coalesce(${deviceDelivery.resendAfter}, ${at}::timestamptz), ${at}::timestamptz)`,
        })
        .where(and(eq(deviceDelivery.kind, this.kind.name), eq(deviceDelivery.siteId, siteId)))
        .returning({ siteId: deviceDelivery.siteId, deviceId: deviceDelivery.deviceId })
        .then((rows) => this.request(rows, since)),
    );
  }

  /**
   * The operator's push: sends the target's document now (after a send already out for it) and
   * waits for the device's reply; answers the row. Errors: see the module comment.
   */
  async sendNow(target: DeliveryTarget): Promise<DeliveryRecord> {
    const deadline = this.now() + this.leaseMs() + this.pollEveryMs;
    for (;;) {
      const held = await this.exclusive(targetKey(target), () =>
        this.send(target, { manual: true, force: true }),
      );
      // Another instance's send holds the target: wait for it to end, then send.
      if (!held || this.now() > deadline) break;
      await this.pause(this.pollEveryMs);
    }
    const [row] = await this.rows([target]);
    if (!row) throw new ApiError(this.kind.nothingToSend);
    return row;
  }

  /** The rows of the given targets (those that exist). */
  async rows(targets: readonly DeliveryTarget[]): Promise<DeliveryRecord[]> {
    if (targets.length === 0) return [];
    return this.db
      .select()
      .from(deviceDelivery)
      .where(
        and(eq(deviceDelivery.kind, this.kind.name), inArray(deviceDelivery.target, targets.map(targetKey))),
      );
  }

  /**
   * Frees leases that ran out (their instance stopped with the command out) — a row still `sent`
   * is pending again — and sends those targets when due. Runs every `sweepEveryMs`; public so that
   * a test can run it now.
   */
  async sweep(): Promise<void> {
    const targets = await this.freeExpired();
    if (this.devices) this.request(targets);
  }

  // ---- internals ---------------------------------------------------------------------------

  private leaseMs(): number {
    return (this.devices?.commands.replyTimeoutMs ?? 10_000) + this.leaseGraceMs;
  }

  private async freeExpired(): Promise<DeliveryTarget[]> {
    const now = new Date(this.now());
    const rows = await this.db
      .update(deviceDelivery)
      .set({
        state: sql`CASE WHEN ${deviceDelivery.state} = 'sent' THEN 'pending' ELSE ${deviceDelivery.state} END`,
        claimedBy: null,
        leaseUntil: null,
      })
      .where(
        and(
          eq(deviceDelivery.kind, this.kind.name),
          or(
            lt(deviceDelivery.leaseUntil, now),
            and(eq(deviceDelivery.state, 'sent'), isNull(deviceDelivery.leaseUntil)),
          ),
        ),
      )
      .returning();
    if (rows.length) {
      this.log.info({ kind: this.kind.name, targets: rows.length }, 'deliveries whose send was lost freed');
      await this.publish(rows);
    }
    return rows;
  }

  /** Every row not applied at its current version: what a start sends. */
  private async resendDue(): Promise<void> {
    const due = await this.db
      .select({ siteId: deviceDelivery.siteId, deviceId: deviceDelivery.deviceId })
      .from(deviceDelivery)
      .where(
        and(
          eq(deviceDelivery.kind, this.kind.name),
          or(
            sql`${deviceDelivery.state} <> 'applied'`,
            sql`${deviceDelivery.sentVersion} IS DISTINCT FROM ${deviceDelivery.version}`,
          ),
        ),
      );
    this.request(due);
  }

  private background(task: Promise<unknown>): void {
    const tracked = task.catch((err: unknown) => {
      if (!this.closed) this.log.error({ err, kind: this.kind.name }, 'delivery failed unexpectedly');
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }

  /** Queues a background send; a request while another waits for its turn joins it. */
  private enqueue(target: DeliveryTarget, mode: SendMode): void {
    const key = targetKey(target);
    const queued = this.waiting.get(key);
    if (queued) {
      if (mode.since !== undefined) queued.since = Math.max(queued.since ?? mode.since, mode.since);
      return;
    }
    const entry = { ...mode };
    this.waiting.set(key, entry);
    this.background(
      this.exclusive(key, () => {
        this.waiting.delete(key);
        return this.send(target, entry);
      }),
    );
  }

  /** Runs `task` once every send queued before it for the target has finished (and the recovery). */
  private exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before =
      this.tails.get(key) ??
      (this.recovery ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      );
    const result = before.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  private async gatewayOf(target: DeliveryTarget): Promise<GatewayRecord | null> {
    const fields = {
      id: device.id,
      sn: device.sn,
      type: device.type,
      online: device.online,
      lastSeenAt: device.lastSeenAt,
    };
    if (target.deviceId !== null) {
      const [own] = await this.db
        .select({ id: device.id, gatewayId: device.gatewayId })
        .from(device)
        .where(eq(device.id, target.deviceId));
      if (!own) return null;
      const [gateway] = await this.db
        .select(fields)
        .from(device)
        .where(eq(device.id, own.gatewayId ?? own.id));
      return gateway ?? null;
    }
    const gateways = await this.db
      .select(fields)
      .from(device)
      .where(and(eq(device.siteId, target.siteId), isNull(device.gatewayId)));
    return siteGateway(gateways);
  }

  /**
   * In one transaction: reads the target's desired document (the kind locks what it reads),
   * creates or moves the row to it (never back to an older version of the same document), and —
   * when the gateway is online, the lease is free and a send is due — marks it `sent` with a new
   * command id and takes the lease.
   */
  private claim(target: DeliveryTarget, mode: SendMode, online: boolean): Promise<Claim | null> {
    const key = targetKey(target);
    const dd = deviceDelivery;
    const mine = and(eq(dd.kind, this.kind.name), eq(dd.target, key));
    return this.db.transaction(async (tx) => {
      const doc = await this.kind.readDesired(tx, target);
      if (!doc) return null;
      const now = new Date(this.now());
      const desired = JSON.stringify(doc.desired);
      await tx
        .insert(dd)
        .values({
          kind: this.kind.name,
          target: key,
          siteId: target.siteId,
          deviceId: target.deviceId,
          version: doc.version,
          desired: doc.desired,
          requestedAt: now,
        })
        .onConflictDoUpdate({
          target: [dd.kind, dd.target],
          set: {
            version: doc.version,
            desired: doc.desired,
            // What was last sent of another document says nothing about this one.
            sentVersion: sql`CASE WHEN ${dd.desired} = excluded.desired THEN ${dd.sentVersion} END`,
            state: 'pending',
            reason: null,
            requestedAt: now,
          },
          setWhere: sql`${dd.desired} <> excluded.desired OR ${dd.version} < excluded.version`,
        });
      const [row] = await tx.select().from(dd).where(mine);
      if (!row) return null;
      const idle = { rowId: row.id, doc, attempt: null, commandId: null };
      if (!online) return { ...idle, held: false };
      const commandId = newCommandId();
      const [marked] = await tx
        .update(dd)
        .set({
          state: 'sent',
          sentVersion: doc.version,
          attempt: sql`${dd.attempt} + 1`,
          commandId,
          claimedBy: this.instanceId,
          leaseUntil: new Date(now.getTime() + this.leaseMs()),
          sentAt: now,
          reason: null,
        })
        .where(
          and(
            mine,
            eq(dd.version, doc.version),
            sql`${dd.desired} = ${desired}::jsonb`,
            or(isNull(dd.leaseUntil), lt(dd.leaseUntil, now)),
            or(
              mode.force ? sql`true` : undefined,
              inArray(dd.state, ['pending', 'sent']),
              mode.since === undefined
                ? undefined
                : and(eq(dd.state, 'failed'), or(isNull(dd.sentAt), lt(dd.sentAt, new Date(mode.since)))),
              sql`${dd.sentVersion} IS DISTINCT FROM ${dd.version}`,
              sql`(${dd.resendAfter} IS NOT NULL AND (${dd.sentAt} IS NULL OR ${dd.sentAt} < ${dd.resendAfter}))`,
            ),
          ),
        )
        .returning({ id: dd.id, attempt: dd.attempt });
      if (!marked) return { ...idle, held: row.leaseUntil !== null && row.leaseUntil > now };
      return { rowId: marked.id, doc, attempt: marked.attempt, commandId, held: false };
    });
  }

  /**
   * One delivery for a target (run through `exclusive`). In the background the outcome is only
   * stored; `manual` also throws it. Answers true when another send held the target (manual
   * waits and tries again).
   */
  private async send(target: DeliveryTarget, mode: SendMode): Promise<boolean> {
    const devices = this.devices;
    const gateway = await this.gatewayOf(target);
    const isOnline = () => Boolean(gateway && devices?.tracker.isOnline(gateway.id));
    const online = isOnline();
    const claim = await this.claim(target, mode, online);
    if (!claim) {
      if (mode.manual) throw new ApiError(this.kind.nothingToSend);
      return false;
    }
    if (!gateway || (!online && gateway.lastSeenAt === null)) {
      if (mode.manual) throw new ApiError(ErrorCode.DEVICE_NOT_CONNECTED);
      return false;
    }
    if (!online || !devices) {
      if (mode.manual) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
      return false;
    }
    // Not due (applied at this version), or another send holds the target.
    if (claim.attempt === null || claim.commandId === null) return claim.held;
    const commandId = claim.commandId;
    const context = {
      kind: this.kind.name,
      target: targetKey(target),
      sn: gateway.sn,
      version: claim.doc.version,
      attempt: claim.attempt,
    };
    await this.publishIds([claim.rowId]);
    const outcome = await this.exchange(devices, gateway.sn, claim.doc.params, commandId, claim.rowId);
    if (outcome.kind === 'elsewhere') {
      // Settled (or taken over) by another instance: its outcome is on the row.
      const row = await this.settledElsewhere(claim.rowId, commandId);
      this.followUp(target);
      if (mode.manual && row?.state === 'failed')
        throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, row.reason ?? 'refused');
      return false;
    }
    if (outcome.kind === 'error' && outcome.err instanceof ApiError && outcome.err.detail === STOPPING) {
      // This instance is stopping with the command out: the row stays `sent` under its lease. The
      // device's reply reaches the other instances too, which settle it; without one the lease
      // runs out and another instance's sweep sends again.
      this.log.info(context, 'delivery left to the other instances: this one is stopping');
      if (mode.manual) throw outcome.err;
      return false;
    }
    let state: DeliveryState;
    let reason: string | null = null;
    if (outcome.kind === 'reply') {
      reason = (this.kind.interpretReply ?? defaultReply)(outcome.reply, { version: claim.doc.version });
      state = reason === null ? 'applied' : 'failed';
    } else {
      const err = outcome.err;
      if (err instanceof ApiError && err.code === ErrorCode.DEVICE_OFFLINE) state = 'pending';
      else {
        state = 'failed';
        if (err instanceof ApiError && err.detail === NO_REPLY) reason = 'timeout';
        else reason = (err instanceof ApiError ? err.detail : undefined) ?? (err as Error).message;
      }
    }
    const settled = await this.settle(commandId, state, reason);
    // Not settled here: another instance settled it first (its outcome counts), or superseded.
    const elsewhere = settled ? null : await this.settledElsewhere(claim.rowId, commandId);
    if (elsewhere) {
      state = elsewhere.state as DeliveryState;
      reason = elsewhere.reason;
    }
    if (state === 'applied')
      this.log.info(
        { ...context, recorded: settled !== null, elsewhere: elsewhere !== null },
        settled || elsewhere ? 'delivery applied by the device' : 'reply to a superseded send ignored',
      );
    else if (state === 'failed') this.log.warn({ ...context, reason }, 'delivery failed');
    this.followUp(target);
    if (!mode.manual) return false;
    // Went offline between the check and the send: it goes out at the reconnect.
    if (state === 'pending') throw new ApiError(ErrorCode.DEVICE_OFFLINE);
    if (state === 'failed') throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, reason ?? 'refused');
    return false;
  }

  /**
   * Sends the command and waits for its reply, or until the row shows that another instance
   * settled it (the reply reached that instance) or took the target over.
   */
  private async exchange(
    devices: DeviceService,
    sn: string,
    params: Record<string, unknown>,
    commandId: string,
    rowId: number,
  ): Promise<Outcome> {
    const sent: Promise<Outcome> = devices.commands
      .send(sn, this.kind.command, params, { id: commandId })
      .then(
        (reply) => ({ kind: 'reply', reply }),
        (err: unknown) => ({ kind: 'error', err }),
      );
    let unwatch = () => {};
    const watched = new Promise<Outcome>((resolve) => {
      unwatch = this.watch(commandId, rowId, () => resolve({ kind: 'elsewhere' }));
    });
    const outcome = await Promise.race([sent, watched]);
    unwatch();
    if (outcome.kind === 'elsewhere') devices.commands.abandon(commandId);
    return outcome;
  }

  /**
   * Calls `elsewhere` once the row `rowId` no longer holds send `commandId` under a lease (another
   * instance settled it or took the target over). All sends of this instance waiting for a reply
   * are checked with one query every `pollEveryMs`; answers the unwatch.
   */
  private watch(commandId: string, rowId: number, elsewhere: () => void): () => void {
    this.watched.set(commandId, { rowId, elsewhere });
    if (!this.watchTimer) {
      this.watchTimer = setTimeout(() => void this.checkWatched(), this.pollEveryMs);
      this.watchTimer.unref();
    }
    return () => this.watched.delete(commandId);
  }

  private async checkWatched(): Promise<void> {
    const waiting = [...this.watched];
    try {
      if (waiting.length > 0) {
        const rows = await this.db
          .select({
            id: deviceDelivery.id,
            commandId: deviceDelivery.commandId,
            claimedBy: deviceDelivery.claimedBy,
          })
          .from(deviceDelivery)
          .where(inArray(deviceDelivery.id, [...new Set(waiting.map(([, w]) => w.rowId))]));
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const [commandId, w] of waiting) {
          const row = byId.get(w.rowId);
          if (!row || row.commandId !== commandId || row.claimedBy === null) {
            this.watched.delete(commandId);
            w.elsewhere();
          }
        }
      }
    } catch {
      // The database is away for a moment: the reply or the timeout still ends each wait.
    }
    this.watchTimer = null;
    if (this.watched.size > 0) {
      this.watchTimer = setTimeout(() => void this.checkWatched(), this.pollEveryMs);
      this.watchTimer.unref();
    }
  }

  /**
   * Settles the send `commandId` (only while its row is still `sent` with that command) and frees
   * the target's lease either way. Answers the settled row, null when the send was superseded or
   * settled already.
   */
  private async settle(
    commandId: string,
    state: DeliveryState,
    reason: string | null,
  ): Promise<DeliveryRecord | null> {
    const dd = deviceDelivery;
    const ofCommand = and(eq(dd.kind, this.kind.name), eq(dd.commandId, commandId));
    const [row] = await this.db
      .update(dd)
      .set({
        state,
        reason: reason?.slice(0, 500) ?? null,
        ...(state === 'pending' ? {} : { settledAt: new Date(this.now()) }),
        claimedBy: null,
        leaseUntil: null,
      })
      .where(and(ofCommand, eq(dd.state, 'sent')))
      .returning();
    if (row) {
      await this.publish([row]);
      return row;
    }
    await this.db
      .update(dd)
      .set({ claimedBy: null, leaseUntil: null })
      .where(and(ofCommand, isNotNull(dd.claimedBy)));
    return null;
  }

  /**
   * The row of send `commandId` when another instance settled it (the reply reached that one
   * first): published here too, for this instance's consoles. null when the send was superseded.
   */
  private async settledElsewhere(rowId: number, commandId: string): Promise<DeliveryRecord | null> {
    const [row] = await this.db.select().from(deviceDelivery).where(eq(deviceDelivery.id, rowId));
    if (row?.commandId !== commandId || (row.state !== 'applied' && row.state !== 'failed')) return null;
    await this.publish([row]);
    return row;
  }

  /** After a send ended: send what became due meanwhile (not a failed row again). */
  private followUp(target: DeliveryTarget): void {
    if (!this.closed) this.enqueue(target, { manual: false, force: false });
  }

  /**
   * A reply no command of this instance waited for: to another instance's send (every instance
   * receives every reply; the sender usually settles it first), or a late one. Settles the row
   * while it is still `sent` with that command — the sender is gone or has not got to it yet.
   */
  private onReply(reply: ReplyPayload): void {
    this.background(
      (async () => {
        const [row] = await this.db
          .select()
          .from(deviceDelivery)
          .where(and(eq(deviceDelivery.kind, this.kind.name), eq(deviceDelivery.commandId, reply.id)));
        if (!row) return;
        const context = { kind: this.kind.name, target: row.target, attempt: row.attempt };
        if (row.state !== 'sent') {
          this.log.debug(context, 'delivery reply already settled');
          return;
        }
        const reason = (this.kind.interpretReply ?? defaultReply)(reply, { version: row.sentVersion });
        const settled = await this.settle(reply.id, reason === null ? 'applied' : 'failed', reason);
        if (!settled) {
          this.log.debug(context, 'delivery reply already settled');
          return;
        }
        this.log.info({ ...context, reason }, 'delivery settled by a reply to another instance');
        this.followUp(row);
      })(),
    );
  }

  private async announce(targets: readonly DeliveryTarget[]): Promise<void> {
    if (this.listeners.size === 0) return;
    await this.publish(await this.rows(targets));
  }

  private async publishIds(ids: number[]): Promise<void> {
    if (this.listeners.size === 0 || ids.length === 0) return;
    await this.publish(await this.db.select().from(deviceDelivery).where(inArray(deviceDelivery.id, ids)));
  }

  /** Publishes rows to the listeners with their site's company (never throws). */
  private async publish(rows: readonly DeliveryRecord[]): Promise<void> {
    if (this.listeners.size === 0 || rows.length === 0) return;
    try {
      const siteIds = [...new Set(rows.map((r) => r.siteId))];
      const companies = await this.db
        .select({ id: site.id, companyId: site.companyId })
        .from(site)
        .where(inArray(site.id, siteIds));
      const companyOf = new Map(companies.map((c) => [c.id, c.companyId]));
      for (const row of rows) {
        const companyId = companyOf.get(row.siteId);
        if (companyId === undefined) continue;
        const change = { companyId, message: deliveryMessage(row) };
        for (const listener of this.listeners) listener(change);
      }
    } catch (err) {
      if (!this.closed) this.log.warn({ err, kind: this.kind.name }, 'delivery change not published');
    }
  }
}
