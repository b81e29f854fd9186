/** Helpers shared by the simulator tests: a site spec per profile, a stepping loop, ToU plans. */
import { type SetTouPlanParams, TOU_TEMPLATES, type TouAction } from '@ess/contract';
import type { FleetSite } from '../src/fleet';
import { buildFleet } from '../src/fleet';
import type { ProfileId } from '../src/model/profiles';
import { type SiteSpec, type SiteState, type StepResult, step } from '../src/model/site';
import { createSimSite } from '../src/sim-site';

/** 2025-07-14 16:00 UTC = 2025-07-15 00:00 Asia/Shanghai (a Tuesday). */
export const JULY_MIDNIGHT_CN = Date.UTC(2025, 6, 14, 16, 0);
/** 2025-01-14 16:00 UTC = 2025-01-15 00:00 Asia/Shanghai. */
export const JANUARY_MIDNIGHT_CN = Date.UTC(2025, 0, 14, 16, 0);

const SHANGHAI = { janMeanC: 4.8, julMeanC: 28.6, dailyRangeC: 7, rhMeanPct: 73 };
const BEIJING = { janMeanC: -3.1, julMeanC: 26.7, dailyRangeC: 10, rhMeanPct: 55 };

export function specOf(profile: ProfileId, overrides: Partial<SiteSpec> = {}): SiteSpec {
  const base: Record<ProfileId, Pick<SiteSpec, 'pvKwp' | 'annualLoadKwh'>> = {
    ci_cabinet_215kwh: { pvKwp: 200, annualLoadKwh: 800_000 },
    household_10kwh: { pvKwp: 6, annualLoadKwh: 4_500 },
    container_5mwh: { pvKwp: 0, annualLoadKwh: 150_000 },
  };
  return {
    siteCode: `T-${profile}`,
    timezone: 'Asia/Shanghai',
    latitude: 31.23,
    longitude: 121.47,
    profile,
    climate: SHANGHAI,
    ...base[profile],
    ...overrides,
  };
}

export const beijing = { latitude: 39.9, longitude: 116.4, climate: BEIJING };

/** Runs `count` steps of `dtS` seconds; `each` sees every step result. Returns the final state. */
export function run(
  state: SiteState,
  count: number,
  dtS: number,
  each?: (r: StepResult, k: number) => void,
): SiteState {
  let s = state;
  for (let k = 0; k < count; k++) {
    const r = step(s, dtS, s.timeMs + dtS * 1000);
    s = r.state;
    each?.(r, k);
  }
  return s;
}

export function newSite(
  profile: ProfileId,
  opts: { seed?: number; start?: number; soc?: number; spec?: Partial<SiteSpec> } = {},
) {
  return createSimSite(specOf(profile, opts.spec), opts.seed ?? 1, opts.start ?? JULY_MIDNIGHT_CN, {
    ...(opts.soc !== undefined ? { initialSocPct: opts.soc } : {}),
  });
}

/** A fleet whose SNs carry a unique suffix, so concurrent runs on a shared broker don't collide. */
export function uniqueFleet(seed: number, sites: number, tag: string): FleetSite[] {
  return buildFleet({ seed, sites }).map((s) => {
    const rename = (sn: string) => sn.replace(/-01$/, `-${tag}`);
    return {
      ...s,
      gatewaySn: rename(s.gatewaySn),
      devices: s.devices.map((d) => ({ ...d, sn: rename(d.sn) })),
    };
  });
}

/** Tier of a test period by what it does (the templates' strategy: charge in the valley …). */
const TIER_OF_ACTION = { charge: 'off_peak', idle: 'shoulder', discharge: 'peak' } as const;
/** Real prices for test schemes: the Shanghai July 2025 template's, CNY/kWh. */
const SHANGHAI_PRICES = TOU_TEMPLATES.find((t) => t.id === 'CN-SH-2025-07-10kV-2part-general')!.prices;

/**
 * `set_tou_plan` params with one daily plan (the default, every day) from breakpoints
 * `[start, action, powerKw]`: each period runs to the next start, the last to midnight.
 */
export function touPlan(
  breaks: Array<[string, TouAction, number?]>,
  opts: { timezone?: string; version?: number; socMinPct?: number; socMaxPct?: number } = {},
): SetTouPlanParams {
  const periods = breaks.map(([start, action, powerKw = 0], i) => {
    const tier = TIER_OF_ACTION[action];
    return {
      start,
      end: breaks[i + 1]?.[0] ?? '00:00',
      tier,
      priceCnyPerKwh: SHANGHAI_PRICES[tier]!,
      action,
      powerKw,
      socMinPct: opts.socMinPct ?? 5,
      socMaxPct: opts.socMaxPct ?? 100,
    };
  });
  return {
    schemeId: 1,
    version: opts.version ?? 1,
    timezone: opts.timezone ?? 'Asia/Shanghai',
    scheme: {
      dailyPlans: [{ key: 1, name: 'Test day', periods }],
      weeklyPlans: [],
      yearlyPlans: [],
      exceptionPlans: [],
      defaultDailyPlanKey: 1,
      defaultWeeklyPlanKey: null,
    },
  };
}
