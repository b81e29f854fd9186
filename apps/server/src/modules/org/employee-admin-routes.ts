/**
 * Employee management (spec §7 `employee/pageList, save, update, delete, detail, status`, plus
 * our `employee/resetPassword`; issue 5 item 3), needing `system:employee:list|save|delete|
 * status|resetPwd`. The caller's own settings (password, e-mail) are in modules/employee.
 * Codes: 5000, 5031, 5034, 5050, 5051, 5053, 5057, 6000.
 */
import {
  employeeListRequest,
  employeeListResponse,
  employeeResetPasswordRequest,
  employeeRowSchema,
  employeeSaveRequest,
  employeeSaveResponse,
  employeeStatusRequest,
  employeeUpdateRequest,
  envelopeOf,
  idOnlyRequest,
  OrgPath,
  Perm,
} from '@ess/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { callerAccess } from '../../access/auth-hook';
import { dataScopeOf } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { type Caller, EmployeeService } from './employee-service';

const tags = ['employee'];
const audit = (verb: string) => ({ action: `employee.${verb}`, targetType: 'employee' });
const nullData = envelopeOf(z.null());

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

  app.post(
    OrgPath.employeePageList,
    {
      config: { permission: Perm.employeeList },
      schema: {
        tags,
        summary:
          'Employees the caller sees (data scope), newest first; departmentId includes the departments below it',
        body: employeeListRequest,
        response: { 200: envelopeOf(employeeListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await service.list(await scopeOf(request), request.body)),
  );

  app.post(
    OrgPath.employeeDetail,
    {
      config: { permission: Perm.employeeList },
      schema: {
        tags,
        summary: 'One employee with department and roles. Errors: 5051',
        body: idOnlyRequest,
        response: { 200: envelopeOf(employeeRowSchema.nullable()) },
      },
    },
    async (request) => ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  app.post(
    OrgPath.employeeSave,
    {
      config: { permission: Perm.employeeSave, audit: audit('save') },
      schema: {
        tags,
        summary:
          'Create an employee; a new account gets the initial password (must be changed at first sign-in), an existing one is linked. Errors: 6000, 5000, 5031, 5034, 5050',
        body: employeeSaveRequest,
        response: { 200: envelopeOf(employeeSaveResponse.nullable()) },
      },
    },
    async (request) => {
      const created = await service.create(await scopeOf(request), await callerOf(request), request.body);
      recordChange(request, { targetId: created.id, after: { ...request.body, ...created } });
      return ok(request, created);
    },
  );

  app.post(
    OrgPath.employeeUpdate,
    {
      config: { permission: Perm.employeeSave, audit: audit('update') },
      schema: {
        tags,
        summary:
          'Update name, phone, e-mail, department, roles and the administrator flag. Errors: 5051, 5000, 5031, 5034',
        body: employeeUpdateRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      const change = await service.update(await scopeOf(request), await callerOf(request), request.body);
      recordChange(request, { targetId: request.body.id, ...change });
      return ok(request, null);
    },
  );

  app.post(
    OrgPath.employeeStatus,
    {
      config: { permission: Perm.employeeStatus, audit: audit('status') },
      schema: {
        tags,
        summary:
          'Enable or disable; disabling ends the employee’s sessions at once. Errors: 5051, 5057 yourself',
        body: employeeStatusRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      const { id, status } = request.body;
      const change = await service.setStatus(await scopeOf(request), await callerOf(request), id, status);
      recordChange(request, { targetId: id, ...change });
      return ok(request, null);
    },
  );

  app.post(
    OrgPath.employeeDelete,
    {
      config: { permission: Perm.employeeDelete, audit: audit('delete') },
      schema: {
        tags,
        summary:
          'Delete an employee (and the account when it has no other company). Errors: 5051, 5053 administrator, 5057 yourself',
        body: idOnlyRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      const before = await service.remove(await scopeOf(request), await callerOf(request), request.body.id);
      recordChange(request, { targetId: request.body.id, before, after: null });
      return ok(request, null);
    },
  );

  app.post(
    OrgPath.employeeResetPassword,
    {
      config: { permission: Perm.employeeResetPassword, audit: audit('resetPassword') },
      schema: {
        tags,
        summary:
          'Set a new password (digest) that must be changed at next sign-in; ends the account’s sessions. Errors: 5051, 5034 the account also belongs to a company outside your scope',
        body: employeeResetPasswordRequest,
        response: { 200: nullData },
      },
    },
    async (request) => {
      const change = await service.resetPassword(
        await scopeOf(request),
        await callerOf(request),
        request.body.id,
        request.body.password,
      );
      recordChange(request, change);
      return ok(request, null);
    },
  );
};
