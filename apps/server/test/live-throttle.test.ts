/**
 * The live hub's per-channel throttle (devices/live-hub.ts ChannelThrottle; design §6 device →
 * browser p95 ≤ 500 ms): a channel's first change goes out at once, later changes within the
 * interval coalesce into one trailing send, and channels never wait for each other. Fake timers:
 * no real sleeps.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChannelThrottle } from '../src/devices/live-hub';

describe('ChannelThrottle', () => {
  let sent: { channel: string; at: number }[];
  let throttle: ChannelThrottle;
  const t0 = Date.UTC(2025, 0, 1);

  beforeEach(() => {
    vi.useFakeTimers({ now: t0 });
    sent = [];
    throttle = new ChannelThrottle(1000, (channel) => sent.push({ channel, at: Date.now() - t0 }));
  });
  afterEach(() => {
    throttle.clear();
    vi.useRealTimers();
  });

  it('sends a channel’s first change at once', async () => {
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([{ channel: 'device:1', at: 0 }]);
  });

  it('two channels do not wait for each other', async () => {
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(300);
    throttle.mark('device:1'); // inside device:1's interval: due at 1000
    throttle.mark('device:2'); // another channel: out at once, not with device:1's round
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([
      { channel: 'device:1', at: 0 },
      { channel: 'device:2', at: 300 },
    ]);
    await vi.advanceTimersByTimeAsync(100);
    throttle.mark('fleet');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toEqual({ channel: 'fleet', at: 400 });
    await vi.advanceTimersByTimeAsync(600);
    expect(sent.at(-1)).toEqual({ channel: 'device:1', at: 1000 });
  });

  it('coalesces changes within the interval into one trailing send, at most one per interval', async () => {
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(150);
      throttle.mark('device:1');
    }
    await vi.advanceTimersByTimeAsync(250); // now 1000: the trailing send
    expect(sent.map((s) => s.at)).toEqual([0, 1000]);
    // A change right after the trailing send waits for the next interval.
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(999);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((s) => s.at)).toEqual([0, 1000, 2000]);
  });

  it('a channel quiet for an interval sends at once again', async () => {
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(1500);
    throttle.mark('device:1');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((s) => s.at)).toEqual([0, 1500]);
  });

  it('clear() drops what is due', async () => {
    throttle.mark('device:1');
    throttle.clear();
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent).toEqual([]);
  });
});
