/**
 * Templates of real time-of-use tariffs, and the
 * scheme a template becomes with a simple arbitrage strategy.
 *
 * Transcribed from `packages/contract/data/tou-tariffs.json` (a copy of the shared reference
 * data; its README names the sources and lists the entries left out: those without prices or
 * not in CNY). Times are `[start, end)` local wall-clock `HH:MM`; 24:00 is written 00:00 (spec
 * §5) and a period that crosses midnight (22:00–06:00) is split at 00:00. Where a tariff has a
 * tier only in some months (sharp in July and August …), each set of months with its own table
 * is a season. Prices are the CNY/kWh energy prices of the entry's monthly snapshot (`month`),
 * used for every season; `note` says what else the transcription assumed.
 *
 * Tier names: the source's flat is `shoulder`, valley is `off_peak` (scheme.ts).
 */
import type { Lang } from '../lang';
import {
  type DailyPlan,
  daysInMonth,
  type TouPeriod,
  type TouSchemeDocument,
  type TouTier,
  type WeeklyPlan,
  type YearlyItem,
} from './scheme';
import { priceAwareStrategy } from './strategy';

type Text = { zh: string; en: string };

/** One set of months sharing a period table. */
export interface TouTemplateSeason {
  name: Text;
  /** Months 1–12 this table applies in. */
  months: number[];
  /** `[start, end)` `HH:MM`, from 00:00, in order, the last ending at 00:00 (midnight). */
  periods: Array<{ start: string; end: string; tier: TouTier }>;
}

export interface TouTemplate {
  /** The entry's id in tou-tariffs.json. */
  id: string;
  region: Text;
  /** `YYYY-MM` of the price snapshot. */
  month: string;
  customerClass: Text;
  /** Energy price per tier, CNY/kWh. */
  prices: Partial<Record<TouTier, number>>;
  /** Every month 1–12 is in exactly one season. */
  seasons: TouTemplateSeason[];
  sources: string[];
  note?: Text;
}

/**
 * A day's table from its breakpoints: each `[start, tier]` runs until the next start, the last
 * until midnight (00:00). Breakpoints are the source's own period bounds.
 */
function day(breaks: Array<[string, TouTier]>): TouTemplateSeason['periods'] {
  return breaks.map(([start, tier], i) => ({ start, end: breaks[i + 1]?.[0] ?? '00:00', tier }));
}

/** The templates, one per tariff entry with prices and full period tables in CNY. */
export const TOU_TEMPLATES: readonly TouTemplate[] = [
  {
    id: 'CN-SH-2025-07-10kV-2part-general',
    region: { zh: '上海', en: 'Shanghai' },
    month: '2025-07',
    customerClass: {
      zh: '一般工商业及其他 两部制 10 千伏',
      en: 'General C&I and other, two-part, 10 kV',
    },
    prices: { sharp: 1.4352, peak: 1.1637, shoulder: 0.6811, off_peak: 0.3191 },
    seasons: [
      {
        name: { zh: '7–8月（尖峰 12–14 时）', en: 'Jul–Aug (sharp 12–14)' },
        months: [7, 8],
        periods: day([
          ['00:00', 'off_peak'],
          ['06:00', 'shoulder'],
          ['08:00', 'peak'],
          ['12:00', 'sharp'],
          ['14:00', 'peak'],
          ['15:00', 'shoulder'],
          ['18:00', 'peak'],
          ['21:00', 'shoulder'],
          ['22:00', 'off_peak'],
        ]),
      },
      {
        name: { zh: '9月', en: 'Sep' },
        months: [9],
        // "as Jul/Aug but 12:00-14:00 is peak (summer Jul-Sep peak 8-15, 18-21)".
        periods: day([
          ['00:00', 'off_peak'],
          ['06:00', 'shoulder'],
          ['08:00', 'peak'],
          ['15:00', 'shoulder'],
          ['18:00', 'peak'],
          ['21:00', 'shoulder'],
          ['22:00', 'off_peak'],
        ]),
      },
      {
        name: { zh: '1月、12月（尖峰 19–21 时）', en: 'Jan, Dec (sharp 19–21)' },
        months: [1, 12],
        // The other-months table with its Jan/Dec sharp 19:00–21:00 inside the 18:00–21:00 peak.
        periods: day([
          ['00:00', 'off_peak'],
          ['06:00', 'shoulder'],
          ['08:00', 'peak'],
          ['11:00', 'shoulder'],
          ['18:00', 'peak'],
          ['19:00', 'sharp'],
          ['21:00', 'shoulder'],
          ['22:00', 'off_peak'],
        ]),
      },
      {
        name: { zh: '其余月份', en: 'Other months' },
        months: [2, 3, 4, 5, 6, 10, 11],
        periods: day([
          ['00:00', 'off_peak'],
          ['06:00', 'shoulder'],
          ['08:00', 'peak'],
          ['11:00', 'shoulder'],
          ['18:00', 'peak'],
          ['21:00', 'shoulder'],
          ['22:00', 'off_peak'],
        ]),
      },
    ],
    sources: [
      '沪发改价管〔2022〕50号 (Shanghai DRC ToU policy: periods and peak/valley ratios)',
      'State Grid Shanghai agency-purchase price table, July 2025, 10 kV two-part (official PDF verified in zlxshu/ReSETP baselines/e4_e5/build_china_policy_price_gate_20260717.py)',
      'zlxshu/ReSETP baselines/e4_e5/china_policy_price_gate_20260717/shanghai_july_tou_48slot.csv',
    ],
    note: {
      zh: '电价为 2025 年 7 月快照，所有季节沿用；按沪发改价管〔2022〕50号，2–6 月和 10–11 月峰谷浮动比例不同（峰 +60%、谷 −50%，7–9 月及 1、12 月为 +80%、−60%），这些月份的实际电价需按当月代理购电价表更新。',
      en: 'Prices are the July 2025 snapshot, used for every season; under 沪发改价管〔2022〕50号 Feb–Jun and Oct–Nov float by other ratios (peak +60 %, valley −50 %, against +80 %, −60 % in Jul–Sep, Jan and Dec), so update their prices from that month’s agency-purchase table.',
    },
  },
  {
    id: 'CN-BJ-2024-07-1-10kV-2part',
    region: { zh: '北京', en: 'Beijing' },
    month: '2024-07',
    customerClass: {
      zh: '代理购电工商业 两部制 1–10 千伏',
      en: 'C&I on agency purchase, two-part, 1–10 kV',
    },
    prices: { sharp: 1.057777, peak: 0.926841, shoulder: 0.681335, off_peak: 0.435829 },
    seasons: [
      {
        name: { zh: '7–8月（尖峰 11–13、16–17 时）', en: 'Jul–Aug (sharp 11–13, 16–17)' },
        months: [7, 8],
        periods: day([
          ['00:00', 'off_peak'],
          ['07:00', 'shoulder'],
          ['10:00', 'peak'],
          ['11:00', 'sharp'],
          ['13:00', 'shoulder'],
          ['16:00', 'sharp'],
          ['17:00', 'peak'],
          ['22:00', 'shoulder'],
          ['23:00', 'off_peak'],
        ]),
      },
      {
        name: { zh: '1月、12月（尖峰 18–21 时）', en: 'Jan, Dec (sharp 18–21)' },
        months: [1, 12],
        periods: day([
          ['00:00', 'off_peak'],
          ['07:00', 'shoulder'],
          ['10:00', 'peak'],
          ['13:00', 'shoulder'],
          ['17:00', 'peak'],
          ['18:00', 'sharp'],
          ['21:00', 'peak'],
          ['22:00', 'shoulder'],
          ['23:00', 'off_peak'],
        ]),
      },
      {
        name: { zh: '其余月份', en: 'Other months' },
        months: [2, 3, 4, 5, 6, 9, 10, 11],
        periods: day([
          ['00:00', 'off_peak'],
          ['07:00', 'shoulder'],
          ['10:00', 'peak'],
          ['13:00', 'shoulder'],
          ['17:00', 'peak'],
          ['22:00', 'shoulder'],
          ['23:00', 'off_peak'],
        ]),
      },
    ],
    sources: [
      'https://www.95598.cn/omg-static/omg-static/99306272029057823884400238783751.pdf (State Grid Beijing price table, July 2024)',
      'https://fgw.beijing.gov.cn/fgwzwgk/2024zcwj/bwgfxwj/202308/t20230821_3718725.htm (京发改规〔2023〕11号)',
    ],
    note: {
      zh: '电价为 2024 年 7 月快照，所有季节沿用。7–8 月尖峰 16–17 时在平段表中属平段，按数据记为尖峰；1、12 月尖峰 18–21 时取代该时段的高峰。',
      en: 'Prices are the July 2024 snapshot, used for every season. The Jul–Aug sharp hour 16–17 lies in the base table’s flat hours and is taken as sharp, as listed; the Jan/Dec sharp 18–21 replaces those peak hours.',
    },
  },
  {
    id: 'CN-CQ-2024-07-1-10kV-2part',
    region: { zh: '重庆', en: 'Chongqing' },
    month: '2024-07',
    customerClass: {
      zh: '代理购电工商业 两部制 1–10 千伏',
      en: 'C&I on agency purchase, two-part, 1–10 kV',
    },
    prices: { sharp: 1.291963, peak: 1.093205, shoulder: 0.720533, off_peak: 0.335439 },
    seasons: [
      {
        name: { zh: '1、7、8、12月（尖峰 12–14 时）', en: 'Jan, Jul, Aug, Dec (sharp 12–14)' },
        months: [1, 7, 8, 12],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['11:00', 'peak'],
          ['12:00', 'sharp'],
          ['14:00', 'peak'],
          ['17:00', 'shoulder'],
          ['20:00', 'peak'],
          ['22:00', 'shoulder'],
        ]),
      },
      {
        name: { zh: '其余月份', en: 'Other months' },
        months: [2, 3, 4, 5, 6, 9, 10, 11],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['11:00', 'peak'],
          ['17:00', 'shoulder'],
          ['20:00', 'peak'],
          ['22:00', 'shoulder'],
        ]),
      },
    ],
    sources: [
      'https://95598.cn/omg-static/omg-static/99306271816206672993301584531585.pdf (State Grid Chongqing price table, July 2024)',
      'https://fzggw.cq.gov.cn/zwgk/zfxxgkml/zcwj/xzgfxwj/sfzggwxzgfxwj/202112/t20211209_10119678.html (Chongqing DRC ToU policy)',
    ],
    note: {
      zh: '电价为 2024 年 7 月快照，所有季节沿用。尖峰 12–14 时按数据用于 1、7、8、12 月，位于 11–17 时高峰之内。',
      en: 'Prices are the July 2024 snapshot, used for every season. The sharp hours 12–14 apply in Jan, Jul, Aug and Dec as the data lists, inside the 11–17 peak.',
    },
  },
  {
    id: 'CN-SZ-2025-02-10kV-101-3000kVA',
    region: { zh: '深圳', en: 'Shenzhen' },
    month: '2025-02',
    customerClass: {
      zh: '工商业用电（101–3000 kVA）10 千伏高供高计，≤250 kWh/kVA·月',
      en: 'C&I (101–3000 kVA), 10 kV high-voltage metering, ≤ 250 kWh per kVA-month',
    },
    prices: { sharp: 1.43716875, peak: 1.15526875, shoulder: 0.75776875, off_peak: 0.25716875 },
    seasons: [
      {
        name: { zh: '7–9月（尖峰 11–12、15–17 时）', en: 'Jul–Sep (sharp 11–12, 15–17)' },
        months: [7, 8, 9],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['10:00', 'peak'],
          ['11:00', 'sharp'],
          ['12:00', 'shoulder'],
          ['14:00', 'peak'],
          ['15:00', 'sharp'],
          ['17:00', 'peak'],
          ['19:00', 'shoulder'],
        ]),
      },
      {
        name: { zh: '其余月份', en: 'Other months' },
        months: [1, 2, 3, 4, 5, 6, 10, 11, 12],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['10:00', 'peak'],
          ['12:00', 'shoulder'],
          ['14:00', 'peak'],
          ['19:00', 'shoulder'],
        ]),
      },
    ],
    sources: [
      'Shenzhen Power Supply Bureau price table, February 2025 (archive of the utility scan: https://energydc.cn/policy/shenzhen/2025-02/a1b09a22-f059-11f0-964f-46a1f660a16e)',
      'zlxshu/ReSETP baselines/e4_e5/shenzhen_2025_02_tariff_closure_20260723/audit_shenzhen_tariff_closure.py',
      'https://drc.gd.gov.cn/attachment/0/521/521210/4186770.docx (transmission and distribution prices)',
    ],
    note: {
      zh: '电价为 2025 年 2 月快照（含政府性基金及附加），所有季节沿用。尖峰也适用于其他日最高气温 ≥35 ℃ 的日子：请把这些日期作为例外日添加（7–9 月的日计划）。',
      en: 'Prices are the February 2025 snapshot (government funds included), used for every season. Sharp hours also apply on other days of 35 °C or more: add those dates as exceptions (with the Jul–Sep daily plan).',
    },
  },
  {
    id: 'CN-GD-GZFS-2021-10-1-10kV',
    region: { zh: '广东（广州、佛山，不含深圳）', en: 'Guangdong (Guangzhou, Foshan; not Shenzhen)' },
    month: '2021-10',
    customerClass: {
      zh: '1–10 千伏 一般工商业（原普通工业专变用户），不含政府性基金及附加',
      en: '1–10 kV general C&I (former ordinary-industry transformer users), without government funds',
    },
    prices: { sharp: 1.3759375, peak: 1.10075, shoulder: 0.6475, off_peak: 0.24605 },
    seasons: [
      {
        name: { zh: '7–9月（尖峰 11–12、15–17 时）', en: 'Jul–Sep (sharp 11–12, 15–17)' },
        months: [7, 8, 9],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['10:00', 'peak'],
          ['11:00', 'sharp'],
          ['12:00', 'shoulder'],
          ['14:00', 'peak'],
          ['15:00', 'sharp'],
          ['17:00', 'peak'],
          ['19:00', 'shoulder'],
        ]),
      },
      {
        name: { zh: '其余月份', en: 'Other months' },
        months: [1, 2, 3, 4, 5, 6, 10, 11, 12],
        periods: day([
          ['00:00', 'off_peak'],
          ['08:00', 'shoulder'],
          ['10:00', 'peak'],
          ['12:00', 'shoulder'],
          ['14:00', 'peak'],
          ['19:00', 'shoulder'],
        ]),
      },
    ],
    sources: [
      'https://drc.gd.gov.cn/ywtz/content/post_3500421.html (粤发改价格〔2021〕331号)',
      'https://drc.gd.gov.cn/attachment/0/446/446165/3500421.xls (price table)',
    ],
    note: {
      zh: '电价为 2021 年 10 月快照，不含政府性基金及附加，所有季节沿用；尖峰电价按政策取高峰 ×1.25 推算。尖峰也适用于广州日最高气温 ≥35 ℃ 的其他日子：请把这些日期作为例外日添加（7–9 月的日计划）。',
      en: 'Prices are the October 2021 snapshot without government funds, used for every season; the sharp price is derived as peak × 1.25 per the policy. Sharp hours also apply on other days when Guangzhou reaches 35 °C: add those dates as exceptions (with the Jul–Sep daily plan).',
    },
  },
];

/** How `schemeFromTemplate` sets the battery to work. */
export interface TemplateStrategy {
  /** Calendar year of the yearly setting. */
  year: number;
  /** Charge and discharge power setpoint, kW (> 0); the PCS rating the strategy respects. */
  powerKw: number;
  /**
   * Usable storage capacity, kWh: how much energy a cycle moves (strategy.ts). Absent: a
   * two-hour battery (2 × `powerKw`), the usual size of C&I storage.
   */
  capacityKwh?: number;
  /** Round-trip efficiency, % (default 90, as the arbitrage preview). */
  roundTripEfficiencyPct?: number;
  /** Cost of wear per kWh cycled, CNY/kWh (default 0): a second cycle is used only when it pays more. */
  degradationCostCnyPerKwh?: number;
  /** SOC floor (discharging stops), %. */
  socMinPct: number;
  /** SOC ceiling (charging stops), %. */
  socMaxPct: number;
  /** Language of the plan names. */
  lang: Lang;
}

const mmdd = (month: number, dayOfMonth: number) =>
  `${String(month).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`;

/**
 * A valid scheme document from `template`: one daily plan per season (keys 1…n in season order;
 * prices from the template; the price-aware standard strategy of strategy.ts at `powerKw` within
 * the SOC window: discharge in the dearest periods first, charge in the cheapest, a second cycle
 * when it pays), one weekly cycle per season with the same plan every
 * day, one yearly setting for `strategy.year` mapping each run of consecutive months to its
 * season's cycle, and as defaults the daily plan and weekly cycle of the season of the
 * template's snapshot month. The yearly setting covers `strategy.year` only: from the next year
 * on the default weekly cycle runs (the snapshot season every day), so a scheme left as it is
 * keeps a sensible plan once its year is over. A tier without a price gives a `null` price
 * (validateScheme reports 3073); `validateScheme` with a date in `year` or before gives no issue
 * for the templates here.
 */
export function schemeFromTemplate(template: TouTemplate, strategy: TemplateStrategy): TouSchemeDocument {
  const dailyPlans: DailyPlan[] = template.seasons.map((season, i) => ({
    key: i + 1,
    name: season.name[strategy.lang],
    periods: priceAwareStrategy(
      season.periods.map(
        ({ start, end, tier }): TouPeriod => ({
          start,
          end,
          tier,
          priceCnyPerKwh: template.prices[tier] ?? null,
          action: 'idle',
          powerKw: 0,
          socMinPct: strategy.socMinPct,
          socMaxPct: strategy.socMaxPct,
        }),
      ),
      {
        capacityKwh: strategy.capacityKwh ?? 2 * strategy.powerKw,
        ratedPowerKw: strategy.powerKw,
        roundTripEfficiencyPct: strategy.roundTripEfficiencyPct ?? 90,
        socMinPct: strategy.socMinPct,
        socMaxPct: strategy.socMaxPct,
        degradationCostCnyPerKwh: strategy.degradationCostCnyPerKwh ?? 0,
      },
    ),
  }));
  const weeklyPlans: WeeklyPlan[] = dailyPlans.map((plan) => ({
    key: plan.key,
    name: plan.name,
    days: Array.from({ length: 7 }, () => plan.key),
  }));
  const seasonKeyOf = (month: number) => template.seasons.findIndex((s) => s.months.includes(month)) + 1;
  const items: YearlyItem[] = [];
  for (let month = 1; month <= 12; month++) {
    const key = seasonKeyOf(month);
    if (key === 0) continue;
    const last = items[items.length - 1];
    const lastMonth = last ? Number(last.to.slice(0, 2)) : 0;
    if (last && last.weeklyPlanKey === key && lastMonth === month - 1) {
      last.to = mmdd(month, daysInMonth(strategy.year, month));
    } else {
      items.push({
        from: mmdd(month, 1),
        to: mmdd(month, daysInMonth(strategy.year, month)),
        weeklyPlanKey: key,
      });
    }
  }
  // Daily plan n and weekly cycle n are both season n.
  const snapshotSeasonKey = seasonKeyOf(Number(template.month.slice(5, 7))) || 1;
  return {
    dailyPlans,
    weeklyPlans,
    yearlyPlans: [{ key: 1, year: strategy.year, items }],
    exceptionPlans: [],
    defaultDailyPlanKey: snapshotSeasonKey,
    defaultWeeklyPlanKey: snapshotSeasonKey,
  };
}
