/**
 * The live-push client (contract api/live.ts): one WebSocket per tab, shared by every screen
 * that listens to a channel.
 *
 * Protocol: open `ws(s)://<host>/ws` → send `{type:'auth', token}` → the server answers
 * `{type:'ready'}` → send `{type:'subscribe', channels}` → the server answers each subscribe
 * with a full snapshot, then updates (at most one per channel per second).
 *
 * - `{type:'error', code: 50014}` while authenticating (expired access token): the token is
 *   refreshed through the request client's shared refresh and the connection retried at once.
 *   Any other refusal closes the connection for good (status `closed`).
 * - A drop (network, server restart, no message for {@link STALE_AFTER_MS}) reconnects after
 *   1 s, 2 s, 4 s … capped at 30 s; the attempt counter resets once the server says ready.
 *   Every reconnect authenticates and subscribes again; the server's snapshot resynchronises.
 * - A `ping` every {@link PING_EVERY_MS} keeps idle proxies from closing the socket.
 * - The socket closes {@link IDLE_CLOSE_MS} after the last listener leaves (so moving between
 *   screens does not churn connections) and opens again with the next listener.
 *
 * Pure logic with injected dependencies (socket factory, token, refresh, timers), so it runs
 * and is tested without a browser; `index.ts` wires it to the app.
 */
import { ErrorCode, type LiveClientMessage, type LiveServerMessage } from '@ess/contract';

/** `live`: authenticated and subscribed; `closed`: refused by the server, no retry. */
export type LiveStatus = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'closed';

/** First reconnect delay; doubles per failed attempt. */
export const BACKOFF_MIN_MS = 1000;
/** Longest reconnect delay. */
export const BACKOFF_MAX_MS = 30_000;
/** Interval of keep-alive pings while connected. */
export const PING_EVERY_MS = 25_000;
/** A connection silent this long (not even a pong) is considered dead and replaced. */
export const STALE_AFTER_MS = 70_000;
/** Grace period before an unused connection is closed. */
export const IDLE_CLOSE_MS = 5000;

/** The subset of the browser WebSocket the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

const OPEN = 1;

/**
 * Messages of a channel: `fleet` snapshots, `device:<id>` readings, `delivery:<kind>` changes,
 * `upgrade` batch changes.
 */
export type ChannelMessage = Extract<
  LiveServerMessage,
  { type: 'fleet' } | { type: 'device' } | { type: 'delivery' } | { type: 'upgrade' }
>;

export interface LiveDeps {
  /** Opens a socket to the live endpoint. */
  open(): SocketLike;
  /** The current access token, or null when signed out. */
  token(): string | null;
  /** Refreshes an expired token (shared with the HTTP client); resolves with the new one. */
  refresh(usedToken: string | null): Promise<string>;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

type Listener = (message: ChannelMessage) => void;
type StatusListener = (status: LiveStatus) => void;

/** The channel a server message belongs to, if any. */
export function channelOf(message: LiveServerMessage): string | undefined {
  if (message.type === 'fleet') return 'fleet';
  if (message.type === 'device') return `device:${message.deviceId}`;
  if (message.type === 'delivery') return `delivery:${message.kind}`;
  if (message.type === 'upgrade') return 'upgrade';
  return undefined;
}

/** Reconnect delay before attempt `attempt` (0-based): 1 s, 2 s, 4 s … 30 s. */
export function backoffDelay(attempt: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 15));
}

/** One shared live connection; see the module comment. */
export class LiveConnection {
  private socket: SocketLike | null = null;
  private ready = false;
  private attempt = 0;
  private sentToken: string | null = null;
  private lastMessageAt = 0;
  private reconnectTimer: unknown = null;
  private pingTimer: unknown = null;
  private idleTimer: unknown = null;
  private state: LiveStatus = 'idle';
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly latest = new Map<string, ChannelMessage>();
  private readonly statusListeners = new Set<StatusListener>();

  constructor(private readonly deps: LiveDeps) {}

  /** Current connection status. */
  get status(): LiveStatus {
    return this.state;
  }

  /** Calls `listener` on every status change; returns the unsubscribe function. */
  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** The last message received on `channel` in this connection, if any. */
  last(channel: string): ChannelMessage | undefined {
    return this.latest.get(channel);
  }

  /**
   * Listen to `channel` ('fleet', 'device:<id>'); connects and subscribes as needed.
   * Returns the function that stops listening.
   */
  listen(channel: string, listener: Listener): () => void {
    let set = this.listeners.get(channel);
    const isNew = !set;
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    this.cancelIdleClose();
    if (isNew && this.ready) this.send({ type: 'subscribe', channels: [channel] });
    if (!this.socket && this.reconnectTimer === null) this.connect();
    return () => this.unlisten(channel, listener);
  }

  /** Retry now if waiting to reconnect (e.g. the browser came back online). */
  retryNow(): void {
    if (this.reconnectTimer === null || this.listeners.size === 0) return;
    this.deps.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.connect();
  }

  /** Close the connection and forget everything (sign-out). */
  shutdown(): void {
    this.listeners.clear();
    this.latest.clear();
    this.teardown();
    this.setStatus('idle');
  }

  // ---- internals ---------------------------------------------------------------------------

  private unlisten(channel: string, listener: Listener): void {
    const set = this.listeners.get(channel);
    if (!set?.delete(listener) || set.size > 0) return;
    this.listeners.delete(channel);
    this.latest.delete(channel);
    if (this.ready) this.send({ type: 'unsubscribe', channels: [channel] });
    if (this.listeners.size === 0) this.scheduleIdleClose();
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.state) return;
    this.state = status;
    for (const listener of this.statusListeners) listener(status);
  }

  private send(message: LiveClientMessage): void {
    if (this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private connect(token = this.deps.token()): void {
    this.reconnectTimer = null;
    if (!token) {
      // Signed out: nothing to authenticate with. A later listener tries again.
      this.setStatus('closed');
      return;
    }
    this.setStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let socket: SocketLike;
    try {
      socket = this.deps.open();
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.ready = false;
    this.sentToken = token;
    this.lastMessageAt = this.deps.now();
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.send({ type: 'auth', token });
      this.startPing();
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      this.lastMessageAt = this.deps.now();
      this.onMessage(ev.data);
    };
    socket.onerror = () => {
      // onclose follows and handles the retry.
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      this.stopPing();
      if (this.listeners.size > 0 && this.state !== 'closed') this.scheduleReconnect();
      else if (this.state !== 'closed') this.setStatus('idle');
    };
  }

  private onMessage(data: unknown): void {
    let message: LiveServerMessage;
    try {
      message = JSON.parse(String(data)) as LiveServerMessage;
    } catch {
      return;
    }
    if (message.type === 'ready') {
      this.ready = true;
      this.attempt = 0;
      this.setStatus('live');
      const channels = [...this.listeners.keys()];
      if (channels.length > 0) this.send({ type: 'subscribe', channels });
      return;
    }
    if (message.type === 'error') {
      if (this.ready) {
        // A refused subscribe; the rest of the connection is fine.
        console.warn('live: server error', message.code, message.msg);
        return;
      }
      this.onAuthError(message.code);
      return;
    }
    const channel = channelOf(message);
    if (!channel) return;
    const set = this.listeners.get(channel);
    if (!set) return;
    this.latest.set(channel, message as ChannelMessage);
    for (const listener of [...set]) listener(message as ChannelMessage);
  }

  private onAuthError(code: number): void {
    const socket = this.socket;
    this.socket = null;
    this.stopPing();
    socket?.close(1000, 'auth refused');
    if (code !== ErrorCode.ACCESS_TOKEN_EXPIRED) {
      this.setStatus('closed');
      return;
    }
    const used = this.sentToken;
    this.deps.refresh(used).then(
      (fresh) => {
        if (this.listeners.size > 0 && !this.socket && this.state !== 'closed') this.connect(fresh);
      },
      () => this.setStatus('closed'),
    );
  }

  private scheduleReconnect(): void {
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.setStatus('reconnecting');
    this.reconnectTimer = this.deps.setTimeout(() => this.connect(), delay);
  }

  private startPing(): void {
    this.stopPing();
    const tick = () => {
      if (!this.socket) return;
      if (this.deps.now() - this.lastMessageAt > STALE_AFTER_MS) {
        // Silent too long: drop it; onclose reconnects.
        const socket = this.socket;
        socket.close(4000, 'stale');
        socket.onclose?.({});
        return;
      }
      this.send({ type: 'ping' });
      this.pingTimer = this.deps.setTimeout(tick, PING_EVERY_MS);
    };
    this.pingTimer = this.deps.setTimeout(tick, PING_EVERY_MS);
  }

  private stopPing(): void {
    if (this.pingTimer !== null) this.deps.clearTimeout(this.pingTimer);
    this.pingTimer = null;
  }

  private scheduleIdleClose(): void {
    this.cancelIdleClose();
    this.idleTimer = this.deps.setTimeout(() => {
      this.idleTimer = null;
      if (this.listeners.size > 0) return;
      this.teardown();
      this.setStatus('idle');
    }, IDLE_CLOSE_MS);
  }

  private cancelIdleClose(): void {
    if (this.idleTimer !== null) this.deps.clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private teardown(): void {
    this.cancelIdleClose();
    this.stopPing();
    if (this.reconnectTimer !== null) this.deps.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.ready = false;
    this.attempt = 0;
    socket?.close(1000, 'idle');
  }
}
