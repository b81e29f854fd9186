/**
 * Pure editing helpers of the ToU screens: new plans and schemes, the 24-hour
 * timeline's period operations (split, delete, move a boundary, snapped to 15 minutes), the
 * "standard" arbitrage strategy, and the index of rule issues by field path.
 *
 * Every function returns new objects (the editor's state is immutable). Times are `HH:MM`
 * local wall-clock, a period's end of 00:00 is midnight at the day's end (contract scheme.ts);
 * the rules themselves are the contract's `validateScheme`, never repeated here.
 */
import {
  type DailyPlan,
  type ExceptionPlan,
  hhmmOf,
  minutesOfDay,
  nextKey,
  priceAwareStrategy,
  type ResolutionSource,
  type TouAssignedSite,
  type TouIssue,
  type TouPeriod,
  type TouSchemeDocument,
  type TouTier,
  timeOrderStrategy,
  type WeeklyPlan,
  type YearlyPlan,
} from '@ess/contract';

/** Boundaries snap to this many minutes when dragged or split. */
export const SNAP_MINUTES = 15;
const DAY_MINUTES = 1440;

/** Colour per tier (timeline blocks, tags, legend): sharp red, peak orange, shoulder blue, off-peak green. */
export const TIER_COLORS: Record<TouTier, string> = {
  sharp: '#f5222d',
  peak: '#fa8c16',
  shoulder: '#1677ff',
  off_peak: '#52c41a',
};

/** Colour per calendar source (which rule picked the day's plan). */
export const SOURCE_COLORS: Record<ResolutionSource, string> = {
  exception: '#eb2f96',
  yearly: '#1677ff',
  weekly: '#13c2c2',
  default: '#8c8c8c',
};

/** The strategy a new period or a standard strategy starts with: 100 kW, SOC 5–95 %. */
export const DEFAULT_STRATEGY = { powerKw: 100, socMinPct: 5, socMaxPct: 95 } as const;

/** A period `[start, end)` of tier `tier` without a price, idle, with the default strategy values. */
export function newPeriod(start: string, end: string, tier: TouTier | null = 'off_peak'): TouPeriod {
  return { start, end, tier, priceCnyPerKwh: null, action: 'idle', ...DEFAULT_STRATEGY };
}

/** A new daily plan: one off-peak period 00:00–00:00 (the whole day) that still needs a price. */
export function newDailyPlan(plans: readonly DailyPlan[], name: string): DailyPlan {
  return { key: nextKey(plans), name, periods: [newPeriod('00:00', '00:00')] };
}

/** A new scheme document: one empty daily plan, which is also the default. */
export function newSchemeDocument(dailyPlanName: string): TouSchemeDocument {
  return {
    dailyPlans: [newDailyPlan([], dailyPlanName)],
    weeklyPlans: [],
    yearlyPlans: [],
    exceptionPlans: [],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: null,
  };
}

/** A new weekly cycle: `dailyKey` on every weekday. */
export function newWeeklyPlan(plans: readonly WeeklyPlan[], name: string, dailyKey: number): WeeklyPlan {
  return { key: nextKey(plans), name, days: Array.from({ length: 7 }, () => dailyKey) };
}

/** A new yearly setting for `year`: the whole year on `weeklyKey`. */
export function newYearlyPlan(plans: readonly YearlyPlan[], year: number, weeklyKey: number): YearlyPlan {
  return { key: nextKey(plans), year, items: [{ from: '01-01', to: '12-31', weeklyPlanKey: weeklyKey }] };
}

/** A new exception plan with one date. */
export function newExceptionPlan(
  plans: readonly ExceptionPlan[],
  name: string,
  date: string,
  dailyKey: number,
): ExceptionPlan {
  return { key: nextKey(plans), name, items: [{ date, dailyPlanKey: dailyKey }] };
}

/** Start and end of a period in minutes (end 00:00 = 1440), or null while a time is not `HH:MM`. */
export function periodSpan(p: TouPeriod): { start: number; end: number } | null {
  const ok = (t: string) => /^(?:[01]\d|2[0-3]):[0-5]\d$/.test(t);
  if (!ok(p.start) || !ok(p.end)) return null;
  return { start: minutesOfDay(p.start), end: minutesOfDay(p.end, true) };
}

/** `minutes` rounded to the nearest multiple of {@link SNAP_MINUTES}. */
export function snap(minutes: number): number {
  return Math.round(minutes / SNAP_MINUTES) * SNAP_MINUTES;
}

/**
 * Split period `index` at its middle (snapped to 15 min): both halves keep its tier, price and
 * strategy. Null when it is too short (under 30 min) or its times are not valid.
 */
export function splitPeriod(periods: readonly TouPeriod[], index: number): TouPeriod[] | null {
  const p = periods[index];
  const span = p && periodSpan(p);
  if (!p || !span || span.end - span.start < 2 * SNAP_MINUTES) return null;
  let mid = snap((span.start + span.end) / 2);
  if (mid <= span.start) mid += SNAP_MINUTES;
  if (mid >= span.end) mid -= SNAP_MINUTES;
  const at = hhmmOf(mid);
  return [...periods.slice(0, index), { ...p, end: at }, { ...p, start: at }, ...periods.slice(index + 1)];
}

/**
 * Remove period `index`; its time goes to the period before it (or, for the first one, to the
 * period after it) so that the day stays covered. Removing the only period is refused by the
 * caller (3079).
 */
export function removePeriod(periods: readonly TouPeriod[], index: number): TouPeriod[] {
  const removed = periods[index];
  if (!removed) return [...periods];
  const rest = periods.filter((_, i) => i !== index);
  if (index > 0) rest[index - 1] = { ...rest[index - 1]!, end: removed.end };
  else if (rest[0]) rest[0] = { ...rest[0], start: removed.start };
  return rest;
}

/**
 * The range the boundary after period `index` (its end = the next one's start) may move in,
 * in minutes: at least 15 minutes of each neighbour remain. Null when there is no next period
 * or the times are not valid.
 */
export function boundaryRange(
  periods: readonly TouPeriod[],
  index: number,
): { min: number; max: number } | null {
  const a = periods[index] && periodSpan(periods[index]!);
  const b = periods[index + 1] && periodSpan(periods[index + 1]!);
  if (!a || !b) return null;
  return { min: a.start + SNAP_MINUTES, max: b.end - SNAP_MINUTES };
}

/**
 * Move the boundary after period `index` to `minutes` (snapped, kept within
 * {@link boundaryRange}): that period's end and the next one's start.
 */
export function moveBoundary(periods: readonly TouPeriod[], index: number, minutes: number): TouPeriod[] {
  const range = boundaryRange(periods, index);
  if (!range || range.max < range.min) return [...periods];
  const at = hhmmOf(Math.min(range.max, Math.max(range.min, snap(minutes))));
  return periods.map((p, i) => (i === index ? { ...p, end: at } : i === index + 1 ? { ...p, start: at } : p));
}

/**
 * "Apply standard strategy" (the rule itself: contract tou/strategy.ts). With a site whose battery
 * is known, the price-aware strategy for it (setpoint = PCS rating, round-trip efficiency 90 % as
 * the preview's default, the SOC window of {@link DEFAULT_STRATEGY}, no degradation cost); without
 * one, the time-order rule, keeping each period's power and SOC window when usable.
 */
export function applyStandardStrategy(periods: readonly TouPeriod[], site?: TouAssignedSite): TouPeriod[] {
  if (!site || !(site.capacityKwh > 0 && site.ratedPowerKw > 0)) {
    return timeOrderStrategy(periods, undefined, DEFAULT_STRATEGY);
  }
  return priceAwareStrategy(periods, {
    capacityKwh: site.capacityKwh,
    ratedPowerKw: site.ratedPowerKw,
    roundTripEfficiencyPct: 90,
    socMinPct: DEFAULT_STRATEGY.socMinPct,
    socMaxPct: DEFAULT_STRATEGY.socMaxPct,
  });
}

/** Key of a field path (`dailyPlans.0.periods.2.priceCnyPerKwh`). */
export function pathKey(path: ReadonlyArray<string | number>): string {
  return path.join('.');
}

/** Issues by the exact path of their field, for showing each under its field. */
export type IssueIndex = ReadonlyMap<string, TouIssue[]>;

export function indexIssues(issues: readonly TouIssue[]): IssueIndex {
  const index = new Map<string, TouIssue[]>();
  for (const issue of issues) {
    const key = pathKey(issue.path);
    index.set(key, [...(index.get(key) ?? []), issue]);
  }
  return index;
}

/** Issues of the field at `path` exactly. */
export function issuesAt(index: IssueIndex, path: ReadonlyArray<string | number>): TouIssue[] {
  return index.get(pathKey(path)) ?? [];
}

/** Issues at `prefix` or anywhere below it (a plan, a tab). */
export function issuesUnder(issues: readonly TouIssue[], prefix: ReadonlyArray<string | number>): TouIssue[] {
  return issues.filter((issue) => prefix.every((step, i) => issue.path[i] === step));
}

/** Today as `YYYY-MM-DD` in the browser's calendar (fixes "the current year" for the rules). */
export function todayIso(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** `MM-DD` of the first and last day of `month` (1–12) in `year`: the "whole month" pick. */
export function wholeMonth(year: number, month: number): { from: string; to: string } {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const mm = String(month).padStart(2, '0');
  return { from: `${mm}-01`, to: `${mm}-${String(last).padStart(2, '0')}` };
}

/** Share of the day (0–100 %) at `minutes`, for placing timeline blocks. */
export function dayPercent(minutes: number): number {
  return (Math.min(Math.max(minutes, 0), DAY_MINUTES) / DAY_MINUTES) * 100;
}
