/**
 * Real-time data and history calls (contract api/monitor.ts, paths `MonitorPath`). Units come
 * with the point names (`pointUnit`); times UTC ms. Range errors (3120–3122) are shown by the
 * request client in the UI language, and the forms check the same rule before sending.
 */
import {
  type CompareData,
  type EnergyData,
  type EnergyGranularity,
  type HistoryData,
  MonitorPath,
  type PickOptions,
  type RealtimeData,
  type SeriesKey,
  type TimeRange,
} from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

export type OptionsKind = 'realtime' | 'history';

/** Sites in scope; with `siteId` also its devices and their point names (3036 out of scope). */
export function fetchOptions(kind: OptionsKind, siteId?: number): Promise<PickOptions> {
  const path = kind === 'realtime' ? MonitorPath.realtimeOptions : MonitorPath.historyOptions;
  return request<PickOptions>(path, { userInfo: userInfoEcho(), ...(siteId ? { siteId } : {}) });
}

/** Latest value and report time of every point of a device, gateway state, stale threshold. */
export function fetchRealtime(deviceId: number): Promise<RealtimeData> {
  return request<RealtimeData>(MonitorPath.realtime, { userInfo: userInfoEcho(), deviceId });
}

/** A point over the last hour. */
export function fetchTrend(deviceId: number, point: string): Promise<HistoryData> {
  return request<HistoryData>(MonitorPath.realtimeTrend, { userInfo: userInfoEcho(), deviceId, point });
}

/** Series of points over a range (the server picks raw or rollup). */
export function fetchHistory(series: SeriesKey[], range: TimeRange): Promise<HistoryData> {
  return request<HistoryData>(MonitorPath.history, { userInfo: userInfoEcho(), series, ...range });
}

/** One point over periods A and B. */
export function fetchCompare(key: SeriesKey, a: TimeRange, b: TimeRange): Promise<CompareData> {
  return request<CompareData>(MonitorPath.compare, { userInfo: userInfoEcho(), ...key, a, b });
}

/** Charged / discharged kWh per local day or month of a site's PCS (or one PCS). */
export function fetchEnergy(
  siteId: number,
  deviceId: number | undefined,
  granularity: EnergyGranularity,
  range: TimeRange,
): Promise<EnergyData> {
  return request<EnergyData>(MonitorPath.energy, {
    userInfo: userInfoEcho(),
    siteId,
    ...(deviceId ? { deviceId } : {}),
    granularity,
    ...range,
  });
}
