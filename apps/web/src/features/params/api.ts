/**
 * Device parameter calls (contract `endpoints.params`, shapes in api/params.ts). Every function
 * resolves with the answer's `data` or rejects with `ApiError` after the client's spec §8
 * handling. Calls whose refusal explains itself (a broken rule names the parameter: -100; the
 * device's refusal or silence: 3035) show the server's msg (`errorText: 'server'`).
 */
import {
  type EndpointResponse,
  type Page,
  type ParamChangeRow,
  type ParamsDeviceResponse,
  type ParamValue,
  paramsEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type ParamsTree = EndpointResponse<typeof paramsEndpoints.tree>;
export type ParamsSetAnswer = EndpointResponse<typeof paramsEndpoints.set>;
export type ParamsCopyAnswer = EndpointResponse<typeof paramsEndpoints.copy>;
export type ParamsInitializeAnswer = EndpointResponse<typeof paramsEndpoints.initialize>;

/** `params/tree`: the caller's sites with their configurable devices (gateway first). */
export function fetchTree(keyword: string): Promise<ParamsTree> {
  return request(paramsEndpoints.tree, keyword ? { keyword } : {});
}

/** `params/detail`: one device's desired and reported values and per-key states. Errors: 3030. */
export function fetchDevice(deviceId: number): Promise<ParamsDeviceResponse> {
  return request(paramsEndpoints.detail, { deviceId });
}

/**
 * `params/set`: the changed keys of one device. Answers the new version, `waiting` (3033/3034:
 * kept, sent at the reconnect) and the device as now stored. Errors: -100 (msg names the
 * parameter), 3030, 3031.
 */
export function setParams(deviceId: number, values: Record<string, ParamValue>): Promise<ParamsSetAnswer> {
  return request(paramsEndpoints.set, { deviceId, values }, { errorText: 'server' });
}

/** `params/read`: asks the device what it runs (get_params, up to 10 s). Errors: 3030, 3031, 3033, 3034, 3035. */
export function readParams(deviceId: number): Promise<ParamsDeviceResponse> {
  return request(paramsEndpoints.read, { deviceId }, { errorText: 'server' });
}

/** `params/retry`: sends the outstanding changes again now. Errors: 3030, 3031, 3033, 3034, 3035, 3048. */
export function retryParams(deviceId: number): Promise<ParamsDeviceResponse> {
  return request(paramsEndpoints.retry, { deviceId }, { errorText: 'server' });
}

/** `params/history`: the device's changes, newest first, one page. Errors: 3030. */
export function fetchHistory(
  deviceId: number,
  pageNum: number,
  pageSize: number,
): Promise<Page<ParamChangeRow>> {
  return request(paramsEndpoints.history, { deviceId, pageNum, pageSize });
}

/** `params/copy`: the source's desired values to each target; one result per target. Errors: 3030. */
export function copyParams(fromDeviceId: number, toDeviceIds: number[]): Promise<ParamsCopyAnswer> {
  return request(paramsEndpoints.copy, { fromDeviceId, toDeviceIds });
}

/**
 * `params/initialize`: commissions the site once (time zone, defaults, the gateway's network).
 * Errors: 3036, 3031, 3049 already performed, -100 a network value (msg names it).
 */
export function initializeSite(
  siteId: number,
  network: Record<string, ParamValue>,
): Promise<ParamsInitializeAnswer> {
  return request(paramsEndpoints.initialize, { siteId, network }, { errorText: 'server' });
}

/** TanStack Query keys of the parameter screen. */
export const paramsKeys = {
  all: ['params'] as const,
  tree: (keyword: string) => ['params', 'tree', keyword] as const,
  trees: ['params', 'tree'] as const,
  device: (deviceId: number) => ['params', 'device', deviceId] as const,
  history: (deviceId: number) => ['params', 'history', deviceId] as const,
};
