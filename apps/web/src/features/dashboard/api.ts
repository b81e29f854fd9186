/**
 * The operational overview (devices issue; shapes in @ess/contract api/dashboard.ts, path
 * `DashboardPath.overview`). Units: kW (battery + discharging / − charging; grid + import),
 * kWh, SOC %, times UTC ms.
 */
import { type DashboardData, DashboardPath } from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

/** `dashboard/overview`: fleet KPIs, today's 15-min power curve, sites, latest alarms. */
export function fetchOverview(): Promise<DashboardData> {
  return request<DashboardData>(DashboardPath.overview, { userInfo: userInfoEcho() });
}

/** How often the power curve (and with it the rest) is fetched again over HTTP. */
export const CURVE_REFRESH_MS = 60_000;
