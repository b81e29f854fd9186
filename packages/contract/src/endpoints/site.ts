/**
 * Sites (spec §2 /deviceconfig): `endpoints.site.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { createdIdResponse, idRequest, nullResponse } from '../api/primitives';
import { siteInput, siteListRequest, siteListResponse, siteUpdate } from '../api/registry';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const siteEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/site/pageList',
    request: siteListRequest,
    response: siteListResponse,
    access: { permission: Perm.siteList },
    summary: 'Sites in the caller’s companies, with device counts, capacity (kWh) and PCS power (kW)',
    tags: ['site'],
  }),
  save: defineEndpoint({
    path: '/api-bms/site/save',
    request: siteInput,
    response: createdIdResponse,
    access: { permission: Perm.siteSave },
    audit: { action: 'site.save', targetType: 'site' },
    summary: 'Create a site. Errors: 3039 code exists, 6000 company outside the caller’s scope',
    tags: ['site'],
  }),
  update: defineEndpoint({
    path: '/api-bms/site/update',
    request: siteUpdate,
    response: nullResponse,
    access: { permission: Perm.siteSave },
    audit: { action: 'site.update', targetType: 'site' },
    summary: 'Update a site. Errors: 3036 not found, 3039 code exists, 6000',
    tags: ['site'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/site/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.siteDelete },
    audit: { action: 'site.delete', targetType: 'site' },
    summary: 'Delete an empty site. Errors: 3036 not found, 3037 it still has devices',
    tags: ['site'],
  }),
};
