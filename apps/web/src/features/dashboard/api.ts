/**
 * The operational overview (devices issue; contract `dashboardEndpoints`, shapes in
 * api/dashboard.ts). Units: kW (battery + discharging / − charging; grid + import),
 * kWh, SOC %, times UTC ms.
 */
import { type DashboardData, dashboardEndpoints } from '@ess/contract';
import { request } from '@/shared/api/client';
import { browserTimeZone } from '@/shared/format';

/**
 * `dashboard/overview`: fleet KPIs, today's 15-min power curve, sites, latest alarms and the
 * time base; the browser's zone goes along as the time base for sites in several zones.
 */
export function fetchOverview(): Promise<DashboardData> {
  return request(dashboardEndpoints.overview, { timezone: browserTimeZone() });
}

/** How often the power curve (and with it the rest) is fetched again over HTTP. */
export const CURVE_REFRESH_MS = 60_000;
