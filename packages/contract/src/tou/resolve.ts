/**
 * Which plan applies: the one resolution function shared by the console's calendar,
 * the server, the arbitrage preview and the EMS (the simulator runs it on every step).
 *
 * Order: an exception date > the yearly setting of the date's year whose range holds the date
 * (its weekly cycle, the date's weekday) > the default weekly cycle (the date's weekday) > the
 * default daily plan.
 *
 * Periods are local wall-clock time in the site's IANA time zone (design §4). An instant maps to
 * its local date and minute of the day with `Intl` (no fixed offsets), so on a daylight-saving
 * day a period keeps its wall-clock bounds: on the spring-forward day the skipped hour belongs to
 * no instant, on the fall-back day the repeated hour runs its period twice.
 */
import { localTimeOf } from '../local-time';
import { type DailyPlan, minutesOfDay, type TouPeriod, type TouSchemeDocument } from './scheme';

export type ResolutionSource = 'exception' | 'yearly' | 'weekly' | 'default';

export interface ResolvedDay {
  date: string;
  dailyPlan: DailyPlan;
  source: ResolutionSource;
  /** The exception plan, yearly setting or weekly cycle that decided (absent for the default). */
  viaKey?: number;
  /** The weekly cycle used (yearly and weekly sources). */
  weeklyPlanKey?: number;
}

/** ISO weekday of a `YYYY-MM-DD` date: 0 = Monday … 6 = Sunday. */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
}

/** The daily plan that applies on local date `date` (`YYYY-MM-DD`) and why. */
export function resolveDay(doc: TouSchemeDocument, date: string): ResolvedDay {
  const daily = (key: number) => doc.dailyPlans.find((p) => p.key === key);
  const fallback = (): ResolvedDay => ({
    date,
    dailyPlan: daily(doc.defaultDailyPlanKey) ?? doc.dailyPlans[0]!,
    source: 'default',
  });

  for (const plan of doc.exceptionPlans) {
    const item = plan.items.find((i) => i.date === date);
    const found = item && daily(item.dailyPlanKey);
    if (found) return { date, dailyPlan: found, source: 'exception', viaKey: plan.key };
  }
  const weekday = weekdayOf(date);
  const year = Number(date.slice(0, 4));
  const monthDay = date.slice(5);
  const viaWeekly = (weeklyKey: number, source: 'yearly' | 'weekly', viaKey: number): ResolvedDay | null => {
    const weekly = doc.weeklyPlans.find((w) => w.key === weeklyKey);
    const found = weekly && daily(weekly.days[weekday]!);
    return found ? { date, dailyPlan: found, source, viaKey, weeklyPlanKey: weeklyKey } : null;
  };
  for (const plan of doc.yearlyPlans) {
    if (plan.year !== year) continue;
    // MM-DD strings order like dates within one year.
    const item = plan.items.find((i) => i.from <= monthDay && monthDay <= i.to);
    const found = item && viaWeekly(item.weeklyPlanKey, 'yearly', plan.key);
    if (found) return found;
  }
  if (doc.defaultWeeklyPlanKey !== null) {
    const found = viaWeekly(doc.defaultWeeklyPlanKey, 'weekly', doc.defaultWeeklyPlanKey);
    if (found) return found;
  }
  return fallback();
}

/** The period of `plan` running at `minuteOfDay` (0 ≤ x < 1440), if any. */
export function periodAtMinute(plan: DailyPlan, minuteOfDay: number): TouPeriod | undefined {
  return plan.periods.find(
    (p) => minuteOfDay >= minutesOfDay(p.start) && minuteOfDay < minutesOfDay(p.end, true),
  );
}

export interface ActivePeriod extends ResolvedDay {
  minuteOfDay: number;
  period: TouPeriod | undefined;
}

/** The plan and period in force at instant `ms` for a site in `timeZone`. */
export function activePeriodAt(doc: TouSchemeDocument, ms: number, timeZone: string): ActivePeriod {
  const local = localTimeOf(ms, timeZone);
  const day = resolveDay(doc, local.date);
  return { ...day, minuteOfDay: local.minuteOfDay, period: periodAtMinute(day.dailyPlan, local.minuteOfDay) };
}
