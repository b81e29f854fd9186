/**
 * Employee management (spec §7 `employee/pageList, save, update, delete, detail, status`, plus
 * our `employee/resetPassword`), needing `system:employee:list|save|delete|
 * status|resetPwd`. The caller's own settings (password, e-mail) are in modules/employee.
 * Codes: 5000, 5031, 5034, 5050, 5051, 5053, 5057, 6000.
 */
import { endpoints } from '@ess/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { callerAccess } from '../../access/auth-hook';
import { dataScopeOf } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { type Caller, EmployeeService } from './employee-service';

const calls = endpoints.employee;

export const employeeAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new EmployeeService(app.db, app.sessions, app.config.auth.scryptLogN);
  const scopeOf = (request: FastifyRequest) => dataScopeOf(app.db, request.auth);
  const callerOf = async (request: FastifyRequest): Promise<Caller> => {
    const access = await callerAccess(app.db, request);
    return {
      employeeId: request.auth.employeeId,
      companyId: request.auth.companyId,
      isAdmin: access.admin,
      granted: access.granted,
    };
  };

  route(app, calls.pageList, async (request) =>
    ok(request, await service.list(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.save, async (request) => {
    const created = await service.create(await scopeOf(request), await callerOf(request), request.body);
    recordChange(request, { targetId: created.id, after: { ...request.body, ...created } });
    return ok(request, created);
  });

  route(app, calls.update, async (request) => {
    const change = await service.update(await scopeOf(request), await callerOf(request), request.body);
    recordChange(request, { targetId: request.body.id, ...change });
    return ok(request, null);
  });

  route(app, calls.status, async (request) => {
    const { id, status } = request.body;
    const change = await service.setStatus(await scopeOf(request), await callerOf(request), id, status);
    recordChange(request, { targetId: id, ...change });
    return ok(request, null);
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), await callerOf(request), request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, calls.resetPassword, async (request) => {
    const change = await service.resetPassword(
      await scopeOf(request),
      await callerOf(request),
      request.body.id,
      request.body.password,
    );
    recordChange(request, change);
    return ok(request, null);
  });
};
