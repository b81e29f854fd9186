/**
 * `/api-bms/monitor/realtime/*` (spec §2 `/realTimeShow`) and `/api-bms/monitor/history/*`
 *: pickers, latest points, a point's trend, history series, two-period
 * comparison, energy bars. Codes: 3030 device, 3036 site (outside the caller's companies
 * answers the same), 3120–3122 range, 3123 too many series, 3124 point name (docs/api.md).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { MonitorService } from './monitor-service';

const calls = endpoints.monitor;

export const monitorRoutes: FastifyPluginAsyncZod = async (app) => {
  const monitor = new MonitorService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  // The two pickers answer the same; each needs its own screen's permission.
  for (const endpoint of [calls.realtimeOptions, calls.historyOptions]) {
    route(app, endpoint, async (request) =>
      ok(request, await monitor.options(await scopeOf(request), request.body.siteId)),
    );
  }

  route(app, calls.realtime, async (request) =>
    ok(request, await monitor.realtime(await scopeOf(request), request.body.deviceId)),
  );

  route(app, calls.realtimeTrend, async (request) =>
    ok(request, await monitor.trend(await scopeOf(request), request.body.deviceId, request.body.point)),
  );

  route(app, calls.history, async (request) =>
    ok(request, await monitor.history(await scopeOf(request), request.body)),
  );

  route(app, calls.compare, async (request) =>
    ok(request, await monitor.compare(await scopeOf(request), request.body)),
  );

  route(app, calls.energy, async (request) =>
    ok(request, await monitor.energy(await scopeOf(request), request.body)),
  );
};
