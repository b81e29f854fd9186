/**
 * Real-time data and history: `endpoints.monitor.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  compareRequest,
  compareResponse,
  energyRequest,
  energyResponse,
  historyRequest,
  historyResponse,
  pickOptionsRequest,
  pickOptionsResponse,
  realtimeRequest,
  realtimeResponse,
  trendRequest,
} from '../api/monitor';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

const pickOptionsSummary =
  'Sites in the caller’s companies; with siteId also its devices (type, gateway online, point names). Errors: 3036';

export const monitorEndpoints = {
  realtimeOptions: defineEndpoint({
    path: '/api-bms/monitor/realtime/options',
    request: pickOptionsRequest,
    response: pickOptionsResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary: pickOptionsSummary,
    tags: ['monitor'],
  }),
  realtime: defineEndpoint({
    path: '/api-bms/monitor/realtime/points',
    request: realtimeRequest,
    response: realtimeResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary:
      'Latest value and report time (UTC ms) of every point of a device, gateway state, reporting interval and stale threshold (ms). Errors: 3030',
    tags: ['monitor'],
  }),
  realtimeTrend: defineEndpoint({
    path: '/api-bms/monitor/realtime/trend',
    request: trendRequest,
    response: historyResponse,
    access: { permission: Perm.monitorRealtimeList },
    summary:
      'A point over the last hour (raw rows when at most 3000, else 15-minute rollups). Errors: 3030, 3124',
    tags: ['monitor'],
  }),
  historyOptions: defineEndpoint({
    path: '/api-bms/monitor/history/options',
    request: pickOptionsRequest,
    response: pickOptionsResponse,
    access: { permission: Perm.monitorHistoryList },
    summary: pickOptionsSummary,
    tags: ['monitor'],
  }),
  history: defineEndpoint({
    path: '/api-bms/monitor/history/series',
    request: historyRequest,
    response: historyResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'Series of points over [startMs, endMs) — raw or 15 min / 1 h / 1 day rollups chosen by the server, ≤ 3000 points each, min/max/avg per bucket, totals. Errors: 3030, 3120–3124',
    tags: ['monitor'],
  }),
  compare: defineEndpoint({
    path: '/api-bms/monitor/history/compare',
    request: compareRequest,
    response: compareResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'One point over periods A and B at one resolution (the longer period’s). Errors: 3030, 3120–3122, 3124',
    tags: ['monitor'],
  }),
  energy: defineEndpoint({
    path: '/api-bms/monitor/history/energy',
    request: energyRequest,
    response: energyResponse,
    access: { permission: Perm.monitorHistoryList },
    summary:
      'Charged / discharged kWh of a site’s PCS (or one PCS) per site-local day or month, null where no reading. Errors: 3030, 3036, 3120–3122',
    tags: ['monitor'],
  }),
};
