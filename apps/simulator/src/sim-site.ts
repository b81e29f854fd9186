/**
 * Glue between a fleet site record and the pure model: picks the BDEW profile the site's load
 * follows (H25 for households, G25 otherwise) and creates the initial state.
 */
import { bdewProfile } from './data';
import { type CreateSiteOptions, createSite, type SiteSpec, type SiteState } from './model/site';

/**
 * Creates the model state of `spec` at `startTimeMs`, deterministic in `seed`; `opts` may set the
 * SOC, registers and active alarms to start from (history.ts `resumeSite`).
 */
export function createSimSite(
  spec: SiteSpec,
  seed: number,
  startTimeMs: number,
  opts: Pick<CreateSiteOptions, 'initialSocPct' | 'registers' | 'alarms'> = {},
): SiteState {
  const load = bdewProfile(spec.profile === 'household_10kwh' ? 'H25' : 'G25');
  return createSite(spec, { seed, startTimeMs, load, ...opts });
}
