/**
 * Desired-state delivery to devices (design §2 "device commands"; docs/device-protocol.md
 * "Delivery of desired state"): per kind and target one `device_delivery` row says what the
 * target should run — `desired` (the kind's identity of the document, e.g. ToU `{schemeId}`) at
 * `version` — what the device is known to run, and how the delivery of `version` went:
 *
 *   pending → sent → applied (the device answered ok)
 *                  ↘ failed  (`reason`: the device's refusal, or 'refused' when it gave none;
 *                             'timeout' when no reply came in time; the send error)
 *
 * What the device runs is kept apart from what the last send did (issue 14): `appliedVersion`
 * (of `desired`) and `appliedAt` move only when the device answers ok, and stay when a later send
 * is refused or unanswered (the device then still runs that version: "failed (timeout); device
 * runs v2"); they are cleared when `desired` changes identity. A **re-send** of the version the
 * device runs (a reconnect, the operator's push, a retry) leaves the row `applied` while its
 * command is out (`claimedBy` set, `sentAt` its time) and after it: answered ok, `appliedAt`
 * moves; no answer, `reason` 'timeout' ("re-sent, no answer") — a client that connects without
 * answering (`mosquitto_pub` publishing a birth) never undoes an applied state. Only a refusal
 * makes it `failed`.
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
 *    `UPDATE … WHERE` lease free AND due marks it `sent` (an applied row stays `applied`), bumps
 *    `attempt`, stores the new command's id and takes the lease (`claimed_by` = this instance,
 *    `lease_until` = now + reply timeout + grace). Two instances (or two requests) racing for a
 *    target: one UPDATE wins, the other matches no row and sends nothing. Due: pending, failed
 *    (not for a follow-up, see below), a `sent` row whose lease ran out, a resend asked for
 *    (`resend_after` later than `sent_at`), or a retry (below).
 *  - **Send** through the command service with the stored id, only while the target's gateway is
 *    online (otherwise the row stays pending and goes out at the reconnect).
 *  - **Settle**: the reply with that id — received by this instance, or by any other (the
 *    broker hands replies to one instance; `CommandService.onUnmatchedReply`) — settles the row
 *    only while its command is out (`sent`, or `applied` and claimed) with that command id;
 *    either way it frees the lease. So a late reply to an older attempt, an older version or
 *    another document changes nothing. No reply in the reply timeout: failed 'timeout' (a
 *    re-send of the applied version: applied, 'timeout'). The gateway gone offline meanwhile:
 *    pending again (applied stays applied). A sender waiting for a reply that another instance
 *    settled notices it on the row (one query for all its waiting sends every `pollEveryMs`,
 *    250 ms) and stops waiting: the operator's push answers the outcome whichever instance the
 *    reply reached.
 *  - After a send ends, the target is looked at again (follow-up): a save, a time-zone change or
 *    a reconnect during the send is sent now; a failed row is not retried in a loop.
 *  - **Retries** of a send that got no answer ('timeout', failed or applied): again at each of
 *    `retryAfterMs` after the request it answered — the latest of `requested_at` (a save, an
 *    assignment, a time-zone change) and `resend_after` (a reconnect, a push) — by default 1, 5,
 *    15 and 60 min after it, so at most four retries, each only while the gateway is online
 *    (checked by `sweep` — in the app the scheduled task `delivery-retry`, every 15 s on one
 *    instance (jobs-plugin.ts) — the claim's `sent_at` condition lets one instance
 *    send each). After the last, the row waits for the next save, reconnect, push or start. A
 *    refusal is not retried: the device would refuse it again.
 *  - **Resends**: a gateway that comes online, or announces itself online again, gets every
 *    target of its site resent unless a send started after its birth (`resend_after`): the
 *    birth's `ts` when within 5 min of the server's clock — the same for every instance that
 *    receives the birth, however late one handles it, so they send once between them — else the
 *    drop (a connection), the receipt (a live reannounce) or when the connection was first
 *    recorded (a retained birth at start: an instance (re)starting beside others sends nothing
 *    for an unchanged connection). `sendNow` (the operator's push) resends and waits; `start`
 *    sends every row not applied; `sweep` (the `delivery-retry` task, and at start) frees leases that
 *    ran out — their instance died with the command out — and sends again. A failed row goes out
 *    again at the next of these, at a save, or as a retry; it is never retried in a loop.
 *
 * One send per target at a time: across instances by the lease, in this process also by a queue
 * (a request while a send is out waits for it, then looks again at what is due).
 * Every change of a row's state is published to the `onChange` listeners (the live hub's
 * `delivery:<kind>` channel, scoped by the site's company; contract api/live.ts).
 *
 * Background sends never throw: failures are stored on the row and logged. `sendNow` throws:
 * the kind's `nothingToSend` code when the target has no desired document, 3033 no gateway or it
 * never connected, 3034 gateway offline (the row goes out at the reconnect), 3035 the send
 * failed, was refused or timed out (detail: the reason; a re-send of the applied version that
 * timed out leaves the row applied).
 */

import { hostname } from 'node:os';
import {
  type CommandName,
  DELIVERY_TIMEOUT,
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
   * `{schemeId}`). Another identity forgets what the device confirmed (`appliedVersion`).
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
  /**
   * A timer of the service's own for `sweep` (ms; default none). The app leaves it off: the
   * scheduled task `delivery-retry` (jobs-plugin.ts) sweeps on one instance per fire. For uses
   * of the service without a scheduler.
   */
  sweepEveryMs?: number;
  /**
   * How often the sends waiting for a reply are checked (one query for all of them) for another
   * instance having settled them (ms; 250).
   */
  pollEveryMs?: number;
  /**
   * When a send that got no answer goes out again, after the request it answered (ms, ascending;
   * one retry each; default {@link DEFAULT_RETRY_AFTER_MS}; empty: no retries).
   */
  retryAfterMs?: readonly number[];
}

/** Retries of an unanswered send: 1, 5, 15 and 60 min after the request it answered. */
export const DEFAULT_RETRY_AFTER_MS: readonly number[] = [60_000, 300_000, 900_000, 3_600_000];

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
 * a follow-up after a send ended, for which a failed row is not due at all. `retryBefore`: a
 * retry due at that time (ms) — an unanswered row is due when its last send started before.
 */
interface SendMode {
  manual: boolean;
  force: boolean;
  since?: number;
  retryBefore?: number;
}

interface Claim {
  rowId: number;
  doc: DesiredDocument;
  /** The attempt marked `sent`; null when nothing goes out. */
  attempt: number | null;
  commandId: string | null;
  /** Nothing went out because another send (here or elsewhere) holds the target. */
  held: boolean;
  /** A re-send of the version the device runs (the row stays applied). */
  resend?: boolean;
}

type Outcome =
  | { kind: 'reply'; reply: ReplyPayload }
  | { kind: 'error'; err: unknown }
  | { kind: 'elsewhere' };

/**
 * What a send's outcome does to its row (`settle`): applied (the device answered ok); failed with
 * the reason (on a re-send of the applied version, 'timeout' leaves it applied); pending (the
 * gateway went offline before the command went out; an applied row stays applied).
 */
type Settlement = { state: 'applied' } | { state: 'failed'; reason: string } | { state: 'pending' };

/** The row's command is out (see {@link isSending}): only then does an outcome settle it. */
const outstanding = or(
  eq(deviceDelivery.state, 'sent'),
  and(eq(deviceDelivery.state, 'applied'), isNotNull(deviceDelivery.claimedBy)),
);

/** The outcome a row settled by a reply says: failed with its reason, else applied. */
const settlementOf = (row: DeliveryRecord): Settlement =>
  row.state === 'failed' ? { state: 'failed', reason: row.reason ?? 'refused' } : { state: 'applied' };

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/**
 * A send of the row is out: its command waits for the reply (`sent`, or a re-send of the applied
 * version), under a lease.
 */
export function isSending(row: Pick<DeliveryRecord, 'state' | 'claimedBy'>): boolean {
  return row.claimedBy !== null && (row.state === 'sent' || row.state === 'applied');
}

/**
 * When the row's unanswered send goes out again (ms), by `retryAfterMs` after the request it
 * answered (the latest of `requestedAt` and `resendAfter`): the first of those times after its
 * last send. null: the last send was answered (or refused), is still out, or the retries are over.
 */
export function nextRetryAt(
  row: Pick<DeliveryRecord, 'state' | 'reason' | 'claimedBy' | 'sentAt' | 'requestedAt' | 'resendAfter'>,
  retryAfterMs: readonly number[] = DEFAULT_RETRY_AFTER_MS,
): number | null {
  if (row.reason !== DELIVERY_TIMEOUT || row.claimedBy !== null || row.sentAt === null) return null;
  if (row.state !== 'failed' && row.state !== 'applied') return null;
  const asked = Math.max(row.requestedAt.getTime(), row.resendAfter?.getTime() ?? 0);
  const sent = row.sentAt.getTime();
  for (const after of retryAfterMs) if (asked + after > sent) return asked + after;
  return null;
}

/** The delivery message of a row (contract api/live.ts); `retryAfterMs` as the service's. */
export function deliveryMessage(
  row: DeliveryRecord,
  retryAfterMs: readonly number[] = DEFAULT_RETRY_AFTER_MS,
): LiveDeliveryMessage {
  const retryAt = nextRetryAt(row, retryAfterMs);
  return {
    type: 'delivery',
    kind: row.kind as DeliveryKindName,
    siteId: row.siteId,
    deviceId: row.deviceId,
    desired: row.desired,
    version: row.version,
    state: row.state as DeliveryState,
    appliedVersion: row.appliedVersion,
    appliedAt: iso(row.appliedAt),
    attempt: row.attempt,
    sending: isSending(row),
    reason: row.reason,
    retryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
    requestedAt: row.requestedAt.toISOString(),
    sentAt: iso(row.sentAt),
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
  /** See {@link DeliveryOptions.retryAfterMs}. */
  readonly retryAfterMs: readonly number[];

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
    this.sweepEveryMs = options.sweepEveryMs ?? 0;
    this.pollEveryMs = options.pollEveryMs ?? 250;
    this.retryAfterMs = [...(options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS)].sort((a, b) => a - b);
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
    if (this.sweepEveryMs > 0) {
      this.sweepTimer = setInterval(() => this.background(this.sweep()), this.sweepEveryMs);
      this.sweepTimer.unref();
    }
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
   * What the device confirmed stays (it still runs that version, with the old params), unless
   * `forgetApplied`: the receiver itself changed (another gateway), and what the previous one ran
   * says nothing about it.
   */
  reset(targets: readonly DeliveryTarget[], options: { forgetApplied?: boolean } = {}): void {
    if (targets.length === 0) return;
    const keys = targets.map(targetKey);
    const since = this.now();
    this.background(
      this.db
        .update(deviceDelivery)
        .set({
          state: 'pending',
          reason: null,
          requestedAt: new Date(this.now()),
          ...(options.forgetApplied ? { appliedVersion: null, appliedAt: null } : {}),
        })
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
   * is pending again — and sends those targets when due, then sends the retries that are due. The
   * scheduled task `delivery-retry` runs it (jobs-plugin.ts); tests call it directly.
   */
  async sweep(): Promise<void> {
    const targets = await this.freeExpired();
    if (this.devices) this.request(targets);
    await this.retryDue();
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
      .where(and(eq(deviceDelivery.kind, this.kind.name), sql`${deviceDelivery.state} <> 'applied'`));
    this.request(due);
  }

  /**
   * Sends again, in the background, every unanswered send whose retry is due (see
   * {@link nextRetryAt}) and whose gateway is online now; one instance sends each (the claim
   * takes a row only while its last send started before the retry's time).
   */
  private async retryDue(): Promise<void> {
    const devices = this.devices;
    const latest = this.retryAfterMs.at(-1);
    if (!devices || latest === undefined) return;
    const dd = deviceDelivery;
    const now = this.now();
    const horizon = new Date(now - latest).toISOString();
    const rows = await this.db
      .select()
      .from(dd)
      .where(
        and(
          eq(dd.kind, this.kind.name),
          eq(dd.reason, DELIVERY_TIMEOUT),
          inArray(dd.state, ['failed', 'applied']),
          isNull(dd.claimedBy),
          sql`GREATEST(${dd.requestedAt}, coalesce(${dd.resendAfter}, ${dd.requestedAt})) >= ${horizon}::timestamptz`,
        ),
      );
    for (const row of rows) {
      const at = nextRetryAt(row, this.retryAfterMs);
      if (at === null || at > now) continue;
      const gateway = await this.gatewayOf(row);
      if (!gateway || !devices.tracker.isOnline(gateway.id)) continue;
      this.log.info(
        { kind: this.kind.name, target: row.target, version: row.version, state: row.state },
        'delivery not answered: sending it again',
      );
      this.enqueue(row, { manual: false, force: false, retryBefore: at });
    }
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
      if (mode.retryBefore !== undefined)
        queued.retryBefore = Math.max(queued.retryBefore ?? mode.retryBefore, mode.retryBefore);
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
   * when the gateway is online, the lease is free and a send is due — marks it `sent` (an applied
   * row stays `applied`: a re-send) with a new command id and takes the lease.
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
            // What the device confirmed of another document says nothing about this one.
            appliedVersion: sql`CASE WHEN ${dd.desired} = excluded.desired THEN ${dd.appliedVersion} END`,
            appliedAt: sql`CASE WHEN ${dd.desired} = excluded.desired THEN ${dd.appliedAt} END`,
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
      const at = now.toISOString();
      const [marked] = await tx
        .update(dd)
        .set({
          // A re-send of what the device runs leaves it applied, whatever comes back short of a refusal.
          state: sql`CASE WHEN ${dd.state} = 'applied' AND ${dd.appliedVersion} = ${dd.version} THEN 'applied' ELSE 'sent' END`,
          attempt: sql`${dd.attempt} + 1`,
          commandId,
          claimedBy: this.instanceId,
          leaseUntil: new Date(now.getTime() + this.leaseMs()),
          sentAt: now,
          // The push is a request: an unanswered one is retried after it (see nextRetryAt).
          ...(mode.manual
            ? {
                resendAfter: sql`GREATEST(coalesce(${dd.resendAfter}, ${at}::timestamptz), ${at}::timestamptz)`,
              }
            : {}),
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
              mode.retryBefore === undefined
                ? undefined
                : and(
                    eq(dd.reason, DELIVERY_TIMEOUT),
                    inArray(dd.state, ['failed', 'applied']),
                    lt(dd.sentAt, new Date(mode.retryBefore)),
                  ),
              sql`(${dd.resendAfter} IS NOT NULL AND (${dd.sentAt} IS NULL OR ${dd.sentAt} < ${dd.resendAfter}))`,
            ),
          ),
        )
        .returning({ id: dd.id, attempt: dd.attempt, state: dd.state });
      if (!marked) return { ...idle, held: row.leaseUntil !== null && row.leaseUntil > now };
      return {
        rowId: marked.id,
        doc,
        attempt: marked.attempt,
        commandId,
        held: false,
        resend: marked.state === 'applied',
      };
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
      const result = row ? settlementOf(row) : null;
      if (mode.manual && result?.state === 'failed')
        throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, result.reason);
      return false;
    }
    if (outcome.kind === 'error' && outcome.err instanceof ApiError && outcome.err.detail === STOPPING) {
      // This instance is stopping with the command out: the row stays as it is under its lease. The
      // device's reply reaches the other instances too, which settle it; without one the lease
      // runs out and another instance's sweep sends again.
      this.log.info(context, 'delivery left to the other instances: this one is stopping');
      if (mode.manual) throw outcome.err;
      return false;
    }
    let result: Settlement;
    if (outcome.kind === 'reply') {
      const reason = (this.kind.interpretReply ?? defaultReply)(outcome.reply, {
        version: claim.doc.version,
      });
      result = reason === null ? { state: 'applied' } : { state: 'failed', reason };
    } else {
      const err = outcome.err;
      if (err instanceof ApiError && err.code === ErrorCode.DEVICE_OFFLINE) result = { state: 'pending' };
      else if (err instanceof ApiError && err.detail === NO_REPLY)
        result = { state: 'failed', reason: DELIVERY_TIMEOUT };
      else
        result = {
          state: 'failed',
          reason: (err instanceof ApiError ? err.detail : undefined) ?? (err as Error).message,
        };
    }
    const settled = await this.settle(commandId, result);
    // Not settled here: another instance settled it first (its outcome counts), or superseded.
    const elsewhere = settled ? null : await this.settledElsewhere(claim.rowId, commandId);
    if (elsewhere) result = settlementOf(elsewhere);
    const logged = { ...context, resend: claim.resend === true };
    if (result.state === 'applied')
      this.log.info(
        { ...logged, recorded: settled !== null, elsewhere: elsewhere !== null },
        settled || elsewhere ? 'delivery applied by the device' : 'reply to a superseded send ignored',
      );
    else if (result.state === 'failed' && settled?.state === 'applied') {
      const retryAt = nextRetryAt(settled, this.retryAfterMs);
      this.log.warn(
        {
          ...logged,
          reason: result.reason,
          retryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
        },
        'delivery re-sent, no answer: the device still runs the version it applied',
      );
    } else if (result.state === 'failed')
      this.log.warn({ ...logged, reason: result.reason }, 'delivery failed');
    this.followUp(target);
    if (!mode.manual) return false;
    // Went offline between the check and the send: it goes out at the reconnect.
    if (result.state === 'pending') throw new ApiError(ErrorCode.DEVICE_OFFLINE);
    if (result.state === 'failed') throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, result.reason);
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
   * Settles the send `commandId` (only while its command is out: the row `sent`, or `applied`
   * and claimed, with that command) and frees the target's lease either way. Applied: the device
   * runs the row's version from now. Failed: a re-send of the applied version that got no answer
   * stays applied with the reason ('timeout'); otherwise failed, the device still running its
   * `appliedVersion`. Pending: the gateway went offline first (an applied row stays applied).
   * Answers the settled row, null when the send was superseded or settled already.
   */
  private async settle(commandId: string, result: Settlement): Promise<DeliveryRecord | null> {
    const dd = deviceDelivery;
    const ofCommand = and(eq(dd.kind, this.kind.name), eq(dd.commandId, commandId));
    const now = new Date(this.now());
    const keepsApplied = (otherwise: 'failed' | 'pending') =>
      sql`CASE WHEN ${dd.state} = 'applied' THEN 'applied' ELSE ${otherwise} END`;
    const set =
      result.state === 'applied'
        ? { state: 'applied', appliedVersion: sql`${dd.version}`, appliedAt: now, reason: null }
        : result.state === 'pending'
          ? { state: keepsApplied('pending') }
          : result.reason === DELIVERY_TIMEOUT
            ? { state: keepsApplied('failed'), reason: DELIVERY_TIMEOUT }
            : { state: 'failed', reason: result.reason.slice(0, 500) };
    const [row] = await this.db
      .update(dd)
      .set({ ...set, claimedBy: null, leaseUntil: null })
      .where(and(ofCommand, outstanding))
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
    if (row?.commandId !== commandId || row.claimedBy !== null) return null;
    if (row.state !== 'applied' && row.state !== 'failed') return null;
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
        if (!isSending(row)) {
          this.log.debug(context, 'delivery reply already settled');
          return;
        }
        // While its command is out the row's version is the one sent (a save moves it to pending).
        const reason = (this.kind.interpretReply ?? defaultReply)(reply, { version: row.version });
        const settled = await this.settle(
          reply.id,
          reason === null ? { state: 'applied' } : { state: 'failed', reason },
        );
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
        const change = { companyId, message: deliveryMessage(row, this.retryAfterMs) };
        for (const listener of this.listeners) listener(change);
      }
    } catch (err) {
      if (!this.closed) this.log.warn({ err, kind: this.kind.name }, 'delivery change not published');
    }
  }
}
