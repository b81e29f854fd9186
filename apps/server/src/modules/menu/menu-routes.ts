/**
 * Menu management (spec §7 `menu/menuList`; issue 5 item 5 `menu/save, update, delete`):
 * every stored row with both titles, and the writes (menu-admin.ts). Needs
 * `system:menu:list|save|save|delete`, held only by the platform operator's roles.
 * Codes: 5037, 5038, 5039, 5040.
 */
import {
  ApiPath,
  createdIdResponse,
  envelopeOf,
  idOnlyRequest,
  menuInput,
  menuListRequest,
  menuListResponse,
  menuUpdate,
  OrgPath,
  Perm,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { allMenus, toMenuRow } from '../../access/menu-access';
import { ok } from '../../core/http/envelope';
import { createMenu, deleteMenu, updateMenu } from './menu-admin';

const tags = ['menu'];
const audit = (verb: string) => ({ action: `menu.${verb}`, targetType: 'menu' });

export const menuRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    ApiPath.menuList,
    {
      config: { permission: Perm.menuList },
      schema: {
        tags,
        summary:
          'All menu rows (directories, pages, buttons) in display order. Needs system:menu:list (else 5034)',
        body: menuListRequest,
        response: { 200: envelopeOf(menuListResponse.nullable()) },
      },
    },
    async (request) => {
      const rows = await allMenus(app.db);
      return ok(request, { list: rows.map(toMenuRow) });
    },
  );

  app.post(
    OrgPath.menuSave,
    {
      config: { permission: Perm.menuSave, audit: audit('save') },
      schema: {
        tags,
        summary: 'Create a menu row (directory, page or button). Errors: 5040 invalid parent',
        body: menuInput,
        response: { 200: envelopeOf(createdIdResponse.nullable()) },
      },
    },
    async (request) => {
      const row = await createMenu(app.db, request.body);
      recordChange(request, { targetId: row.id, after: row });
      return ok(request, { id: row.id });
    },
  );

  app.post(
    OrgPath.menuUpdate,
    {
      config: { permission: Perm.menuSave, audit: audit('update') },
      schema: {
        tags,
        summary: 'Update a menu row. Errors: 5037 missing, 5040 invalid parent',
        body: menuUpdate,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const change = await updateMenu(app.db, request.body.id, request.body);
      recordChange(request, { targetId: request.body.id, ...change });
      return ok(request, null);
    },
  );

  app.post(
    OrgPath.menuDelete,
    {
      config: { permission: Perm.menuDelete, audit: audit('delete') },
      schema: {
        tags,
        summary: 'Delete a menu row. Errors: 5037 missing, 5038 has children, 5039 built-in',
        body: idOnlyRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const before = await deleteMenu(app.db, request.body.id);
      recordChange(request, { targetId: request.body.id, before, after: null });
      return ok(request, null);
    },
  );
};
