/**
 * `/api-bms/role/pageList, save, update, delete, detail, copy` (spec §7),
 * needing `system:role:list|save|save|delete|list|copy`. Codes: 5031, 5032, 5033, 5034, 5035,
 * 5036, 5037 (a granted menu that does not exist), 6000.
 */
import { endpoints } from '@ess/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { callerAccess } from '../../access/auth-hook';
import { companyScope } from '../../access/company-scope';
import { toMenuRow } from '../../access/menu-access';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { RoleService } from './role-service';

const calls = endpoints.role;

export const roleRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new RoleService(app.db);
  const scopeOf = (request: FastifyRequest) => companyScope(app.db, request.auth);
  const accessOfCaller = (request: FastifyRequest) => callerAccess(app.db, request);

  route(app, calls.pageList, async (request) =>
    ok(request, await service.list(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.menuOptions, async (request) => {
    const companyId = request.body.companyId ?? request.auth.companyId;
    const options = await service.grantableMenus(
      await scopeOf(request),
      companyId,
      await accessOfCaller(request),
    );
    return ok(request, { list: options.list.map(toMenuRow), grantable: options.grantable });
  });

  route(app, calls.save, async (request) => {
    const companyId = request.body.companyId ?? request.auth.companyId;
    const created = await service.create(
      await scopeOf(request),
      companyId,
      request.body,
      await accessOfCaller(request),
    );
    recordChange(request, { targetId: created.id, after: created });
    return ok(request, created);
  });

  route(app, calls.update, async (request) => {
    const change = await service.update(await scopeOf(request), request.body, await accessOfCaller(request));
    recordChange(request, { targetId: request.body.id, ...change });
    return ok(request, change.after);
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, calls.copy, async (request) => {
    const { id, name, code } = request.body;
    const copy = await service.copy(await scopeOf(request), id, name, code, await accessOfCaller(request));
    recordChange(request, { targetId: copy.id, before: { sourceRoleId: id }, after: copy });
    return ok(request, copy);
  });
};
