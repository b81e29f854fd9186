import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  activePeriodAt,
  minutesOfDay,
  resolveDay,
  schemeFromTemplate,
  TOU_TEMPLATES,
  type TouTemplate,
  type TouTemplateSeason,
  type TouTier,
  touSchemeDocumentSchema,
  validateScheme,
} from '../src';

/** The reference data the templates were transcribed from. */
const data = JSON.parse(readFileSync(new URL('../data/tou-tariffs.json', import.meta.url), 'utf8')) as {
  tariffs: Array<Record<string, unknown> & { id: string; prices: Record<string, number> | null }>;
};
const entry = (id: string) => data.tariffs.find((t) => t.id === id)!;
const template = (id: string) => TOU_TEMPLATES.find((t) => t.id === id)!;

const TIER_OF_SOURCE: Record<string, TouTier> = {
  sharp: 'sharp',
  peak: 'peak',
  flat: 'shoulder',
  valley: 'off_peak',
  /** Guangzhou/Foshan: the policy's sharp = peak × 1.25. */
  'sharp_derived_peak_x1.25': 'sharp',
};

const strategy = { year: 2026, powerKw: 100, socMinPct: 5, socMaxPct: 95, lang: 'en' as const };

/** Tier of a season at every hour of the day. */
function tiersByHour(season: TouTemplateSeason): TouTier[] {
  return Array.from({ length: 24 }, (_, h) => {
    const period = season.periods.find(
      (p) => h * 60 >= minutesOfDay(p.start) && h * 60 < minutesOfDay(p.end, true),
    );
    return period!.tier;
  });
}

/** Tier at every hour of a source table `{flat: [[start, end], …], …}` ('all other hours' fills). */
function sourceTiersByHour(table: Record<string, unknown>): TouTier[] {
  const hours: Array<TouTier | undefined> = Array.from({ length: 24 });
  let rest: TouTier | undefined;
  for (const [name, value] of Object.entries(table)) {
    const tier = TIER_OF_SOURCE[name];
    if (!tier) continue;
    if (value === 'all other hours') rest = tier;
    else {
      for (const [start, end] of value as Array<[string, string]>) {
        const to = end === '24:00' ? 24 : Number(end.slice(0, 2));
        for (let h = Number(start.slice(0, 2)); h < to; h++) hours[h] = tier;
      }
    }
  }
  return hours.map((t) => (t ?? rest) as TouTier);
}

const season = (t: TouTemplate, month: number) => t.seasons.find((s) => s.months.includes(month))!;

describe('ToU tariff templates', () => {
  it('ship the CNY entries with prices and leave out the others', () => {
    expect(TOU_TEMPLATES.map((t) => t.id)).toEqual([
      'CN-SH-2025-07-10kV-2part-general',
      'CN-BJ-2024-07-1-10kV-2part',
      'CN-CQ-2024-07-1-10kV-2part',
      'CN-SZ-2025-02-10kV-101-3000kVA',
      'CN-GD-GZFS-2021-10-1-10kV',
    ]);
  });

  it.each(TOU_TEMPLATES.map((t) => [t.id, t] as const))('%s: prices and month are the source’s', (id, t) => {
    const source = entry(id);
    expect(t.month).toBe(source.month);
    const prices: Record<string, number> = {};
    for (const [name, price] of Object.entries(source.prices!)) prices[TIER_OF_SOURCE[name]!] = price;
    expect(t.prices).toEqual(prices);
    expect(t.sources.length).toBeGreaterThan(0);
  });

  it.each(TOU_TEMPLATES.map((t) => [t.id, t] as const))(
    '%s: seasons cover months 1–12 exactly once',
    (_, t) => {
      const months = t.seasons.flatMap((s) => s.months).sort((a, b) => a - b);
      expect(months).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    },
  );

  it.each(TOU_TEMPLATES.map((t) => [t.id, t] as const))('%s: every tier used has a price', (_, t) => {
    for (const s of t.seasons) for (const p of s.periods) expect(t.prices[p.tier]).toBeGreaterThan(0);
  });

  it('follow the source tables hour by hour', () => {
    const sh = template('CN-SH-2025-07-10kV-2part-general');
    const shSource = entry(sh.id) as Record<string, Record<string, unknown>>;
    expect(tiersByHour(season(sh, 7))).toEqual(sourceTiersByHour(shSource.periods_jul_aug!));
    expect(tiersByHour(season(sh, 4))).toEqual(sourceTiersByHour(shSource.periods_other_months!));
    // September: as July with 12–14 peak; January: other months with sharp 19–21.
    const sep = sourceTiersByHour(shSource.periods_jul_aug!).map((t) => (t === 'sharp' ? 'peak' : t));
    expect(tiersByHour(season(sh, 9))).toEqual(sep);
    const jan = sourceTiersByHour(shSource.periods_other_months!).map((t, h) =>
      h === 19 || h === 20 ? 'sharp' : t,
    );
    expect(tiersByHour(season(sh, 1))).toEqual(jan);

    for (const id of ['CN-BJ-2024-07-1-10kV-2part', 'CN-CQ-2024-07-1-10kV-2part']) {
      const t = template(id);
      const base = sourceTiersByHour((entry(id) as Record<string, Record<string, unknown>>).periods!);
      expect(tiersByHour(season(t, 4)), id).toEqual(base);
    }
    const bj = template('CN-BJ-2024-07-1-10kV-2part');
    const bjBase = sourceTiersByHour((entry(bj.id) as Record<string, Record<string, unknown>>).periods!);
    const sharpAt = (hours: number[]) => bjBase.map((t, h) => (hours.includes(h) ? 'sharp' : t));
    expect(tiersByHour(season(bj, 7))).toEqual(sharpAt([11, 12, 16]));
    expect(tiersByHour(season(bj, 12))).toEqual(sharpAt([18, 19, 20]));
    const cq = template('CN-CQ-2024-07-1-10kV-2part');
    const cqBase = sourceTiersByHour((entry(cq.id) as Record<string, Record<string, unknown>>).periods!);
    for (const m of [1, 7, 8, 12]) {
      expect(tiersByHour(season(cq, m))).toEqual(cqBase.map((t, h) => (h === 12 || h === 13 ? 'sharp' : t)));
    }

    for (const id of ['CN-SZ-2025-02-10kV-101-3000kVA', 'CN-GD-GZFS-2021-10-1-10kV']) {
      const t = template(id);
      const { sharp, ...rest } = (entry(id) as Record<string, Record<string, unknown>>).periods!;
      expect(tiersByHour(season(t, 1)), id).toEqual(sourceTiersByHour(rest));
      expect(tiersByHour(season(t, 8)), id).toEqual(sourceTiersByHour({ ...rest, sharp }));
    }
  });

  it.each(TOU_TEMPLATES.map((t) => [t.id, t] as const))('%s: becomes a valid scheme', (_, t) => {
    for (const lang of ['zh', 'en'] as const) {
      const doc = schemeFromTemplate(t, { ...strategy, lang });
      expect(touSchemeDocumentSchema.safeParse(doc).success).toBe(true);
      expect(validateScheme(doc, { today: '2026-11-21' })).toEqual([]);
    }
  });

  it('maps each season’s months to its plan, the snapshot month’s season by default', () => {
    const sh = template('CN-SH-2025-07-10kV-2part-general');
    const doc = schemeFromTemplate(sh, strategy);
    expect(doc.dailyPlans.find((p) => p.key === doc.defaultDailyPlanKey)!.name).toBe('Jul–Aug (sharp 12–14)');
    // After the yearly setting's year the default weekly cycle runs: the snapshot season daily.
    expect(doc.defaultWeeklyPlanKey).toBe(doc.defaultDailyPlanKey);
    expect(resolveDay(doc, `${strategy.year + 1}-01-15`)).toMatchObject({
      source: 'weekly',
      dailyPlan: { name: 'Jul–Aug (sharp 12–14)' },
    });
    expect(doc.yearlyPlans).toHaveLength(1);
    for (let m = 1; m <= 12; m++) {
      const date = `2026-${String(m).padStart(2, '0')}-15`;
      const day = resolveDay(doc, date);
      expect(day.source, date).toBe('yearly');
      expect(day.dailyPlan.name, date).toBe(season(sh, m).name.en);
    }
    // The last day of February in a leap year is covered too.
    expect(resolveDay(schemeFromTemplate(sh, { ...strategy, year: 2028 }), '2028-02-29').source).toBe(
      'yearly',
    );
    const sz = schemeFromTemplate(template('CN-SZ-2025-02-10kV-101-3000kVA'), { ...strategy, lang: 'zh' });
    expect(sz.dailyPlans.find((p) => p.key === sz.defaultDailyPlanKey)!.name).toBe('其余月份');
  });

  it('Shanghai July 2025: sharp discharge at 13:00, off-peak charge at 03:00 on 2026-07-15', () => {
    const doc = schemeFromTemplate(template('CN-SH-2025-07-10kV-2part-general'), strategy);
    const at = (iso: string) => activePeriodAt(doc, Date.parse(iso), 'Asia/Shanghai').period!;
    expect(at('2026-07-15T13:00:00+08:00')).toMatchObject({
      tier: 'sharp',
      priceCnyPerKwh: 1.4352,
      action: 'discharge',
      powerKw: 100,
      socMinPct: 5,
      socMaxPct: 95,
    });
    expect(at('2026-07-15T03:00:00+08:00')).toMatchObject({
      tier: 'off_peak',
      priceCnyPerKwh: 0.3191,
      action: 'charge',
      powerKw: 100,
    });
    // The price-aware strategy (tou/strategy.ts): the 08–12 peak keeps the energy for sharp, and
    // the 15–18 shoulder recharges for the 18–21 peak (1.1637 − 0.6811 ÷ 0.9 > 0: it pays).
    expect(at('2026-07-15T09:00:00+08:00')).toMatchObject({ tier: 'peak', action: 'idle' });
    expect(at('2026-07-15T16:00:00+08:00')).toMatchObject({ tier: 'shoulder', action: 'charge' });
    expect(at('2026-07-15T19:00:00+08:00')).toMatchObject({ tier: 'peak', action: 'discharge' });
    // September has no sharp hours: 13:00 is peak.
    expect(at('2026-09-15T13:00:00+08:00')).toMatchObject({ tier: 'peak', priceCnyPerKwh: 1.1637 });
  });
});
