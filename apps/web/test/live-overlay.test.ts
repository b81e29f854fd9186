/**
 * "Newest value wins" (apps/web/src/shared/live/overlay.ts): the one rule by which live values
 * replace query values on the real-time page, the site monitor and the site screens.
 */
import { describe, expect, it } from 'vitest';
import { liveWins, mergeLivePoints, overlayPoints, overlayReading } from '../src/shared/live/overlay';

describe('liveWins', () => {
  it('lets a live value replace a query value of the same time or older, or without a time', () => {
    expect(liveWins(2000, 1000)).toBe(true);
    expect(liveWins(1000, 1000)).toBe(true);
    expect(liveWins(999, 1000)).toBe(false);
    expect(liveWins(5, null)).toBe(true);
    expect(liveWins(5, undefined)).toBe(true);
  });
});

describe('mergeLivePoints', () => {
  it('keeps the newer value per point and ignores an older message', () => {
    const a = mergeLivePoints(undefined, { ts: 10, points: { p_kw: 1, soc_pct: 50 } });
    const b = mergeLivePoints(a, { ts: 20, points: { p_kw: 2 } });
    expect(Object.fromEntries(b)).toEqual({ p_kw: { value: 2, ts: 20 }, soc_pct: { value: 50, ts: 10 } });
    expect(mergeLivePoints(b, { ts: 15, points: { p_kw: 9 } })).toBe(b);
  });
});

describe('overlayReading', () => {
  const reading = { id: 1, ts: 100, points: { p_kw: 1, soc_pct: 50 } };
  it('lays newer live points over the reading and moves its time to the newest', () => {
    const live = new Map([['p_kw', { value: 3, ts: 150 }]]);
    expect(overlayReading(reading, live)).toEqual({ id: 1, ts: 150, points: { p_kw: 3, soc_pct: 50 } });
  });
  it('keeps the reading itself when every live point is older', () => {
    const live = new Map([['p_kw', { value: 3, ts: 50 }]]);
    expect(overlayReading(reading, live)).toBe(reading);
    expect(overlayReading(reading, undefined)).toBe(reading);
  });
  it('fills a device that never reported', () => {
    const live = new Map([['p_kw', { value: 3, ts: 50 }]]);
    expect(overlayReading({ ts: null, points: {} }, live)).toEqual({ ts: 50, points: { p_kw: 3 } });
  });
});

describe('overlayPoints', () => {
  it('takes per point the newer of query and live, and adds live-only points', () => {
    const out = overlayPoints(
      [
        { name: 'a', value: 1, ts: 100 },
        { name: 'b', value: 2, ts: 300 },
      ],
      new Map([
        ['a', { value: 10, ts: 200 }],
        ['b', { value: 20, ts: 200 }],
        ['c', { value: 30, ts: 200 }],
      ]),
    );
    expect(Object.fromEntries(out)).toEqual({
      a: { value: 10, ts: 200 },
      b: { value: 2, ts: 300 },
      c: { value: 30, ts: 200 },
    });
  });
});
