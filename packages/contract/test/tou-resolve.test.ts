/**
 * Plan resolution (tou/resolve.ts): exception date > yearly setting > default weekly cycle >
 * default daily plan; local wall-clock periods in the site's zone, including daylight-saving days;
 * and the arbitrage preview (tou/arbitrage.ts) against hand-computed figures.
 */
import { describe, expect, it } from 'vitest';
import { localTimeOf } from '../src/local-time';
import { previewArbitrage } from '../src/tou/arbitrage';
import { activePeriodAt, resolveDay, weekdayOf } from '../src/tou/resolve';
import type { DailyPlan, TouPeriod, TouSchemeDocument } from '../src/tou/scheme';

function period(start: string, end: string, over: Partial<TouPeriod> = {}): TouPeriod {
  return {
    start,
    end,
    tier: 'off_peak',
    priceCnyPerKwh: 0.3,
    action: 'idle',
    powerKw: 0,
    socMinPct: 5,
    socMaxPct: 95,
    ...over,
  };
}

const plan = (key: number, name: string, periods = [period('00:00', '00:00')]): DailyPlan => ({
  key,
  name,
  periods,
});

function scheme(): TouSchemeDocument {
  return {
    dailyPlans: [
      plan(1, 'Default'),
      plan(2, 'Workday'),
      plan(3, 'Weekend'),
      plan(4, 'Holiday'),
      plan(5, 'Summer weekday'),
    ],
    weeklyPlans: [
      { key: 1, name: 'Normal week', days: [2, 2, 2, 2, 2, 3, 3] },
      { key: 2, name: 'Summer week', days: [5, 5, 5, 5, 5, 3, 3] },
    ],
    yearlyPlans: [{ key: 1, year: 2026, items: [{ from: '07-01', to: '08-31', weeklyPlanKey: 2 }] }],
    exceptionPlans: [
      {
        key: 1,
        name: 'Holidays',
        items: [
          { date: '2026-10-01', dailyPlanKey: 4 },
          { date: '2026-07-01', dailyPlanKey: 4 },
        ],
      },
    ],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: 1,
  };
}

describe('resolveDay', () => {
  it.each([
    ['2026-10-01', 'Holiday', 'exception'], // a Thursday, but a holiday
    ['2026-07-01', 'Holiday', 'exception'], // the exception beats the summer setting
    ['2026-07-15', 'Summer weekday', 'yearly'], // Wednesday in July
    ['2026-07-18', 'Weekend', 'yearly'], // Saturday in July: the summer week's Saturday
    ['2026-08-31', 'Summer weekday', 'yearly'], // last day of the range (inclusive)
    ['2026-09-01', 'Workday', 'weekly'], // after the range: the default week
    ['2026-11-22', 'Weekend', 'weekly'], // Sunday
    ['2027-07-15', 'Workday', 'weekly'], // the 2026 setting does not apply in 2027
  ])('%s → %s (%s)', (date, name, source) => {
    const day = resolveDay(scheme(), date);
    expect(day.dailyPlan.name).toBe(name);
    expect(day.source).toBe(source);
  });

  it('falls back to the default daily plan without a default week', () => {
    const doc = { ...scheme(), defaultWeeklyPlanKey: null };
    expect(resolveDay(doc, '2026-09-01')).toMatchObject({
      source: 'default',
      dailyPlan: { name: 'Default' },
    });
  });

  it('numbers weekdays Monday first', () => {
    expect(weekdayOf('2026-11-23')).toBe(0); // Monday
    expect(weekdayOf('2026-11-22')).toBe(6); // Sunday
  });
});

describe('local wall-clock time', () => {
  const doc: TouSchemeDocument = {
    dailyPlans: [
      plan(1, 'Day', [
        period('00:00', '02:00', { tier: 'off_peak' }),
        period('02:00', '03:00', { tier: 'shoulder' }),
        period('03:00', '00:00', { tier: 'peak' }),
      ]),
    ],
    weeklyPlans: [],
    yearlyPlans: [],
    exceptionPlans: [],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: null,
  };

  it('reads the date in the site zone, not UTC', () => {
    // 2026-07-14 20:30 UTC is already 04:30 on the 15th in Shanghai.
    expect(localTimeOf(Date.UTC(2026, 6, 14, 20, 30), 'Asia/Shanghai')).toEqual({
      date: '2026-07-15',
      minuteOfDay: 270,
    });
  });

  it('skips the missing hour on the spring-forward day (Europe/Berlin 2026-03-29)', () => {
    // 00:59 UTC = 01:59 CET; one minute later it is 03:00 CEST: the 02:00–03:00 period never runs.
    expect(activePeriodAt(doc, Date.UTC(2026, 2, 29, 0, 59), 'Europe/Berlin').period?.tier).toBe('off_peak');
    expect(activePeriodAt(doc, Date.UTC(2026, 2, 29, 1, 0), 'Europe/Berlin')).toMatchObject({
      minuteOfDay: 180,
      period: { tier: 'peak' },
    });
  });

  it('runs the repeated hour twice on the fall-back day (Europe/Berlin 2026-10-25)', () => {
    // 00:30 UTC = 02:30 CEST, 01:30 UTC = 02:30 CET: both in the 02:00–03:00 period.
    for (const utcHour of [0, 1]) {
      const at = activePeriodAt(doc, Date.UTC(2026, 9, 25, utcHour, 30), 'Europe/Berlin');
      expect(at).toMatchObject({ date: '2026-10-25', minuteOfDay: 150, period: { tier: 'shoulder' } });
    }
  });
});

describe('previewArbitrage', () => {
  const cabinet = { capacityKwh: 215, ratedPowerKw: 100, roundTripEfficiencyPct: 100 };
  const day = plan(1, 'Arbitrage', [
    period('00:00', '04:00', {
      action: 'charge',
      powerKw: 100,
      priceCnyPerKwh: 0.3,
      socMinPct: 0,
      socMaxPct: 100,
    }),
    period('04:00', '12:00', { tier: 'shoulder', priceCnyPerKwh: 0.7 }),
    period('12:00', '16:00', {
      tier: 'peak',
      action: 'discharge',
      powerKw: 100,
      priceCnyPerKwh: 1.2,
      socMinPct: 0,
      socMaxPct: 100,
    }),
    period('16:00', '00:00', { tier: 'shoulder', priceCnyPerKwh: 0.7 }),
  ]);

  it('charges a full battery in the valley and sells it at the peak (lossless)', () => {
    const r = previewArbitrage(day, cabinet);
    expect(r.chargedKwh).toBeCloseTo(215, 1);
    expect(r.dischargedKwh).toBeCloseTo(215, 1);
    expect(r.netCny).toBeCloseTo(215 * 1.2 - 215 * 0.3, 0);
    expect(r.cycles).toBeCloseTo(1, 2);
    expect(r.socPct).toHaveLength(96);
  });

  it('loses the round-trip efficiency between what it buys and what it sells', () => {
    const r = previewArbitrage(day, { ...cabinet, roundTripEfficiencyPct: 90 });
    expect(r.dischargedKwh / r.chargedKwh).toBeCloseTo(0.9, 2);
  });

  it('is limited by the PCS rating', () => {
    const r = previewArbitrage(day, { capacityKwh: 1000, ratedPowerKw: 100, roundTripEfficiencyPct: 100 });
    expect(r.chargedKwh).toBeCloseTo(400, 0); // 4 h × 100 kW
  });
});
