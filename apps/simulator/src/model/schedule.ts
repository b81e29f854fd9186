/**
 * The EMS operating schedule: local wall-clock periods with an action, a power and an SOC
 * window. Until time-of-use plans arrive from the server (`set_tou_plan` command, tariff issue)
 * every site runs the default plan: charge at rated power 00:00–06:00 up to the SOC ceiling,
 * discharge at rated power 18:00–22:00 down to the floor, idle otherwise (the valley-charge /
 * evening-peak-discharge pattern of Chinese C&I peak-valley arbitrage).
 *
 * Periods are `[start, end)` in the site's local time, `HH:MM`; `end` may be `24:00`, and a
 * period whose end is not after its start wraps past midnight (`22:00`–`06:00`). Periods must
 * not overlap; at most 24 (docs/device-protocol.md cmd/reply example).
 */
import { z } from 'zod';

export type ScheduleAction = 'charge' | 'discharge' | 'idle';

export interface SchedulePeriod {
  /** `HH:MM`, local wall-clock, inclusive. */
  start: string;
  /** `HH:MM` or `24:00`, exclusive. */
  end: string;
  action: ScheduleAction;
  /** Power magnitude, kW (≥ 0); the sign follows from the action. Capped at the PCS rating. */
  powerKw: number;
  /** Discharge stops at this SOC, %. */
  socMinPct: number;
  /** Charge stops at this SOC, %. */
  socMaxPct: number;
}

export const MAX_SCHEDULE_PERIODS = 24;

const hhmm = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'time must be HH:MM (00:00–24:00)');

/** Minutes since midnight of `HH:MM` (24:00 → 1440). */
export function minutesOf(hhmmText: string): number {
  const [h, m] = hhmmText.split(':');
  return Number(h) * 60 + Number(m);
}

/** Minutes of the day covered by a period, as [from, to) ranges within 0–1440. */
function ranges(p: Pick<SchedulePeriod, 'start' | 'end'>): Array<[number, number]> {
  const s = minutesOf(p.start) % 1440;
  const e = minutesOf(p.end);
  if (e > s) return [[s, e]];
  return [
    [s, 1440],
    [0, e],
  ];
}

export const schedulePeriodSchema = z
  .object({
    start: hhmm,
    end: hhmm,
    action: z.enum(['charge', 'discharge', 'idle']),
    powerKw: z.number().finite().min(0),
    socMinPct: z.number().min(0).max(100),
    socMaxPct: z.number().min(0).max(100),
  })
  .refine((p) => p.start !== p.end, { message: 'start and end must differ' })
  .refine((p) => p.socMinPct <= p.socMaxPct, { message: 'socMinPct must not exceed socMaxPct' });

/** A whole schedule: 1–24 periods that do not overlap. */
export const scheduleSchema = z
  .array(schedulePeriodSchema)
  .min(1)
  .max(MAX_SCHEDULE_PERIODS, { message: `at most ${MAX_SCHEDULE_PERIODS} periods` })
  .superRefine((periods, ctx) => {
    const used = new Uint8Array(1440);
    periods.forEach((p, i) => {
      for (const [a, b] of ranges(p)) {
        for (let m = a; m < b; m++) {
          if (used[m]) {
            ctx.addIssue({ code: 'custom', message: `period ${i + 1} overlaps an earlier one`, path: [i] });
            return;
          }
          used[m] = 1;
        }
      }
    });
  });

/** The default plan of a site with PCS rating `ratedKw` and SOC window floor–ceiling. */
export function defaultSchedule(
  ratedKw: number,
  socFloorPct: number,
  socCeilingPct: number,
): SchedulePeriod[] {
  return [
    {
      start: '00:00',
      end: '06:00',
      action: 'charge',
      powerKw: ratedKw,
      socMinPct: socFloorPct,
      socMaxPct: socCeilingPct,
    },
    {
      start: '18:00',
      end: '22:00',
      action: 'discharge',
      powerKw: ratedKw,
      socMinPct: socFloorPct,
      socMaxPct: socCeilingPct,
    },
  ];
}

/** The period active at `minuteOfDay` (0 ≤ x < 1440), if any. */
export function activePeriod(
  periods: readonly SchedulePeriod[],
  minuteOfDay: number,
): SchedulePeriod | undefined {
  for (const p of periods) {
    for (const [a, b] of ranges(p)) {
      if (minuteOfDay >= a && minuteOfDay < b) return p;
    }
  }
  return undefined;
}
