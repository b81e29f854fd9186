/**
 * The live client's protocol and recovery (src/shared/live/connection.ts) against a scripted
 * server: auth → ready → subscribe, snapshots per channel, backoff after drops, token refresh
 * on 50014, refusal, idle close.
 */
import { describe, expect, it } from 'vitest';
import {
  BACKOFF_MAX_MS,
  backoffDelay,
  IDLE_CLOSE_MS,
  LiveConnection,
  type LiveDeps,
  type SocketLike,
  STALE_AFTER_MS,
} from '../src/shared/live/connection';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  // server side
  accept(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(message: object): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function harness(initialToken: string | null = 'tok-1') {
  let clock = 0;
  let token = initialToken;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const sockets: FakeSocket[] = [];
  const refreshCalls: (string | null)[] = [];
  let refreshResult: () => Promise<string> = async () => {
    token = 'tok-2';
    return token;
  };
  const deps: LiveDeps = {
    open: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    token: () => token,
    refresh: (used) => {
      refreshCalls.push(used);
      return refreshResult();
    },
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: clock + ms, fn, id });
      return id;
    },
    clearTimeout: (handle) => {
      const i = timers.findIndex((t) => t.id === handle);
      if (i >= 0) timers.splice(i, 1);
    },
    now: () => clock,
  };
  const advance = (ms: number) => {
    const end = clock + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > end) break;
      timers.shift();
      clock = next.at;
      next.fn();
    }
    clock = end;
  };
  const conn = new LiveConnection(deps);
  const statuses: string[] = [];
  conn.onStatus((s) => statuses.push(s));
  return {
    conn,
    sockets,
    statuses,
    refreshCalls,
    advance,
    setRefresh: (fn: () => Promise<string>) => {
      refreshResult = fn;
    },
    last: () => sockets[sockets.length - 1]!,
  };
}

const fleet = (n: number) => ({ type: 'fleet', overview: { sites: n }, sites: [], alarms: [] });
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('live connection', () => {
  it('authenticates, subscribes after ready and delivers snapshots of its channel only', () => {
    const h = harness();
    const got: unknown[] = [];
    h.conn.listen('fleet', (m) => got.push(m));
    expect(h.conn.status).toBe('connecting');
    const s = h.last();
    s.accept();
    expect(s.sent).toEqual([{ type: 'auth', token: 'tok-1' }]);
    s.push({ type: 'ready' });
    expect(h.conn.status).toBe('live');
    expect(s.sent[1]).toEqual({ type: 'subscribe', channels: ['fleet'] });
    s.push(fleet(3));
    s.push({ type: 'device', deviceId: 7, ts: 1, points: { p_kw: 1 } });
    expect(got).toEqual([fleet(3)]);
    expect(h.conn.last('fleet')).toEqual(fleet(3));
  });

  it('reconnects with exponential backoff capped at 30 s and resubscribes', () => {
    const h = harness();
    h.conn.listen('fleet', () => {});
    h.last().accept();
    h.last().push({ type: 'ready' });
    h.last().drop();
    expect(h.conn.status).toBe('reconnecting');
    // Every attempt fails at once: 1, 2, 4, 8, 16, 30, 30 s.
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = h.sockets.length;
      let waited = 0;
      while (h.sockets.length === before) {
        h.advance(100);
        waited += 100;
      }
      delays.push(waited);
      h.last().drop();
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(backoffDelay(50)).toBe(BACKOFF_MAX_MS);
    // A successful attempt resets the backoff and resubscribes (the server resends a snapshot).
    h.advance(30_000);
    const s = h.last();
    s.accept();
    s.push({ type: 'ready' });
    expect(s.sent).toEqual([
      { type: 'auth', token: 'tok-1' },
      { type: 'subscribe', channels: ['fleet'] },
    ]);
    s.drop();
    const before = h.sockets.length;
    h.advance(1000);
    expect(h.sockets.length).toBe(before + 1);
  });

  it('refreshes an expired token once and retries with the new one', async () => {
    const h = harness();
    h.conn.listen('fleet', () => {});
    const first = h.last();
    first.accept();
    first.push({ type: 'error', code: 50014, msg: 'expired' });
    expect(first.closed).toBe(true);
    await flush();
    expect(h.refreshCalls).toEqual(['tok-1']);
    const second = h.last();
    expect(second).not.toBe(first);
    second.accept();
    expect(second.sent[0]).toEqual({ type: 'auth', token: 'tok-2' });
  });

  it('stops for good when the server refuses for another reason or the refresh fails', async () => {
    const h = harness();
    h.conn.listen('fleet', () => {});
    h.last().accept();
    h.last().push({ type: 'error', code: 9999, msg: 'invalid' });
    expect(h.conn.status).toBe('closed');
    h.advance(120_000);
    expect(h.sockets).toHaveLength(1);

    const g = harness();
    g.setRefresh(() => Promise.reject(new Error('refresh failed')));
    g.conn.listen('fleet', () => {});
    g.last().accept();
    g.last().push({ type: 'error', code: 50014, msg: 'expired' });
    await flush();
    expect(g.conn.status).toBe('closed');
    g.advance(120_000);
    expect(g.sockets).toHaveLength(1);
  });

  it('pings while idle and replaces a connection that went silent', () => {
    const h = harness();
    h.conn.listen('fleet', () => {});
    const s = h.last();
    s.accept();
    s.push({ type: 'ready' });
    h.advance(25_000);
    expect(s.sent.at(-1)).toEqual({ type: 'ping' });
    h.advance(STALE_AFTER_MS);
    expect(s.closed).toBe(true);
    expect(h.conn.status).toBe('reconnecting');
  });

  it('shares one socket between listeners, unsubscribes unused channels, closes when idle', () => {
    const h = harness();
    const stopA = h.conn.listen('fleet', () => {});
    const s = h.last();
    s.accept();
    s.push({ type: 'ready' });
    const stopB = h.conn.listen('device:4', () => {});
    expect(h.sockets).toHaveLength(1);
    expect(s.sent.at(-1)).toEqual({ type: 'subscribe', channels: ['device:4'] });
    stopB();
    expect(s.sent.at(-1)).toEqual({ type: 'unsubscribe', channels: ['device:4'] });
    stopA();
    h.advance(IDLE_CLOSE_MS - 1);
    expect(s.closed).toBe(false);
    h.advance(1);
    expect(s.closed).toBe(true);
    expect(h.conn.status).toBe('idle');
  });

  it('does not connect without a token', () => {
    const h = harness(null);
    h.conn.listen('fleet', () => {});
    expect(h.sockets).toHaveLength(0);
    expect(h.conn.status).toBe('closed');
  });
});
