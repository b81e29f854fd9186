/**
 * Site monitoring calls (contract api/site-monitor.ts, `SiteMonitorPath`). Units: kW (battery
 * + discharging / − charging; grid + import), kWh, %, V, A, Hz, °C, mV; times UTC ms.
 */
import { type SiteMonitorDetail, type SiteMonitorList, SiteMonitorPath } from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

/** Every site in scope with position, status and today's figures. */
export function fetchMonitorSites(): Promise<SiteMonitorList> {
  return request<SiteMonitorList>(SiteMonitorPath.sites, { userInfo: userInfoEcho() });
}

/** One site's devices and panels (3036 when it is not in scope). */
export function fetchMonitorSite(siteId: number): Promise<SiteMonitorDetail> {
  return request<SiteMonitorDetail>(SiteMonitorPath.site, { userInfo: userInfoEcho(), siteId });
}
