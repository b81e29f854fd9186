/**
 * Site monitoring calls (contract `siteMonitorEndpoints`, shapes in api/site-monitor.ts). Units: kW (battery
 * + discharging / − charging; grid + import), kWh, %, V, A, Hz, °C, mV; times UTC ms.
 */
import { type SiteMonitorDetail, type SiteMonitorList, siteMonitorEndpoints } from '@ess/contract';
import { request } from '@/shared/api/client';

/** Every site in scope with position, status and today's figures. */
export function fetchMonitorSites(): Promise<SiteMonitorList> {
  return request(siteMonitorEndpoints.sites, {});
}

/** One site's devices and panels (3036 when it is not in scope). */
export function fetchMonitorSite(siteId: number): Promise<SiteMonitorDetail> {
  return request(siteMonitorEndpoints.site, { siteId });
}
