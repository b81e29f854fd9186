/**
 * Companies: the company picker `endpoints.company.*` and the four partner kinds `endpoints.agent|investor|construction|owner.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  agentAssignRequest,
  agentDevicesRequest,
  agentDevicesResponse,
  type CompanyKind,
  companyInput,
  companyListRequest,
  companyListResponse,
  companyOptionsRequest,
  companyOptionsResponse,
  companyStatusRequest,
  companyUpdate,
} from '../api/organisation';
import { createdIdResponse, nullResponse } from '../api/primitives';
import { Perm, type PermissionString } from '../permissions';
import { defineEndpoint, type EndpointAudit } from './define';

export const companyEndpoints = {
  options: defineEndpoint({
    path: '/api-bms/company/options',
    request: companyOptionsRequest,
    response: companyOptionsResponse,
    access: { signedIn: true },
    summary: 'Every company the caller may see (its data scope), any kind, by name: for company pickers',
    tags: ['company'],
  }),
};

/** The permissions of each company kind's calls: `org:<kind>:list|save|status`. */
const COMPANY_PERMISSIONS = {
  agent: { list: Perm.agentList, save: Perm.agentSave, status: Perm.agentStatus },
  investor: { list: Perm.investorList, save: Perm.investorSave, status: Perm.investorStatus },
  construction: { list: Perm.constructionList, save: Perm.constructionSave, status: Perm.constructionStatus },
  owner: { list: Perm.ownerList, save: Perm.ownerSave, status: Perm.ownerStatus },
} as const satisfies Record<CompanyKind, Record<'list' | 'save' | 'status', PermissionString>>;

/**
 * The four calls of one company kind (spec §1 screens; paths ours): `/api-bms/<kind>/pageList`,
 * `save`, `update`, `status`, needing `org:<kind>:list|save|save|status`, recorded as
 * `<kind>.save|update|status` on target type `company`. Codes: 6000, 6002, 6005.
 */
/* @__NO_SIDE_EFFECTS__ */
function companyKindEndpoints<K extends CompanyKind>(kind: K) {
  const perms = COMPANY_PERMISSIONS[kind];
  const tags = [kind];
  const audit = (verb: 'save' | 'update' | 'status'): EndpointAudit => ({
    action: `${kind}.${verb}`,
    targetType: 'company',
  });
  return {
    pageList: defineEndpoint({
      path: `/api-bms/${kind}/pageList`,
      request: companyListRequest,
      response: companyListResponse,
      access: { permission: perms.list },
      summary: `${kind} companies in the caller’s scope, newest first, with employee, site and assigned-device counts`,
      tags,
    }),
    save: defineEndpoint({
      path: `/api-bms/${kind}/save`,
      request: companyInput,
      response: createdIdResponse,
      access: { permission: perms.save },
      audit: audit('save'),
      summary: `Create a ${kind} company (with its administrator role). Errors: 6000 parent outside the scope, 6002 name or phone exists`,
      tags,
    }),
    update: defineEndpoint({
      path: `/api-bms/${kind}/update`,
      request: companyUpdate,
      response: nullResponse,
      access: { permission: perms.save },
      audit: audit('update'),
      summary: `Update a ${kind} company’s name, contact and phone (the parent stays). Errors: 6000, 6002`,
      tags,
    }),
    status: defineEndpoint({
      path: `/api-bms/${kind}/status`,
      request: companyStatusRequest,
      response: nullResponse,
      access: { permission: perms.status },
      audit: audit('status'),
      summary: `Enable or disable a ${kind} company; disabling signs its employees out. Errors: 6000, 6005 own company`,
      tags,
    }),
  };
}

export const agentEndpoints = {
  ...companyKindEndpoints('agent'),
  devices: defineEndpoint({
    path: '/api-bms/agent/devices',
    request: agentDevicesRequest,
    response: agentDevicesResponse,
    access: { permission: Perm.agentList },
    summary: 'Gateways assigned to the agent and the unassigned ones in the caller’s scope. Errors: 6000',
    tags: ['agent'],
  }),
  assignDevices: defineEndpoint({
    path: '/api-bms/agent/assignDevices',
    request: agentAssignRequest,
    response: nullResponse,
    access: { permission: Perm.agentAssign },
    audit: { action: 'agent.assignDevices', targetType: 'company' },
    summary:
      'Assign gateways (and the devices behind them) to the agent. Errors: 6000, 3030, 6003 another agent has it, 6004 bound to a project',
    tags: ['agent'],
  }),
  unassignDevices: defineEndpoint({
    path: '/api-bms/agent/unassignDevices',
    request: agentAssignRequest,
    response: nullResponse,
    access: { permission: Perm.agentAssign },
    audit: { action: 'agent.unassignDevices', targetType: 'company' },
    summary: 'Release gateways from the agent. Errors: 6000, 3030 not this agent’s, 6004 bound to a project',
    tags: ['agent'],
  }),
};

export const investorEndpoints = companyKindEndpoints('investor');
export const constructionEndpoints = companyKindEndpoints('construction');
export const ownerEndpoints = companyKindEndpoints('owner');

/**
 * The calls of each company kind by kind, for screens that serve all four
 * (`companyKindEndpoints[kind].pageList`); the agent's also has its device calls.
 */
export const COMPANY_KIND_ENDPOINTS = {
  agent: agentEndpoints,
  investor: investorEndpoints,
  construction: constructionEndpoints,
  owner: ownerEndpoints,
} as const satisfies Record<CompanyKind, unknown>;
