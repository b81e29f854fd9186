/**
 * Revenue statistics routes (issue 17 item 4; contract endpoints/revenue.ts), permission
 * `revenue:stat:list`, scoped to the caller's companies:
 *
 * | call    | body                                  | answer                                |
 * |---------|---------------------------------------|---------------------------------------|
 * | targets | —                                     | sites, projects, companies in scope   |
 * | stat    | scope, id, granularity, period        | figures, per tier, series, previous, expectation |
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { RevenueService } from './revenue-service';

const calls = endpoints.revenue;

export const revenueRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new RevenueService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  route(app, calls.targets, async (request) => ok(request, await service.targets(await scopeOf(request))));

  route(app, calls.stat, async (request) =>
    ok(request, await service.stat(await scopeOf(request), request.body)),
  );
};
