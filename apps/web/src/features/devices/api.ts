/**
 * Site and device registry calls (devices issue; contract `siteEndpoints`, `deviceEndpoints`,
 * shapes in api/registry.ts). Every function resolves with the answer's `data` or rejects with
 * `ApiError` after the client's spec §8 handling (the catalogue text of 3030–3042, the server's
 * msg for -100, which names the field).
 */
import {
  type DeviceRow,
  type DeviceType,
  deviceEndpoints,
  type EndpointResponse,
  MAX_PAGE_SIZE,
  type Page,
  type SiteMoveOutcome,
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

/** What the site dialog sends (contract `siteInput`); `companyId` only when adding. */
export interface SiteForm {
  code: string;
  name: string;
  address: string | null;
  timezone: string;
  latitude: number | null;
  longitude: number | null;
  companyId?: number;
}

/**
 * `site/save` (no id): answers the new site's id; `site/update`: answers null. Errors: 3039 code
 * exists, 3036 not found, 6000 company outside the caller's scope, -100.
 */
export async function saveSite(form: SiteForm, id?: number): Promise<{ id: number }> {
  if (id === undefined) return request(siteEndpoints.save, form);
  const { companyId: _company, ...fields } = form;
  await request(siteEndpoints.update, { ...fields, id });
  return { id };
}

/**
 * `site/moveCompanyPreview` (no change) or `site/moveCompany`: what moving the site to the
 * company moves and does to its ToU scheme (contract `siteMoveOutcome`). Errors: 3036, 6000,
 * 3041 already there.
 */
export function moveSiteToCompany(
  id: number,
  companyId: number,
  options: { preview: boolean },
): Promise<SiteMoveOutcome> {
  return request(options.preview ? siteEndpoints.moveCompanyPreview : siteEndpoints.moveCompany, {
    id,
    companyId,
  });
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

/**
 * `device/moveSite`: moves the device (a gateway with the devices behind it) to `siteId`; a
 * device behind a gateway names the target site's gateway. Errors: 3030, 3036, 3040, 3041.
 */
export function moveDeviceToSite(id: number, siteId: number, gatewayId: number | null) {
  return request(deviceEndpoints.moveSite, { id, siteId, ...(gatewayId === null ? {} : { gatewayId }) });
}

/** The devices reporting through gateway `gatewayId` of `siteId` (they move with it). */
export async function fetchDevicesBehind(siteId: number, gatewayId: number): Promise<DeviceRow[]> {
  const page = await fetchDevices({ siteId, pageNum: 1, pageSize: MAX_PAGE_SIZE });
  return page.list.filter((d) => d.gatewayId === gatewayId);
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
    // An edit keeps the device on its site (moving is `device/moveSite`).
    const { siteId: _site, ...fields } = form;
    await request(deviceEndpoints.update, { ...fields, id });
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
  behind: (siteId: number, gatewayId: number) => ['registry', 'behind', siteId, gatewayId] as const,
  sitePicker: (keyword: string) => ['registry', 'site-picker', keyword] as const,
  siteMove: (id: number, companyId: number) => ['registry', 'site-move', id, companyId] as const,
};
