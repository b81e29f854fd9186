/**
 * The operational overview: `endpoints.dashboard.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { dashboardRequest, dashboardResponse } from '../api/dashboard';
import { defineEndpoint } from './define';

export const dashboardEndpoints = {
  overview: defineEndpoint({
    path: '/api-bms/dashboard/overview',
    request: dashboardRequest,
    response: dashboardResponse,
    access: { signedIn: true },
    summary: 'Fleet KPIs (kW, kWh, %), today’s 15-minute power curve, site status and the latest alarms',
    tags: ['dashboard'],
  }),
};
