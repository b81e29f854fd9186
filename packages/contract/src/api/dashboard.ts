/**
 * The operational overview (spec §2 `/dashboard`; devices issue): fleet KPIs, today's power
 * curve, the sites table and the latest alarms, within the caller's companies. The same shapes
 * arrive live over the WebSocket (api/live.ts).
 *
 * Units: power kW (battery + = discharging, − = charging; grid + = import), energy kWh,
 * SOC %, times UTC ms.
 */
import { z } from 'zod';
import { ALARM_LEVELS, OFFLINE_REASONS, timezoneSchema } from '../device/protocol';
import type { FleetTimeBase } from '../local-time';
import { userInfoEcho } from './envelope';

export const fleetOverviewSchema = z.object({
  sites: z.number().int(),
  devices: z.number().int(),
  gatewaysOnline: z.number().int(),
  gatewaysOffline: z.number().int(),
  capacityKwh: z.number(),
  ratedPowerKw: z.number(),
  /** Sum of battery power now (PCS, else the gateway's own; device/site-figures.ts): + discharging, − charging. */
  batteryPowerKw: z.number(),
  chargingPowerKw: z.number(),
  dischargingPowerKw: z.number(),
  todayChargeKwh: z.number(),
  todayDischargeKwh: z.number(),
  /** Capacity-weighted SOC of online batteries; null when none reports. */
  fleetSocPct: z.number().nullable(),
  updatedAt: z.number().int(),
});
export type FleetOverview = z.infer<typeof fleetOverviewSchema>;

/**
 * The time base of a fleet-wide answer (local-time.ts `fleetTimeBase`): the zone whose local day
 * is "today" of its power curve and in which the console shows its times — the sites' zone when
 * they all share one (`sites`), else the zone the caller named (`caller`; UTC when none).
 */
export const fleetTimeBaseSchema = z.object({
  timezone: z.string(),
  basis: z.enum(['sites', 'caller']),
}) satisfies z.ZodType<FleetTimeBase>;

/**
 * The request of a fleet-wide view: `timezone` (IANA, optional) is the caller's own zone (the
 * console sends the browser's), the time base when the sites in view do not share one.
 */
export const fleetViewRequest = z.object({ userInfo: userInfoEcho, timezone: timezoneSchema.optional() });

export const powerCurveSchema = z.object({
  /**
   * Start of each 15-minute bucket (UTC ms) of the local day so far: the site's day for a site,
   * the answer's `timeBase` day for a fleet.
   */
  ts: z.array(z.number().int()),
  batteryKw: z.array(z.number().nullable()),
  gridKw: z.array(z.number().nullable()),
  pvKw: z.array(z.number().nullable()),
  /** Site load = grid + PV + battery. */
  loadKw: z.array(z.number().nullable()),
});
export type PowerCurve = z.infer<typeof powerCurveSchema>;

export const siteStatusSchema = z.object({
  siteId: z.number().int(),
  code: z.string(),
  name: z.string(),
  companyName: z.string(),
  online: z.boolean(),
  offlineReason: z.enum(OFFLINE_REASONS).nullable(),
  lastSeenAt: z.number().int().nullable(),
  capacityKwh: z.number(),
  ratedPowerKw: z.number(),
  /**
   * SOC, battery and grid power of the site from the devices the site-figure rule names
   * (device/site-figures.ts: BMS, PCS, meter; else the gateway's own points); null while they
   * have not reported.
   */
  socPct: z.number().nullable(),
  batteryPowerKw: z.number().nullable(),
  gridPowerKw: z.number().nullable(),
  todayChargeKwh: z.number(),
  todayDischargeKwh: z.number(),
  activeAlarms: z.number().int(),
});
export type SiteStatus = z.infer<typeof siteStatusSchema>;

export const alarmRowSchema = z.object({
  id: z.number().int(),
  siteId: z.number().int(),
  siteName: z.string(),
  deviceSn: z.string(),
  ts: z.number().int(),
  kind: z.enum(['produce', 'disappear']),
  code: z.string(),
  level: z.enum(ALARM_LEVELS),
  content: z.string(),
});
export type AlarmRow = z.infer<typeof alarmRowSchema>;

export const dashboardRequest = fleetViewRequest;
export const dashboardResponse = z.object({
  overview: fleetOverviewSchema,
  /** Zone of the power curve's day and of the times shown; site rows keep their own day. */
  timeBase: fleetTimeBaseSchema,
  powerCurve: powerCurveSchema,
  sites: z.array(siteStatusSchema),
  alarms: z.array(alarmRowSchema),
});
export type DashboardData = z.infer<typeof dashboardResponse>;
