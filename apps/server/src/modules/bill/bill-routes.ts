/**
 * `/api-bms/bill/*` (contract `endpoints.bill`; states, versions and refusals in api/bill.ts, the
 * arithmetic in money/bill.ts; issue 17 item 5).
 *
 * | call       | permission        | body                      | answers               |
 * |------------|-------------------|---------------------------|-----------------------|
 * | pageList   | bill:bill:list    | pageNum, pageSize, projectId?, month?, state? | {list, total} |
 * | detail     | bill:bill:list    | {id}                      | the bill + document   |
 * | draft      | bill:bill:draft   | {projectId, month?}       | {id, version}         |
 * | confirm    | bill:bill:confirm | {id}                      | null                  |
 * | correct    | bill:bill:correct | {id, reason}              | {id, version}         |
 * | exportXlsx | bill:bill:export  | {id}                      | the xlsx file         |
 *
 * Scoped by company: a bill outside the scope answers 7062, a project 7001.
 */
import { endpoints, XLSX_MIME } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { fileRoute, route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { BillService } from './bill-service';
import { billXlsx } from './bill-xlsx';

const calls = endpoints.bill;

export const billRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = new BillService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  const actorOf = (request: { auth: { employeeId: number } }) => ({ employeeId: request.auth.employeeId });

  route(app, calls.pageList, async (request) =>
    ok(request, await service.pageList(await scopeOf(request), request.body)),
  );

  route(app, calls.detail, async (request) =>
    ok(request, await service.detail(await scopeOf(request), request.body.id)),
  );

  route(app, calls.draft, async (request) => {
    const { projectId } = request.body;
    const month = request.body.month ?? (await service.defaultMonth(projectId, Date.now()));
    const out = await service.draft(await scopeOf(request), projectId, month, actorOf(request), request.lang);
    recordChange(request, { targetId: out.id, after: { projectId, month, version: out.version } });
    return ok(request, out);
  });

  route(app, calls.confirm, async (request) => {
    const row = await service.confirm(await scopeOf(request), request.body.id, actorOf(request));
    recordChange(request, {
      targetId: row.id,
      before: { state: 'draft' },
      after: { state: 'confirmed', month: row.month, version: row.version, netBenefitCny: row.netBenefitCny },
    });
    return ok(request, null);
  });

  route(app, calls.correct, async (request) => {
    const { id, reason } = request.body;
    const out = await service.correct(await scopeOf(request), id, reason, actorOf(request), request.lang);
    recordChange(request, { targetId: out.id, after: { correctionOf: id, version: out.version, reason } });
    return ok(request, out);
  });

  fileRoute(app, calls.exportXlsx, async (request, reply) => {
    const b = await service.detail(await scopeOf(request), request.body.id);
    const bytes = await billXlsx(b, request.lang);
    return reply
      .header('content-type', XLSX_MIME)
      .header(
        'content-disposition',
        `attachment; filename="bill-${b.projectId}-${b.month}-v${b.version}.xlsx"`,
      )
      .header('cache-control', 'no-store')
      .send(bytes);
  });
};
