/**
 * Big screens and the cockpit: `endpoints.screen.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  cockpitAggregatesSchema,
  cockpitRequest,
  cockpitResponse,
  screenRequest,
  screenSiteRequest,
  screenSiteResponse,
  screenSitesResponse,
} from '../api/screen';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const screenEndpoints = {
  cockpitPublic: defineEndpoint({
    path: '/api-bms/screen/cockpitPublic',
    request: cockpitRequest,
    response: cockpitAggregatesSchema,
    access: { public: true },
    summary: 'Public cockpit: installation-wide aggregates only (kW, kWh, CNY, alarm counts, 1° map cells)',
    description:
      'No token needed. Answers nothing per site: no names, codes, SNs, companies or exact positions ' +
      '(map cells are whole degrees). Computed at most every 5 s; rate-limited per client address.',
    tags: ['screen'],
  }),
  cockpit: defineEndpoint({
    path: '/api-bms/screen/cockpit',
    request: cockpitRequest,
    response: cockpitResponse,
    access: { permission: Perm.screenView },
    summary:
      "Signed-in cockpit (screen:view): the caller's fleet aggregates, its sites (names, exact positions, revenue) and top sites",
    tags: ['screen'],
  }),
  sites: defineEndpoint({
    path: '/api-bms/screen/sites',
    request: screenRequest,
    response: screenSitesResponse,
    access: { permission: Perm.screenView },
    summary: 'Site picker of the big screens: sites in the caller’s scope',
    tags: ['screen'],
  }),
  site: defineEndpoint({
    path: '/api-bms/screen/site',
    request: screenSiteRequest,
    response: screenSiteResponse,
    access: { permission: Perm.screenView },
    summary:
      'One site for the screens: devices with latest points and BMS cells, today’s energy (kWh) and revenue (CNY), 15-min curves, active alarms',
    description: 'Errors: 3036 site not found (also for a site outside the caller’s scope).',
    tags: ['screen'],
  }),
};
