/**
 * `/api-bms/tou/*` (issue 6; paths ours, packages/contract paths.ts `TouPath`): ToU schemes for
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
import {
  createdIdResponse,
  DEFAULT_SITE_TIMEZONE,
  envelopeOf,
  idRequest,
  localTimeOf,
  Perm,
  TouPath,
  touPushRequest,
  touPushRowSchema,
  touPushStatusResponse,
  touSchemeAssignRequest,
  touSchemeDetailSchema,
  touSchemeListRequest,
  touSchemeListResponse,
  touSchemeSaveRequest,
  touSchemeUpdateRequest,
  touSchemeUpdateResponse,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import type { TouPushService } from '../../devices/tou-push';
import { TouService } from './tou-service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Delivery of ToU schemes to the EMS; `start(devices)` once the device side runs. */
    touPush: TouPushService;
  }
}

const tags = ['tou'];
const audit = (verb: string) => ({ action: `tou.${verb}`, targetType: 'tou_scheme' });

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

  app.post(
    TouPath.pageList,
    {
      config: { permission: Perm.touList },
      schema: {
        tags,
        summary:
          'ToU schemes in the caller’s companies, with plan counts and the number of sites running each',
        body: touSchemeListRequest,
        response: { 200: envelopeOf(touSchemeListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await service.list(await scopeOf(request), request.body)),
  );

  app.post(
    TouPath.detail,
    {
      config: { permission: Perm.touList },
      schema: {
        tags,
        summary: 'One ToU scheme: its document and the sites running it. Errors: 3090',
        body: idRequest,
        response: { 200: envelopeOf(touSchemeDetailSchema.nullable()) },
      },
    },
    async (request) => ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  app.post(
    TouPath.save,
    {
      config: { permission: Perm.touSave, audit: audit('save') },
      schema: {
        tags,
        summary: 'Create a ToU scheme',
        description:
          'Errors: 3070–3089, 3094 the first plan rule broken (msg says where), 3091 name exists, 6000 company outside the scope.',
        body: touSchemeSaveRequest,
        response: { 200: envelopeOf(createdIdResponse.nullable()) },
      },
    },
    async (request) => {
      const { name, document } = request.body;
      const companyId = request.body.companyId ?? request.auth.companyId;
      const row = await service.create(
        await scopeOf(request),
        { companyId, name, document },
        touToday(),
        request.lang,
      );
      recordChange(request, { targetId: row.id, after: { companyId, name, version: row.version, document } });
      return ok(request, { id: row.id });
    },
  );

  app.post(
    TouPath.update,
    {
      config: { permission: Perm.touSave, audit: audit('update') },
      schema: {
        tags,
        summary: 'Save a ToU scheme over the version read; sites running it get it pushed',
        description:
          'Errors: 3090 not found, 3070–3089, 3094 the first plan rule broken, 3091 name exists, 3093 saved by someone else meanwhile.',
        body: touSchemeUpdateRequest,
        response: { 200: envelopeOf(touSchemeUpdateResponse.nullable()) },
      },
    },
    async (request) => {
      const change = await service.update(await scopeOf(request), request.body, touToday(), request.lang);
      recordChange(request, { targetId: request.body.id, before: change.before, after: change.after });
      push.deliver(change.siteIds);
      return ok(request, { version: change.after.version });
    },
  );

  app.post(
    TouPath.delete,
    {
      config: { permission: Perm.touDelete, audit: audit('delete') },
      schema: {
        tags,
        summary: 'Delete a ToU scheme no site runs. Errors: 3090 not found, 3092 sites still run it',
        body: idRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      const before = await service.remove(await scopeOf(request), request.body.id);
      recordChange(request, { targetId: request.body.id, before, after: null });
      return ok(request, null);
    },
  );

  app.post(
    TouPath.assign,
    {
      config: { permission: Perm.touPush, audit: audit('assign') },
      schema: {
        tags,
        summary: 'Set exactly the sites that run a ToU scheme; newly assigned sites get it pushed',
        description:
          'Sites are moved from other schemes. Errors: 3090 scheme not found, 3036 a site outside the scope or not of the scheme’s company (or one below it).',
        body: touSchemeAssignRequest,
        response: { 200: envelopeOf(touPushStatusResponse.nullable()) },
      },
    },
    async (request) => {
      const change = await service.assign(await scopeOf(request), request.body.id, request.body.siteIds);
      recordChange(request, {
        targetId: request.body.id,
        before: { siteIds: change.before },
        after: { siteIds: change.after },
      });
      push.deliver(change.due);
      return ok(request, { list: await push.statusOfSites(change.after) });
    },
  );

  app.post(
    TouPath.pushStatus,
    {
      config: { permission: Perm.touList },
      schema: {
        tags,
        summary:
          'Delivery of a ToU scheme per site: pending, sent, applied (with time) or failed (with reason)',
        description: 'Body: the scheme id. Errors: 3090.',
        body: idRequest,
        response: { 200: envelopeOf(touPushStatusResponse.nullable()) },
      },
    },
    async (request) => {
      const scope = await scopeOf(request);
      const scheme = await service.requireScheme(scope, request.body.id);
      return ok(request, { list: await push.statusOfScheme(scope, scheme.id) });
    },
  );

  app.post(
    TouPath.push,
    {
      config: { permission: Perm.touPush, audit: { action: 'tou.push', targetType: 'site' } },
      schema: {
        tags,
        summary: 'Push a site’s ToU scheme to its EMS now and wait for the reply (up to 10 s)',
        description:
          'Errors: 3036 site not found, 3060 the site runs no scheme, 3033 no gateway or it never connected, 3034 gateway offline (sent when it reconnects), 3035 the send failed, was refused or timed out (msg gives the reason).',
        body: touPushRequest,
        response: { 200: envelopeOf(touPushRowSchema.nullable()) },
      },
    },
    async (request) => {
      const target = await sites.requireSite(await scopeOf(request), request.body.siteId);
      recordChange(request, { targetId: target.id });
      return ok(request, await push.pushNow(target.id));
    },
  );
};
