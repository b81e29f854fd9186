/**
 * Time-of-use (ToU) schemes (spec §3 "daily, weekly, yearly and exception plans with
 * time tariffs", §5 plan rules, §9 plan limits): the document the console edits, the server
 * stores and the EMS receives (`set_tou_plan`, docs/device-protocol.md).
 *
 * A scheme holds:
 * - daily plans: ordered periods `[start, end)` in local wall-clock time, `HH:MM`, the first
 *   starting at 00:00 and the last ending at 00:00 (= midnight, spec §5); each period has a
 *   peak-valley tier (spec §9: sharp, peak, shoulder = flat, off-peak = valley), an energy price
 *   in CNY/kWh, and a strategy: charge / discharge / idle at a power setpoint (kW) within an SOC
 *   window (floor and ceiling, %);
 * - weekly cycles: a daily plan for each weekday, Monday first (ISO 8601);
 * - yearly settings: for one calendar year, date ranges (`MM-DD`..`MM-DD`, inclusive; a whole
 *   month is `MM-01`..`MM-<last>`) mapped to weekly cycles;
 * - exception plans: single dates (holidays) mapped to daily plans;
 * - the default daily plan, and optionally a default weekly cycle.
 *
 * Plans refer to each other by `key`: a small integer unique within its kind in the scheme (the
 * EMS stores plans in numbered slots, like DL/T 645 meter ToU tables). Which plan applies to a
 * day: resolve.ts. The rules a valid scheme follows: rules.ts.
 *
 * This file only checks shapes (types, formats, lengths); every rule with a message of its own
 * lives in rules.ts so that form and server report it the same way.
 */
import { z } from 'zod';
import { TEXT_LIMITS, trimmedText } from '../api/primitives';

/** Peak-valley tiers (spec §9), most expensive first. `shoulder` = flat, `off_peak` = valley. */
export const TOU_TIERS = ['sharp', 'peak', 'shoulder', 'off_peak'] as const;
export type TouTier = (typeof TOU_TIERS)[number];

/** What the battery does in a period. Power sign convention: docs/device-protocol.md. */
export const TOU_ACTIONS = ['charge', 'discharge', 'idle'] as const;
export type TouAction = (typeof TOU_ACTIONS)[number];

/** Spec §9 plan limits. */
export const TOU_LIMITS = {
  dailyPlans: 128,
  weeklyPlans: 14,
  yearlyPlans: 12,
  /** Periods of one daily plan. */
  dailyPlanItems: 24,
  /** Items of one yearly setting or exception plan ("other plan"). */
  otherPlanItems: 16,
  /** Ours (the spec is silent): exception plans per scheme. */
  exceptionPlans: 16,
} as const;

/** `HH:MM`, 00:00–23:59. 24:00 is not a time here: the day ends at 00:00 (spec §5). */
export const HHMM_PATTERN = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
/** `MM-DD` of a yearly setting item. */
export const MONTH_DAY_PATTERN = /^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
/** `YYYY-MM-DD` of an exception date. */
export const DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

const key = z.number().int().min(1).max(9999);
const name = trimmedText(TEXT_LIMITS.touPlanName);
/** Times are checked by rules.ts (so that "24:00" gets the spec's message, not a format error). */
const time = z.string().max(TEXT_LIMITS.touTime);

/**
 * One period of a daily plan. `tier`, `priceCnyPerKwh` and `action` are nullable so that a form
 * being filled in is a scheme too; rules.ts reports what is missing with the spec's messages.
 */
export const touPeriodSchema = z.object({
  start: time,
  end: time,
  tier: z.enum(TOU_TIERS).nullable(),
  /** Energy price, CNY/kWh (> 0). */
  priceCnyPerKwh: z.number().finite().nullable(),
  action: z.enum(TOU_ACTIONS).nullable(),
  /** Power setpoint magnitude, kW (> 0 to charge or discharge; ignored when idle). */
  powerKw: z.number().finite().min(0).max(100_000),
  /** Discharging stops at this SOC, %. */
  socMinPct: z.number().finite(),
  /** Charging stops at this SOC, %. */
  socMaxPct: z.number().finite(),
});
export type TouPeriod = z.infer<typeof touPeriodSchema>;

export const dailyPlanSchema = z.object({
  key,
  name,
  periods: z.array(touPeriodSchema).max(64),
});
export type DailyPlan = z.infer<typeof dailyPlanSchema>;

export const weeklyPlanSchema = z.object({
  key,
  name,
  /** Daily plan keys, Monday … Sunday. */
  days: z.array(key).length(7),
});
export type WeeklyPlan = z.infer<typeof weeklyPlanSchema>;

export const yearlyItemSchema = z.object({
  /** First day, `MM-DD`, inclusive. */
  from: z.string().regex(MONTH_DAY_PATTERN),
  /** Last day, `MM-DD`, inclusive. */
  to: z.string().regex(MONTH_DAY_PATTERN),
  weeklyPlanKey: key,
});
export type YearlyItem = z.infer<typeof yearlyItemSchema>;

export const yearlyPlanSchema = z.object({
  key,
  year: z.number().int().min(2000).max(2100),
  items: z.array(yearlyItemSchema).max(64),
});
export type YearlyPlan = z.infer<typeof yearlyPlanSchema>;

export const exceptionItemSchema = z.object({
  date: z.string().regex(DATE_PATTERN),
  dailyPlanKey: key,
});
export type ExceptionItem = z.infer<typeof exceptionItemSchema>;

export const exceptionPlanSchema = z.object({
  key,
  name,
  items: z.array(exceptionItemSchema).max(64),
});
export type ExceptionPlan = z.infer<typeof exceptionPlanSchema>;

/** The whole scheme document (shape only; rules.ts `validateScheme` for the rules). */
export const touSchemeDocumentSchema = z.object({
  dailyPlans: z.array(dailyPlanSchema).max(256),
  weeklyPlans: z.array(weeklyPlanSchema).max(64),
  yearlyPlans: z.array(yearlyPlanSchema).max(64),
  exceptionPlans: z.array(exceptionPlanSchema).max(64),
  defaultDailyPlanKey: key,
  defaultWeeklyPlanKey: key.nullable(),
});
export type TouSchemeDocument = z.infer<typeof touSchemeDocumentSchema>;

/** Minutes since midnight of `HH:MM` (a period's end of 00:00 is midnight at the day's end: 1440). */
export function minutesOfDay(hhmm: string, isEnd = false): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const minutes = h * 60 + m;
  return isEnd && minutes === 0 ? 1440 : minutes;
}

/** `HH:MM` of minutes since midnight; 1440 is written 00:00 (spec §5). */
export function hhmmOf(minutes: number): string {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** The next free key of a list of plans (1 for an empty list). */
export function nextKey(plans: ReadonlyArray<{ key: number }>): number {
  return plans.reduce((max, p) => Math.max(max, p.key), 0) + 1;
}

/** Days in `month` (1–12) of `year` (Gregorian: 28–31). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
