/**
 * The API refuses every ToU scheme that breaks a rule of spec §5 or a limit of §9, exactly as
 * the console's form does (both run the contract's validateScheme): the code, the catalogue text
 * in the caller's language with `{max}` filled and where in the document, no data — and nothing
 * written. Each case breaks one rule of a valid scheme; save and update are both checked.
 */
import { ErrorCode, endpoints, TOU_LIMITS, type TouSchemeDocument } from '@ess/contract';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/core/db/rows';
import { call, signIn } from './support/client';
import { unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { currentYear, period, ruleMsg, validScheme } from './support/tou';

type Edit = (doc: TouSchemeDocument) => void;
const periodsOf = (doc: TouSchemeDocument) => doc.dailyPlans[0]!.periods;
const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** [what, edit, code, path of the first issue, params of the message]. */
const CASES: Array<[string, Edit, number, Array<string | number>, Record<string, number>?]> = [
  [
    'periods overlap',
    (d) => {
      periodsOf(d)[1]!.start = '07:00';
    },
    ErrorCode.TOU_PERIODS_CONFLICT,
    ['dailyPlans', 0, 'periods', 1, 'start'],
  ],
  [
    'a gap between periods',
    (d) => {
      periodsOf(d)[2]!.start = '12:30';
    },
    ErrorCode.TOU_PERIODS_GAP,
    ['dailyPlans', 0, 'periods', 2, 'start'],
  ],
  [
    'the day ends at 24:00 instead of 00:00',
    (d) => {
      periodsOf(d)[4]!.end = '24:00';
    },
    ErrorCode.TOU_LAST_END_NOT_MIDNIGHT,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'the last period ends before midnight',
    (d) => {
      periodsOf(d)[4]!.end = '23:00';
    },
    ErrorCode.TOU_LAST_END_NOT_MIDNIGHT,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'a period crossing midnight (22:00–06:00)',
    (d) => void periodsOf(d).splice(4, 1, period('22:00', '06:00')),
    ErrorCode.TOU_PERIODS_CONFLICT,
    ['dailyPlans', 0, 'periods', 4, 'end'],
  ],
  [
    'a period without tier',
    (d) => {
      periodsOf(d)[0]!.tier = null;
    },
    ErrorCode.TOU_PERIOD_TIER_PRICE_REQUIRED,
    ['dailyPlans', 0, 'periods', 0, 'tier'],
  ],
  [
    'a period without price',
    (d) => {
      periodsOf(d)[3]!.priceCnyPerKwh = null;
    },
    ErrorCode.TOU_PERIOD_TIER_PRICE_REQUIRED,
    ['dailyPlans', 0, 'periods', 3, 'priceCnyPerKwh'],
  ],
  [
    'a price of 0',
    (d) => {
      periodsOf(d)[1]!.priceCnyPerKwh = 0;
    },
    ErrorCode.TOU_NUMBER_NOT_POSITIVE,
    ['dailyPlans', 0, 'periods', 1, 'priceCnyPerKwh'],
  ],
  [
    'a period without strategy',
    (d) => {
      periodsOf(d)[2]!.action = null;
    },
    ErrorCode.TOU_PERIOD_STRATEGY_REQUIRED,
    ['dailyPlans', 0, 'periods', 2, 'action'],
  ],
  [
    'a repeated exception date',
    (d) => {
      d.exceptionPlans[0]!.items[1]!.date = `${currentYear()}-10-01`;
    },
    ErrorCode.TOU_EXCEPTION_DATE_REPEATED,
    ['exceptionPlans', 0, 'items', 1, 'date'],
  ],
  [
    'a yearly setting for last year',
    (d) => {
      d.yearlyPlans[0]!.year = currentYear() - 1;
    },
    ErrorCode.TOU_YEAR_BEFORE_CURRENT,
    ['yearlyPlans', 0, 'year'],
  ],
  [
    'a daily plan removed while a weekly cycle uses it',
    (d) => void d.dailyPlans.splice(1, 1),
    ErrorCode.TOU_DAILY_PLAN_REFERENCED,
    ['weeklyPlans', 0, 'days', 5],
  ],
  [
    'a weekly cycle removed while a yearly setting uses it',
    (d) => {
      d.weeklyPlans = [];
    },
    ErrorCode.TOU_WEEKLY_PLAN_REFERENCED,
    ['yearlyPlans', 0, 'items', 0, 'weeklyPlanKey'],
  ],
  [
    'no daily plan at all',
    (d) => {
      d.dailyPlans = [];
    },
    ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM,
    ['dailyPlans'],
  ],
  [
    'a daily plan without periods',
    (d) => {
      d.dailyPlans[1]!.periods = [];
    },
    ErrorCode.TOU_KEEP_ONE_PLAN_AND_ITEM,
    ['dailyPlans', 1, 'periods'],
  ],
  [
    `${TOU_LIMITS.dailyPlans + 1} daily plans`,
    (d) =>
      void d.dailyPlans.push(
        ...many(TOU_LIMITS.dailyPlans - 1, (i) => ({
          key: 10 + i,
          name: `D${i}`,
          periods: [period('00:00', '00:00')],
        })),
      ),
    ErrorCode.TOU_TOO_MANY_DAILY_PLANS,
    ['dailyPlans'],
    { max: TOU_LIMITS.dailyPlans },
  ],
  [
    `${TOU_LIMITS.weeklyPlans + 1} weekly cycles`,
    (d) =>
      void d.weeklyPlans.push(
        ...many(TOU_LIMITS.weeklyPlans, (i) => ({ key: 10 + i, name: `W${i}`, days: [1, 1, 1, 1, 1, 1, 1] })),
      ),
    ErrorCode.TOU_TOO_MANY_WEEKLY_PLANS,
    ['weeklyPlans'],
    { max: TOU_LIMITS.weeklyPlans },
  ],
  [
    `${TOU_LIMITS.yearlyPlans + 1} yearly settings`,
    (d) =>
      void d.yearlyPlans.push(
        ...many(TOU_LIMITS.yearlyPlans, (i) => ({
          key: 10 + i,
          year: currentYear() + 1 + i,
          items: [{ from: '01-01', to: '12-31', weeklyPlanKey: 1 }],
        })),
      ),
    ErrorCode.TOU_TOO_MANY_YEARLY_PLANS,
    ['yearlyPlans'],
    { max: TOU_LIMITS.yearlyPlans },
  ],
  [
    `${TOU_LIMITS.dailyPlanItems + 1} periods in a daily plan`,
    (d) => {
      d.dailyPlans[1]!.periods = many(TOU_LIMITS.dailyPlanItems + 1, (i) =>
        period(
          `${String(i).padStart(2, '0')}:00`,
          i === TOU_LIMITS.dailyPlanItems ? '00:00' : `${String(i + 1).padStart(2, '0')}:00`,
        ),
      );
    },
    ErrorCode.TOU_TOO_MANY_DAILY_ITEMS,
    ['dailyPlans', 1, 'periods'],
    { max: TOU_LIMITS.dailyPlanItems },
  ],
  [
    `${TOU_LIMITS.otherPlanItems + 1} dates in an exception plan`,
    (d) => {
      d.exceptionPlans[0]!.items = many(TOU_LIMITS.otherPlanItems + 1, (i) => ({
        date: `${currentYear()}-12-${String(i + 1).padStart(2, '0')}`,
        dailyPlanKey: 2,
      }));
    },
    ErrorCode.TOU_TOO_MANY_OTHER_ITEMS,
    ['exceptionPlans', 0, 'items'],
    { max: TOU_LIMITS.otherPlanItems },
  ],
  [
    `${TOU_LIMITS.exceptionPlans + 1} exception plans`,
    (d) =>
      void d.exceptionPlans.push(
        ...many(TOU_LIMITS.exceptionPlans, (i) => ({
          key: 10 + i,
          name: `E${i}`,
          items: [{ date: `${currentYear() + 1}-01-${String(i + 1).padStart(2, '0')}`, dailyPlanKey: 2 }],
        })),
      ),
    ErrorCode.TOU_TOO_MANY_EXCEPTION_PLANS,
    ['exceptionPlans'],
    { max: TOU_LIMITS.exceptionPlans },
  ],
];

describe.each(engines)('ToU scheme rules through the API on %s', (engine) => {
  let ctx: TestContext;
  let token: string;
  let existing: { id: number; version: number };

  /** Every ToU row and every site's scheme, to show a refused call wrote nothing. */
  const touRows = async () =>
    rowsOf<{ snap: string }>(
      await ctx.database.db.execute(sql`
        SELECT json_build_object(
          'schemes', (SELECT coalesce(json_agg(t ORDER BY t.id), '[]') FROM tou_scheme t),
          'pushes', (SELECT coalesce(json_agg(p ORDER BY p.site_id), '[]') FROM device_delivery p),
          'sites', (SELECT coalesce(json_agg(json_build_array(s.id, s.tou_scheme_id) ORDER BY s.id), '[]') FROM site s)
        )::text AS snap`),
    )[0]!.snap;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    token = (await signIn(ctx.app)).token;
    const saved = await call(
      ctx.app,
      endpoints.tou.save.path,
      { name: unique('tariff'), document: validScheme() },
      { token },
    );
    expect(saved.code).toBe(0);
    existing = { id: saved.data.id, version: 1 };
  });
  afterAll(async () => ctx?.close());

  it('the valid scheme is saved and read back whole', async () => {
    const detail = await call(ctx.app, endpoints.tou.detail.path, { id: existing.id }, { token });
    expect(detail.code).toBe(0);
    expect(detail.data.document).toEqual(validScheme());
  });

  it('the messages say which plan and period, in Chinese and in English', async () => {
    const doc = validScheme();
    periodsOf(doc)[1]!.start = '07:00';
    const zh = await call(ctx.app, endpoints.tou.save.path, { name: unique('t'), document: doc }, { token });
    expect(zh).toEqual({ code: 3071, msg: '时段不能重叠或冲突：日计划「Workday」第 2 个时段', data: null });
    const en = await call(
      ctx.app,
      endpoints.tou.save.path,
      { name: unique('t'), document: doc },
      { token, lang: 'en' },
    );
    expect(en.msg).toBe('Periods must not overlap or conflict: daily plan "Workday", period 2');
    const limit = validScheme();
    limit.weeklyPlans.push(...many(14, (i) => ({ key: 10 + i, name: `W${i}`, days: [1, 1, 1, 1, 1, 1, 1] })));
    const over = await call(
      ctx.app,
      endpoints.tou.save.path,
      { name: unique('t'), document: limit },
      { token, lang: 'en' },
    );
    expect(over.msg).toBe('At most 14 weekly plans');
  });

  for (const [what, edit, code, path, params] of CASES) {
    it(`${what}: ${code} on save and update, nothing written`, async () => {
      const doc = validScheme();
      edit(doc);
      const before = await touRows();
      for (const lang of ['zh', 'en'] as const) {
        const saved = await call(
          ctx.app,
          endpoints.tou.save.path,
          { name: unique('bad'), document: doc },
          { token, lang },
        );
        expect(saved).toEqual({ code, msg: ruleMsg(doc, code, path, lang, params), data: null });
      }
      const updated = await call(
        ctx.app,
        endpoints.tou.update.path,
        { id: existing.id, version: existing.version, name: unique('bad'), document: doc },
        { token, lang: 'en' },
      );
      expect(updated).toEqual({ code, msg: ruleMsg(doc, code, path, 'en', params), data: null });
      expect(await touRows()).toBe(before);
    });
  }
});
