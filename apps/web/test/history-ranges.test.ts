/**
 * The history pickers' ranges (apps/web/src/features/monitor-data/ranges.ts): a picked day,
 * week, month or year is the site's, from its local midnight, whatever the browser's zone — a
 * Shanghai day starts at 16:00 UTC the day before, and a Berlin day lasts 23 or 25 hours when
 * the clocks change.
 */
import { describe, expect, it } from 'vitest';
import { customRange, presetRange, siteToday } from '../src/features/monitor-data/ranges';

const utc = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe('presetRange', () => {
  it('takes a Shanghai day from its midnight to the next', () => {
    expect(presetRange('day', '2026-11-25', 'Asia/Shanghai')).toEqual({
      startMs: utc('2026-11-24T16:00:00Z'),
      endMs: utc('2026-11-25T16:00:00Z'),
    });
  });

  it('gives Berlin’s daylight-saving days 23 and 25 hours', () => {
    const spring = presetRange('day', '2026-03-29', 'Europe/Berlin');
    expect(spring.startMs).toBe(utc('2026-03-28T23:00:00Z'));
    expect((spring.endMs - spring.startMs) / HOUR).toBe(23);
    const autumn = presetRange('day', '2026-10-25', 'Europe/Berlin');
    expect(autumn.startMs).toBe(utc('2026-10-24T22:00:00Z'));
    expect((autumn.endMs - autumn.startMs) / HOUR).toBe(25);
  });

  it('takes the 7 days ending with the picked one, its month and its year', () => {
    const tz = 'Asia/Shanghai';
    expect(presetRange('week', '2026-11-25', tz)).toEqual({
      startMs: utc('2026-11-18T16:00:00Z'),
      endMs: utc('2026-11-25T16:00:00Z'),
    });
    expect(presetRange('month', '2026-12-09', tz)).toEqual({
      startMs: utc('2026-11-30T16:00:00Z'),
      endMs: utc('2026-12-31T16:00:00Z'),
    });
    expect(presetRange('year', '2026-12-09', tz)).toEqual({
      startMs: utc('2025-12-31T16:00:00Z'),
      endMs: utc('2026-12-31T16:00:00Z'),
    });
    // October in Berlin spans the autumn change: 31 days and one hour.
    const october = presetRange('month', '2026-10-15', 'Europe/Berlin');
    expect((october.endMs - october.startMs) / HOUR).toBe(31 * 24 + 1);
  });
});

describe('customRange and siteToday', () => {
  it('covers whole site days, both ends included', () => {
    expect(customRange('2026-11-20', '2026-11-21', 'Asia/Shanghai')).toEqual({
      startMs: utc('2026-11-19T16:00:00Z'),
      endMs: utc('2026-11-21T16:00:00Z'),
    });
  });

  it('is the site’s date, already tomorrow in Shanghai while it is evening in UTC', () => {
    const now = utc('2026-11-25T20:00:00Z');
    expect(siteToday('Asia/Shanghai', now)).toBe('2026-11-26');
    expect(siteToday('UTC', now)).toBe('2026-11-25');
  });
});
