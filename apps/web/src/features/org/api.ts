/**
 * Partner company calls (shapes in @ess/contract api/organisation.ts): the company list,
 * save, update and status of each kind (`COMPANY_KIND_ENDPOINTS[kind]`), and an agent's devices
 * (`agentEndpoints.devices`, `assignDevices`, `unassignDevices`). Every function resolves
 * with the answer's `data` or rejects with `ApiError` after the client's spec §8 handling.
 */
import {
  type AgentDevice,
  agentEndpoints,
  COMPANY_KIND_ENDPOINTS,
  type CompanyKind,
  type CompanyRow,
  type EnabledStatus,
  type Page,
  Perm,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export interface CompanyQuery {
  pageNum: number;
  pageSize: number;
  /** Matches name, contact or phone. */
  keyword?: string;
  status?: EnabledStatus;
}

/** `<kind>/pageList`: companies of one kind in the caller's scope, with their counts. */
export function fetchCompanies(kind: CompanyKind, q: CompanyQuery): Promise<Page<CompanyRow>> {
  return request(COMPANY_KIND_ENDPOINTS[kind].pageList, q);
}

/** What the company dialog sends (contract `companyInput`). */
export interface CompanyForm {
  name: string;
  contact: string | null;
  phone: string | null;
  /** The company above; null = the caller's company. */
  parentId: number | null;
}

/**
 * `<kind>/save` (no id; the server also creates the company's administrator role) or
 * `<kind>/update`. Errors: 6002 name or phone exists, 6000 not found, 6005 own company, 5034.
 */
export function saveCompany(kind: CompanyKind, form: CompanyForm, id?: number): Promise<unknown> {
  const calls = COMPANY_KIND_ENDPOINTS[kind];
  return id === undefined ? request(calls.save, form) : request(calls.update, { ...form, id });
}

/** `<kind>/status`: a disabled company's employees can no longer sign in. Errors: 6000, 6005, 5034. */
export function setCompanyStatus(kind: CompanyKind, id: number, status: EnabledStatus): Promise<unknown> {
  return request(COMPANY_KIND_ENDPOINTS[kind].status, { id, status });
}

export interface AgentDevices {
  /** Assigned to this agent. */
  assigned: AgentDevice[];
  /** In the caller's scope and assigned to no agent. */
  available: AgentDevice[];
}

/** `agent/devices`: the agent's devices and those that could be assigned to it. */
export function fetchAgentDevices(agentId: number): Promise<AgentDevices> {
  return request(agentEndpoints.devices, { agentId });
}

/** Most device ids one (un)assign call takes (contract `agentAssignRequest`). */
const MAX_DEVICE_IDS = 500;

/**
 * `agent/assignDevices` (`assign`) or `agent/unassignDevices`, in calls of at most 500 ids.
 * Errors (the server's message is shown): 6003 assigned to another agent, 6004 bound to a
 * project, 6000 agent not found.
 */
export async function moveAgentDevices(agentId: number, deviceIds: number[], assign: boolean): Promise<void> {
  const endpoint = assign ? agentEndpoints.assignDevices : agentEndpoints.unassignDevices;
  for (let i = 0; i < deviceIds.length; i += MAX_DEVICE_IDS) {
    await request(
      endpoint,
      { agentId, deviceIds: deviceIds.slice(i, i + MAX_DEVICE_IDS) },
      { errorText: 'server' },
    );
  }
}

/** TanStack Query keys of the partner screens. */
export const orgKeys = {
  all: ['org'] as const,
  companies: (kind: CompanyKind, q: CompanyQuery) => ['org', 'companies', kind, q] as const,
  /** Every company the caller may see, for the parent select. */
  parents: ['org', 'parents'] as const,
  agentDevices: (agentId: number) => ['org', 'agentDevices', agentId] as const,
};

/** Permission strings of each kind's screen (`org:<kind>:list|save|status`). */
export const KIND_PERMS: Record<CompanyKind, { list: string; save: string; status: string }> = {
  agent: { list: Perm.agentList, save: Perm.agentSave, status: Perm.agentStatus },
  investor: { list: Perm.investorList, save: Perm.investorSave, status: Perm.investorStatus },
  construction: {
    list: Perm.constructionList,
    save: Perm.constructionSave,
    status: Perm.constructionStatus,
  },
  owner: { list: Perm.ownerList, save: Perm.ownerSave, status: Perm.ownerStatus },
};
