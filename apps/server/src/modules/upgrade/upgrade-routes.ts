/**
 * `/api-bms/upgrade/*` (issue 16 item 3, `/upgradeRecord`, `/upgradeRecordDetail`; contract
 * `endpoints.upgrade`, shapes api/firmware.ts): upgrade batches of firmware packages.
 *
 * | call       | needs                   | body                                          | answers                         |
 * |------------|-------------------------|-----------------------------------------------|---------------------------------|
 * | candidates | firmware:upgrade:create | packageId, siteId?, companyId?, model?, currentVersion?, keyword?, includeOffline | devices with their exclusion |
 * | create     | firmware:upgrade:create | packageId, deviceIds, waves, threshold, timeouts, deadlineAt, limits | {id}              |
 * | pageList   | firmware:upgrade:list   | pageNum, pageSize, keyword?, state?, packageId? | {list, total}, newest first   |
 * | detail     | firmware:upgrade:list   | id                                            | settings and every device       |
 * | retry      | firmware:upgrade:manage | id, deviceIds?                                | {count}                         |
 * | cancel     | firmware:upgrade:manage | id, deviceIds?                                | {count}                         |
 * | pause      | firmware:upgrade:manage | id                                            | the batch row                   |
 * | resume     | firmware:upgrade:manage | id                                            | the batch row                   |
 *
 * Errors: modules/upgrade/upgrade-service.ts (3061, 7037–7042, 3030). create, retry, cancel,
 * pause and resume are audited (endpoint table).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { UpgradeService } from './upgrade-service';

const calls = endpoints.upgrade;

export const upgradeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new UpgradeService(app.db, app.upgrades, app.upgrades.clock);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  route(app, calls.candidates, async (request) =>
    ok(request, await service.candidates(await scopeOf(request), request.body)),
  );

  route(app, calls.create, async (request) => {
    const { userInfo: _u, ...settings } = request.body;
    const created = await service.create(await scopeOf(request), request.auth, request.body, request.lang);
    recordChange(request, { targetId: created.id, after: settings });
    return ok(request, created);
  });

  route(app, calls.pageList, async (request) =>
    ok(request, await service.pageList(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.retry, async (request) => {
    recordChange(request, {
      targetId: request.body.id,
      after: { deviceIds: request.body.deviceIds ?? 'all' },
    });
    const answer = await service.retry(await scopeOf(request), request.body.id, request.body.deviceIds);
    recordChange(request, { after: { deviceIds: request.body.deviceIds ?? 'all', count: answer.count } });
    return ok(request, answer);
  });

  route(app, calls.cancel, async (request) => {
    recordChange(request, {
      targetId: request.body.id,
      after: { deviceIds: request.body.deviceIds ?? 'all' },
    });
    const answer = await service.cancel(
      await scopeOf(request),
      request.body.id,
      request.body.deviceIds,
      request.lang,
    );
    recordChange(request, { after: { deviceIds: request.body.deviceIds ?? 'all', count: answer.count } });
    return ok(request, answer);
  });

  route(app, calls.pause, async (request) => {
    recordChange(request, { targetId: request.body.id });
    return ok(request, await service.pause(await scopeOf(request), request.body.id, request.lang));
  });

  route(app, calls.resume, async (request) => {
    recordChange(request, { targetId: request.body.id });
    return ok(request, await service.resume(await scopeOf(request), request.body.id, request.lang));
  });
};
