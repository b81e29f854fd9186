/**
 * Revenue statistics (issue 17 item 4): `endpoints.revenue.*`. Part of the endpoint table
 * (../endpoints.ts); shapes in api/revenue.ts. Scoped to the caller's companies like sites.
 */
import {
  revenueStatRequest,
  revenueStatResponse,
  revenueTargetsRequest,
  revenueTargetsResponse,
} from '../api/revenue';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const revenueEndpoints = {
  targets: defineEndpoint({
    path: '/api-bms/revenue/targets',
    request: revenueTargetsRequest,
    response: revenueTargetsResponse,
    access: { permission: Perm.revenueStatList },
    summary: 'Sites, projects and companies in the caller’s scope that revenue statistics can show',
    tags: ['revenue'],
  }),
  stat: defineEndpoint({
    path: '/api-bms/revenue/stat',
    request: revenueStatRequest,
    response: revenueStatResponse,
    access: { permission: Perm.revenueStatList },
    summary:
      'Energy per tier, charging cost, discharge value, net benefit, efficiency and cycles of a site, project or company for a day, month or year, with the previous period and the arbitrage expectation. Errors: -100 period, 3036 site, 7001 project, 6000 company',
    tags: ['revenue'],
  }),
};
