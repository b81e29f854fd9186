/**
 * Real-time data and history calls (contract `monitorEndpoints`, shapes in api/monitor.ts). Units come
 * with the point names (`pointUnit`); times UTC ms. Range errors (3120–3122) are shown by the
 * request client in the UI language, and the forms check the same rule before sending.
 */
import {
  type CompareData,
  type EnergyData,
  type EnergyGranularity,
  type HistoryData,
  monitorEndpoints,
  type PickOptions,
  type RealtimeData,
  type SeriesKey,
  type TimeRange,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type OptionsKind = 'realtime' | 'history';

/** Sites in scope; with `siteId` also its devices and their point names (3036 out of scope). */
export function fetchOptions(kind: OptionsKind, siteId?: number): Promise<PickOptions> {
  const endpoint = kind === 'realtime' ? monitorEndpoints.realtimeOptions : monitorEndpoints.historyOptions;
  return request(endpoint, siteId ? { siteId } : {});
}

/** Latest value and report time of every point of a device, gateway state, stale threshold. */
export function fetchRealtime(deviceId: number): Promise<RealtimeData> {
  return request(monitorEndpoints.realtime, { deviceId });
}

/** A point over the last hour. */
export function fetchTrend(deviceId: number, point: string): Promise<HistoryData> {
  return request(monitorEndpoints.realtimeTrend, { deviceId, point });
}

/** Series of points over a range (the server picks raw or rollup). */
export function fetchHistory(series: SeriesKey[], range: TimeRange): Promise<HistoryData> {
  return request(monitorEndpoints.history, { series, ...range });
}

/** One point over periods A and B. */
export function fetchCompare(key: SeriesKey, a: TimeRange, b: TimeRange): Promise<CompareData> {
  return request(monitorEndpoints.compare, { ...key, a, b });
}

/** Charged / discharged kWh per local day or month of a site's PCS (or one PCS). */
export function fetchEnergy(
  siteId: number,
  deviceId: number | undefined,
  granularity: EnergyGranularity,
  range: TimeRange,
): Promise<EnergyData> {
  return request(monitorEndpoints.energy, {
    siteId,
    ...(deviceId ? { deviceId } : {}),
    granularity,
    ...range,
  });
}
