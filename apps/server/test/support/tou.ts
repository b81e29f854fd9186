/**
 * Test support for ToU schemes: a valid scheme document using every kind of plan (the Shanghai
 * general C&I two-part tariff shape: valley charge, peak and sharp discharge, flat idle), dated
 * in the server's current year so that rule 3076 passes, and the server's expected `msg` of a
 * broken rule (catalogue text with `{max}`, then where in the document); the flat two-price scheme
 * the bill tests price by ({@link FLAT_TOU}).
 */
import { describeIssuePath, errorMessage, type TouPeriod, type TouSchemeDocument } from '@ess/contract';
import { touToday } from '../../src/modules/tou/tou-routes';

/** The current year as the server sees it (China Standard Time). */
export const currentYear = (): number => Number(touToday().slice(0, 4));

export function period(start: string, end: string, over: Partial<TouPeriod> = {}): TouPeriod {
  return {
    start,
    end,
    tier: 'off_peak',
    priceCnyPerKwh: 0.3191,
    action: 'charge',
    powerKw: 100,
    socMinPct: 5,
    socMaxPct: 95,
    ...over,
  };
}

/** A valid scheme: two daily plans, a weekly cycle, a yearly setting and holidays. */
export function validScheme(year = currentYear()): TouSchemeDocument {
  return {
    dailyPlans: [
      {
        key: 1,
        name: 'Workday',
        periods: [
          period('00:00', '08:00'),
          period('08:00', '12:00', { tier: 'peak', priceCnyPerKwh: 1.1637, action: 'discharge' }),
          period('12:00', '14:00', { tier: 'sharp', priceCnyPerKwh: 1.4352, action: 'discharge' }),
          period('14:00', '22:00', { tier: 'shoulder', priceCnyPerKwh: 0.6811, action: 'idle', powerKw: 0 }),
          period('22:00', '00:00'),
        ],
      },
      { key: 2, name: 'Holiday', periods: [period('00:00', '00:00', { action: 'idle', powerKw: 0 })] },
    ],
    weeklyPlans: [{ key: 1, name: 'Week', days: [1, 1, 1, 1, 1, 2, 2] }],
    yearlyPlans: [
      {
        key: 1,
        year,
        items: [
          { from: '01-01', to: '06-30', weeklyPlanKey: 1 },
          { from: '07-01', to: '12-31', weeklyPlanKey: 1 },
        ],
      },
    ],
    exceptionPlans: [
      {
        key: 1,
        name: 'National Day',
        items: [
          { date: `${year}-10-01`, dailyPlanKey: 2 },
          { date: `${year}-10-02`, dailyPlanKey: 2 },
        ],
      },
    ],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: 1,
  };
}

/** The `msg` the server answers for a broken rule: catalogue text, then where it is. */
export function ruleMsg(
  doc: TouSchemeDocument,
  code: number,
  path: Array<string | number>,
  lang: 'zh' | 'en',
  params: Record<string, number> = {},
): string {
  const text = errorMessage(code, lang, params);
  const where = describeIssuePath(doc, path, lang);
  return where ? `${text}${lang === 'zh' ? '：' : ': '}${where}` : text;
}

/**
 * The flat scheme of the bill and meter-swap tests: every day 00:00–12:00 off-peak at 0.3 CNY/kWh
 * (charge), 12:00–24:00 peak at 1.2 CNY/kWh (discharge), 100 kW, SoC 10–90 %; no weekly, yearly
 * or exception plans. The hand-computed bills price their kWh at these two prices.
 */
export const FLAT_TOU: TouSchemeDocument = {
  dailyPlans: [
    {
      key: 1,
      name: 'day',
      periods: [
        {
          start: '00:00',
          end: '12:00',
          tier: 'off_peak',
          priceCnyPerKwh: 0.3,
          action: 'charge',
          powerKw: 100,
          socMinPct: 10,
          socMaxPct: 90,
        },
        {
          start: '12:00',
          end: '00:00',
          tier: 'peak',
          priceCnyPerKwh: 1.2,
          action: 'discharge',
          powerKw: 100,
          socMinPct: 10,
          socMaxPct: 90,
        },
      ],
    },
  ],
  weeklyPlans: [],
  yearlyPlans: [],
  exceptionPlans: [],
  defaultDailyPlanKey: 1,
  defaultWeeklyPlanKey: null,
};
