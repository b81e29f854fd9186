/**
 * Project calls (issue 17 item 1; contract `projectEndpoints`, shapes and rules in api/project.ts).
 * Every function resolves with the answer's `data` or rejects with `ApiError` after the client's
 * spec §8 handling. Actions on a project (status, bind, unbind, delete) show the server's msg on a
 * refusal (`errorText: 'server'`: 7002, 7003 with the allowed statuses, 6004 naming the site or
 * device); save and update show nothing themselves: the form shows the refusal in place.
 */
import {
  type CompanyOption,
  companyEndpoints,
  type EndpointRequest,
  type EndpointResponse,
  type Page,
  type ProjectChange,
  type ProjectDetail,
  type ProjectMeterSwapRequest,
  type ProjectRow,
  type ProjectSaveRequest,
  type ProjectSiteOption,
  type ProjectStatus,
  projectEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type ProjectQuery = Omit<EndpointRequest<typeof projectEndpoints.pageList>, 'userInfo'>;
/** The body of `project/save` (and of `project/update` without its id and sites). */
export type ProjectBody = Omit<ProjectSaveRequest, 'userInfo'>;

/** `project/pageList`: projects in scope, newest first. */
export function fetchProjects(q: ProjectQuery): Promise<Page<ProjectRow>> {
  return request(projectEndpoints.pageList, q);
}

/** `project/detail`: contract, partners, investors, meters, bindings with live figures. 7001. */
export function fetchProject(id: number): Promise<ProjectDetail> {
  return request(projectEndpoints.detail, { id }, { errorText: 'none' });
}

/** `project/history`: who changed what, newest first. */
export function fetchProjectHistory(
  id: number,
  pageNum: number,
  pageSize: number,
): Promise<Page<ProjectChange>> {
  return request(projectEndpoints.history, { id, pageNum, pageSize });
}

/** `project/siteOptions`: sites in scope with their meters and current project. */
export function fetchSiteOptions(): Promise<ProjectSiteOption[]> {
  return request(projectEndpoints.siteOptions, {});
}

/** `company/options`: partner companies the caller sees (any kind; the form filters by type). */
export async function fetchPartnerOptions(): Promise<CompanyOption[]> {
  return (await request(companyEndpoints.options, {})).list;
}

/** `project/save` (no id) or `project/update` (sites of an existing project have their own calls). */
export function saveProject(body: ProjectBody, id?: number): Promise<unknown> {
  if (id === undefined) return request(projectEndpoints.save, body, { errorText: 'none' });
  const { siteIds: _s, boundFrom: _b, companyId: _c, ...fields } = body;
  return request(projectEndpoints.update, { ...fields, id }, { errorText: 'none' });
}

export function deleteProject(id: number): Promise<unknown> {
  return request(projectEndpoints.delete, { id }, { errorText: 'server' });
}

export function changeProjectStatus(id: number, status: ProjectStatus): Promise<ProjectDetail> {
  return request(projectEndpoints.changeStatus, { id, status }, { errorText: 'server' });
}

export function bindProjectSites(id: number, siteIds: number[], boundFrom?: string): Promise<ProjectDetail> {
  return request(
    projectEndpoints.bindSites,
    { id, siteIds, ...(boundFrom ? { boundFrom } : {}) },
    { errorText: 'server' },
  );
}

export function unbindProjectSite(id: number, siteId: number, boundTo?: string): Promise<ProjectDetail> {
  return request(
    projectEndpoints.unbindSite,
    { id, siteId, ...(boundTo ? { boundTo } : {}) },
    { errorText: 'server' },
  );
}

/** The body of `project/recordMeterSwap` (contract `projectMeterSwapRequest`). */
export type MeterSwapBody = Omit<ProjectMeterSwapRequest, 'userInfo'>;

/**
 * `project/recordMeterSwap`: records a swap of a declared storage meter; answers the re-pricing
 * (`fromDay`, `days`, `rows`). The form shows a refusal in place (-100, 7004–7007).
 */
export function recordMeterSwap(
  body: MeterSwapBody,
): Promise<EndpointResponse<typeof projectEndpoints.recordMeterSwap>> {
  return request(projectEndpoints.recordMeterSwap, body, { errorText: 'none' });
}

/** `project/deleteMeterSwap`: deletes the meter's latest swap (7008 otherwise, shown as the server's text). */
export function deleteMeterSwap(
  id: number,
  swapId: number,
): Promise<EndpointResponse<typeof projectEndpoints.deleteMeterSwap>> {
  return request(projectEndpoints.deleteMeterSwap, { id, swapId }, { errorText: 'server' });
}

/** TanStack Query keys of the project screens. */
export const projectKeys = {
  all: ['project'] as const,
  list: (q: ProjectQuery) => ['project', 'list', q] as const,
  detail: (id: number) => ['project', 'detail', id] as const,
  history: (id: number, pageNum: number, pageSize: number) =>
    ['project', 'history', id, pageNum, pageSize] as const,
  sites: ['project', 'sites'] as const,
  partners: ['project', 'partners'] as const,
};
