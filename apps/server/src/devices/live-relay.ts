/**
 * Live updates across server instances (issue 18 item 4; docs/operations.md "Scale-out: N
 * instances"). With several instances on one PostgreSQL database, a device message is stored by
 * one instance (a share group splits the traffic; without one, the first to store it) — yet a
 * browser's `/ws` socket may be on any instance. Each instance tells the others which devices it
 * stored data for, and which events, through PostgreSQL `NOTIFY` on the channel
 * {@link LIVE_RELAY_CHANNEL}; the others then push those devices' latest points (read from
 * `device_latest`) and a fresh fleet snapshot to their own sockets, throttled as their own
 * updates are (devices/live-hub.ts).
 *
 * A notification is `{"from": <relay id>, "d": [device ids], "e": 0|1}` (JSON; `e`: events were
 * stored, so fleet figures such as alarm counts changed). What is stored within
 * {@link RELAY_COALESCE_MS} goes in one notification, split so that each stays under PostgreSQL's
 * 8,000-byte payload limit. The listening connection is a dedicated client (LISTEN needs a
 * session of its own, outside the pool); when it drops it is opened again every
 * {@link RELAY_RECONNECT_MS} until it is back — updates stored elsewhere meanwhile are missed by
 * this instance's sockets, which still get the next update and any resubscribe's full snapshot.
 * Sending failures are logged and dropped (live updates are best effort; the data is stored).
 *
 * Only with PostgreSQL: on PGlite there is one process (its data folder is locked).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { Db } from '../core/db/database';

/** The NOTIFY channel of live updates between instances. */
export const LIVE_RELAY_CHANNEL = 'ess_live';
/** Changes within this many ms go out in one notification. */
export const RELAY_COALESCE_MS = 100;
/** Pause before the listening connection is opened again after it dropped (ms). */
export const RELAY_RECONNECT_MS = 1_000;
/** Most device ids in one notification (payload well under 8,000 bytes). */
const IDS_PER_NOTIFICATION = 600;

/** What another instance stored: devices with new points, and whether it stored events. */
export interface RemoteChange {
  deviceIds: number[];
  events: boolean;
}

export class LiveRelay {
  /** This relay's id: its own notifications come back to it and are ignored. */
  readonly id = randomBytes(6).toString('hex');
  private pendingDevices = new Set<number>();
  private pendingEvents = false;
  private timer: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private closed = false;
  private onRemote: (change: RemoteChange) => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly databaseUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Listens for the other instances' changes; `onRemote` gets each (never this instance's own). */
  async start(onRemote: (change: RemoteChange) => void): Promise<void> {
    this.onRemote = onRemote;
    await this.listen();
  }

  /** Tells the other instances that data of `deviceIds` (and events, when `events`) was stored here. */
  publish(deviceIds: Iterable<number>, events = false): void {
    if (this.closed) return;
    for (const id of deviceIds) this.pendingDevices.add(id);
    this.pendingEvents ||= events;
    this.timer ??= setTimeout(() => void this.flush(), RELAY_COALESCE_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.reconnect) clearTimeout(this.reconnect);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  private async flush(): Promise<void> {
    this.timer = null;
    const ids = [...this.pendingDevices];
    const events = this.pendingEvents;
    this.pendingDevices = new Set();
    this.pendingEvents = false;
    const chunks: number[][] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFICATION)
      chunks.push(ids.slice(i, i + IDS_PER_NOTIFICATION));
    if (chunks.length === 0) chunks.push([]);
    for (const [n, d] of chunks.entries()) {
      const payload = JSON.stringify({ from: this.id, d, e: events && n === 0 ? 1 : 0 });
      try {
        await this.db.execute(sql`SELECT pg_notify(${LIVE_RELAY_CHANNEL}, ${payload})`);
      } catch (err) {
        this.log.warn({ err }, 'live update not relayed to the other instances');
      }
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    const retry = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = null;
      void client.end().catch(() => undefined);
      this.reconnect ??= setTimeout(() => {
        this.reconnect = null;
        this.listen().catch(() => undefined);
      }, RELAY_RECONNECT_MS);
    };
    client.on('error', (err) => {
      this.log.warn({ err }, 'live relay connection lost; opening it again');
      retry();
    });
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.channel !== LIVE_RELAY_CHANNEL || !message.payload) return;
      try {
        const parsed = JSON.parse(message.payload) as { from?: string; d?: unknown; e?: unknown };
        if (parsed.from === this.id || !Array.isArray(parsed.d)) return;
        const deviceIds = parsed.d.filter((v): v is number => Number.isInteger(v));
        this.onRemote({ deviceIds, events: parsed.e === 1 });
      } catch (err) {
        this.log.warn({ err }, 'malformed live relay notification ignored');
      }
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_RELAY_CHANNEL}`);
    } catch (err) {
      this.log.warn({ err }, 'live relay could not listen; trying again');
      retry();
    }
  }
}
