/**
 * `/api-bms/menu/menuList` (spec §7): every stored menu row with both titles, for menu
 * management. Saving, updating and deleting come with the access-control issue.
 */
import { ApiPath, envelopeOf, menuListRequest, menuListResponse } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../http/envelope';
import { allMenus, toMenuRow } from './menu-service';

export const menuRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    ApiPath.menuList,
    {
      config: { permission: 'system:menu:list' },
      schema: {
        tags: ['menu'],
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
};
