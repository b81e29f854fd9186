/**
 * The operational overview (devices issue; contract `dashboardEndpoints`, shapes in
 * api/dashboard.ts). Units: kW (battery + discharging / − charging; grid + import),
 * kWh, SOC %, times UTC ms.
 */
import { type DashboardData, dashboardEndpoints } from '@ess/contract';
import { request } from '@/shared/api/client';

/** `dashboard/overview`: fleet KPIs, today's 15-min power curve, sites, latest alarms. */
export function fetchOverview(): Promise<DashboardData> {
  return request(dashboardEndpoints.overview, {});
}

/** How often the power curve (and with it the rest) is fetched again over HTTP. */
export const CURVE_REFRESH_MS = 60_000;
