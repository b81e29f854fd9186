/**
 * Ingest of device messages (docs/device-protocol.md "Delivery rules"): validates payloads,
 * maps SNs to registered devices, queues rows and writes them in batches (telemetry-store.ts).
 *
 * `accept()` resolves once the message is stored (or deliberately dropped); the transports
 * acknowledge the MQTT message (PUBACK) only then, so acknowledged telemetry is never lost.
 *
 * Messages are queued in lanes by gateway (`gatewayId % lanes`): each lane writes its batches one
 * after another, in arrival order, and the lanes write at the same time on separate connections
 * of the pool (PostgreSQL; PGlite has one connection, so one lane). A gateway's messages — and
 * so its devices' rows, rollups, latest values and alarm events — stay in one lane, in order;
 * lanes touch disjoint rows, so they never wait for each other. The queue is bounded: when it is full, `accept()` waits, acknowledgements stop, and the devices'
 * in-flight windows throttle them (back-pressure). A failing database is retried with backoff
 * while the queue holds the messages.
 *
 * Poison messages (docs/device-protocol.md "Dead letters"): when the database refuses a batch for
 * a reason in its data (SQLSTATE class 22, 23 or 54, core/db/sql-errors.ts), retrying it would
 * block every later message forever. The batch is split in halves until the refused message is
 * alone; a message refused again on its own is stored in `device_dead_letter` with the error,
 * counted in `deadLettered` and acknowledged like the others (it is settled), and everything
 * else is stored. Only failures of the database itself (connection, timeout, …) are retried.
 *
 * A gateway's past (`acceptHistory`: the demo fleet's history, demo/demo-history.ts) takes the
 * same path — validation, SN mapping, batches, rows, rollups, latest values, alarm events and
 * lifecycle — minus what only a live message means: it may be older than the backfill window,
 * it is no sign of life (no heartbeat, no last-seen, no time sync), it is not pushed live, and the
 * alarms it raises are history, not news (not mailed: telemetry-store.ts).
 */

import { PGlite } from '@electric-sql/pglite';
import {
  type EventPayload,
  eventPayload,
  MAX_BACKFILL_MS,
  MAX_CLOCK_SKEW_MS,
  MAX_PAYLOAD_BYTES,
  type TelemetryPayload,
  telemetryPayload,
} from '@ess/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { isDataError, sqlErrorMessage, sqlState } from '../core/db/sql-errors';
import type { DeviceDirectory, DirectoryEntry } from './device-directory';
import { DERIVE_BATCH, deriveRollups } from './rollup-derive';
import {
  type EventRow,
  type StoredEvent,
  storeBatch,
  storeDeadLetters,
  type TelemetryRow,
} from './telemetry-store';

export interface IngestStats {
  messages: number;
  storedRows: number;
  duplicateRows: number;
  points: number;
  malformed: number;
  unknownSn: number;
  tooOld: number;
  clockSkew: number;
  events: number;
  flushes: number;
  /** Failed writes of the database itself (each retried). */
  flushFailures: number;
  /** Messages refused by the database for their data and stored as dead letters. */
  deadLettered: number;
  queued: number;
}

/** Stores a gateway's `params` report (resolves when stored or dropped; rejects when the database failed). */
export type ParamsReportHandler = (gateway: DirectoryEntry, payload: Buffer) => Promise<void>;

/** Stores a gateway's `ota` progress event (devices/ota-batches.ts; resolves when stored or dropped, rejects when the database failed). */
export type OtaEventHandler = (gateway: DirectoryEntry, payload: Buffer) => Promise<void>;

export interface IngestHooks {
  /** Rows just stored (redeliveries excluded), for the live push. */
  onStored?(rows: (TelemetryRow & { siteId: number })[]): void;
  /** Alarm events just stored. */
  onEvents?(events: StoredEvent[]): void;
  /** A gateway whose clock is more than MAX_CLOCK_SKEW_MS ahead (send it a time sync). */
  onClockSkew?(gateway: DirectoryEntry): void;
  /** Any valid message from a gateway (heartbeat). */
  onSeen?(gateway: DirectoryEntry): void;
}

interface Pending {
  rows: (TelemetryRow & { siteId: number })[];
  events: EventRow[];
  /** A message of the gateway's past (`acceptHistory`). */
  history: boolean;
  gatewayId: number;
  receivedAt: number;
  /** Where it came from and what it said, for a dead letter. */
  gateway: DirectoryEntry;
  kind: 'telemetry' | 'event';
  body: TelemetryPayload | EventPayload;
  done: () => void;
}

type PendingBody = Omit<
  Pending,
  'history' | 'gatewayId' | 'receivedAt' | 'gateway' | 'kind' | 'body' | 'done'
>;

export interface IngestOptions {
  /** Longest wait before a batch is written (ms). */
  flushIntervalMs?: number;
  /** Rows (of one lane) that trigger an immediate write. */
  maxBatchRows?: number;
  /**
   * Batches written at the same time, each by its own transaction (gateways split by id);
   * default {@link DEFAULT_LANES} on PostgreSQL, 1 on PGlite (one connection).
   */
  lanes?: number;
  /** Rows queued before `accept()` starts waiting (back-pressure). */
  maxQueuedRows?: number;
  /** The clock (UTC ms) of the backfill window and clock-skew rules and of receive times; tests inject one. */
  now?: () => number;
  /**
   * Batches of at least this many rows merge only their 15-minute rollups and leave the hour and
   * day ones to a derivation pass (telemetry-store.ts `deferDerived`, rollup-derive.ts); default
   * {@link DEFER_DERIVED_ROWS}. Smaller batches (a fleet that is not busy) merge all three, so
   * every rollup is current when the message is acknowledged.
   */
  deferDerivedRows?: number;
  /** Longest wait between a deferred batch and the derivation pass that catches up (ms, default 2,000). */
  deriveDelayMs?: number;
}

/** Default of {@link IngestOptions.lanes} on PostgreSQL: leaves most of the pool (10) to the API. */
export const DEFAULT_LANES = 4;

/**
 * Default of {@link IngestOptions.deferDerivedRows}: 1,000 rows, some 170 messages of a C&I site
 * (EMS and five devices) in one batch — a batch that formed while the previous one was written,
 * i.e. a pipeline under load. Figures: docs/architecture.md "Telemetry store".
 */
export const DEFER_DERIVED_ROWS = 1_000;

/** Whether `db` runs on PGlite (one connection: its transactions run one at a time). */
function isPglite(db: Db): boolean {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof PGlite;
}

/** A lane: its queue, its pending flush timer and the batch it is writing. */
interface Lane {
  queue: Pending[];
  rows: number;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
}

export class IngestPipeline {
  readonly stats: IngestStats = {
    messages: 0,
    storedRows: 0,
    duplicateRows: 0,
    points: 0,
    malformed: 0,
    unknownSn: 0,
    tooOld: 0,
    clockSkew: 0,
    events: 0,
    flushes: 0,
    flushFailures: 0,
    deadLettered: 0,
    queued: 0,
  };
  private readonly lanes: Lane[];
  private readonly paramsHandlers = new Set<ParamsReportHandler>();
  private readonly otaHandlers = new Set<OtaEventHandler>();
  private queuedRows = 0;
  private spaceWaiters: (() => void)[] = [];
  private closed = false;
  /** Set by `close()`: failures of the database are not retried past it. */
  private closeDeadline = Number.POSITIVE_INFINITY;
  private readonly flushIntervalMs: number;
  private readonly maxBatchRows: number;
  private readonly maxQueuedRows: number;
  private readonly now: () => number;
  private readonly deferDerivedRows: number;
  private readonly deriveDelayMs: number;
  private deriveTimer: NodeJS.Timeout | null = null;
  private deriving: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly directory: DeviceDirectory,
    private readonly log: FastifyBaseLogger,
    private readonly hooks: IngestHooks = {},
    options: IngestOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    this.maxBatchRows = options.maxBatchRows ?? 2000;
    this.maxQueuedRows = options.maxQueuedRows ?? 50_000;
    this.now = options.now ?? Date.now;
    const lanes = Math.max(1, Math.floor(options.lanes ?? (isPglite(db) ? 1 : DEFAULT_LANES)));
    this.lanes = Array.from({ length: lanes }, () => ({ queue: [], rows: 0, timer: null, flushing: null }));
    this.deferDerivedRows = options.deferDerivedRows ?? DEFER_DERIVED_ROWS;
    this.deriveDelayMs = options.deriveDelayMs ?? 2_000;
  }

  /**
   * A derivation pass (rollup-derive.ts) within `deriveDelayMs`, unless one is due already: after
   * each deferred batch, and at start (devices/device-service.ts) for what a crash left marked.
   * The pass takes marked buckets until none is left; a failure (database away) is logged and the
   * buckets stay marked for the next pass, which the next deferred batch schedules.
   */
  scheduleDerive(): void {
    if (this.deriveTimer || this.closed) return;
    this.deriveTimer = setTimeout(() => {
      this.deriveTimer = null;
      this.deriving ??= (async () => {
        try {
          while ((await deriveRollups(this.db)) >= DERIVE_BATCH && !this.closed);
        } catch (err) {
          this.log.warn({ err }, 'rollup derivation failed; the buckets stay marked for the next pass');
        } finally {
          this.deriving = null;
        }
      })();
    }, this.deriveDelayMs);
    this.deriveTimer.unref?.();
  }

  /** Runs a derivation pass now and resolves when no marked bucket is left (tests, close). */
  async deriveNow(): Promise<void> {
    if (this.deriveTimer) clearTimeout(this.deriveTimer);
    this.deriveTimer = null;
    await this.deriving;
    while ((await deriveRollups(this.db)) >= DERIVE_BATCH);
  }

  /**
   * Takes one telemetry or event message from gateway `sn`. Resolves when it is stored or
   * dropped (malformed, unknown, too old); never rejects.
   */
  accept(sn: string, kind: 'telemetry' | 'event', payload: Buffer): Promise<void> {
    return this.take(sn, kind, payload, false);
  }

  /**
   * Registers the handler of gateways' `params` reports (devices/params-push.ts); answers the
   * unregister. The report is not queued: the handler stores it before it resolves.
   */
  onParams(handler: ParamsReportHandler): () => void {
    this.paramsHandlers.add(handler);
    return () => this.paramsHandlers.delete(handler);
  }

  /**
   * Takes one `params` report (ess/v1/<sn>/params) of `gateway`: resolves once the handlers stored
   * or dropped it (so the broker acknowledges it after storage, like telemetry); rejects when the
   * database failed (redelivered). Without a handler it is dropped.
   */
  async acceptParams(gateway: DirectoryEntry, payload: Buffer): Promise<void> {
    this.stats.messages++;
    if (this.paramsHandlers.size === 0) {
      this.log.debug({ sn: gateway.sn }, 'params report dropped: nobody handles parameters');
      return;
    }
    for (const handler of this.paramsHandlers) await handler(gateway, payload);
    this.hooks.onSeen?.(gateway);
  }

  /** Registers the handler of gateways' `ota` progress events (devices/ota-batches.ts); answers the unregister. */
  onOta(handler: OtaEventHandler): () => void {
    this.otaHandlers.add(handler);
    return () => this.otaHandlers.delete(handler);
  }

  /**
   * Takes one `ota` progress event (ess/v1/<sn>/ota) of `gateway`, like {@link acceptParams}:
   * resolves once stored or dropped (then acknowledged), rejects when the database failed.
   */
  async acceptOta(gateway: DirectoryEntry, payload: Buffer): Promise<void> {
    this.stats.messages++;
    if (this.otaHandlers.size === 0) {
      this.log.debug({ sn: gateway.sn }, 'ota event dropped: nobody handles upgrades');
      return;
    }
    for (const handler of this.otaHandlers) await handler(gateway, payload);
    this.hooks.onSeen?.(gateway);
  }

  /**
   * Takes one message of gateway `sn`'s past (see the module comment): stored like `accept`'s,
   * at any age (a future time beyond the clock-skew allowance is dropped, counted in
   * `clockSkew`). Resolves when it is stored or dropped; never rejects.
   */
  acceptHistory(sn: string, kind: 'telemetry' | 'event', payload: Buffer): Promise<void> {
    return this.take(sn, kind, payload, true);
  }

  private async take(
    sn: string,
    kind: 'telemetry' | 'event',
    payload: Buffer,
    history: boolean,
  ): Promise<void> {
    this.stats.messages++;
    const gateway = await this.directory.lookup(sn);
    if (!gateway?.isGateway) {
      this.stats.unknownSn++;
      this.log.warn({ sn, kind }, 'message from an unregistered gateway dropped');
      return;
    }
    const parsed = this.parse(kind, payload);
    if (!parsed) {
      this.stats.malformed++;
      this.log.warn({ sn, kind, bytes: payload.length }, 'malformed device message dropped');
      return;
    }
    if (!history) this.hooks.onSeen?.(gateway);
    const pending =
      parsed.kind === 'telemetry'
        ? this.telemetryRows(gateway, parsed.body, history)
        : this.eventRows(gateway, parsed.body, history);
    if (!pending) return;
    while (this.queuedRows >= this.maxQueuedRows && !this.closed) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    const lane = this.lanes[gateway.deviceId % this.lanes.length]!;
    await new Promise<void>((done) => {
      lane.queue.push({
        ...pending,
        history,
        gatewayId: gateway.deviceId,
        receivedAt: this.now(),
        gateway,
        kind: parsed.kind,
        body: parsed.body,
        done,
      });
      const rows = pending.rows.length + pending.events.length;
      lane.rows += rows;
      this.queuedRows += rows;
      this.stats.queued = this.queuedRows;
      this.schedule(lane);
    });
  }

  /**
   * Writes what is queued, derives the rollups deferred batches left (rollup-derive.ts), and
   * stops taking new batches. While the database is away at shutdown
   * (failing, or not answering at all), writing gives up after `closeGraceMs` (default 5 s): what
   * is left was never acknowledged, so the broker delivers it again to the next instance or start.
   */
  async close(closeGraceMs = 5_000): Promise<void> {
    this.closeDeadline = Date.now() + closeGraceMs;
    const drain = Promise.all(
      this.lanes.map(async (lane) => {
        while (lane.queue.length > 0 || lane.flushing) {
          await (lane.flushing ?? this.flush(lane));
        }
      }),
      // and the hour and day rollups of deferred batches derived (else the next start does it)
    ).then(() =>
      this.deriveNow().catch((err: unknown) =>
        this.log.warn(
          { err },
          'rollup derivation at close failed; the buckets stay marked for the next start',
        ),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), closeGraceMs);
    });
    try {
      if ((await Promise.race([drain, deadline])) === 'deadline') {
        throw new Error(`the database did not answer within ${closeGraceMs} ms`);
      }
    } catch (err) {
      drain.catch(() => undefined);
      this.log.warn(
        { err, queued: this.queuedRows },
        'ingest closed with messages unstored (not acknowledged)',
      );
    } finally {
      clearTimeout(timer);
    }
    this.closed = true;
    if (this.deriveTimer) clearTimeout(this.deriveTimer);
    this.deriveTimer = null;
    for (const w of this.spaceWaiters.splice(0)) w();
  }

  /**
   * The payload validated (and its device text cleaned) by the contract's schema; undefined when
   * malformed. Protected so that tests can feed the store what validation would have cleaned.
   */
  protected parse(
    kind: 'telemetry' | 'event',
    payload: Buffer,
  ): { kind: 'telemetry'; body: TelemetryPayload } | { kind: 'event'; body: EventPayload } | undefined {
    if (payload.length > MAX_PAYLOAD_BYTES) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      return undefined;
    }
    if (kind === 'telemetry') {
      const r = telemetryPayload.safeParse(json);
      return r.success ? { kind, body: r.data } : undefined;
    }
    const r = eventPayload.safeParse(json);
    return r.success ? { kind, body: r.data } : undefined;
  }

  /**
   * Device time made safe: future → receive time (and a time sync); too old → undefined. Of the
   * past (`history`): any age; future → undefined.
   */
  private acceptTs(gateway: DirectoryEntry, ts: number, history: boolean): number | undefined {
    const now = this.now();
    if (history) {
      if (ts <= now + MAX_CLOCK_SKEW_MS) return ts;
      this.stats.clockSkew++;
      return undefined;
    }
    if (ts > now + MAX_CLOCK_SKEW_MS) {
      this.stats.clockSkew++;
      this.hooks.onClockSkew?.(gateway);
      return now;
    }
    if (ts < now - MAX_BACKFILL_MS) {
      this.stats.tooOld++;
      return undefined;
    }
    return ts;
  }

  private behind(gateway: DirectoryEntry, sn: string): DirectoryEntry | undefined {
    const d = this.directory.cached(sn);
    if (!d || d.gatewayId !== gateway.deviceId) {
      this.stats.unknownSn++;
      return undefined;
    }
    return d;
  }

  private telemetryRows(
    gateway: DirectoryEntry,
    body: TelemetryPayload,
    history: boolean,
  ): PendingBody | undefined {
    const ts = this.acceptTs(gateway, body.ts, history);
    if (ts === undefined) return undefined;
    const rows: Pending['rows'] = [];
    for (const entry of body.devices) {
      const d = this.behind(gateway, entry.sn);
      if (!d) continue;
      rows.push({
        deviceId: d.deviceId,
        siteId: d.siteId,
        ts,
        points: entry.points,
        timezone: d.timezone,
        cells: entry.cells,
      });
    }
    return { rows, events: [] };
  }

  private eventRows(gateway: DirectoryEntry, body: EventPayload, history: boolean): PendingBody | undefined {
    const ts = this.acceptTs(gateway, body.ts, history);
    if (ts === undefined) return undefined;
    const events: EventRow[] = [];
    body.events.forEach((e, index) => {
      const d = this.behind(gateway, e.deviceSn);
      if (!d) return;
      events.push({
        companyId: d.companyId,
        siteId: d.siteId,
        deviceId: d.deviceId,
        gatewayId: gateway.deviceId,
        msgId: body.id,
        msgIndex: index,
        ts,
        kind: e.kind,
        code: e.code,
        level: e.level,
        content: e.content,
        value: e.value ?? null,
        ...(history ? { history } : {}),
      });
    });
    return { rows: [], events };
  }

  private schedule(lane: Lane): void {
    if (lane.flushing) return;
    if (lane.rows >= this.maxBatchRows) {
      if (lane.timer) clearTimeout(lane.timer);
      lane.timer = null;
      void this.flush(lane).catch(() => undefined); // only past the close deadline; close() reports it
      return;
    }
    lane.timer ??= setTimeout(() => {
      lane.timer = null;
      void this.flush(lane).catch(() => undefined); // only past the close deadline; close() reports it
    }, this.flushIntervalMs);
  }

  private flush(lane: Lane): Promise<void> {
    if (lane.flushing) return lane.flushing;
    lane.flushing = this.flushOnce(lane).finally(() => {
      lane.flushing = null;
      if (lane.queue.length > 0) this.schedule(lane);
    });
    return lane.flushing;
  }

  private async flushOnce(lane: Lane): Promise<void> {
    const batch = lane.queue.splice(0);
    if (batch.length === 0) return;
    const rows = batch.reduce((n, p) => n + p.rows.length + p.events.length, 0);
    lane.rows -= rows;
    await this.settle(batch, false);
    this.queuedRows -= rows;
    this.stats.queued = this.queuedRows;
    for (const p of batch) p.done();
    while (this.queuedRows < this.maxQueuedRows && this.spaceWaiters.length > 0) this.spaceWaiters.shift()!();
  }

  /**
   * Stores `batch` (messages in arrival order), or what of it the database takes: a data failure
   * splits it in halves, stored in order; a message that fails alone after failing before
   * (`failedBefore`: in a larger batch or alone once) becomes a dead letter. The second try
   * alone keeps a momentary conflict (two instances raising the same alarm) from dead-lettering.
   */
  private async settle(batch: Pending[], failedBefore: boolean): Promise<void> {
    const error = await this.write(batch);
    if (error === undefined) return;
    if (batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await this.settle(batch.slice(0, half), true);
      await this.settle(batch.slice(half), true);
      return;
    }
    if (!failedBefore) return this.settle(batch, true);
    await this.deadLetter(batch[0]!, error);
  }

  /**
   * Writes `batch` in one transaction, retrying failures of the database with backoff (100 ms
   * doubling to 5 s) until it succeeds; answers the error when the database refused the data.
   */
  private async write(batch: Pending[]): Promise<unknown> {
    const unique = new Map<string, Pending['rows'][number]>();
    const liveKeys = new Set<string>();
    for (const p of batch) {
      for (const r of p.rows) {
        const key = `${r.deviceId}/${r.ts}`;
        unique.set(key, r);
        if (!p.history) liveKeys.add(key);
      }
    }
    const rows = [...unique.values()];
    // what is pushed live: rows and events of live messages only
    const liveRows =
      liveKeys.size === unique.size ? rows : rows.filter((r) => liveKeys.has(`${r.deviceId}/${r.ts}`));
    const events = batch.flatMap((p) => p.events);
    const seen = new Map<number, number>();
    for (const p of batch) {
      if (!p.history) seen.set(p.gatewayId, Math.max(seen.get(p.gatewayId) ?? 0, p.receivedAt));
    }

    for (let attempt = 0; ; attempt++) {
      try {
        const deferDerived = rows.length >= this.deferDerivedRows;
        const result = await storeBatch(this.db, rows, events, seen, { deferDerived });
        if (deferDerived) this.scheduleDerive();
        this.stats.flushes++;
        this.stats.storedRows += result.insertedRows;
        this.stats.duplicateRows += batch.reduce((n, p) => n + p.rows.length, 0) - result.insertedRows;
        this.stats.points += rows.reduce((n, r) => n + Object.keys(r.points).length, 0);
        this.stats.events += result.events.length;
        if (result.insertedRows > 0 && liveRows.length > 0) this.hooks.onStored?.(liveRows);
        const liveEvents = result.events.filter((e) => !e.history);
        if (liveEvents.length > 0) this.hooks.onEvents?.(liveEvents);
        return undefined;
      } catch (err) {
        if (isDataError(err)) {
          this.log.warn(
            { code: sqlState(err), error: sqlErrorMessage(err), messages: batch.length },
            'device batch refused for its data; splitting it',
          );
          return err;
        }
        await this.backOff(err, attempt, 'telemetry batch write failed; retrying');
      }
    }
  }

  /** Stores `p` as a dead letter (retrying failures of the database); it is settled after. */
  private async deadLetter(p: Pending, error: unknown): Promise<void> {
    const sns = new Set(
      p.kind === 'telemetry'
        ? (p.body as TelemetryPayload).devices.map((d) => d.sn)
        : (p.body as EventPayload).events.map((e) => e.deviceSn),
    );
    const letter = {
      companyId: p.gateway.companyId,
      siteId: p.gateway.siteId,
      gatewaySn: p.gateway.sn,
      deviceSn: sns.size === 1 ? [...sns][0]! : null,
      kind: p.kind,
      payload: p.body,
      error: sqlErrorMessage(error),
      errorCode: sqlState(error) ?? null,
      receivedAt: p.receivedAt,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await storeDeadLetters(this.db, [letter]);
        break;
      } catch (err) {
        if (isDataError(err)) {
          // Cannot happen with the cleaned texts; never let it block the queue either.
          this.log.error({ err, letter }, 'dead letter refused by the database; message dropped');
          return;
        }
        await this.backOff(err, attempt, 'dead letter write failed; retrying');
      }
    }
    this.stats.deadLettered++;
    this.log.error(
      { sn: p.gateway.sn, kind: p.kind, code: letter.errorCode, error: letter.error },
      'device message refused by the database; stored as a dead letter',
    );
  }

  /** Counts a failure of the database and waits before the next attempt (rethrows once closed or past the close deadline). */
  private async backOff(err: unknown, attempt: number, message: string): Promise<void> {
    this.stats.flushFailures++;
    const delay = Math.min(5_000, 100 * 2 ** attempt);
    this.log.error({ err, attempt, retryInMs: delay }, message);
    if (this.closed || Date.now() + delay > this.closeDeadline) throw err;
    await new Promise((r) => setTimeout(r, delay));
  }
}
