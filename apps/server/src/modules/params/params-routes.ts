/**
 * `/api-bms/params/*` (issue 15, `/paramsconfig`; contract `endpoints.params`, shapes
 * api/params.ts): device parameters — desired beside reported, changes sent as `set_params`,
 * reading a device, history, copying, and a site's one-time initialization.
 *
 * | call       | needs              | body                              | answers                                   |
 * |------------|--------------------|-----------------------------------|-------------------------------------------|
 * | tree       | device:params:list | keyword?                          | sites → devices with parameters           |
 * | detail     | device:params:list | deviceId                          | the device's shadow                       |
 * | set        | device:params:edit | deviceId, values                  | version, waiting (3033/3034/null), device |
 * | read       | device:params:list | deviceId                          | the shadow after `get_params`             |
 * | retry      | device:params:edit | deviceId                          | the shadow after the answer               |
 * | history    | device:params:list | deviceId, pageNum, pageSize       | {list, total}, newest first               |
 * | copy       | device:params:edit | fromDeviceId, toDeviceIds, keys?  | one result per target                     |
 * | initialize | device:params:edit | siteId, network?                  | initializedAt, devices, waiting           |
 *
 * Errors: 3030 a device outside the caller's scope or absent, 3031 no gateway, 3033 never
 * connected, 3034 offline, 3035 no answer / refused, 3036 site, 3047 copy to another type or
 * model, 3048 nothing outstanding, 3049 initialized before, -100 a value or a rule (msg names the
 * key). set, retry, copy and initialize are audited (endpoint table), with before → after.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { ParamsService } from './params-service';

const calls = endpoints.params;

export const paramsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new ParamsService(app.db, app.paramsPush, () => app.paramsPush.deviceService);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  route(app, calls.tree, async (request) =>
    ok(request, await service.tree(await scopeOf(request), request.body.keyword)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.deviceId)),
  );

  route(app, calls.set, async (request) => {
    const author = await service.authorOf(request.auth.employeeId);
    recordChange(request, { targetId: request.body.deviceId, after: request.body.values });
    const { before, ...answer } = await service.set(
      await scopeOf(request),
      request.body,
      author,
      request.lang,
    );
    recordChange(request, { before, after: { version: answer.version, values: request.body.values } });
    return ok(request, answer);
  });

  route(app, calls.read, async (request) =>
    ok(request, await service.read(await scopeOf(request), request.body.deviceId)),
  );

  route(app, calls.retry, async (request) => {
    recordChange(request, { targetId: request.body.deviceId });
    return ok(request, await service.retry(await scopeOf(request), request.body.deviceId));
  });

  route(app, calls.history, async (request) =>
    ok(request, await service.history(await scopeOf(request), request.body)),
  );

  route(app, calls.copy, async (request) => {
    const author = await service.authorOf(request.auth.employeeId);
    recordChange(request, { targetId: request.body.fromDeviceId });
    const { results, copied } = await service.copy(
      await scopeOf(request),
      request.body,
      author,
      request.lang,
    );
    recordChange(request, {
      after: {
        keys: copied,
        results: results.map((r) => ({ deviceId: r.deviceId, code: r.code, version: r.version })),
      },
    });
    return ok(request, { results });
  });

  route(app, calls.initialize, async (request) => {
    const author = await service.authorOf(request.auth.employeeId);
    recordChange(request, { targetId: request.body.siteId, after: { network: request.body.network ?? {} } });
    return ok(request, await service.initialize(await scopeOf(request), request.body, author, request.lang));
  });
};
