/**
 * `/api-bms/project/*` (contract `endpoints.project`, rules and refusals in api/project.ts; issue
 * 17 item 1).
 *
 * | call         | permission             | body                                      | answers          |
 * |--------------|------------------------|-------------------------------------------|------------------|
 * | pageList     | project:project:list   | pageNum, pageSize, name?, status?, incomeMode? | {list, total} |
 * | detail       | project:project:list   | {id}                                      | the project (live figures of bound sites) |
 * | siteOptions  | project:project:list   | {companyId?}                              | sites with meters and current project |
 * | history      | project:project:list   | {id, pageNum, pageSize}                   | {list, total}    |
 * | save         | project:project:save   | the fields, companyId?, siteIds?, boundFrom? | {id}          |
 * | update       | project:project:save   | {id, …the fields}                         | the project      |
 * | delete       | project:project:delete | {id}                                      | null             |
 * | changeStatus | project:project:status | {id, status}                              | the project      |
 * | bindSites    | project:project:bind   | {id, siteIds, boundFrom?}                 | the project      |
 * | unbindSite   | project:project:bind   | {id, siteId, boundTo?}                    | the project      |
 * | recordMeterSwap | project:project:save | {id, deviceId, swappedAt, readings, new CT/PT, serials, note} | {id, repriced} |
 * | deleteMeterSwap | project:project:save | {id, swapId}                           | {repriced}       |
 *
 * Scoped by company (access/company-scope.ts): out of scope answers 7001 (project), 3036 (site),
 * 6000 (company). Operation log: every write with the project as target (before → after).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { ProjectService } from './project-service';

const calls = endpoints.project;

export const projectRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new ProjectService(app.db, app.fleet);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  const actorOf = (request: { auth: { employeeId: number } }) => ({ employeeId: request.auth.employeeId });

  route(app, calls.pageList, async (request) =>
    ok(request, await service.pageList(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.siteOptions, async (request) =>
    ok(request, await service.siteOptions(await scopeOf(request), request.body.companyId)),
  );

  route(app, calls.history, async (request) => {
    const { id, pageNum, pageSize } = request.body;
    return ok(request, await service.history(await scopeOf(request), { id, pageNum, pageSize }));
  });

  route(app, calls.save, async (request) => {
    const { userInfo: _, companyId, siteIds, boundFrom, ...input } = request.body;
    const { id, after } = await service.create(
      await scopeOf(request),
      actorOf(request),
      { ...input, companyId: companyId ?? request.auth.companyId, siteIds, boundFrom },
      request.lang,
    );
    recordChange(request, { targetId: id, before: null, after });
    return ok(request, { id });
  });

  route(app, calls.update, async (request) => {
    const { userInfo: _, id, ...input } = request.body;
    const scope = await scopeOf(request);
    const { before, after } = await service.update(scope, actorOf(request), id, input, request.lang);
    recordChange(request, { targetId: id, before, after });
    return ok(request, await service.detail(scope, id));
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, calls.changeStatus, async (request) => {
    const { id, status } = request.body;
    const scope = await scopeOf(request);
    const change = await service.changeStatus(scope, actorOf(request), id, status, request.lang);
    recordChange(request, {
      targetId: id,
      before: { status: change.before },
      after: { status: change.after },
    });
    return ok(request, await service.detail(scope, id));
  });

  route(app, calls.bindSites, async (request) => {
    const { id, siteIds, boundFrom } = request.body;
    const scope = await scopeOf(request);
    const bound = await service.bindSites(scope, actorOf(request), id, siteIds, boundFrom, request.lang);
    recordChange(request, { targetId: id, after: { bound } });
    return ok(request, await service.detail(scope, id));
  });

  route(app, calls.recordMeterSwap, async (request) => {
    const { userInfo: _, id, ...body } = request.body;
    const { after, ...answer } = await service.swaps.record(
      await scopeOf(request),
      actorOf(request),
      id,
      body,
      request.lang,
    );
    recordChange(request, { targetId: id, before: null, after: { meterSwap: after } });
    return ok(request, answer);
  });

  route(app, calls.deleteMeterSwap, async (request) => {
    const { id, swapId } = request.body;
    const { before, repriced } = await service.swaps.remove(
      await scopeOf(request),
      actorOf(request),
      id,
      swapId,
    );
    recordChange(request, { targetId: id, before: { meterSwap: before }, after: null });
    return ok(request, { repriced });
  });

  route(app, calls.unbindSite, async (request) => {
    const { id, siteId, boundTo } = request.body;
    const scope = await scopeOf(request);
    const unbound = await service.unbindSite(scope, actorOf(request), id, siteId, boundTo, request.lang);
    recordChange(request, { targetId: id, after: { unbound } });
    return ok(request, await service.detail(scope, id));
  });
};
