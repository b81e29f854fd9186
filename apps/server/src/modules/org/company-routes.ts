/**
 * Company calls per kind (issue 5 item 1): `/api-bms/<kind>/pageList|save|update|status` for
 * kind = agent, investor, construction, owner, each needing `org:<kind>:list|save|save|status`;
 * and the agents' devices: `agent/devices`, `agent/assignDevices`, `agent/unassignDevices`
 * (`org:agent:list`, `org:agent:assign`). Codes: 6000, 6002, 6003, 6004, 6005, 3030.
 */
import {
  agentAssignRequest,
  agentDevicesRequest,
  agentDevicesResponse,
  COMPANY_KINDS,
  type CompanyKind,
  companyInput,
  companyListRequest,
  companyListResponse,
  companyOptionsRequest,
  companyOptionsResponse,
  companyPath,
  companyStatusRequest,
  companyUpdate,
  createdIdResponse,
  envelopeOf,
  OrgPath,
  Perm,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { CompanyService } from './company-service';

const PERMS: Record<CompanyKind, { list: string; save: string; status: string }> = {
  agent: { list: Perm.agentList, save: Perm.agentSave, status: Perm.agentStatus },
  investor: { list: Perm.investorList, save: Perm.investorSave, status: Perm.investorStatus },
  construction: { list: Perm.constructionList, save: Perm.constructionSave, status: Perm.constructionStatus },
  owner: { list: Perm.ownerList, save: Perm.ownerSave, status: Perm.ownerStatus },
};

const nullData = envelopeOf(z.null());

export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new CompanyService(app.db, app.sessions);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  for (const kind of COMPANY_KINDS) {
    const perms = PERMS[kind];
    const tags = [kind];

    app.post(
      companyPath(kind, 'pageList'),
      {
        config: { permission: perms.list },
        schema: {
          tags,
          summary: `${kind} companies in the caller’s scope, newest first, with employee, site and assigned-device counts`,
          body: companyListRequest,
          response: { 200: envelopeOf(companyListResponse.nullable()) },
        },
      },
      async (request) => ok(request, await service.list(await scopeOf(request), kind, request.body)),
    );

    app.post(
      companyPath(kind, 'save'),
      {
        config: { permission: perms.save, audit: { action: `${kind}.save`, targetType: 'company' } },
        schema: {
          tags,
          summary: `Create a ${kind} company (with its administrator role). Errors: 6000 parent outside the scope, 6002 name or phone exists`,
          body: companyInput,
          response: { 200: envelopeOf(createdIdResponse.nullable()) },
        },
      },
      async (request) => {
        const row = await service.create(await scopeOf(request), request.auth.companyId, kind, request.body);
        recordChange(request, { targetId: row.id, after: row });
        return ok(request, { id: row.id });
      },
    );

    app.post(
      companyPath(kind, 'update'),
      {
        config: { permission: perms.save, audit: { action: `${kind}.update`, targetType: 'company' } },
        schema: {
          tags,
          summary: `Update a ${kind} company’s name, contact and phone (the parent stays). Errors: 6000, 6002`,
          body: companyUpdate,
          response: { 200: nullData },
        },
      },
      async (request) => {
        const change = await service.update(await scopeOf(request), kind, request.body.id, request.body);
        recordChange(request, { targetId: request.body.id, ...change });
        return ok(request, null);
      },
    );

    app.post(
      companyPath(kind, 'status'),
      {
        config: { permission: perms.status, audit: { action: `${kind}.status`, targetType: 'company' } },
        schema: {
          tags,
          summary: `Enable or disable a ${kind} company; disabling signs its employees out. Errors: 6000, 6005 own company`,
          body: companyStatusRequest,
          response: { 200: nullData },
        },
      },
      async (request) => {
        const { id, status } = request.body;
        const change = await service.setStatus(
          await scopeOf(request),
          request.auth.companyId,
          kind,
          id,
          status,
        );
        recordChange(request, { targetId: id, ...change });
        return ok(request, null);
      },
    );
  }

  app.post(
    OrgPath.companyOptions,
    {
      config: { signedIn: true },
      schema: {
        tags: ['company'],
        summary: 'Every company the caller may see (its data scope), any kind, by name: for company pickers',
        body: companyOptionsRequest,
        response: { 200: envelopeOf(companyOptionsResponse.nullable()) },
      },
    },
    async (request) => ok(request, { list: await service.options(await scopeOf(request)) }),
  );

  app.post(
    OrgPath.agentDevices,
    {
      config: { permission: Perm.agentList },
      schema: {
        tags: ['agent'],
        summary: 'Gateways assigned to the agent and the unassigned ones in the caller’s scope. Errors: 6000',
        body: agentDevicesRequest,
        response: { 200: envelopeOf(agentDevicesResponse.nullable()) },
      },
    },
    async (request) => ok(request, await service.agentDevices(await scopeOf(request), request.body.agentId)),
  );

  for (const [path, assign] of [
    [OrgPath.agentAssignDevices, true],
    [OrgPath.agentUnassignDevices, false],
  ] as const) {
    app.post(
      path,
      {
        config: {
          permission: Perm.agentAssign,
          audit: { action: assign ? 'agent.assignDevices' : 'agent.unassignDevices', targetType: 'company' },
        },
        schema: {
          tags: ['agent'],
          summary: assign
            ? 'Assign gateways (and the devices behind them) to the agent. Errors: 6000, 3030, 6003 another agent has it, 6004 bound to a project'
            : 'Release gateways from the agent. Errors: 6000, 3030 not this agent’s, 6004 bound to a project',
          body: agentAssignRequest,
          response: { 200: nullData },
        },
      },
      async (request) => {
        const { agentId, deviceIds } = request.body;
        const before = await service.assign(await scopeOf(request), agentId, deviceIds, assign);
        recordChange(request, {
          targetId: agentId,
          before,
          after: { deviceIds, agentId: assign ? agentId : null },
        });
        return ok(request, null);
      },
    );
  }
};
