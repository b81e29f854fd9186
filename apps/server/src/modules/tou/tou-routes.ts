/**
 * `/api-bms/tou/*` (paths ours, contract `endpoints.tou`): ToU schemes for
 * the time tariffs (`/timetariff`) and charge strategy (`/chargestrategy`) screens, their sites,
 * and delivery to the sites' EMS.
 *
 * | call       | needs             | body                           | answers                 |
 * |------------|-------------------|--------------------------------|-------------------------|
 * | pageList   | tou:scheme:list   | pageNum, pageSize, keyword, companyId | {list, total}    |
 * | detail     | tou:scheme:list   | {id}                           | the scheme, its sites   |
 * | save       | tou:scheme:save   | companyId?, name, document     | {id}                    |
 * | update     | tou:scheme:save   | id, version, name, document    | {version}               |
 * | delete     | tou:scheme:delete | {id}                           | null                    |
 * | assign     | tou:scheme:push   | id, siteIds                    | {list} delivery rows    |
 * | pushStatus | tou:scheme:list   | {id}                           | {list} delivery rows    |
 * | push       | tou:scheme:push   | {siteId}                       | the site's delivery row |
 *
 * Documents are checked with the contract's `validateScheme` (spec §5, §9) against today in
 * China Standard Time (DEFAULT_SITE_TIMEZONE, the zone of every tariff we ship): the first issue
 * answers with its code (3070–3094), the catalogue text and where it is; nothing is written.
 * Saving a scheme that sites run and assigning sites send it in the background (the answer does
 * not wait); `push` waits for the EMS (3060, 3033, 3034, 3035). Out of scope: 3090 / 3036.
 */
import { DEFAULT_SITE_TIMEZONE, endpoints, localTimeOf } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { TouService } from './tou-service';

const calls = endpoints.tou;

/** Today's date (`YYYY-MM-DD`) in China Standard Time: "the current year" of rule 3076. */
export function touToday(now = Date.now()): string {
  return localTimeOf(now, DEFAULT_SITE_TIMEZONE).date;
}

export const touRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new TouService(app.db);
  const sites = app.registry;
  const push = app.touPush;
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  route(app, calls.pageList, async (request) =>
    ok(request, await service.list(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.save, async (request) => {
    const { name, document, twoPart } = request.body;
    const companyId = request.body.companyId ?? request.auth.companyId;
    const row = await service.create(
      await scopeOf(request),
      { companyId, name, document, twoPart },
      touToday(),
      request.lang,
    );
    recordChange(request, { targetId: row.id, after: { companyId, name, version: row.version, document } });
    return ok(request, { id: row.id });
  });

  route(app, calls.update, async (request) => {
    const change = await service.update(await scopeOf(request), request.body, touToday(), request.lang, {
      effectiveFrom: request.body.effectiveFrom ?? null,
      createdBy: `employee ${request.auth.employeeId}`,
    });
    recordChange(request, { targetId: request.body.id, before: change.before, after: change.after });
    push.deliver(change.siteIds);
    return ok(request, { version: change.after.version });
  });

  route(app, calls.delete, async (request) => {
    const before = await service.remove(await scopeOf(request), request.body.id);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, calls.assign, async (request) => {
    const change = await service.assign(await scopeOf(request), request.body.id, request.body.siteIds, {
      effectiveFrom: request.body.effectiveFrom ?? null,
      createdBy: `employee ${request.auth.employeeId}`,
    });
    recordChange(request, {
      targetId: request.body.id,
      before: { siteIds: change.before },
      after: { siteIds: change.after },
    });
    push.deliver(change.due);
    return ok(request, { list: await push.statusOfSites(change.after) });
  });

  route(app, calls.pushStatus, async (request) => {
    const scope = await scopeOf(request);
    const scheme = await service.requireScheme(scope, request.body.id);
    return ok(request, { list: await push.statusOfScheme(scope, scheme.id) });
  });

  route(app, calls.push, async (request) => {
    const target = await sites.requireSite(await scopeOf(request), request.body.siteId);
    recordChange(request, { targetId: target.id });
    return ok(request, await push.pushNow(target.id));
  });
};
