/**
 * `/api-bms/role/pageList, save, update, delete, detail, copy` (spec §7; issue 5 item 4),
 * needing `system:role:list|save|save|delete|list|copy`. Codes: 5031, 5032, 5033, 5034, 5035,
 * 5036, 5037 (a granted menu that does not exist), 6000.
 */
import {
  envelopeOf,
  idOnlyRequest,
  OrgPath,
  Perm,
  roleCopyRequest,
  roleDetailSchema,
  roleListRequest,
  roleListResponse,
  roleMenuOptionsRequest,
  roleMenuOptionsResponse,
  roleSaveRequest,
  roleUpdateRequest,
} from '@ess/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { callerAccess } from '../../access/auth-hook';
import { companyScope } from '../../access/company-scope';
import { toMenuRow } from '../../access/menu-access';
import { ok } from '../../core/http/envelope';
import { RoleService } from './role-service';

const tags = ['role'];
const audit = (verb: string) => ({ action: `role.${verb}`, targetType: 'role' });
const detailData = envelopeOf(roleDetailSchema.nullable());

export const roleRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new RoleService(app.db);
  const scopeOf = (request: FastifyRequest) => companyScope(app.db, request.auth);
  const accessOfCaller = (request: FastifyRequest) => callerAccess(app.db, request);

  app.post(
    OrgPath.rolePageList,
    {
      config: { permission: Perm.roleList },
      schema: {
        tags,
        summary: 'Roles of the companies in the caller’s scope, newest first, with holder counts',
        body: roleListRequest,
        response: { 200: envelopeOf(roleListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await service.list(await scopeOf(request), request.body)),
  );

  app.post(
    OrgPath.roleDetail,
    {
      config: { permission: Perm.roleList },
      schema: {
        tags,
        summary: 'A role with its granted menu, page and button ids. Errors: 5031',
        body: idOnlyRequest,
        response: { 200: detailData },
      },
    },
    async (request) => ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  app.post(
    OrgPath.roleMenuOptions,
    {
      config: { permission: Perm.roleList },
      schema: {
        tags,
        summary:
          'The menu rows a role of the company may be given by the caller (every holdable row for an administrator, else the caller’s own), and which of them the caller may add or remove. Errors: 6000',
        body: roleMenuOptionsRequest,
        response: { 200: envelopeOf(roleMenuOptionsResponse.nullable()) },
      },
    },
    async (request) => {
      const companyId = request.body.companyId ?? request.auth.companyId;
      const options = await service.grantableMenus(
        await scopeOf(request),
        companyId,
        await accessOfCaller(request),
      );
      return ok(request, { list: options.list.map(toMenuRow), grantable: options.grantable });
    },
  );

  app.post(
    OrgPath.roleSave,
    {
      config: { permission: Perm.roleSave, audit: audit('save') },
      schema: {
        tags,
        summary:
          'Create a role. Errors: 6000, 5036 name or code exists, 5037 unknown menu, 5034 granting menus you do not hold',
        body: roleSaveRequest,
        response: { 200: detailData },
      },
    },
    async (request) => {
      const companyId = request.body.companyId ?? request.auth.companyId;
      const created = await service.create(
        await scopeOf(request),
        companyId,
        request.body,
        await accessOfCaller(request),
      );
      recordChange(request, { targetId: created.id, after: created });
      return ok(request, created);
    },
  );

  app.post(
    OrgPath.roleUpdate,
    {
      config: { permission: Perm.roleSave, audit: audit('update') },
      schema: {
        tags,
        summary:
          'Update a role with the version read. Errors: 5031, 5035 changed by someone else, 5036, 5037, 5034, 5033 disabling or rescoping an administrator role',
        body: roleUpdateRequest,
        response: { 200: detailData },
      },
    },
    async (request) => {
      const change = await service.update(
        await scopeOf(request),
        request.body,
        await accessOfCaller(request),
      );
      recordChange(request, { targetId: request.body.id, ...change });
      return ok(request, change.after);
    },
  );

  app.post(
    OrgPath.roleDelete,
    {
      config: { permission: Perm.roleDelete, audit: audit('delete') },
      schema: {
        tags,
        summary: 'Delete a role. Errors: 5031, 5032 held by employees, 5033 administrator role',
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

  app.post(
    OrgPath.roleCopy,
    {
      config: { permission: Perm.roleCopy, audit: audit('copy') },
      schema: {
        tags,
        summary:
          'Copy a role under a new name and code, with the same rights and data scope. Errors: 5031, 5036, 5034',
        body: roleCopyRequest,
        response: { 200: detailData },
      },
    },
    async (request) => {
      const { id, name, code } = request.body;
      const copy = await service.copy(await scopeOf(request), id, name, code, await accessOfCaller(request));
      recordChange(request, { targetId: copy.id, before: { sourceRoleId: id }, after: copy });
      return ok(request, copy);
    },
  );
};
