/**
 * The one time-range rule of the console and the server (history and export): a range
 * `[startMs, endMs)` in UTC milliseconds is refused when
 *
 * - it is inverted or empty: `endMs <= startMs` → 3120;
 * - it is longer than the caller's limit: `endMs − startMs > maxDays × 24 h + 1 h` → 3121 with
 *   `{maxDays}` (the extra hour lets a range of whole site-local days that crosses a daylight
 *   saving change pass; history allows {@link HISTORY_MAX_DAYS}, export 7 days per spec §5/§9);
 * - it starts in the future: `startMs > nowMs + FUTURE_TOLERANCE_MS` → 3122 (the tolerance
 *   absorbs clock skew between the browser and the server). The end may lie in the future —
 *   "today" or "this month" end after now; callers clamp the end to now when they read data.
 *
 * Rules are checked in that order and the first broken one is answered. The console's forms
 * show `errorMessage(issue.code, lang, issue.params)` under the range picker; the server throws
 * the same code (texts zh/en in errors.ts).
 */
import { z } from 'zod';
import { ErrorCode } from '../errors';
import { epochMsSchema } from './primitives';

/** Longest history range (ours): a year plus a month, served from the daily rollups. */
export const HISTORY_MAX_DAYS = 400;

/** Longest export range (spec §5, §9: "start and end time at most 7 days apart"). */
export const EXPORT_MAX_DAYS = 7;

/** Clock skew allowed before a start counts as "in the future" (ours: 5 minutes). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** Daylight-saving slack added to `maxDays × 24 h` (ours: one hour). */
export const DST_SLACK_MS = 3_600_000;

const DAY_MS = 86_400_000;

/** A range in UTC ms as sent by the console: start inclusive, end exclusive. */
export const timeRangeSchema = z.object({
  startMs: epochMsSchema,
  endMs: epochMsSchema,
});
export type TimeRange = z.infer<typeof timeRangeSchema>;

/** A broken range rule: its code and the values for its message. */
export interface TimeRangeIssue {
  code: typeof ErrorCode.RANGE_INVERTED | typeof ErrorCode.RANGE_TOO_LONG | typeof ErrorCode.RANGE_IN_FUTURE;
  params: Record<string, number>;
}

export interface TimeRangeOptions {
  /** Longest allowed span in days (history {@link HISTORY_MAX_DAYS}, export {@link EXPORT_MAX_DAYS}). */
  maxDays: number;
  /** Now in UTC ms (the server's clock on the server, `Date.now()` in the browser). */
  nowMs: number;
}

/**
 * The first rule `range` breaks (3120 inverted, 3121 too long with `{maxDays}`, 3122 starts in
 * the future), or null when the range is acceptable.
 */
export function checkTimeRange(range: TimeRange, options: TimeRangeOptions): TimeRangeIssue | null {
  if (range.endMs <= range.startMs) return { code: ErrorCode.RANGE_INVERTED, params: {} };
  if (range.endMs - range.startMs > options.maxDays * DAY_MS + DST_SLACK_MS) {
    return { code: ErrorCode.RANGE_TOO_LONG, params: { maxDays: options.maxDays } };
  }
  if (range.startMs > options.nowMs + FUTURE_TOLERANCE_MS) {
    return { code: ErrorCode.RANGE_IN_FUTURE, params: {} };
  }
  return null;
}

/** The range with its end moved back to `nowMs` when it lies in the future (what data can exist). */
export function clampRangeToNow(range: TimeRange, nowMs: number): TimeRange {
  return { startMs: range.startMs, endMs: Math.min(range.endMs, Math.max(nowMs, range.startMs)) };
}
