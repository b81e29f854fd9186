/**
 * ToU scheme calls (contract `touEndpoints`, shapes in api/tou.ts). Every function
 * resolves with the answer's `data` or rejects with `ApiError` after the client's spec §8
 * handling (the catalogue text of the code; for the rule codes 3070–3094 the server's msg,
 * which says where the issue is).
 */
import {
  type EndpointResponse,
  MAX_PAGE_SIZE,
  type Page,
  type SiteRow,
  siteEndpoints,
  type TouOptimalPlanRequest,
  type TouOptimalPlanResponse,
  type TouPushRow,
  type TouSchemeDetail,
  type TouSchemeDocument,
  type TouSchemeRow,
  type TwoPartTariff,
  touEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

/** `tou/pageList`: the schemes the caller may see, newest change first (up to 500). */
export function fetchSchemes(keyword?: string): Promise<Page<TouSchemeRow>> {
  return request(touEndpoints.pageList, {
    pageNum: 1,
    pageSize: MAX_PAGE_SIZE,
    ...(keyword ? { keyword } : {}),
  });
}

/** `tou/detail`: the scheme with its document, version and assigned sites. Errors: 3090. */
export function fetchScheme(id: number): Promise<TouSchemeDetail> {
  return request(touEndpoints.detail, { id });
}

/**
 * `tou/save`: a new scheme. Answers its id (and version). Errors: 3091 name exists, the rule
 * codes 3070–3094 (server msg names the field).
 */
export function createScheme(
  name: string,
  document: TouSchemeDocument,
  twoPart: TwoPartTariff | null = null,
): Promise<EndpointResponse<typeof touEndpoints.save>> {
  return request(touEndpoints.save, { name, document, twoPart }, { errorText: 'server' });
}

/**
 * `tou/update`: the whole document read at `version`. Answers the new version. Errors: 3093
 * someone saved in between, 3091, 3090, the rule codes.
 */
export function updateScheme(
  id: number,
  version: number,
  name: string,
  document: TouSchemeDocument,
  /** Two-part charge (absent: unchanged) and the site-local date the prices apply from (absent: today). */
  billing: { twoPart?: TwoPartTariff | null; effectiveFrom?: string | null } = {},
): Promise<EndpointResponse<typeof touEndpoints.update>> {
  const { twoPart, effectiveFrom } = billing;
  return request(
    touEndpoints.update,
    {
      id,
      version,
      name,
      document,
      ...(twoPart !== undefined ? { twoPart } : {}),
      ...(effectiveFrom ? { effectiveFrom } : {}),
    },
    { errorText: 'server' },
  );
}

/** `tou/delete`. Errors: 3090, 3092 still assigned to sites. */
export function deleteScheme(id: number): Promise<unknown> {
  return request(touEndpoints.delete, { id });
}

/** `tou/assign`: the scheme's sites become exactly `siteIds` (and it is sent to them). */
export function assignSites(id: number, siteIds: number[], effectiveFrom?: string | null): Promise<unknown> {
  return request(touEndpoints.assign, { id, siteIds, ...(effectiveFrom ? { effectiveFrom } : {}) });
}

/** `tou/pushStatus`: delivery of the scheme to each assigned site's EMS. */
export function fetchPushStatus(id: number): Promise<{ list: TouPushRow[] }> {
  return request(touEndpoints.pushStatus, { id });
}

/** `tou/push`: send the site's scheme now. Errors: 3060, 3033, 3034, 3035. */
export function pushSite(siteId: number): Promise<unknown> {
  return request(touEndpoints.push, { siteId });
}

/** `site/pageList`: every site the caller sees (for assigning), up to 500. */
export function fetchAllSites(): Promise<Page<SiteRow>> {
  return request(siteEndpoints.pageList, {
    pageNum: 1,
    pageSize: MAX_PAGE_SIZE,
  });
}

/**
 * `tou/optimalPlan`: the optimal schedule of a day's tariff for a site's battery and the plan made
 * of it (nothing is stored). Errors: -100 (field named), 3070–3094, 3036, 3095.
 */
export function fetchOptimalPlan(body: TouOptimalPlanRequest): Promise<TouOptimalPlanResponse> {
  return request(touEndpoints.optimalPlan, body, { errorText: 'none' });
}

/** TanStack Query keys of the ToU screens. */
export const touKeys = {
  all: ['tou'] as const,
  list: (keyword: string) => ['tou', 'list', keyword] as const,
  detail: (id: number) => ['tou', 'detail', id] as const,
  pushStatus: (id: number) => ['tou', 'pushStatus', id] as const,
  sites: ['tou', 'sites'] as const,
  optimal: (body: TouOptimalPlanRequest) => ['tou', 'optimal', body] as const,
};
