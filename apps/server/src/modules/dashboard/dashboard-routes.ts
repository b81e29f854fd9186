/**
 * `/api-bms/dashboard/overview` (devices issue; spec §2 `/dashboard` "operational overview"):
 * KPIs, today's power curve, sites and latest alarms of the caller's companies, with the time
 * base of the view (the sites' zone, or the caller's `timezone` when they differ). Live updates
 * of the same shapes come over `/ws` (live/live-hub.ts).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';

export const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, endpoints.dashboard.overview, async (request) =>
    ok(request, await app.fleet.dashboard(await companyScope(app.db, request.auth), request.body.timezone)),
  );
};
