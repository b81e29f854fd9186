/**
 * Menu management (spec §7 `menu/menuList`; ours: `menu/save, update, delete`):
 * every stored row with both titles, and the writes (menu-admin.ts). Needs
 * `system:menu:list|save|save|delete`, held only by the platform operator's roles.
 * Codes: 5037, 5038, 5039, 5040.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { allMenus, toMenuRow } from '../../access/menu-access';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { createMenu, deleteMenu, updateMenu } from './menu-admin';

const calls = endpoints.menu;

export const menuRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, calls.list, async (request) => {
    const rows = await allMenus(app.db);
    return ok(request, { list: rows.map(toMenuRow) });
  });

  route(app, calls.save, async (request) => {
    const row = await createMenu(app.db, request.body);
    recordChange(request, { targetId: row.id, after: row });
    return ok(request, { id: row.id });
  });

  route(app, calls.update, async (request) => {
    const change = await updateMenu(app.db, request.body.id, request.body);
    recordChange(request, { targetId: request.body.id, ...change });
    return ok(request, null);
  });

  route(app, calls.delete, async (request) => {
    const before = await deleteMenu(app.db, request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });
};
