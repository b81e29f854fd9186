/**
 * ToU schemes: `endpoints.tou.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { createdIdResponse, idRequest, nullResponse } from '../api/primitives';
import {
  touPushRequest,
  touPushRowSchema,
  touPushStatusResponse,
  touSchemeAssignRequest,
  touSchemeDetailSchema,
  touSchemeListRequest,
  touSchemeListResponse,
  touSchemeSaveRequest,
  touSchemeUpdateRequest,
  touSchemeUpdateResponse,
} from '../api/tou';
import { Perm } from '../permissions';
import { touOptimalPlanRequest, touOptimalPlanResponse } from '../tou/optimal';
import { defineEndpoint } from './define';

export const touEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/tou/pageList',
    request: touSchemeListRequest,
    response: touSchemeListResponse,
    access: { permission: Perm.touList },
    summary: 'ToU schemes in the caller’s companies, with plan counts and the number of sites running each',
    tags: ['tou'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/tou/detail',
    request: idRequest,
    response: touSchemeDetailSchema,
    access: { permission: Perm.touList },
    summary: 'One ToU scheme: its document and the sites running it. Errors: 3090',
    tags: ['tou'],
  }),
  save: defineEndpoint({
    path: '/api-bms/tou/save',
    request: touSchemeSaveRequest,
    response: createdIdResponse,
    access: { permission: Perm.touSave },
    audit: { action: 'tou.save', targetType: 'tou_scheme' },
    summary: 'Create a ToU scheme',
    description:
      'Errors: 3070–3089, 3094 the first plan rule broken (msg says where), 3091 name exists, 6000 company outside the scope.',
    tags: ['tou'],
  }),
  update: defineEndpoint({
    path: '/api-bms/tou/update',
    request: touSchemeUpdateRequest,
    response: touSchemeUpdateResponse,
    access: { permission: Perm.touSave },
    audit: { action: 'tou.update', targetType: 'tou_scheme' },
    summary: 'Save a ToU scheme over the version read; sites running it get it pushed',
    description:
      'Errors: 3090 not found, 3070–3089, 3094 the first plan rule broken, 3091 name exists, 3093 saved by someone else meanwhile.',
    tags: ['tou'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/tou/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.touDelete },
    audit: { action: 'tou.delete', targetType: 'tou_scheme' },
    summary: 'Delete a ToU scheme no site runs. Errors: 3090 not found, 3092 sites still run it',
    tags: ['tou'],
  }),
  assign: defineEndpoint({
    path: '/api-bms/tou/assign',
    request: touSchemeAssignRequest,
    response: touPushStatusResponse,
    access: { permission: Perm.touPush },
    audit: { action: 'tou.assign', targetType: 'tou_scheme' },
    summary: 'Set exactly the sites that run a ToU scheme; newly assigned sites get it pushed',
    description:
      'Sites are moved from other schemes. Errors: 3090 scheme not found, 3036 a site outside the scope or not of the scheme’s company (or one below it).',
    tags: ['tou'],
  }),
  pushStatus: defineEndpoint({
    path: '/api-bms/tou/pushStatus',
    request: idRequest,
    response: touPushStatusResponse,
    access: { permission: Perm.touList },
    summary: 'Delivery of a ToU scheme per site: pending, sent, applied (with time) or failed (with reason)',
    description: 'Body: the scheme id. Errors: 3090.',
    tags: ['tou'],
  }),
  push: defineEndpoint({
    path: '/api-bms/tou/push',
    request: touPushRequest,
    response: touPushRowSchema,
    access: { permission: Perm.touPush },
    audit: { action: 'tou.push', targetType: 'site' },
    summary: 'Push a site’s ToU scheme to its EMS now and wait for the reply (up to 10 s)',
    description:
      'Errors: 3036 site not found, 3060 the site runs no scheme, 3033 no gateway or it never connected, 3034 gateway offline (sent when it reconnects), 3035 the send failed, was refused or timed out (msg gives the reason).',
    tags: ['tou'],
  }),
  optimalPlan: defineEndpoint({
    path: '/api-bms/tou/optimalPlan',
    request: touOptimalPlanRequest,
    response: touOptimalPlanResponse,
    access: { permission: Perm.touList },
    summary:
      'The optimal charge schedule of a day’s tariff for a site’s battery (a linear programme solved by HiGHS) and the daily plan made of it',
    description:
      'Model: packages/contract/src/tou/optimal.ts. Errors: -100 a field out of range (named), 3070–3094 the tariff periods break a plan rule (msg says where), 3036 site not found, 3095 the site has no storage capacity or PCS rating.',
    tags: ['tou'],
  }),
};
