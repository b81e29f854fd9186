/**
 * Projects (issue 17 item 1): `endpoints.project.*`. Part of the endpoint table (../endpoints.ts);
 * see define.ts for the fields and api/project.ts for the shapes, the contract rule and the
 * refusals. Scoped by company like sites: a project outside the caller's scope answers 7001.
 */
import { nullResponse } from '../api/primitives';
import {
  projectBindSitesRequest,
  projectChangeStatusRequest,
  projectDetailSchema,
  projectHistoryRequest,
  projectHistoryResponse,
  projectIdRequest,
  projectMeterSwapDeleteRequest,
  projectMeterSwapDeleteResponse,
  projectMeterSwapRequest,
  projectMeterSwapResponse,
  projectPageListRequest,
  projectPageListResponse,
  projectSaveRequest,
  projectSaveResponse,
  projectSiteOptionsRequest,
  projectSiteOptionsResponse,
  projectUnbindSiteRequest,
  projectUpdateRequest,
} from '../api/project';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const projectEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/project/pageList',
    request: projectPageListRequest,
    response: projectPageListResponse,
    access: { permission: Perm.projectList },
    summary: 'Projects in scope (filters: name, status, income mode), newest first, with bound sites count',
    tags: ['project'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/project/detail',
    request: projectIdRequest,
    response: projectDetailSchema,
    access: { permission: Perm.projectList },
    summary:
      'One project: contract, partners, investors, meters (CT/PT), site bindings with live figures of the bound sites, allowed next statuses. Errors: 7001',
    tags: ['project'],
  }),
  siteOptions: defineEndpoint({
    path: '/api-bms/project/siteOptions',
    request: projectSiteOptionsRequest,
    response: projectSiteOptionsResponse,
    access: { permission: Perm.projectList },
    summary:
      'Sites of a company in scope with their meters and the project each is bound to now (for the form)',
    tags: ['project'],
  }),
  save: defineEndpoint({
    path: '/api-bms/project/save',
    request: projectSaveRequest,
    response: projectSaveResponse,
    access: { permission: Perm.projectSave },
    audit: { action: 'project.save', targetType: 'project' },
    summary:
      'Create a project (to be started), optionally binding sites. Errors: -100 field: reason (ratios not 100 %, CT/PT 0, cycle, partner of the wrong type), 6000 company out of scope, 7000 name taken in the company, 3036, 6004',
    tags: ['project'],
  }),
  update: defineEndpoint({
    path: '/api-bms/project/update',
    request: projectUpdateRequest,
    response: projectDetailSchema,
    access: { permission: Perm.projectSave },
    audit: { action: 'project.update', targetType: 'project' },
    summary:
      'Edit a project’s fields, investors and meters (history row with before/after). Errors: -100, 7000, 7001',
    tags: ['project'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/project/delete',
    request: projectIdRequest,
    response: nullResponse,
    access: { permission: Perm.projectDelete },
    audit: { action: 'project.delete', targetType: 'project' },
    summary:
      'Delete a project with no site bound now (its history goes with it). Errors: 7001, 7002 sites still bound',
    tags: ['project'],
  }),
  changeStatus: defineEndpoint({
    path: '/api-bms/project/changeStatus',
    request: projectChangeStatusRequest,
    response: projectDetailSchema,
    access: { permission: Perm.projectStatus },
    audit: { action: 'project.status', targetType: 'project' },
    summary:
      'Change a project’s status along the allowed transitions. Errors: 7001, 7003 with the allowed ones',
    tags: ['project'],
  }),
  bindSites: defineEndpoint({
    path: '/api-bms/project/bindSites',
    request: projectBindSitesRequest,
    response: projectDetailSchema,
    access: { permission: Perm.projectBind },
    audit: { action: 'project.bind', targetType: 'project' },
    summary:
      'Bind sites from a local date; their devices carry the project, their meters get CT 1 / PT 1 until edited. Errors: 7001, 3036, 6004, -100 boundFrom',
    tags: ['project'],
  }),
  unbindSite: defineEndpoint({
    path: '/api-bms/project/unbindSite',
    request: projectUnbindSiteRequest,
    response: projectDetailSchema,
    access: { permission: Perm.projectBind },
    audit: { action: 'project.unbind', targetType: 'project' },
    summary:
      'End a site’s binding on a local date (exclusive); its devices are released. Errors: 7001, 3036 not bound, -100 boundTo',
    tags: ['project'],
  }),
  recordMeterSwap: defineEndpoint({
    path: '/api-bms/project/recordMeterSwap',
    request: projectMeterSwapRequest,
    response: projectMeterSwapResponse,
    access: { permission: Perm.projectSave },
    audit: { action: 'project.meterSwap', targetType: 'project' },
    summary:
      'Record the replacement of a declared storage meter (site-local instant, old final / new initial import+export registers, new CT/PT/side, serials, note); the site’s energy per tier is re-priced from the swap’s day and the answer says what was computed. Errors: -100 field: reason, 7001, 7004 future, 7005 settled month, 7006 old final reading below the last stored one, 7007 a swap at or after the instant',
    tags: ['project'],
  }),
  deleteMeterSwap: defineEndpoint({
    path: '/api-bms/project/deleteMeterSwap',
    request: projectMeterSwapDeleteRequest,
    response: projectMeterSwapDeleteResponse,
    access: { permission: Perm.projectSave },
    audit: { action: 'project.meterSwapDelete', targetType: 'project' },
    summary:
      'Delete a meter’s latest swap recorded by mistake (its month not settled): the meter takes the old CT/PT/side back and the energy is re-priced from the swap’s day. Errors: 7001, 7008',
    tags: ['project'],
  }),
  history: defineEndpoint({
    path: '/api-bms/project/history',
    request: projectHistoryRequest,
    response: projectHistoryResponse,
    access: { permission: Perm.projectList },
    summary: 'A project’s change history (who, when, fields before/after), newest first. Errors: 7001',
    tags: ['project'],
  }),
} as const;
