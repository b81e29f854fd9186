/**
 * `/api-bms/department/departmentList, save, update, delete` (spec §7; issue 5 item 2), needing
 * `system:dept:list|save|save|delete`. The list answers the company's departments the caller
 * sees as a flat list (build the tree with `buildTree`). Codes: 5000–5004, 6000.
 */
import {
  createdIdResponse,
  departmentInput,
  departmentListRequest,
  departmentListResponse,
  departmentUpdate,
  envelopeOf,
  idOnlyRequest,
  OrgPath,
  Perm,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { dataScopeOf } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { DepartmentService } from './department-service';

const tags = ['department'];
const audit = (verb: string) => ({ action: `department.${verb}`, targetType: 'department' });

export const departmentRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new DepartmentService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    dataScopeOf(app.db, request.auth);

  app.post(
    OrgPath.departmentList,
    {
      config: { permission: Perm.deptList },
      schema: {
        tags,
        summary:
          'Departments of a company (default: the caller’s) that the caller sees, flat, by sort. Errors: 6000',
        body: departmentListRequest,
        response: { 200: envelopeOf(departmentListResponse.nullable()) },
      },
    },
    async (request) => {
      const { companyId, keyword } = request.body;
      const list = await service.list(await scopeOf(request), companyId ?? request.auth.companyId, keyword);
      return ok(request, { list });
    },
  );

  app.post(
    OrgPath.departmentSave,
    {
      config: { permission: Perm.deptSave, audit: audit('save') },
      schema: {
        tags,
        summary:
          'Create a department. Errors: 6000 company outside the scope, 5000 parent missing, 5004 name exists at this level',
        body: departmentInput,
        response: { 200: envelopeOf(createdIdResponse.nullable()) },
      },
    },
    async (request) => {
      const companyId = request.body.companyId ?? request.auth.companyId;
      const row = await service.create(await scopeOf(request), companyId, request.body);
      recordChange(request, { targetId: row.id, after: row });
      return ok(request, { id: row.id });
    },
  );

  app.post(
    OrgPath.departmentUpdate,
    {
      config: { permission: Perm.deptSave, audit: audit('update') },
      schema: {
        tags,
        summary: 'Update a department. Errors: 5000, 5003 parent is itself or below it, 5004',
        body: departmentUpdate,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const change = await service.update(await scopeOf(request), request.body.id, request.body);
      recordChange(request, { targetId: request.body.id, ...change });
      return ok(request, null);
    },
  );

  app.post(
    OrgPath.departmentDelete,
    {
      config: { permission: Perm.deptDelete, audit: audit('delete') },
      schema: {
        tags,
        summary: 'Delete a department. Errors: 5000, 5001 has sub-departments, 5002 has employees',
        body: idOnlyRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const before = await service.remove(await scopeOf(request), request.body.id);
      recordChange(request, { targetId: request.body.id, before, after: null });
      return ok(request, null);
    },
  );
};
