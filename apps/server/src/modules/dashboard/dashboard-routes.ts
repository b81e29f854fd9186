/**
 * `/api-bms/dashboard/overview` (devices issue; spec §2 `/dashboard` "operational overview"):
 * KPIs, today's power curve, sites and latest alarms of the caller's companies. Live updates
 * of the same shapes come over `/ws` (live/live-hub.ts).
 */
import { DashboardPath, dashboardRequest, dashboardResponse, envelopeOf } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';

export const dashboardRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    DashboardPath.overview,
    {
      config: { signedIn: true },
      schema: {
        tags: ['dashboard'],
        summary: 'Fleet KPIs (kW, kWh, %), today’s 15-minute power curve, site status and the latest alarms',
        body: dashboardRequest,
        response: { 200: envelopeOf(dashboardResponse.nullable()) },
      },
    },
    async (request) => ok(request, await app.dashboard.dashboard(await companyScope(app.db, request.auth))),
  );
};
