/**
 * Big-screen calls (issue 4 item 6; contract api/screen.ts; docs/api.md "Big screens"):
 *
 * - `screen/cockpitPublic` — public, rate-limited: aggregates of the installation only
 *   (no site names, codes, SNs, companies, exact positions);
 * - `screen/cockpit` — `screen:view:list`: the same for the caller's companies plus its sites
 *   (exact positions, revenue);
 * - `screen/sites`, `screen/site` — `screen:view:list`: the site picker and one site's data for
 *   /screen/sys|pcs|bms|dhxx and /syfscreen/syfsys (3036 for a site outside the scope).
 */
import {
  cockpitAggregatesSchema,
  cockpitResponse,
  envelopeOf,
  Perm,
  ScreenPath,
  screenRequest,
  screenSiteRequest,
  screenSiteResponse,
  screenSitesResponse,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { ScreenService } from './screen-service';

const tags = ['screen'];

/** Calls of the public cockpit per client address and minute (a wall display polls every 10 s). */
export const PUBLIC_COCKPIT_RATE_PER_MINUTE = 30;

export const screenRoutes: FastifyPluginAsyncZod = async (app) => {
  const screens = new ScreenService(app.db, app.dashboard);

  app.post(
    ScreenPath.cockpitPublic,
    {
      config: {
        public: true,
        rateLimit: { max: PUBLIC_COCKPIT_RATE_PER_MINUTE, timeWindow: '1 minute' },
      },
      schema: {
        tags,
        summary:
          'Public cockpit: installation-wide aggregates only (kW, kWh, CNY, alarm counts, 1° map cells)',
        description:
          'No token needed. Answers nothing per site: no names, codes, SNs, companies or exact positions ' +
          '(map cells are whole degrees). Computed at most every 5 s; rate-limited per client address.',
        security: [],
        body: screenRequest,
        response: { 200: envelopeOf(cockpitAggregatesSchema.nullable()) },
      },
    },
    async (request) => ok(request, await screens.publicCockpit()),
  );

  app.post(
    ScreenPath.cockpit,
    {
      config: { permission: Perm.screenView },
      schema: {
        tags,
        summary:
          "Signed-in cockpit (screen:view): the caller's fleet aggregates, its sites (names, exact positions, revenue) and top sites",
        body: screenRequest,
        response: { 200: envelopeOf(cockpitResponse.nullable()) },
      },
    },
    async (request) => ok(request, await screens.cockpit(await companyScope(app.db, request.auth))),
  );

  app.post(
    ScreenPath.sites,
    {
      config: { permission: Perm.screenView },
      schema: {
        tags,
        summary: 'Site picker of the big screens: sites in the caller’s scope',
        body: screenRequest,
        response: { 200: envelopeOf(screenSitesResponse.nullable()) },
      },
    },
    async (request) => ok(request, await screens.sites(await companyScope(app.db, request.auth))),
  );

  app.post(
    ScreenPath.site,
    {
      config: { permission: Perm.screenView },
      schema: {
        tags,
        summary:
          'One site for the screens: devices with latest points and BMS cells, today’s energy (kWh) and revenue (CNY), 15-min curves, active alarms',
        description: 'Errors: 3036 site not found (also for a site outside the caller’s scope).',
        body: screenSiteRequest,
        response: { 200: envelopeOf(screenSiteResponse.nullable()) },
      },
    },
    async (request) =>
      ok(request, await screens.site(await companyScope(app.db, request.auth), request.body.siteId)),
  );
};
