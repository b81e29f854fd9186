/**
 * Site monitoring calls (spec §2 `/zdjkshow`; permission `monitor:site:list`;
 * contract api/site-monitor.ts, docs/api.md "Site monitoring"):
 *
 * - `endpoints.siteMonitor.sites` `{}` → `{sites, updatedAt}`: every site in the caller's company
 *   scope with status (online/offline/alarm), position (WGS-84), SOC %, battery kW (+ discharging),
 *   today's charged/discharged kWh (site-local day) and active alarm count.
 * - `endpoints.siteMonitor.site` `{siteId}` → `{site, devices, panels}`: the site's devices with their
 *   latest points (device_latest) and the energy-flow, PCS, BMS, meter, PV, environment and
 *   air-conditioner panels. Errors: 3036 site not found or outside the caller's scope.
 *
 * Read-only (no audit). Live updates: `fleet` and `device:<id>` channels of `/ws`.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { SiteMonitorService } from './site-monitor-service';

export const siteMonitorRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new SiteMonitorService(app.db, app.fleet);

  route(app, endpoints.siteMonitor.sites, async (request) =>
    ok(request, await service.sites(await companyScope(app.db, request.auth))),
  );

  route(app, endpoints.siteMonitor.site, async (request) =>
    ok(request, await service.site(await companyScope(app.db, request.auth), request.body.siteId)),
  );
};
