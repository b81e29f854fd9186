/**
 * `/api-bms/monitor/realtime/*` (spec §2 `/realTimeShow`) and `/api-bms/monitor/history/*`
 * (issue 4 item 3): pickers, latest points, a point's trend, history series, two-period
 * comparison, energy bars. Codes: 3030 device, 3036 site (outside the caller's companies
 * answers the same), 3120–3122 range, 3123 too many series, 3124 point name (docs/api.md).
 */
import {
  compareRequest,
  compareResponse,
  energyRequest,
  energyResponse,
  envelopeOf,
  historyRequest,
  historyResponse,
  MonitorPath,
  Perm,
  pickOptionsRequest,
  pickOptionsResponse,
  realtimeRequest,
  realtimeResponse,
  trendRequest,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import { MonitorService } from './monitor-service';

export const monitorRoutes: FastifyPluginAsyncZod = async (app) => {
  const monitor = new MonitorService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  for (const [path, permission] of [
    [MonitorPath.realtimeOptions, Perm.monitorRealtimeList],
    [MonitorPath.historyOptions, Perm.monitorHistoryList],
  ] as const) {
    app.post(
      path,
      {
        config: { permission },
        schema: {
          tags: ['monitor'],
          summary:
            'Sites in the caller’s companies; with siteId also its devices (type, gateway online, point names). Errors: 3036',
          body: pickOptionsRequest,
          response: { 200: envelopeOf(pickOptionsResponse.nullable()) },
        },
      },
      async (request) => ok(request, await monitor.options(await scopeOf(request), request.body.siteId)),
    );
  }

  app.post(
    MonitorPath.realtime,
    {
      config: { permission: Perm.monitorRealtimeList },
      schema: {
        tags: ['monitor'],
        summary:
          'Latest value and report time (UTC ms) of every point of a device, gateway state, reporting interval and stale threshold (ms). Errors: 3030',
        body: realtimeRequest,
        response: { 200: envelopeOf(realtimeResponse.nullable()) },
      },
    },
    async (request) => ok(request, await monitor.realtime(await scopeOf(request), request.body.deviceId)),
  );

  app.post(
    MonitorPath.realtimeTrend,
    {
      config: { permission: Perm.monitorRealtimeList },
      schema: {
        tags: ['monitor'],
        summary:
          'A point over the last hour (raw rows when at most 3000, else 15-minute rollups). Errors: 3030, 3124',
        body: trendRequest,
        response: { 200: envelopeOf(historyResponse.nullable()) },
      },
    },
    async (request) =>
      ok(request, await monitor.trend(await scopeOf(request), request.body.deviceId, request.body.point)),
  );

  app.post(
    MonitorPath.history,
    {
      config: { permission: Perm.monitorHistoryList },
      schema: {
        tags: ['monitor'],
        summary:
          'Series of points over [startMs, endMs) — raw or 15 min / 1 h / 1 day rollups chosen by the server, ≤ 3000 points each, min/max/avg per bucket, totals. Errors: 3030, 3120–3124',
        body: historyRequest,
        response: { 200: envelopeOf(historyResponse.nullable()) },
      },
    },
    async (request) => ok(request, await monitor.history(await scopeOf(request), request.body)),
  );

  app.post(
    MonitorPath.compare,
    {
      config: { permission: Perm.monitorHistoryList },
      schema: {
        tags: ['monitor'],
        summary:
          'One point over periods A and B at one resolution (the longer period’s). Errors: 3030, 3120–3122, 3124',
        body: compareRequest,
        response: { 200: envelopeOf(compareResponse.nullable()) },
      },
    },
    async (request) => ok(request, await monitor.compare(await scopeOf(request), request.body)),
  );

  app.post(
    MonitorPath.energy,
    {
      config: { permission: Perm.monitorHistoryList },
      schema: {
        tags: ['monitor'],
        summary:
          'Charged / discharged kWh of a site’s PCS (or one PCS) per site-local day or month, null where no reading. Errors: 3030, 3036, 3120–3122',
        body: energyRequest,
        response: { 200: envelopeOf(energyResponse.nullable()) },
      },
    },
    async (request) => ok(request, await monitor.energy(await scopeOf(request), request.body)),
  );
};
