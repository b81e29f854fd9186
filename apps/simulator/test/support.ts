/** Helpers shared by the simulator tests: a site spec per profile and a stepping loop. */
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
