/**
 * Every rule of a ToU scheme (spec §5 "Plans", §9 plan limits), written once and run by the
 * console's editor and by the server before it stores or sends a scheme.
 *
 * `validateScheme` answers the issues in document order, each with its error code (texts in
 * errors.ts, zh and en), the path of the offending field and, for limits, `{max}`. The server
 * answers the first one (code, catalogue text, and where: {@link describeIssuePath}); the form
 * shows each under its field.
 *
 * Rules (spec §5 unless marked "ours"):
 * - a daily plan's periods start at 00:00, follow one another without gaps (ours: a gap is a
 *   conflict the EMS cannot run) and the last ends at 00:00 (3070; "24:00" is refused with the
 *   same message); a period must end after it starts — periods do not cross midnight, split
 *   22:00–06:00 into 22:00–00:00 and 00:00–06:00 (3071);
 * - every period has a tier and a price (3073), the price greater than 0 (3085), and a strategy
 *   (3074); charging or discharging needs a power greater than 0 (3085) and an SOC window with
 *   0 ≤ floor < ceiling ≤ 100 (3086, ours);
 * - exception dates do not repeat across the scheme's exception plans (3075);
 * - yearly settings for years before the current one must be deleted (3076);
 * - a daily plan used by a weekly cycle, an exception plan or as the default cannot be deleted
 *   (3077); a weekly cycle used by a yearly setting or as the default cannot be deleted (3078);
 * - at least one daily plan remains, and each plan keeps at least one item (3079);
 * - at most 128 daily plans (3080), 14 weekly cycles (3081), 12 yearly settings (3082), 24
 *   periods per daily plan (3083), 16 items per yearly setting or exception plan (3084), 16
 *   exception plans (3089, ours);
 * - yearly items run from a real date to a later or equal one and do not overlap, and two
 *   settings do not cover the same year (3087, ours); exception dates are real dates (3087);
 *   keys are unique per kind (3088, ours); times are `HH:MM` (3094, ours).
 */
import { ErrorCode, type ErrorCodeValue } from '../errors';
import type { Lang } from '../lang';
import {
  DATE_PATTERN,
  daysInMonth,
  HHMM_PATTERN,
  minutesOfDay,
  TOU_LIMITS,
  type TouPeriod,
  type TouSchemeDocument,
} from './scheme';

/** One broken rule: its code, where (path into the document), and values for the message. */
export interface TouIssue {
  code: ErrorCodeValue;
  path: Array<string | number>;
  params?: Record<string, number | string>;
}

export interface ValidateOptions {
  /** Today in the operator's (or server's) calendar, `YYYY-MM-DD`: fixes "the current year". */
  today: string;
}

/** True for a real calendar date `YYYY-MM-DD`. */
export function isCalendarDate(date: string): boolean {
  if (!DATE_PATTERN.test(date)) return false;
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Issues of one period list (a daily plan), paths relative to the plan. */
export function periodIssues(periods: readonly TouPeriod[]): TouIssue[] {
  const issues: TouIssue[] = [];
  if (periods.length === 0) {
    issues.push({ code: ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM, path: ['periods'] });
    return issues;
  }
  if (periods.length > TOU_LIMITS.dailyPlanItems) {
    issues.push({
      code: ErrorCode.TOU_TOO_MANY_DAILY_ITEMS,
      path: ['periods'],
      params: { max: TOU_LIMITS.dailyPlanItems },
    });
  }
  // Where the next period must start; null after an end that could not be read (no gap or
  // overlap is reported against a time we do not know).
  let expectedStart: number | null = 0;
  periods.forEach((p, i) => {
    const at = ['periods', i];
    const isLast = i === periods.length - 1;
    const startOk = HHMM_PATTERN.test(p.start);
    const endOk = HHMM_PATTERN.test(p.end);
    if (!startOk) issues.push({ code: ErrorCode.TOU_TIME_INVALID, path: [...at, 'start'] });
    if (!endOk) {
      issues.push({
        code: p.end === '24:00' ? ErrorCode.TOU_LAST_END_NOT_MIDNIGHT : ErrorCode.TOU_TIME_INVALID,
        path: [...at, 'end'],
      });
    }
    const start = startOk ? minutesOfDay(p.start) : null;
    const end = endOk ? minutesOfDay(p.end, true) : null;
    if (start !== null && expectedStart !== null) {
      if (start > expectedStart) issues.push({ code: ErrorCode.TOU_PERIODS_GAP, path: [...at, 'start'] });
      else if (start < expectedStart)
        issues.push({ code: ErrorCode.TOU_PERIODS_CONFLICT, path: [...at, 'start'] });
    }
    if (end !== null) {
      if (start !== null && end <= start) {
        issues.push({ code: ErrorCode.TOU_PERIODS_CONFLICT, path: [...at, 'end'] });
      } else if (isLast && end !== 1440) {
        issues.push({ code: ErrorCode.TOU_LAST_END_NOT_MIDNIGHT, path: [...at, 'end'] });
      } else if (!isLast && end === 1440) {
        // Ends at midnight while more periods follow: they overlap the day's end.
        issues.push({ code: ErrorCode.TOU_PERIODS_CONFLICT, path: [...at, 'end'] });
      }
    }
    // The next period continues from this one's end when it can be read.
    expectedStart = end === null ? null : Math.max(end, start ?? 0);
    if (p.tier === null || p.priceCnyPerKwh === null) {
      issues.push({
        code: ErrorCode.TOU_PERIOD_TIER_PRICE_REQUIRED,
        path: [...at, p.tier === null ? 'tier' : 'priceCnyPerKwh'],
      });
    } else if (!(p.priceCnyPerKwh > 0)) {
      issues.push({ code: ErrorCode.TOU_NUMBER_NOT_POSITIVE, path: [...at, 'priceCnyPerKwh'] });
    }
    if (p.action === null) {
      issues.push({ code: ErrorCode.TOU_PERIOD_STRATEGY_REQUIRED, path: [...at, 'action'] });
    } else if (p.action !== 'idle') {
      if (!(p.powerKw > 0))
        issues.push({ code: ErrorCode.TOU_NUMBER_NOT_POSITIVE, path: [...at, 'powerKw'] });
      if (!(p.socMinPct >= 0 && p.socMinPct < p.socMaxPct && p.socMaxPct <= 100)) {
        issues.push({ code: ErrorCode.TOU_SOC_WINDOW_INVALID, path: [...at, 'socMinPct'] });
      }
    }
  });
  return issues;
}

function duplicateKeys(plans: ReadonlyArray<{ key: number }>, kind: string): TouIssue[] {
  const seen = new Set<number>();
  const issues: TouIssue[] = [];
  plans.forEach((p, i) => {
    if (seen.has(p.key)) issues.push({ code: ErrorCode.TOU_PLAN_KEY_REPEATED, path: [kind, i, 'key'] });
    seen.add(p.key);
  });
  return issues;
}

/** Day of the year (1-based) of `MM-DD` in `year`, or null when that day does not exist. */
function dayOfYear(year: number, monthDay: string): number | null {
  const [m, d] = monthDay.split('-').map(Number) as [number, number];
  if (d > daysInMonth(year, m)) return null;
  return (Date.UTC(year, m - 1, d) - Date.UTC(year, 0, 1)) / 86_400_000 + 1;
}

/** Every issue of `doc`, in document order (empty when the scheme is valid). */
export function validateScheme(doc: TouSchemeDocument, options: ValidateOptions): TouIssue[] {
  const issues: TouIssue[] = [];
  const dailyKeys = new Set(doc.dailyPlans.map((p) => p.key));
  const weeklyKeys = new Set(doc.weeklyPlans.map((p) => p.key));
  const currentYear = Number(options.today.slice(0, 4));

  if (doc.dailyPlans.length === 0)
    issues.push({ code: ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM, path: ['dailyPlans'] });
  const limits: Array<[keyof typeof TOU_LIMITS, number, ErrorCodeValue, string]> = [
    ['dailyPlans', doc.dailyPlans.length, ErrorCode.TOU_TOO_MANY_DAILY_PLANS, 'dailyPlans'],
    ['weeklyPlans', doc.weeklyPlans.length, ErrorCode.TOU_TOO_MANY_WEEKLY_PLANS, 'weeklyPlans'],
    ['yearlyPlans', doc.yearlyPlans.length, ErrorCode.TOU_TOO_MANY_YEARLY_PLANS, 'yearlyPlans'],
    ['exceptionPlans', doc.exceptionPlans.length, ErrorCode.TOU_TOO_MANY_EXCEPTION_PLANS, 'exceptionPlans'],
  ];
  for (const [limit, count, code, path] of limits) {
    if (count > TOU_LIMITS[limit]) issues.push({ code, path: [path], params: { max: TOU_LIMITS[limit] } });
  }
  issues.push(...duplicateKeys(doc.dailyPlans, 'dailyPlans'));
  issues.push(...duplicateKeys(doc.weeklyPlans, 'weeklyPlans'));
  issues.push(...duplicateKeys(doc.yearlyPlans, 'yearlyPlans'));
  issues.push(...duplicateKeys(doc.exceptionPlans, 'exceptionPlans'));

  doc.dailyPlans.forEach((plan, i) => {
    for (const issue of periodIssues(plan.periods))
      issues.push({ ...issue, path: ['dailyPlans', i, ...issue.path] });
  });

  doc.weeklyPlans.forEach((plan, i) => {
    plan.days.forEach((dailyKey, day) => {
      if (!dailyKeys.has(dailyKey)) {
        issues.push({ code: ErrorCode.TOU_DAILY_PLAN_REFERENCED, path: ['weeklyPlans', i, 'days', day] });
      }
    });
  });

  const coveredYears = new Map<number, number>();
  doc.yearlyPlans.forEach((plan, i) => {
    const at = ['yearlyPlans', i];
    if (plan.year < currentYear)
      issues.push({ code: ErrorCode.TOU_YEAR_BEFORE_CURRENT, path: [...at, 'year'] });
    if (coveredYears.has(plan.year))
      issues.push({ code: ErrorCode.TOU_YEAR_RANGE_INVALID, path: [...at, 'year'] });
    coveredYears.set(plan.year, i);
    if (plan.items.length === 0)
      issues.push({ code: ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM, path: [...at, 'items'] });
    if (plan.items.length > TOU_LIMITS.otherPlanItems) {
      issues.push({
        code: ErrorCode.TOU_TOO_MANY_OTHER_ITEMS,
        path: [...at, 'items'],
        params: { max: TOU_LIMITS.otherPlanItems },
      });
    }
    const used: Array<[number, number]> = [];
    plan.items.forEach((item, j) => {
      const itemAt = [...at, 'items', j];
      const from = dayOfYear(plan.year, item.from);
      const to = dayOfYear(plan.year, item.to);
      if (from === null || to === null || to < from) {
        issues.push({
          code: ErrorCode.TOU_YEAR_RANGE_INVALID,
          path: [...itemAt, from === null ? 'from' : 'to'],
        });
      } else if (used.some(([a, b]) => from <= b && to >= a)) {
        issues.push({ code: ErrorCode.TOU_YEAR_RANGE_INVALID, path: [...itemAt, 'from'] });
      } else {
        used.push([from, to]);
      }
      if (!weeklyKeys.has(item.weeklyPlanKey)) {
        issues.push({ code: ErrorCode.TOU_WEEKLY_PLAN_REFERENCED, path: [...itemAt, 'weeklyPlanKey'] });
      }
    });
  });

  const dates = new Set<string>();
  doc.exceptionPlans.forEach((plan, i) => {
    const at = ['exceptionPlans', i];
    if (plan.items.length === 0)
      issues.push({ code: ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM, path: [...at, 'items'] });
    if (plan.items.length > TOU_LIMITS.otherPlanItems) {
      issues.push({
        code: ErrorCode.TOU_TOO_MANY_OTHER_ITEMS,
        path: [...at, 'items'],
        params: { max: TOU_LIMITS.otherPlanItems },
      });
    }
    plan.items.forEach((item, j) => {
      const itemAt = [...at, 'items', j];
      if (!isCalendarDate(item.date))
        issues.push({ code: ErrorCode.TOU_YEAR_RANGE_INVALID, path: [...itemAt, 'date'] });
      else if (dates.has(item.date))
        issues.push({ code: ErrorCode.TOU_EXCEPTION_DATE_REPEATED, path: [...itemAt, 'date'] });
      dates.add(item.date);
      if (!dailyKeys.has(item.dailyPlanKey)) {
        issues.push({ code: ErrorCode.TOU_DAILY_PLAN_REFERENCED, path: [...itemAt, 'dailyPlanKey'] });
      }
    });
  });

  if (!dailyKeys.has(doc.defaultDailyPlanKey)) {
    issues.push({ code: ErrorCode.TOU_DAILY_PLAN_REFERENCED, path: ['defaultDailyPlanKey'] });
  }
  if (doc.defaultWeeklyPlanKey !== null && !weeklyKeys.has(doc.defaultWeeklyPlanKey)) {
    issues.push({ code: ErrorCode.TOU_WEEKLY_PLAN_REFERENCED, path: ['defaultWeeklyPlanKey'] });
  }
  return issues;
}

/** Where a daily or weekly plan is used: what blocks its deletion. */
export interface PlanReference {
  kind: 'weekly' | 'yearly' | 'exception' | 'default';
  /** Key of the referring plan (absent for the default). */
  key?: number;
}

/** Plans that use daily plan `key` (weekly cycles, exception plans, the default). */
export function dailyPlanReferences(doc: TouSchemeDocument, key: number): PlanReference[] {
  const refs: PlanReference[] = [];
  for (const w of doc.weeklyPlans) if (w.days.includes(key)) refs.push({ kind: 'weekly', key: w.key });
  for (const e of doc.exceptionPlans) {
    if (e.items.some((item) => item.dailyPlanKey === key)) refs.push({ kind: 'exception', key: e.key });
  }
  if (doc.defaultDailyPlanKey === key) refs.push({ kind: 'default' });
  return refs;
}

/** Plans that use weekly cycle `key` (yearly settings, the default). */
export function weeklyPlanReferences(doc: TouSchemeDocument, key: number): PlanReference[] {
  const refs: PlanReference[] = [];
  for (const y of doc.yearlyPlans) {
    if (y.items.some((item) => item.weeklyPlanKey === key)) refs.push({ kind: 'yearly', key: y.key });
  }
  if (doc.defaultWeeklyPlanKey === key) refs.push({ kind: 'default' });
  return refs;
}

/**
 * Why plan `key` of `kind` cannot be deleted, or null when it can (3077, 3078, 3079): the form
 * disables or refuses the deletion with this issue; the server finds the same one by
 * validating the document without the plan.
 */
export function deletionIssue(
  doc: TouSchemeDocument,
  kind: 'dailyPlans' | 'weeklyPlans' | 'yearlyPlans' | 'exceptionPlans',
  key: number,
): TouIssue | null {
  const index = doc[kind].findIndex((p) => p.key === key);
  if (kind === 'dailyPlans') {
    if (doc.dailyPlans.length <= 1)
      return { code: ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM, path: [kind, index] };
    if (dailyPlanReferences(doc, key).length > 0)
      return { code: ErrorCode.TOU_DAILY_PLAN_REFERENCED, path: [kind, index] };
  }
  if (kind === 'weeklyPlans' && weeklyPlanReferences(doc, key).length > 0) {
    return { code: ErrorCode.TOU_WEEKLY_PLAN_REFERENCED, path: [kind, index] };
  }
  return null;
}

const KIND_NAMES: Record<string, Record<Lang, string>> = {
  dailyPlans: { zh: '日计划', en: 'daily plan' },
  weeklyPlans: { zh: '周计划', en: 'weekly plan' },
  yearlyPlans: { zh: '年计划', en: 'yearly plan' },
  exceptionPlans: { zh: '例外计划', en: 'exception plan' },
  periods: { zh: '时段', en: 'period' },
  items: { zh: '条目', en: 'item' },
  days: { zh: '星期', en: 'weekday' },
};

/**
 * Where an issue is, in words (`日计划「工作日」第 3 个时段` / `daily plan "Workday", period 3`),
 * for the server's message and the form's summary; empty for the document itself.
 */
export function describeIssuePath(
  doc: TouSchemeDocument,
  path: ReadonlyArray<string | number>,
  lang: Lang,
): string {
  const parts: string[] = [];
  let node: unknown = doc;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const next = path[i + 1];
    const kind = typeof step === 'string' ? KIND_NAMES[step] : undefined;
    if (kind && typeof next === 'number') {
      const item = (node as Record<string, unknown[]>)[step]?.[next] as Record<string, unknown> | undefined;
      const label =
        typeof item?.name === 'string'
          ? item.name
          : typeof item?.year === 'number'
            ? String(item.year)
            : null;
      parts.push(
        label !== null
          ? lang === 'zh'
            ? `${kind.zh}「${label}」`
            : `${kind.en} "${label}"`
          : lang === 'zh'
            ? `第 ${next + 1} 个${kind.zh}`
            : `${kind.en} ${next + 1}`,
      );
      node = item;
      i++;
    } else if (typeof step === 'string') {
      node = (node as Record<string, unknown> | undefined)?.[step];
    }
  }
  return parts.join(lang === 'zh' ? '' : ', ');
}
