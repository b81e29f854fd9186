/**
 * Big-screen calls (contract `screenEndpoints`, shapes in api/screen.ts; docs/api.md "Big screens").
 * Units: kW, kWh, %, CNY, UTC ms.
 */
import {
  type CockpitAggregates,
  type CockpitData,
  ErrorCode,
  type ScreenSiteData,
  type ScreenSiteOption,
  screenEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';
import { ApiError } from '@/shared/api/errors';
import { browserTimeZone } from '@/shared/format';

/**
 * `screen/cockpitPublic` without a token: installation aggregates only (nothing per site). The
 * browser's zone goes along as the time base for sites in several zones (`timeBase`).
 */
export function fetchPublicCockpit(): Promise<CockpitAggregates> {
  return request(
    screenEndpoints.cockpitPublic,
    { timezone: browserTimeZone() },
    { skipAuth: true, errorText: 'none' },
  );
}

/**
 * `screen/cockpit` (permission `screen:view:list`): the caller's fleet with its sites and top
 * sites. A signed-in user without that permission (5034) gets the public aggregates instead.
 */
export async function fetchCockpit(): Promise<CockpitData | CockpitAggregates> {
  try {
    return await request(screenEndpoints.cockpit, { timezone: browserTimeZone() }, { errorText: 'none' });
  } catch (err) {
    if (err instanceof ApiError && err.code === ErrorCode.NO_PERMISSION) return fetchPublicCockpit();
    throw err;
  }
}

/** `screen/sites`: the site picker (sites in the caller's scope). */
export function fetchScreenSites(): Promise<ScreenSiteOption[]> {
  return request(screenEndpoints.sites, {});
}

/** `screen/site`: one site's devices, latest points, cells, energy, curves, alarms (3036 outside scope). */
export function fetchScreenSite(siteId: number): Promise<ScreenSiteData> {
  return request(screenEndpoints.site, { siteId }, { errorText: 'none' });
}

/** How often the cockpit asks again (the public route allows 30 calls a minute per address). */
export const COCKPIT_REFRESH_MS = 10_000;
/** How often a site screen re-reads the site over HTTP (cells, curves, energy, alarms). */
export const SITE_REFRESH_MS = 15_000;
