/**
 * Ingest of device messages (docs/device-protocol.md "Delivery rules"): validates payloads,
 * maps SNs to registered devices, queues rows and writes them in batches (telemetry-store.ts).
 *
 * `accept()` resolves once the message is stored (or deliberately dropped); the transports
 * acknowledge the MQTT message (PUBACK) only then, so acknowledged telemetry is never lost. The
 * queue is bounded: when it is full, `accept()` waits, acknowledgements stop, and the devices'
 * in-flight windows throttle them (back-pressure). A failing database is retried with backoff
 * while the queue holds the messages.
 */
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
import type { DeviceDirectory, DirectoryEntry } from './device-directory';
import { type EventRow, type StoredEvent, storeBatch, type TelemetryRow } from './telemetry-store';

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
  flushFailures: number;
  queued: number;
}

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
  gatewayId: number;
  receivedAt: number;
  done: () => void;
}

export interface IngestOptions {
  /** Longest wait before a batch is written (ms). */
  flushIntervalMs?: number;
  /** Rows that trigger an immediate write. */
  maxBatchRows?: number;
  /** Rows queued before `accept()` starts waiting (back-pressure). */
  maxQueuedRows?: number;
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
    queued: 0,
  };
  private queue: Pending[] = [];
  private queuedRows = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private spaceWaiters: (() => void)[] = [];
  private closed = false;
  private readonly flushIntervalMs: number;
  private readonly maxBatchRows: number;
  private readonly maxQueuedRows: number;

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
  }

  /**
   * Takes one telemetry or event message from gateway `sn`. Resolves when it is stored or
   * dropped (malformed, unknown, too old); never rejects.
   */
  async accept(sn: string, kind: 'telemetry' | 'event', payload: Buffer): Promise<void> {
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
    this.hooks.onSeen?.(gateway);
    const pending =
      parsed.kind === 'telemetry'
        ? this.telemetryRows(gateway, parsed.body)
        : this.eventRows(gateway, parsed.body);
    if (!pending) return;
    while (this.queuedRows >= this.maxQueuedRows && !this.closed) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    await new Promise<void>((done) => {
      this.queue.push({ ...pending, gatewayId: gateway.deviceId, receivedAt: Date.now(), done });
      this.queuedRows += pending.rows.length + pending.events.length;
      this.stats.queued = this.queuedRows;
      this.schedule();
    });
  }

  /** Writes what is queued and stops taking new batches. */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.flushing) {
      await (this.flushing ?? this.flush());
    }
    this.closed = true;
    for (const w of this.spaceWaiters.splice(0)) w();
  }

  private parse(
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

  /** Device time made safe: future → receive time (and a time sync); too old → undefined. */
  private acceptTs(gateway: DirectoryEntry, ts: number): number | undefined {
    const now = Date.now();
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
  ): Omit<Pending, 'gatewayId' | 'receivedAt' | 'done'> | undefined {
    const ts = this.acceptTs(gateway, body.ts);
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

  private eventRows(
    gateway: DirectoryEntry,
    body: EventPayload,
  ): Omit<Pending, 'gatewayId' | 'receivedAt' | 'done'> | undefined {
    const ts = this.acceptTs(gateway, body.ts);
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
      });
    });
    return { rows: [], events };
  }

  private schedule(): void {
    if (this.flushing) return;
    if (this.queuedRows >= this.maxBatchRows) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushIntervalMs);
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.schedule();
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    const unique = new Map<string, Pending['rows'][number]>();
    for (const p of batch) for (const r of p.rows) unique.set(`${r.deviceId}/${r.ts}`, r);
    const rows = [...unique.values()];
    const events = batch.flatMap((p) => p.events);
    const seen = new Map<number, number>();
    for (const p of batch) seen.set(p.gatewayId, Math.max(seen.get(p.gatewayId) ?? 0, p.receivedAt));

    for (let attempt = 0; ; attempt++) {
      try {
        const result = await storeBatch(this.db, rows, events, seen);
        this.stats.flushes++;
        this.stats.storedRows += result.insertedRows;
        this.stats.duplicateRows += batch.reduce((n, p) => n + p.rows.length, 0) - result.insertedRows;
        this.stats.points += rows.reduce((n, r) => n + Object.keys(r.points).length, 0);
        this.stats.events += result.events.length;
        if (result.insertedRows > 0) this.hooks.onStored?.(rows);
        if (result.events.length > 0) this.hooks.onEvents?.(result.events);
        break;
      } catch (err) {
        this.stats.flushFailures++;
        const delay = Math.min(5_000, 100 * 2 ** attempt);
        this.log.error(
          { err, rows: rows.length, attempt, retryInMs: delay },
          'telemetry batch write failed; retrying',
        );
        if (this.closed) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    this.queuedRows -= batch.reduce((n, p) => n + p.rows.length + p.events.length, 0);
    this.stats.queued = this.queuedRows;
    for (const p of batch) p.done();
    while (this.queuedRows < this.maxQueuedRows && this.spaceWaiters.length > 0) this.spaceWaiters.shift()!();
  }
}
