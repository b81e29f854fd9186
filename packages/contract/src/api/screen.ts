/**
 * Big screens (spec §2 `/newscreen`, `/screen/*`, `/syfscreen/*`). Paths in
 * `endpoints.screen` (endpoints/screen.ts).
 *
 * What the cockpit shows without a token (decision, docs/api.md "Big screens"): aggregates of
 * the whole installation only — site count, capacity, rated power, power now, energy today and
 * this month, revenue (the one money rule, money/valuation.ts), active alarms per level, today's fleet power curve and site
 * counts per 1° map cell (positions rounded to whole degrees of latitude/longitude, ≈ 100 km).
 * No site names, codes, SNs, companies, exact coordinates or per-site figures: those come only
 * with a token, for the caller's own companies (`cockpit`).
 *
 * Units: power kW (battery + = discharging, − = charging; grid + = import), energy kWh, SOC %,
 * money CNY, times UTC ms.
 */
import { z } from 'zod';
import { ALARM_LEVELS, DEVICE_TYPES, OFFLINE_REASONS } from '../device/protocol';
import { fleetTimeBaseSchema, fleetViewRequest, powerCurveSchema } from './dashboard';
import { userInfoEcho } from './envelope';
import { idSchema } from './primitives';

/** Map cells of the public cockpit: latitude/longitude rounded to this many degrees. */
export const PUBLIC_MAP_CELL_DEG = 1;

export const screenRequest = z.object({ userInfo: userInfoEcho });
/** The cockpits' request: the caller's zone, the time base when the sites do not share one. */
export const cockpitRequest = fleetViewRequest;

/** A map cell of the public cockpit: its centre (whole degrees) and how many sites lie in it. */
export const mapCellSchema = z.object({
  latitude: z.number(),
  longitude: z.number(),
  sites: z.number().int(),
});
export type MapCell = z.infer<typeof mapCellSchema>;

/** The aggregates: everything the public cockpit answers. */
export const cockpitAggregatesSchema = z.object({
  sites: z.number().int(),
  sitesOnline: z.number().int(),
  capacityKwh: z.number(),
  ratedPowerKw: z.number(),
  /** Battery power now (PCS, else the gateway's own), summed over online sites: + discharging, − charging. */
  batteryPowerKw: z.number(),
  chargingPowerKw: z.number(),
  dischargingPowerKw: z.number(),
  /** Capacity-weighted SOC of online batteries; null when none reports. */
  fleetSocPct: z.number().nullable(),
  /** Site-local today / this month, from the charge/discharge registers (PCS, else the gateway's). */
  todayChargeKwh: z.number(),
  todayDischargeKwh: z.number(),
  monthChargeKwh: z.number(),
  monthDischargeKwh: z.number(),
  revenue: z.object({
    todayCny: z.number(),
    monthCny: z.number(),
    /**
     * Revenue = Σ discharged × the period's price − Σ charged × the period's price over the
     * storage meters' energy per ToU period (money/valuation.ts, as revenue statistics).
     * `sitesByScheme`: sites with a tariff today; `sitesByDefault`: sites without one (their
     * energy is not valued; the name is kept from the former estimate's default prices).
     */
    sitesByScheme: z.number().int(),
    sitesByDefault: z.number().int(),
  }),
  /** Active alarms (raised and not cleared) per level. */
  alarms: z.object({ warning: z.number().int(), fault: z.number().int() }),
  /** Sites per 1° cell (no names, no exact positions). */
  mapCells: z.array(mapCellSchema),
  /** Zone of the power curve's day and of the times shown (api/dashboard.ts). */
  timeBase: fleetTimeBaseSchema,
  powerCurve: powerCurveSchema,
  updatedAt: z.number().int(),
});
export type CockpitAggregates = z.infer<typeof cockpitAggregatesSchema>;

/** A site of the signed-in cockpit (caller's companies only). */
export const cockpitSiteSchema = z.object({
  siteId: z.number().int(),
  code: z.string(),
  name: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  online: z.boolean(),
  capacityKwh: z.number(),
  batteryPowerKw: z.number().nullable(),
  socPct: z.number().nullable(),
  todayChargeKwh: z.number(),
  todayDischargeKwh: z.number(),
  monthDischargeKwh: z.number(),
  monthRevenueCny: z.number(),
  activeAlarms: z.number().int(),
});
export type CockpitSite = z.infer<typeof cockpitSiteSchema>;

/** Signed in: the caller's fleet as aggregates plus its sites (named, exact positions). */
export const cockpitResponse = cockpitAggregatesSchema.extend({
  /** Every site in scope, for the map. */
  siteList: z.array(cockpitSiteSchema),
  /** Ids of the (up to 10) sites with most energy discharged this month, best first. */
  topSiteIds: z.array(z.number().int()),
});
export type CockpitData = z.infer<typeof cockpitResponse>;

/** Site picker of the screens: sites in scope. */
export const screenSiteOptionSchema = z.object({
  siteId: z.number().int(),
  code: z.string(),
  name: z.string(),
  online: z.boolean(),
});
export type ScreenSiteOption = z.infer<typeof screenSiteOptionSchema>;
export const screenSitesResponse = z.array(screenSiteOptionSchema);

export const screenSiteRequest = z.object({ userInfo: userInfoEcho, siteId: idSchema });

/** A device of the site screen: registry fields and its latest reading. */
export const screenDeviceSchema = z.object({
  id: z.number().int(),
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  firmwareVersion: z.string().nullable(),
  ratedPowerKw: z.number().nullable(),
  capacityKwh: z.number().nullable(),
  isGateway: z.boolean(),
  /** The gateway's connection (the device's own for a gateway). */
  online: z.boolean(),
  offlineReason: z.enum(OFFLINE_REASONS).nullable(),
  lastSeenAt: z.number().int().nullable(),
  registeredAt: z.number().int(),
  /** Local day of the device's first stored data (its first daily rollup); null when none. */
  firstDataAt: z.number().int().nullable(),
  /** Latest reading: time and points (docs/device-protocol.md "Points"); null when none. */
  ts: z.number().int().nullable(),
  points: z.record(z.string(), z.number()),
  /** A meter a project declares as its storage meter: no site figure (device/site-figures.ts `FigureDevice.storageMeter`). */
  storageMeter: z.boolean(),
  /** BMS cell arrays in cell order (cell n = index n − 1) and their time. */
  cells: z.object({ u_v: z.array(z.number()).optional(), t_c: z.array(z.number()).optional() }).nullable(),
  cellsTs: z.number().int().nullable(),
});
export type ScreenDevice = z.infer<typeof screenDeviceSchema>;

/** Today's 15-minute averages of one site (site-local day). */
export const siteCurveSchema = powerCurveSchema.extend({
  socPct: z.array(z.number().nullable()),
  igbtC: z.array(z.number().nullable()),
  envTempC: z.array(z.number().nullable()),
  envRhPct: z.array(z.number().nullable()),
});
export type SiteCurve = z.infer<typeof siteCurveSchema>;

export const screenAlarmSchema = z.object({
  id: z.number().int(),
  deviceSn: z.string(),
  deviceType: z.string(),
  ts: z.number().int(),
  code: z.string(),
  level: z.enum(ALARM_LEVELS),
  content: z.string(),
});
export type ScreenAlarm = z.infer<typeof screenAlarmSchema>;

export const screenSiteResponse = z.object({
  site: z.object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    companyName: z.string(),
    address: z.string().nullable(),
    timezone: z.string(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    registeredAt: z.number().int(),
    touSchemeName: z.string().nullable(),
    capacityKwh: z.number(),
    ratedPowerKw: z.number(),
    online: z.boolean(),
  }),
  devices: z.array(screenDeviceSchema),
  /** Site-local today: PCS charge/discharge, grid meters' import/export (not a declared storage meter's), PV yield (kWh). */
  today: z.object({
    chargeKwh: z.number(),
    dischargeKwh: z.number(),
    importKwh: z.number(),
    exportKwh: z.number(),
    pvKwh: z.number(),
    /** Net benefit today so far, CNY, by the one money rule (money/valuation.ts). */
    revenueCny: z.number(),
  }),
  curve: siteCurveSchema,
  /** Active alarms of the site, newest first. */
  alarms: z.array(screenAlarmSchema),
  updatedAt: z.number().int(),
});
export type ScreenSiteData = z.infer<typeof screenSiteResponse>;
