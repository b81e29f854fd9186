/**
 * `/api-bms/department/departmentList, save, update, delete` (spec §7), needing
 * `system:dept:list|save|save|delete`. The list answers the company's departments the caller
 * sees as a flat list (build the tree with `buildTree`). Codes: 5000–5004, 6000.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { dataScopeOf } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { DepartmentService } from './department-service';

const calls = endpoints.department;

export const departmentRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new DepartmentService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    dataScopeOf(app.db, request.auth);

  route(app, calls.list, async (request) => {
    const { companyId, keyword } = request.body;
    const list = await service.list(await scopeOf(request), companyId ?? request.auth.companyId, keyword);
    return ok(request, { list });
  });

  route(app, calls.save, async (request) => {
    const companyId = request.body.companyId ?? request.auth.companyId;
    const row = await service.create(await scopeOf(request), companyId, request.body);
    recordChange(request, { targetId: row.id, after: row });
    return ok(request, { id: row.id });
  });

  route(app, calls.update, async (request) => {
    const change = await service.update(await scopeOf(request), request.body.id, request.body);
    recordChange(request, { targetId: request.body.id, ...change });
    return ok(request, null);
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });
};
