/**
 * Site and device registry calls (devices issue; shapes in @ess/contract api/registry.ts,
 * paths `RegistryPath`). Every function resolves with the answer's `data` or rejects with
 * `ApiError` after the client's spec §8 handling (the catalogue text of 3030–3039, the server's
 * msg for -100, which names the field).
 */
import { type DeviceRow, type DeviceType, RegistryPath, type SiteRow } from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

export interface Page<T> {
  list: T[];
  total: number;
}

export interface SiteQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
}

/** `site/pageList`: sites with device counts, gateways online, capacity (kWh) and PCS power (kW). */
export function fetchSites(q: SiteQuery): Promise<Page<SiteRow>> {
  return request<Page<SiteRow>>(RegistryPath.sitePageList, { userInfo: userInfoEcho(), ...q });
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
  const body = { userInfo: userInfoEcho(), ...form };
  return id === undefined
    ? request(RegistryPath.siteSave, body)
    : request(RegistryPath.siteUpdate, { ...body, id });
}

/** `site/delete`. Errors: 3036 not found, 3037 it still has devices. */
export function deleteSite(id: number): Promise<unknown> {
  return request(RegistryPath.siteDelete, { userInfo: userInfoEcho(), id });
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
  return request<Page<DeviceRow>>(RegistryPath.devicePageList, { userInfo: userInfoEcho(), ...q });
}

/** Largest page the server answers (contract `pageQuery`). */
export const MAX_PAGE_SIZE = 500;

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
 * (contract `deviceSecretResponse`: username = SN, password = secret). `mqttHost` / `mqttPort`
 * are read when the server adds them (the broker's public address); the console falls back to
 * the page's host name and 1883.
 */
export interface DeviceSecret {
  id: number;
  sn: string;
  mqttClientId: string;
  username: string;
  secret: string;
  mqttHost?: string | null;
  mqttPort?: number | null;
}

/**
 * `device/save` (no id): answers the new id and, for a gateway, its secret (shown once);
 * `device/update`: answers nothing. Errors: 3032 SN exists, 3036 site, 3030 gateway not in the
 * site, 3038 a gateway with devices behind it cannot become a sub-device, -100.
 */
export async function saveDevice(form: DeviceForm, id?: number): Promise<{ secret: DeviceSecret | null }> {
  const body = { userInfo: userInfoEcho(), ...form };
  if (id !== undefined) {
    await request(RegistryPath.deviceUpdate, { ...body, id });
    return { secret: null };
  }
  const answer = await request<{ id: number; secret: DeviceSecret | null }>(RegistryPath.deviceSave, body);
  return { secret: answer.secret };
}

/** `device/delete`. Errors: 3030 not found, 3038 devices still report through this gateway. */
export function deleteDevice(id: number): Promise<unknown> {
  return request(RegistryPath.deviceDelete, { userInfo: userInfoEcho(), id });
}

/** `device/resetSecret`: a new secret for a gateway (the old one stops at its next connect). Errors: 3030, 3031. */
export function resetDeviceSecret(id: number): Promise<DeviceSecret> {
  return request<DeviceSecret>(RegistryPath.deviceResetSecret, { userInfo: userInfoEcho(), id });
}

/** TanStack Query keys of the registry. */
export const registryKeys = {
  all: ['registry'] as const,
  sites: (q: SiteQuery) => ['registry', 'sites', q] as const,
  devices: (q: DeviceQuery) => ['registry', 'devices', q] as const,
  gateways: (siteId: number) => ['registry', 'gateways', siteId] as const,
};
