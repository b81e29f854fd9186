/**
 * Sites (spec §2 /deviceconfig): `endpoints.site.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { createdIdResponse, idRequest, nullResponse } from '../api/primitives';
import {
  siteInput,
  siteListRequest,
  siteListResponse,
  siteMoveOutcome,
  siteMoveRequest,
  siteUpdate,
} from '../api/registry';
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
    summary:
      'Update a site. Errors: 3036 not found, 3039 code exists, 3042 another company (use site/moveCompany)',
    tags: ['site'],
  }),
  moveCompanyPreview: defineEndpoint({
    path: '/api-bms/site/moveCompanyPreview',
    request: siteMoveRequest,
    response: siteMoveOutcome,
    access: { permission: Perm.siteMove },
    summary: 'What moving the site to the company would move (devices, alarms) and do to its ToU scheme',
    description:
      'Changes nothing. Errors: 3036 site not found, 6000 company outside the caller’s scope, 3041 already there.',
    tags: ['site'],
  }),
  moveCompany: defineEndpoint({
    path: '/api-bms/site/moveCompany',
    request: siteMoveRequest,
    response: siteMoveOutcome,
    access: { permission: Perm.siteMove },
    audit: { action: 'site.moveCompany', targetType: 'site' },
    summary: 'Move a site to another company, with its devices, alarms and data (one transaction)',
    description:
      'A ToU scheme the new company may not run is taken off the site (answered in `touScheme`). Errors: 3036 site not found, 6000 company outside the caller’s scope, 3041 already there.',
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
