/**
 * The shared time-range rule (history and export): inverted, too long, in the future.
 */
import { describe, expect, it } from 'vitest';
import {
  checkTimeRange,
  clampRangeToNow,
  DST_SLACK_MS,
  EXPORT_MAX_DAYS,
  FUTURE_TOLERANCE_MS,
  HISTORY_MAX_DAYS,
} from '../src/api/time-range';
import { errorMessage } from '../src/errors';

const DAY = 86_400_000;
const now = Date.UTC(2025, 5, 15, 12, 0, 0);

describe('checkTimeRange', () => {
  it('accepts a day ending now and a day ending later today', () => {
    expect(checkTimeRange({ startMs: now - DAY, endMs: now }, { maxDays: 7, nowMs: now })).toBeNull();
    expect(
      checkTimeRange(
        { startMs: now - 12 * 3_600_000, endMs: now + 12 * 3_600_000 },
        { maxDays: 1, nowMs: now },
      ),
    ).toBeNull();
  });

  it('refuses an inverted or empty range with 3120', () => {
    expect(checkTimeRange({ startMs: now, endMs: now - 1 }, { maxDays: 7, nowMs: now })).toEqual({
      code: 3120,
      params: {},
    });
    expect(checkTimeRange({ startMs: now, endMs: now }, { maxDays: 7, nowMs: now })?.code).toBe(3120);
  });

  it('refuses a range longer than maxDays (plus one hour of DST slack) with 3121 and {maxDays}', () => {
    const start = now - 30 * DAY;
    expect(
      checkTimeRange(
        { startMs: start, endMs: start + EXPORT_MAX_DAYS * DAY + DST_SLACK_MS },
        { maxDays: EXPORT_MAX_DAYS, nowMs: now },
      ),
    ).toBeNull();
    expect(
      checkTimeRange(
        { startMs: start, endMs: start + EXPORT_MAX_DAYS * DAY + DST_SLACK_MS + 1 },
        { maxDays: EXPORT_MAX_DAYS, nowMs: now },
      ),
    ).toEqual({
      code: 3121,
      params: { maxDays: 7 },
    });
    expect(
      checkTimeRange({ startMs: now - 401 * DAY, endMs: now }, { maxDays: HISTORY_MAX_DAYS, nowMs: now }),
    ).toEqual({
      code: 3121,
      params: { maxDays: 400 },
    });
  });

  it('refuses a range starting in the future with 3122, beyond the clock-skew tolerance', () => {
    expect(
      checkTimeRange({ startMs: now + FUTURE_TOLERANCE_MS, endMs: now + DAY }, { maxDays: 7, nowMs: now }),
    ).toBeNull();
    expect(
      checkTimeRange(
        { startMs: now + FUTURE_TOLERANCE_MS + 1, endMs: now + DAY },
        { maxDays: 7, nowMs: now },
      ),
    ).toEqual({
      code: 3122,
      params: {},
    });
  });

  it('answers the first broken rule: inverted before too long before future', () => {
    expect(
      checkTimeRange({ startMs: now + 10 * DAY, endMs: now + 9 * DAY }, { maxDays: 7, nowMs: now })?.code,
    ).toBe(3120);
    expect(
      checkTimeRange({ startMs: now + DAY, endMs: now + 20 * DAY }, { maxDays: 7, nowMs: now })?.code,
    ).toBe(3121);
  });

  it('has zh and en texts with the limit filled in', () => {
    expect(errorMessage(3121, 'en', { maxDays: 7 })).toBe('The time range cannot exceed 7 days');
    expect(errorMessage(3121, 'zh', { maxDays: 400 })).toBe('时间范围不能超过400天');
    expect(errorMessage(3120, 'zh')).toBe('结束时间必须晚于开始时间');
    expect(errorMessage(3122, 'en')).toBe('The time range cannot start in the future');
  });
});

describe('clampRangeToNow', () => {
  it('moves a future end back to now and leaves a past range alone', () => {
    expect(clampRangeToNow({ startMs: now - DAY, endMs: now + DAY }, now)).toEqual({
      startMs: now - DAY,
      endMs: now,
    });
    expect(clampRangeToNow({ startMs: now - DAY, endMs: now - 1 }, now)).toEqual({
      startMs: now - DAY,
      endMs: now - 1,
    });
  });
});
