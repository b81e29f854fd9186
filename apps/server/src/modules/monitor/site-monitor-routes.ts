/**
 * Site monitoring calls (issue 4 item 1; spec §2 `/zdjkshow`; permission `monitor:site:list`;
 * contract api/site-monitor.ts, docs/api.md "Site monitoring"):
 *
 * - `SiteMonitorPath.sites` `{}` → `{sites, updatedAt}`: every site in the caller's company
 *   scope with status (online/offline/alarm), position (WGS-84), SOC %, battery kW (+ discharging),
 *   today's charged/discharged kWh (site-local day) and active alarm count.
 * - `SiteMonitorPath.site` `{siteId}` → `{site, devices, panels}`: the site's devices with their
 *   latest points (device_latest) and the energy-flow, PCS, BMS, meter, PV, environment and
 *   air-conditioner panels. Errors: 3036 site not found or outside the caller's scope.
 *
 * Read-only (no audit). Live updates: `fleet` and `device:<id>` channels of `/ws`.
 */
import {
  envelopeOf,
  Perm,
  SiteMonitorPath,
  siteMonitorDetailRequest,
  siteMonitorDetailResponse,
  siteMonitorListRequest,
  siteMonitorListResponse,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { SiteMonitorService } from './site-monitor-service';

export const siteMonitorRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new SiteMonitorService(app.db, app.dashboard);

  app.post(
    SiteMonitorPath.sites,
    {
      config: { permission: Perm.monitorSiteList },
      schema: {
        tags: ['monitor'],
        summary:
          'Sites in scope for the monitoring map and list: status, position, SOC %, battery kW, today’s kWh, active alarms',
        body: siteMonitorListRequest,
        response: { 200: envelopeOf(siteMonitorListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await service.sites(await companyScope(app.db, request.auth))),
  );

  app.post(
    SiteMonitorPath.site,
    {
      config: { permission: Perm.monitorSiteList },
      schema: {
        tags: ['monitor'],
        summary:
          'One site: devices with latest points and the energy-flow, PCS, BMS, meter, PV, environment, air-conditioner panels (3036)',
        body: siteMonitorDetailRequest,
        response: { 200: envelopeOf(siteMonitorDetailResponse.nullable()) },
      },
    },
    async (request) =>
      ok(request, await service.site(await companyScope(app.db, request.auth), request.body.siteId)),
  );
};
