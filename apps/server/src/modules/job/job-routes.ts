/**
 * `/api-bms/job/*` (contract `endpoints.job`, rules and refusals in api/job.ts; issue 18).
 *
 * | call     | permission               | body                                  | answers                  |
 * |----------|--------------------------|---------------------------------------|--------------------------|
 * | pageList | monitor:job:list         | pageNum, pageSize, keyword, group, status | {list, total} (next fire, last run) |
 * | detail   | monitor:job:list         | {id}                                  | the task                 |
 * | kinds    | monitor:job:list         | {}                                    | the registry's kinds     |
 * | save     | monitor:job:save         | the task's fields                     | {id}                     |
 * | update   | monitor:job:save         | {id, …the task's fields}              | the task                 |
 * | delete   | monitor:job:delete       | {id}                                  | null                     |
 * | pause    | monitor:job:changeStatus | {id}                                  | the task                 |
 * | recover  | monitor:job:changeStatus | {id}                                  | the task                 |
 * | trigger  | monitor:job:trigger      | {id}                                  | {runId}                  |
 * | runs     | monitor:job:list         | pageNum, pageSize, jobId?, state?     | {list, total}            |
 *
 * Platform-only: the permissions come only from the platform-only menu 150 (drizzle
 * 0024_seed_job_menus.sql), so a company's user is refused by the auth hook (-403) like the menu
 * management calls. Codes 2000–2007 with the reason after the catalogue text (job-service.ts).
 * Operation log: every write with the task as target (before → after; trigger: the run id).
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { JobService } from './job-service';

const calls = endpoints.job;

export const jobRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new JobService(app.db, app.taskKinds, app.scheduler);

  route(app, calls.pageList, async (request) => ok(request, await service.pageList(request.body)));

  route(app, calls.detail, async (request) => ok(request, await service.detail(request.body.id)));

  route(app, calls.kinds, async (request) => ok(request, app.taskKinds.list()));

  route(app, calls.save, async (request) => {
    const { userInfo: _, ...input } = request.body;
    const after = await service.save(input, request.lang);
    recordChange(request, { targetId: after.id, before: null, after });
    return ok(request, { id: after.id });
  });

  route(app, calls.update, async (request) => {
    const { userInfo: _, id, ...input } = request.body;
    const { before, after } = await service.update(id, input, request.lang);
    recordChange(request, { targetId: id, before, after });
    return ok(request, after);
  });

  route(app, calls.delete, async (request) => {
    const before = await service.delete(request.body.id, request.lang);
    recordChange(request, { targetId: request.body.id, before, after: null });
    return ok(request, null);
  });

  route(app, calls.pause, async (request) => {
    const { before, after } = await service.setStatus(request.body.id, 'pause', request.lang);
    recordChange(request, { targetId: request.body.id, before, after });
    return ok(request, after);
  });

  route(app, calls.recover, async (request) => {
    const { before, after } = await service.setStatus(request.body.id, 'normal', request.lang);
    recordChange(request, { targetId: request.body.id, before, after });
    return ok(request, after);
  });

  route(app, calls.trigger, async (request) => {
    const answer = await service.trigger(request.body.id, request.lang);
    recordChange(request, { targetId: request.body.id, after: answer });
    return ok(request, answer);
  });

  route(app, calls.runs, async (request) => ok(request, await service.runs(request.body)));
};
