/**
 * Company calls per kind: `/api-bms/<kind>/pageList|save|update|status` for
 * kind = agent, investor, construction, owner, each needing `org:<kind>:list|save|save|status`;
 * and the agents' devices: `agent/devices`, `agent/assignDevices`, `agent/unassignDevices`
 * (`org:agent:list`, `org:agent:assign`). Codes: 6000, 6002, 6003, 6004, 6005, 3030.
 */
import { COMPANY_KINDS, endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { CompanyService } from './company-service';

export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new CompanyService(app.db, app.sessions);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  for (const kind of COMPANY_KINDS) {
    const calls = endpoints[kind];

    route(app, calls.pageList, async (request) =>
      ok(request, await service.list(await scopeOf(request), kind, request.body)),
    );

    route(app, calls.save, async (request) => {
      const row = await service.create(await scopeOf(request), request.auth.companyId, kind, request.body);
      recordChange(request, { targetId: row.id, after: row });
      return ok(request, { id: row.id });
    });

    route(app, calls.update, async (request) => {
      const change = await service.update(await scopeOf(request), kind, request.body.id, request.body);
      recordChange(request, { targetId: request.body.id, ...change });
      return ok(request, null);
    });

    route(app, calls.status, async (request) => {
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
    });
  }

  route(app, endpoints.company.options, async (request) =>
    ok(request, { list: await service.options(await scopeOf(request)) }),
  );

  route(app, endpoints.agent.devices, async (request) =>
    ok(request, await service.agentDevices(await scopeOf(request), request.body.agentId)),
  );

  for (const [endpoint, assign] of [
    [endpoints.agent.assignDevices, true],
    [endpoints.agent.unassignDevices, false],
  ] as const) {
    route(app, endpoint, async (request) => {
      const { agentId, deviceIds } = request.body;
      const before = await service.assign(await scopeOf(request), agentId, deviceIds, assign);
      recordChange(request, {
        targetId: agentId,
        before,
        after: { deviceIds, agentId: assign ? agentId : null },
      });
      return ok(request, null);
    });
  }
};
