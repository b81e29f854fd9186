/**
 * Big-screen calls (contract api/screen.ts; docs/api.md "Big screens"):
 *
 * - `screen/cockpitPublic` — public, rate-limited: aggregates of the installation only
 *   (no site names, codes, SNs, companies, exact positions);
 * - `screen/cockpit` — `screen:view:list`: the same for the caller's companies plus its sites
 *   (exact positions, revenue);
 * - `screen/sites`, `screen/site` — `screen:view:list`: the site picker and one site's data for
 *   /screen/sys|pcs|bms|dhxx and /syfscreen/syfsys (3036 for a site outside the scope).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { ScreenService } from './screen-service';

const calls = endpoints.screen;

/** Calls of the public cockpit per client address and minute (a wall display polls every 10 s). */
export const PUBLIC_COCKPIT_RATE_PER_MINUTE = 30;

export const screenRoutes: FastifyPluginAsyncZod = async (app) => {
  const screens = new ScreenService(app.db, app.fleet);

  route(
    app,
    calls.cockpitPublic,
    async (request) => ok(request, await screens.publicCockpit(request.body.timezone)),
    {
      config: { rateLimit: { max: PUBLIC_COCKPIT_RATE_PER_MINUTE, timeWindow: '1 minute' } },
      // No X-Token: the OpenAPI page must not ask for one.
      security: [],
    },
  );

  route(app, calls.cockpit, async (request) =>
    ok(request, await screens.cockpit(await companyScope(app.db, request.auth), request.body.timezone)),
  );

  route(app, calls.sites, async (request) =>
    ok(request, await screens.sites(await companyScope(app.db, request.auth))),
  );

  route(app, calls.site, async (request) =>
    ok(request, await screens.site(await companyScope(app.db, request.auth), request.body.siteId)),
  );
};
