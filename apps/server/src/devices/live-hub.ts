/**
 * Live push to the console over `/ws` (contract api/live.ts). Each socket authenticates with its
 * session token in the first message, then subscribes to channels: `fleet` (dashboard snapshot
 * of the caller's companies) and `device:<id>` (latest points of one device in scope).
 *
 * Device traffic marks channels dirty, and each channel (`fleet`, `device:<id>`) is throttled on
 * its own ({@link ChannelThrottle}): its first change goes out at once, further changes within
 * LIVE_MIN_INTERVAL_MS are coalesced into one trailing update at the end of that interval. So a
 * channel gets at most one update per second whatever the device rate, and one device's change
 * never waits for another channel's round (design §6: device → browser p95 ≤ 500 ms).
 * A fleet snapshot is computed once per company scope per update and shared by its sockets.
 * Every subscribe answers with a full snapshot, which is how a reconnecting console resyncs.
 *
 * With several instances ({@link LiveHub.useRelay}, devices/live-relay.ts) what this instance
 * stores is told to the others, and what another stored marks this one's channels: the fleet,
 * and each such device's channel, whose update then carries the device's `device_latest` row.
 */
import {
  ErrorCode,
  errorMessage,
  LIVE_MIN_INTERVAL_MS,
  LIVE_UPGRADE_CHANNEL,
  type LiveDeliveryMessage,
  type LiveServerMessage,
  type LiveUpgradeMessage,
  liveClientMessage,
} from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { type CompanyScope, companyScope, scopeIncludes } from '../access/company-scope';
import type { AuthContext, SessionService } from '../access/session-service';
import type { Db } from '../core/db/database';
import { device, deviceLatest } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import type { DeviceService } from './device-service';
import type { FleetSnapshot } from './fleet-snapshot';
import type { LiveRelay, RemoteChange } from './live-relay';

interface LiveClient {
  socket: WebSocket;
  token?: string;
  auth?: AuthContext;
  scope?: CompanyScope;
  scopeKey?: string;
  channels: Set<string>;
}

/** Re-check each socket's session this often (revoked sessions are closed). */
const SESSION_RECHECK_MS = 60_000;

export class LiveHub {
  private readonly clients = new Set<LiveClient>();
  private readonly dirtyDevices = new Map<number, { ts: number; points: Record<string, number> }>();
  /** Devices another instance stored data for since their channel's last update. */
  private readonly remoteDevices = new Set<number>();
  private relay: LiveRelay | null = null;
  private readonly throttle = new ChannelThrottle(
    LIVE_MIN_INTERVAL_MS,
    (channel) => void this.flush(channel),
  );
  private recheck: NodeJS.Timeout | null = null;
  private stopRevokedListener: (() => void) | null = null;
  private unlisten: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly fleet: FleetSnapshot,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts ticking and, when devices run, listening to them; calling it again re-targets it. */
  start(devices: DeviceService | null): void {
    this.stopTimers();
    this.unlisten =
      devices?.listen({
        onStored: (rows) => {
          for (const r of rows) {
            const cur = this.dirtyDevices.get(r.deviceId);
            if (!cur || r.ts >= cur.ts) {
              this.dirtyDevices.set(r.deviceId, { ts: r.ts, points: { ...cur?.points, ...r.points } });
            }
          }
          this.relay?.publish(rows.map((r) => r.deviceId));
          this.markDirty();
        },
        onEvents: () => {
          this.relay?.publish([], true);
          this.markDirty();
        },
        onStatus: () => this.markDirty(),
      }) ?? null;
    this.recheck = setInterval(() => void this.recheckSessions(), SESSION_RECHECK_MS);
    this.recheck.unref();
    this.stopRevokedListener = this.sessions.onRevoked(() => void this.recheckSessions());
  }

  /**
   * Relays this instance's stored data to the other instances' hubs and takes theirs (several
   * instances on one PostgreSQL database: app.ts wires it when DATABASE_URL is set). Statuses
   * need no relay: every instance receives every gateway's status itself.
   */
  useRelay(relay: LiveRelay): void {
    this.relay = relay;
  }

  /** Another instance stored data of `change.deviceIds` (and events): their channels and the fleet are due. */
  remoteChange(change: RemoteChange): void {
    for (const id of change.deviceIds) this.remoteDevices.add(id);
    this.markDirty();
  }

  private stopTimers(): void {
    this.throttle.clear();
    if (this.recheck) clearInterval(this.recheck);
    this.stopRevokedListener?.();
    this.stopRevokedListener = null;
    this.unlisten?.();
    this.unlisten = null;
  }

  async close(): Promise<void> {
    this.stopTimers();
    for (const c of this.clients) c.socket.close(1001, 'server stopping');
    this.clients.clear();
  }

  get connections(): number {
    return this.clients.size;
  }

  /** Takes a new WebSocket; refuses other origins (cross-site WebSocket hijacking). */
  attach(socket: WebSocket, request: FastifyRequest): void {
    const origin = request.headers.origin;
    if (origin) {
      let sameHost = false;
      try {
        sameHost = new URL(origin).host === request.headers.host;
      } catch {
        sameHost = false;
      }
      if (!sameHost) {
        socket.close(4003, 'origin not allowed');
        return;
      }
    }
    const client: LiveClient = { socket, channels: new Set() };
    this.clients.add(client);
    socket.on('close', () => this.clients.delete(client));
    socket.on('message', (raw) => void this.onMessage(client, raw.toString(), request.lang));
  }

  private send(client: LiveClient, message: LiveServerMessage): void {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(JSON.stringify(message));
  }

  private async onMessage(client: LiveClient, raw: string, lang: 'zh' | 'en'): Promise<void> {
    let message: ReturnType<typeof liveClientMessage.safeParse>;
    try {
      message = liveClientMessage.safeParse(JSON.parse(raw));
    } catch {
      return this.send(client, {
        type: 'error',
        code: ErrorCode.PARAM_ERROR,
        msg: errorMessage(ErrorCode.PARAM_ERROR, lang),
      });
    }
    if (!message.success) {
      return this.send(client, {
        type: 'error',
        code: ErrorCode.PARAM_ERROR,
        msg: errorMessage(ErrorCode.PARAM_ERROR, lang),
      });
    }
    const m = message.data;
    if (m.type === 'ping') return this.send(client, { type: 'pong' });
    if (m.type === 'auth') {
      try {
        const auth = await this.sessions.authenticate(m.token);
        // Like every HTTP call but the password change (access/auth-hook.ts): no live data before it.
        if (auth.mustChangePassword) throw new ApiError(ErrorCode.PASSWORD_CHANGE_REQUIRED);
        client.auth = auth;
        client.token = m.token;
        client.scope = await companyScope(this.db, client.auth);
        client.scopeKey = client.scope.all ? 'all' : client.scope.companyIds.join(',');
        return this.send(client, { type: 'ready' });
      } catch (err) {
        const code = err instanceof ApiError ? err.code : ErrorCode.SYSTEM_ERROR;
        this.send(client, { type: 'error', code, msg: errorMessage(code, lang) });
        client.socket.close(4001, 'authentication failed');
        return;
      }
    }
    if (!client.auth || !client.scope) {
      this.send(client, {
        type: 'error',
        code: ErrorCode.TOKEN_INVALID,
        msg: errorMessage(ErrorCode.TOKEN_INVALID, lang),
      });
      return;
    }
    if (m.type === 'unsubscribe') {
      for (const ch of m.channels) client.channels.delete(ch);
      return;
    }
    for (const channel of m.channels) {
      // Delivery changes (publishDelivery) have no snapshot: the console reads its rows over HTTP.
      if (channel.startsWith('delivery:') || channel === LIVE_UPGRADE_CHANNEL) {
        client.channels.add(channel);
        continue;
      }
      if (channel === 'fleet') {
        client.channels.add(channel);
        this.send(client, { type: 'fleet', ...(await this.fleet.snapshot(client.scope)) });
        continue;
      }
      const deviceId = Number(channel.slice('device:'.length));
      const [row] = await this.db
        .select({ companyId: device.companyId })
        .from(device)
        .where(eq(device.id, deviceId));
      if (!row || !scopeIncludes(client.scope, row.companyId)) {
        this.send(client, {
          type: 'error',
          code: ErrorCode.DEVICE_NOT_FOUND,
          msg: errorMessage(ErrorCode.DEVICE_NOT_FOUND, lang),
        });
        continue;
      }
      client.channels.add(channel);
      const [latest] = await this.db.select().from(deviceLatest).where(eq(deviceLatest.deviceId, deviceId));
      if (latest)
        this.send(client, { type: 'device', deviceId, ts: latest.ts.getTime(), points: latest.points });
    }
  }

  /**
   * Something changed: the fleet and every device with unsent points are due; each channel goes
   * out at once when its last update is at least LIVE_MIN_INTERVAL_MS old, else at the end of
   * that interval (per-channel leading-edge throttle: fast, and never more than 1/s a channel).
   */
  private markDirty(): void {
    this.throttle.mark('fleet');
    for (const deviceId of this.dirtyDevices.keys()) this.throttle.mark(`device:${deviceId}`);
    for (const deviceId of this.remoteDevices) this.throttle.mark(`device:${deviceId}`);
  }

  /** Sends one channel's update to its subscribers. */
  private async flush(channel: string): Promise<void> {
    try {
      if (channel === 'fleet') {
        const byScope = new Map<string, ReturnType<FleetSnapshot['snapshot']>>();
        for (const c of this.clients) {
          if (!c.channels.has('fleet') || !c.scope || !c.scopeKey) continue;
          if (!byScope.has(c.scopeKey)) byScope.set(c.scopeKey, this.fleet.snapshot(c.scope));
          this.send(c, { type: 'fleet', ...(await byScope.get(c.scopeKey)!) });
        }
        return;
      }
      const deviceId = Number(channel.slice('device:'.length));
      let u = this.dirtyDevices.get(deviceId);
      const remote = this.remoteDevices.delete(deviceId);
      if (!u && !remote) return;
      this.dirtyDevices.delete(deviceId);
      const subscribers = [...this.clients].filter((c) => c.channels.has(channel));
      if (subscribers.length === 0) return;
      if (remote) {
        // Stored (also) by another instance: the database has every point, whoever stored it.
        const [latest] = await this.db.select().from(deviceLatest).where(eq(deviceLatest.deviceId, deviceId));
        if (latest) u = { ts: latest.ts.getTime(), points: latest.points };
      }
      if (!u) return;
      for (const c of subscribers) this.send(c, { type: 'device', deviceId, ts: u.ts, points: u.points });
    } catch (err) {
      this.log.error({ err, channel }, 'live update failed');
    }
  }

  /**
   * A desired-state delivery row changed (devices/delivery.ts): sent at once, not throttled (one
   * message per change of state), to the sockets subscribed to `delivery:<kind>` whose company
   * scope includes `companyId`, the company of the row's site.
   */
  publishDelivery(companyId: number, message: LiveDeliveryMessage): void {
    const channel = `delivery:${message.kind}`;
    for (const c of this.clients) {
      if (c.scope && c.channels.has(channel) && scopeIncludes(c.scope, companyId)) this.send(c, message);
    }
  }

  /**
   * An upgrade batch changed (devices/ota-live.ts merges changes per second): sent to the sockets
   * subscribed to `upgrade` whose scope includes the batch's company.
   */
  publishUpgrade(companyId: number, message: LiveUpgradeMessage): void {
    for (const c of this.clients) {
      if (c.scope && c.channels.has(LIVE_UPGRADE_CHANNEL) && scopeIncludes(c.scope, companyId))
        this.send(c, message);
    }
  }

  private async recheckSessions(): Promise<void> {
    for (const c of this.clients) {
      if (!c.token) continue;
      try {
        await this.sessions.authenticate(c.token);
      } catch (err) {
        const code = err instanceof ApiError ? err.code : ErrorCode.TOKEN_INVALID;
        // An expired access token is renewed by the console over HTTP; the session itself lives on.
        if (code === ErrorCode.ACCESS_TOKEN_EXPIRED) continue;
        this.send(c, { type: 'error', code, msg: errorMessage(code, 'zh') });
        c.socket.close(4001, 'session ended');
      }
    }
  }
}

/**
 * Leading-edge throttle per channel: `mark(channel)` sends the channel at once (next turn of the
 * event loop, so one batch of rows marks before it sends) when its last send is at least
 * `intervalMs` old; otherwise one send at the end of the interval carries every change made in
 * it. Channels never wait for each other. `now` is injectable for tests.
 */
export class ChannelThrottle {
  private readonly channels = new Map<string, { last: number; timer: NodeJS.Timeout | null }>();
  private lastPrune = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (channel: string) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  mark(channel: string): void {
    let c = this.channels.get(channel);
    if (!c) {
      c = { last: Number.NEGATIVE_INFINITY, timer: null };
      this.channels.set(channel, c);
    }
    if (c.timer) return; // already due: this change goes with it
    const state = c;
    const wait = Math.max(0, state.last + this.intervalMs - this.now());
    state.timer = setTimeout(() => {
      state.timer = null;
      state.last = this.now();
      this.send(channel);
    }, wait);
    state.timer.unref?.();
    // Forget channels quiet for a whole interval (device ids come and go), at most once an interval.
    if (this.channels.size > 1024 && this.now() - this.lastPrune >= this.intervalMs) this.prune();
  }

  /** Channels marked and not yet sent. */
  get pending(): number {
    let n = 0;
    for (const c of this.channels.values()) if (c.timer) n++;
    return n;
  }

  clear(): void {
    for (const c of this.channels.values()) if (c.timer) clearTimeout(c.timer);
    this.channels.clear();
  }

  private prune(): void {
    const now = this.now();
    this.lastPrune = now;
    for (const [channel, c] of this.channels) {
      if (!c.timer && now - c.last >= this.intervalMs) this.channels.delete(channel);
    }
  }
}
