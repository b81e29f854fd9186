/**
 * Site and device registry calls (devices issue; contract `siteEndpoints`, `deviceEndpoints`,
 * shapes in api/registry.ts). Every function resolves with the answer's `data` or rejects with
 * `ApiError` after the client's spec §8 handling (the catalogue text of 3030–3039, the server's
 * msg for -100, which names the field).
 */
import {
  type DeviceRow,
  type DeviceType,
  deviceEndpoints,
  type EndpointResponse,
  MAX_PAGE_SIZE,
  type Page,
  type SiteRow,
  siteEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export interface SiteQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
}

/** `site/pageList`: sites with device counts, gateways online, capacity (kWh) and PCS power (kW). */
export function fetchSites(q: SiteQuery): Promise<Page<SiteRow>> {
  return request(siteEndpoints.pageList, q);
}

/** What the site dialog sends (contract `siteInput`). */
export interface SiteForm {
  code: string;
  name: string;
  address: string | null;
  timezone: string;
  latitude: number | null;
  longitude: number | null;
}

/** `site/save` (no id) or `site/update`. Errors: 3039 code exists, 3036 not found, -100. */
export function saveSite(form: SiteForm, id?: number): Promise<unknown> {
  return id === undefined
    ? request(siteEndpoints.save, form)
    : request(siteEndpoints.update, { ...form, id });
}

/** `site/delete`. Errors: 3036 not found, 3037 it still has devices. */
export function deleteSite(id: number): Promise<unknown> {
  return request(siteEndpoints.delete, { id });
}

export interface DeviceQuery {
  pageNum: number;
  pageSize: number;
  siteId?: number;
  type?: DeviceType;
  keyword?: string;
  online?: boolean;
}

/** `device/pageList`: devices, gateways first, with their (gateway's) online state. */
export function fetchDevices(q: DeviceQuery): Promise<Page<DeviceRow>> {
  return request(deviceEndpoints.pageList, q);
}

/** The gateways of a site (devices without a gateway), for the device dialog's select. */
export async function fetchGateways(siteId: number): Promise<DeviceRow[]> {
  const page = await fetchDevices({ siteId, pageNum: 1, pageSize: MAX_PAGE_SIZE });
  return page.list.filter((d) => d.gatewayId === null);
}

/** What the device dialog sends (contract `deviceInput`). */
export interface DeviceForm {
  siteId: number;
  sn: string;
  type: DeviceType;
  model: string | null;
  gatewayId: number | null;
  ratedPowerKw: number | null;
  capacityKwh: number | null;
  mqttClientId: string | null;
  connAddress: string | null;
  connPort: number | null;
}

/**
 * MQTT credentials of a gateway, answered once by `device/save` and `device/resetSecret`
 * (contract `deviceSecretResponse`: username = SN, password = secret). A null `mqttHost` means
 * the console's own host (embedded broker).
 */
export type DeviceSecret = EndpointResponse<typeof deviceEndpoints.resetSecret>;

/**
 * `device/save` (no id): answers the new id and, for a gateway, its secret (shown once);
 * `device/update`: answers nothing. Errors: 3032 SN exists, 3036 site, 3030 gateway not in the
 * site, 3038 a gateway with devices behind it cannot become a sub-device, -100.
 */
export async function saveDevice(form: DeviceForm, id?: number): Promise<{ secret: DeviceSecret | null }> {
  if (id !== undefined) {
    await request(deviceEndpoints.update, { ...form, id });
    return { secret: null };
  }
  const answer = await request(deviceEndpoints.save, form);
  return { secret: answer.secret };
}

/** `device/delete`. Errors: 3030 not found, 3038 devices still report through this gateway. */
export function deleteDevice(id: number): Promise<unknown> {
  return request(deviceEndpoints.delete, { id });
}

/** `device/resetSecret`: a new secret for a gateway (the old one stops at its next connect). Errors: 3030, 3031. */
export function resetDeviceSecret(id: number): Promise<DeviceSecret> {
  return request(deviceEndpoints.resetSecret, { id });
}

/** TanStack Query keys of the registry. */
export const registryKeys = {
  all: ['registry'] as const,
  sites: (q: SiteQuery) => ['registry', 'sites', q] as const,
  devices: (q: DeviceQuery) => ['registry', 'devices', q] as const,
  gateways: (siteId: number) => ['registry', 'gateways', siteId] as const,
};
