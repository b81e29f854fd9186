/**
 * Real-time data (spec §2 `/realTimeShow`) and history. Paths in
 * `endpoints.monitor` (endpoints/monitor.ts); rules and codes in docs/api.md "Real-time data and history".
 *
 * Times are UTC ms; point values carry the unit of their name's suffix ({@link pointUnit});
 * energy kWh. Ranges follow the shared time-range rule (api/time-range.ts: 3120–3122, history
 * at most `HISTORY_MAX_DAYS` days).
 *
 * Resolution (chosen by the server, never by the browser): raw rows when the range is at most
 * {@link RAW_MAX_SPAN_MS} long and every device of the request has at most
 * {@link MAX_POINTS_PER_SERIES} rows in it; otherwise the finest rollup (15 min, 1 h, site-local
 * day) whose bucket count over the range is at most {@link MAX_POINTS_PER_SERIES}. Rolled-up
 * series carry min/max/avg per bucket and cover whole buckets (the first bucket starts at or
 * before the range's start).
 */
import { z } from 'zod';
import { POINTS, pointDef } from '../device/points';
import { DEVICE_TYPES, type DeviceType, OFFLINE_REASONS } from '../device/protocol';
import type { Lang } from '../lang';
import { userInfoEcho } from './envelope';
import { idSchema } from './primitives';
import { timeRangeSchema } from './time-range';

/** No series sent to the browser has more points than this (about 3,000: a chart's width in points, a few per pixel). */
export const MAX_POINTS_PER_SERIES = 3000;
/** Raw rows are only considered for ranges up to this long (2 days). */
export const RAW_MAX_SPAN_MS = 2 * 86_400_000;
/** At most this many series per history request (3123). */
export const MAX_SERIES_PER_REQUEST = 8;
/** The real-time trend of a point covers this much time before now (1 h, raw data). */
export const REALTIME_TREND_MS = 3_600_000;
/**
 * A value is stale when it is older than this many reporting intervals of its gateway, or when
 * the gateway is offline (docs/api.md "Stale values").
 */
export const STALE_INTERVALS = 3;
/** Reporting interval assumed when the data does not tell (no two readings in the last hours). */
export const DEFAULT_REPORT_INTERVAL_MS = 60_000;

/** Point names as devices send them (docs/device-protocol.md "telemetry"). */
export const POINT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;

/** The resolution of a history answer: raw rows or a rollup bucket size in seconds. */
export const HISTORY_RESOLUTIONS = ['raw', '900', '3600', '86400'] as const;
export type HistoryResolution = (typeof HISTORY_RESOLUTIONS)[number];

const UNIT_SUFFIXES: ReadonlyArray<[string, string]> = [
  ['_kwh', 'kWh'],
  ['_kvar', 'kvar'],
  ['_kw', 'kW'],
  ['_kohm', 'kΩ'],
  ['_mv', 'mV'],
  ['_pct', '%'],
  ['_hz', 'Hz'],
  ['_v', 'V'],
  ['_a', 'A'],
  ['_c', '°C'],
];

/**
 * The unit of a point, from its standard definition or else its name's suffix (`_kw` → kW,
 * `_kwh` → kWh, `_v` → V, `_a` → A, `_c` → °C, `_pct` → %, `_hz` → Hz, `_mv` → mV); '' for
 * flags, states and counts.
 */
export function pointUnit(name: string, type?: DeviceType): string {
  const def = type ? pointDef(type, name) : undefined;
  if (def) return def.unit;
  for (const [suffix, unit] of UNIT_SUFFIXES) if (name.endsWith(suffix)) return unit;
  return '';
}

/** The translated label of a standard point of `type`, or the raw name for other points. */
export function pointLabel(name: string, type: DeviceType, lang: Lang): string {
  return pointDef(type, name)?.[lang] ?? name;
}

/** Position of a standard point in docs/device-protocol.md "Points" (others sort after, by name). */
export function pointOrder(name: string, type: DeviceType): number {
  const i = POINTS[type].findIndex((d) => d.name === name);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

/** A site the caller may see, for the site picker. */
export const pickSiteSchema = z.object({
  id: z.number().int(),
  code: z.string(),
  name: z.string(),
  timezone: z.string(),
  /** Any gateway of the site online. */
  online: z.boolean(),
});
export type PickSite = z.infer<typeof pickSiteSchema>;

/** A device of the chosen site, for the device picker. */
export const pickDeviceSchema = z.object({
  id: z.number().int(),
  siteId: z.number().int(),
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  /** Its gateway (itself for a gateway) online. */
  online: z.boolean(),
  /** Names of the points it has reported (latest message merge), standard order first. */
  points: z.array(z.string()),
});
export type PickDevice = z.infer<typeof pickDeviceSchema>;

/** Sites in scope; with `siteId` also that site's devices (3036 when not in scope). */
export const pickOptionsRequest = z.object({
  userInfo: userInfoEcho,
  siteId: idSchema.optional(),
});
export const pickOptionsResponse = z.object({
  sites: z.array(pickSiteSchema),
  devices: z.array(pickDeviceSchema),
});
export type PickOptions = z.infer<typeof pickOptionsResponse>;

export const realtimeRequest = z.object({
  userInfo: userInfoEcho,
  deviceId: idSchema,
});

export const realtimePointSchema = z.object({
  name: z.string(),
  value: z.number(),
  /** When this point was last reported (device clock, UTC ms). */
  ts: z.number().int(),
});
export type RealtimePoint = z.infer<typeof realtimePointSchema>;

/** The latest value of every point of a device, and what is needed to mark stale values. */
export const realtimeResponse = z.object({
  device: pickDeviceSchema,
  siteName: z.string(),
  /** The device's gateway online; when false every value is stale. */
  online: z.boolean(),
  offlineReason: z.enum(OFFLINE_REASONS).nullable(),
  /** Reporting interval seen in the last hours (ms), or the default when unknown. */
  intervalMs: z.number().int(),
  /** A value older than this (ms) is stale: {@link STALE_INTERVALS} × intervalMs. */
  staleAfterMs: z.number().int(),
  /** The server's clock when answering (lets the console correct its own clock's offset). */
  serverNow: z.number().int(),
  points: z.array(realtimePointSchema),
});
export type RealtimeData = z.infer<typeof realtimeResponse>;

/** True when a value reported at `ts` is stale at `now` (see {@link STALE_INTERVALS}). */
export function isStale(ts: number, now: number, staleAfterMs: number, online: boolean): boolean {
  return !online || now - ts > staleAfterMs;
}

/** A point's trend over the last {@link REALTIME_TREND_MS} (answered as a history, raw when possible). */
export const trendRequest = z.object({
  userInfo: userInfoEcho,
  deviceId: idSchema,
  point: z.string().min(1).max(64),
});

export const seriesKeySchema = z.object({
  deviceId: idSchema,
  point: z.string().min(1).max(64),
});
export type SeriesKey = z.infer<typeof seriesKeySchema>;

export const historyRequest = z.object({
  userInfo: userInfoEcho,
  series: z.array(seriesKeySchema).min(1).max(64),
  ...timeRangeSchema.shape,
});
export type HistoryRequest = z.infer<typeof historyRequest>;

/**
 * Totals over exactly the answered `[startMs, endMs)` (not over the whole edge buckets a rolled-up
 * series shows): equal whether computed from raw rows or rollups.
 */
export const seriesStatsSchema = z.object({
  /** Readings counted. */
  n: z.number().int(),
  sum: z.number(),
  avg: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});
export type SeriesStats = z.infer<typeof seriesStatsSchema>;

export const historySeriesSchema = z.object({
  deviceId: z.number().int(),
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  point: z.string(),
  /** Reading time (raw) or bucket start (rollup), UTC ms, ascending. */
  ts: z.array(z.number()),
  /** The reading (raw) or the bucket's mean. */
  avg: z.array(z.number()),
  /** Per bucket; null for raw answers. */
  min: z.array(z.number()).nullable(),
  max: z.array(z.number()).nullable(),
  stats: seriesStatsSchema,
});
export type HistorySeries = z.infer<typeof historySeriesSchema>;

export const historyResponse = z.object({
  resolution: z.enum(HISTORY_RESOLUTIONS),
  /** The range answered: as asked, the end moved back to now when it lay in the future. */
  startMs: z.number().int(),
  endMs: z.number().int(),
  series: z.array(historySeriesSchema),
});
export type HistoryData = z.infer<typeof historyResponse>;

/** Two periods of one point; one resolution for both, chosen for the longer period. */
export const compareRequest = z.object({
  userInfo: userInfoEcho,
  deviceId: idSchema,
  point: z.string().min(1).max(64),
  a: timeRangeSchema,
  b: timeRangeSchema,
});
export type CompareRequest = z.infer<typeof compareRequest>;

export const comparePeriodSchema = z.object({
  startMs: z.number().int(),
  endMs: z.number().int(),
  series: historySeriesSchema,
});
export const compareResponse = z.object({
  resolution: z.enum(HISTORY_RESOLUTIONS),
  a: comparePeriodSchema,
  b: comparePeriodSchema,
});
export type CompareData = z.infer<typeof compareResponse>;

export const ENERGY_GRANULARITIES = ['day', 'month'] as const;
export type EnergyGranularity = (typeof ENERGY_GRANULARITIES)[number];

/** Charged/discharged energy of a site's PCS (or one PCS) per site-local day or month. */
export const energyRequest = z.object({
  userInfo: userInfoEcho,
  siteId: idSchema,
  /** One PCS of the site; all PCS of the site when absent. */
  deviceId: idSchema.optional(),
  granularity: z.enum(ENERGY_GRANULARITIES),
  ...timeRangeSchema.shape,
});
export type EnergyRequest = z.infer<typeof energyRequest>;

export const energyBarSchema = z.object({
  /** Site-local `YYYY-MM-DD` (day) or `YYYY-MM` (month). */
  label: z.string(),
  /** UTC ms of the period's local start. */
  startMs: z.number().int(),
  /** null: no reading in the period ("no data", not zero). */
  chargeKwh: z.number().nullable(),
  dischargeKwh: z.number().nullable(),
});
export type EnergyBar = z.infer<typeof energyBarSchema>;

export const energyResponse = z.object({
  granularity: z.enum(ENERGY_GRANULARITIES),
  timezone: z.string(),
  bars: z.array(energyBarSchema),
});
export type EnergyData = z.infer<typeof energyResponse>;
