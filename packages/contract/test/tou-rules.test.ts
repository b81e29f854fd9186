/**
 * Every plan rule of spec §5 and limit of §9 (tou/rules.ts), table-driven: each case breaks one
 * rule of a valid scheme and expects exactly that code at that path; plus deletion checks and
 * the words the server adds to its message.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, errorMessage } from '../src/errors';
import { deletionIssue, describeIssuePath, isCalendarDate, validateScheme } from '../src/tou/rules';
import { TOU_LIMITS, type TouPeriod, type TouSchemeDocument } from '../src/tou/scheme';

const today = '2026-11-21';

function period(start: string, end: string, over: Partial<TouPeriod> = {}): TouPeriod {
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

/** A valid scheme using every kind of plan. */
function validScheme(): TouSchemeDocument {
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
        year: 2026,
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
          { date: '2026-10-01', dailyPlanKey: 2 },
          { date: '2026-10-02', dailyPlanKey: 2 },
        ],
      },
    ],
    defaultDailyPlanKey: 1,
    defaultWeeklyPlanKey: 1,
  };
}

type Edit = (doc: TouSchemeDocument) => void;
const periodsOf = (doc: TouSchemeDocument) => doc.dailyPlans[0]!.periods;

const cases: Array<[string, Edit, number, Array<string | number>]> = [
  [
    'last end is not 00:00',
    (d) => {
      periodsOf(d)[4]!.end = '23:00';
    },
    3070,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'last end written 24:00',
    (d) => {
      periodsOf(d)[4]!.end = '24:00';
    },
    3070,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'periods overlap',
    (d) => {
      periodsOf(d)[1]!.start = '07:00';
    },
    3071,
    ['dailyPlans', 0, 'periods', 1, 'start'],
  ],
  [
    'a period crossing midnight',
    (d) => void d.dailyPlans[0]!.periods.splice(4, 1, period('22:00', '06:00')),
    3071,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'a period ending at 00:00 before the last',
    (d) => {
      periodsOf(d)[3]!.end = '00:00';
    },
    3071,
    ['dailyPlans', 0, 'periods', 3, 'end'],
  ],
  [
    'a gap between periods',
    (d) => {
      periodsOf(d)[2]!.start = '12:30';
    },
    3072,
    ['dailyPlans', 0, 'periods', 2, 'start'],
  ],
  [
    'first period not at 00:00',
    (d) => {
      periodsOf(d)[0]!.start = '01:00';
    },
    3072,
    ['dailyPlans', 0, 'periods', 0, 'start'],
  ],
  [
    'a time that is not HH:MM',
    (d) => {
      periodsOf(d)[1]!.start = '8:00';
    },
    3094,
    ['dailyPlans', 0, 'periods', 1, 'start'],
  ],
  [
    'a period without tier',
    (d) => {
      periodsOf(d)[0]!.tier = null;
    },
    3073,
    ['dailyPlans', 0, 'periods', 0, 'tier'],
  ],
  [
    'a period without price',
    (d) => {
      periodsOf(d)[0]!.priceCnyPerKwh = null;
    },
    3073,
    ['dailyPlans', 0, 'periods', 0, 'priceCnyPerKwh'],
  ],
  [
    'a price of 0',
    (d) => {
      periodsOf(d)[0]!.priceCnyPerKwh = 0;
    },
    3085,
    ['dailyPlans', 0, 'periods', 0, 'priceCnyPerKwh'],
  ],
  [
    'a negative price',
    (d) => {
      periodsOf(d)[0]!.priceCnyPerKwh = -1;
    },
    3085,
    ['dailyPlans', 0, 'periods', 0, 'priceCnyPerKwh'],
  ],
  [
    'a period without strategy',
    (d) => {
      periodsOf(d)[0]!.action = null;
    },
    3074,
    ['dailyPlans', 0, 'periods', 0, 'action'],
  ],
  [
    'charging at 0 kW',
    (d) => {
      periodsOf(d)[0]!.powerKw = 0;
    },
    3085,
    ['dailyPlans', 0, 'periods', 0, 'powerKw'],
  ],
  [
    'SOC floor above ceiling',
    (d) => {
      periodsOf(d)[0]!.socMinPct = 96;
    },
    3086,
    ['dailyPlans', 0, 'periods', 0, 'socMinPct'],
  ],
  [
    'SOC ceiling over 100',
    (d) => {
      periodsOf(d)[0]!.socMaxPct = 101;
    },
    3086,
    ['dailyPlans', 0, 'periods', 0, 'socMinPct'],
  ],
  [
    'a daily plan without periods',
    (d) => {
      d.dailyPlans[1]!.periods = [];
    },
    3079,
    ['dailyPlans', 1, 'periods'],
  ],
  [
    'no daily plan at all',
    (d) => {
      d.dailyPlans = [];
    },
    3079,
    ['dailyPlans'],
  ],
  [
    'a repeated exception date',
    (d) => {
      d.exceptionPlans[0]!.items[1]!.date = '2026-10-01';
    },
    3075,
    ['exceptionPlans', 0, 'items', 1, 'date'],
  ],
  [
    'an exception date repeated in another exception plan',
    (d) =>
      void d.exceptionPlans.push({ key: 2, name: 'Other', items: [{ date: '2026-10-02', dailyPlanKey: 1 }] }),
    3075,
    ['exceptionPlans', 1, 'items', 0, 'date'],
  ],
  [
    'a date that does not exist',
    (d) => {
      d.exceptionPlans[0]!.items[0]!.date = '2026-02-30';
    },
    3087,
    ['exceptionPlans', 0, 'items', 0, 'date'],
  ],
  [
    'an exception plan without dates',
    (d) => {
      d.exceptionPlans[0]!.items = [];
    },
    3079,
    ['exceptionPlans', 0, 'items'],
  ],
  [
    'a yearly setting before the current year',
    (d) => {
      d.yearlyPlans[0]!.year = 2025;
    },
    3076,
    ['yearlyPlans', 0, 'year'],
  ],
  [
    'an inverted yearly range',
    (d) => {
      d.yearlyPlans[0]!.items[0]!.from = '07-01';
    },
    3087,
    ['yearlyPlans', 0, 'items', 0, 'to'],
  ],
  [
    'yearly ranges that overlap',
    (d) => {
      d.yearlyPlans[0]!.items[1]!.from = '06-15';
    },
    3087,
    ['yearlyPlans', 0, 'items', 1, 'from'],
  ],
  [
    'a yearly range ending 02-29 in a common year',
    (d) => {
      d.yearlyPlans[0]!.items = [{ from: '01-01', to: '02-29', weeklyPlanKey: 1 }];
    },
    3087,
    ['yearlyPlans', 0, 'items', 0, 'to'],
  ],
  [
    'two yearly settings for one year',
    (d) =>
      void d.yearlyPlans.push({
        key: 2,
        year: 2026,
        items: [{ from: '01-01', to: '01-31', weeklyPlanKey: 1 }],
      }),
    3087,
    ['yearlyPlans', 1, 'year'],
  ],
  [
    'a yearly setting without items',
    (d) => {
      d.yearlyPlans[0]!.items = [];
    },
    3079,
    ['yearlyPlans', 0, 'items'],
  ],
  [
    'a daily plan used by a weekly cycle removed',
    (d) => {
      d.weeklyPlans[0]!.days[5] = 9;
    },
    3077,
    ['weeklyPlans', 0, 'days', 5],
  ],
  [
    'a daily plan used by an exception plan removed',
    (d) => {
      d.exceptionPlans[0]!.items[0]!.dailyPlanKey = 9;
    },
    3077,
    ['exceptionPlans', 0, 'items', 0, 'dailyPlanKey'],
  ],
  [
    'the default daily plan removed',
    (d) => {
      d.defaultDailyPlanKey = 9;
    },
    3077,
    ['defaultDailyPlanKey'],
  ],
  [
    'a weekly cycle used by a yearly setting removed',
    (d) => {
      d.yearlyPlans[0]!.items[0]!.weeklyPlanKey = 9;
    },
    3078,
    ['yearlyPlans', 0, 'items', 0, 'weeklyPlanKey'],
  ],
  [
    'the default weekly cycle removed',
    (d) => {
      d.defaultWeeklyPlanKey = 9;
    },
    3078,
    ['defaultWeeklyPlanKey'],
  ],
  [
    'two daily plans with one number',
    (d) => {
      d.dailyPlans[1]!.key = 1;
    },
    3088,
    ['dailyPlans', 1, 'key'],
  ],
];

describe('validateScheme', () => {
  it('accepts a valid scheme using every kind of plan', () => {
    expect(validateScheme(validScheme(), { today })).toEqual([]);
  });

  it.each(cases)('%s', (_name, edit, code, path) => {
    const doc = validScheme();
    edit(doc);
    const issues = validateScheme(doc, { today });
    expect(issues.map((i) => [i.code, i.path])).toContainEqual([code, path]);
    // The first issue is what the server answers: it is this rule's.
    expect(issues[0]).toMatchObject({ code, path });
  });

  const over = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
  const limitCases: Array<[string, Edit, number, number]> = [
    [
      'daily plans',
      (d) => {
        d.dailyPlans = over(TOU_LIMITS.dailyPlans + 1, (i) => ({
          key: i + 1,
          name: `D${i + 1}`,
          periods: [period('00:00', '00:00')],
        })) as TouSchemeDocument['dailyPlans'];
      },
      3080,
      128,
    ],
    [
      'weekly plans',
      (d) => {
        d.weeklyPlans = over(TOU_LIMITS.weeklyPlans + 1, (i) => ({
          key: i + 1,
          name: `W${i + 1}`,
          days: [1, 1, 1, 1, 1, 1, 1],
        })) as TouSchemeDocument['weeklyPlans'];
      },
      3081,
      14,
    ],
    [
      'yearly plans',
      (d) => {
        d.yearlyPlans = over(TOU_LIMITS.yearlyPlans + 1, (i) => ({
          key: i + 1,
          year: 2026 + i,
          items: [{ from: '01-01', to: '12-31', weeklyPlanKey: 1 }],
        })) as TouSchemeDocument['yearlyPlans'];
      },
      3082,
      12,
    ],
    [
      'periods of a daily plan',
      (d) => {
        d.dailyPlans[1]!.periods = over(25, (i) =>
          period(
            `${String(i).padStart(2, '0')}:00`,
            i === 24 ? '00:00' : `${String(i + 1).padStart(2, '0')}:00`,
          ),
        ) as TouPeriod[];
      },
      3083,
      24,
    ],
    [
      'items of an exception plan',
      (d) => {
        d.exceptionPlans[0]!.items = over(17, (i) => ({
          date: `2026-12-${String(i + 1).padStart(2, '0')}`,
          dailyPlanKey: 2,
        })) as TouSchemeDocument['exceptionPlans'][0]['items'];
      },
      3084,
      16,
    ],
    [
      'items of a yearly setting',
      (d) => {
        d.yearlyPlans[0]!.items = over(17, (i) => ({
          from: `01-${String(i + 1).padStart(2, '0')}`,
          to: `01-${String(i + 1).padStart(2, '0')}`,
          weeklyPlanKey: 1,
        })) as TouSchemeDocument['yearlyPlans'][0]['items'];
      },
      3084,
      16,
    ],
  ];

  it.each(limitCases)('over the limit of %s → its code with {max}', (_name, edit, code, max) => {
    const doc = validScheme();
    edit(doc);
    const issue = validateScheme(doc, { today }).find((i) => i.code === code);
    expect(issue?.params).toEqual({ max });
    expect(errorMessage(code, 'en', issue!.params)).toContain(String(max));
  });

  it('accepts exactly the limits', () => {
    const doc = validScheme();
    doc.dailyPlans[1]!.periods = Array.from({ length: 24 }, (_, i) =>
      period(`${String(i).padStart(2, '0')}:00`, i === 23 ? '00:00' : `${String(i + 1).padStart(2, '0')}:00`),
    );
    expect(validateScheme(doc, { today })).toEqual([]);
  });

  it.each([
    ['a start not written HH:MM', [period('0:00', '08:00'), period('08:00', '00:00')], [0, 'start']],
    ['an end not written HH:MM', [period('00:00', '8:00'), period('08:00', '00:00')], [0, 'end']],
    [
      'a period written wrong in the middle',
      [period('00:00', '08:00'), period('8:00', '12:00'), period('12:00', '00:00')],
      [1, 'start'],
    ],
  ] as const)('%s: only 3094, no gap or overlap reported next to it', (_name, periods, [index, field]) => {
    const doc = validScheme();
    doc.dailyPlans[1]!.periods = [...periods];
    expect(validateScheme(doc, { today })).toEqual([
      { code: 3094, path: ['dailyPlans', 1, 'periods', index, field] },
    ]);
  });

  it('the same yearly setting is refused once its year has passed', () => {
    expect(validateScheme(validScheme(), { today: '2027-01-01' }).map((i) => i.code)).toContain(3076);
  });
});

describe('deletionIssue', () => {
  it('refuses to delete a daily plan used by a weekly cycle or exception plan', () => {
    expect(deletionIssue(validScheme(), 'dailyPlans', 2)?.code).toBe(ErrorCode.TOU_DAILY_PLAN_REFERENCED);
  });
  it('refuses to delete the last daily plan', () => {
    const doc = validScheme();
    doc.dailyPlans = [doc.dailyPlans[0]!];
    expect(deletionIssue(doc, 'dailyPlans', 1)?.code).toBe(ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM);
  });
  it('refuses to delete a weekly cycle used by a yearly setting', () => {
    expect(deletionIssue(validScheme(), 'weeklyPlans', 1)?.code).toBe(ErrorCode.TOU_WEEKLY_PLAN_REFERENCED);
  });
  it('allows deleting an unused daily plan', () => {
    const doc = validScheme();
    doc.dailyPlans.push({ key: 3, name: 'Spare', periods: [period('00:00', '00:00')] });
    expect(deletionIssue(doc, 'dailyPlans', 3)).toBeNull();
  });
});

describe('describeIssuePath', () => {
  it('names the plan and the period in either language', () => {
    const doc = validScheme();
    expect(describeIssuePath(doc, ['dailyPlans', 0, 'periods', 2, 'start'], 'zh')).toBe(
      '日计划「Workday」第 3 个时段',
    );
    expect(describeIssuePath(doc, ['dailyPlans', 0, 'periods', 2, 'start'], 'en')).toBe(
      'daily plan "Workday", period 3',
    );
    expect(describeIssuePath(doc, ['yearlyPlans', 0, 'items', 1, 'from'], 'en')).toBe(
      'yearly plan "2026", item 2',
    );
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2028-02-29', true],
    ['2026-02-29', false],
    ['2026-04-31', false],
    ['2026-13-01', false],
    ['2026-1-01', false],
  ])('%s → %s', (date, ok) => expect(isCalendarDate(date)).toBe(ok));
});
