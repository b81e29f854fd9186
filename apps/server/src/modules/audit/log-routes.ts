/**
 * `/api-bms/log/pageList` (ours): the operation log, newest first, within the
 * caller's company scope (entries without a company, e.g. a failed sign-in of an unknown
 * account, only for a caller who sees every company). Needs `system:log:list`.
 */
import { endpoints, type OperationLogListRequest, type OperationLogRow } from '@ess/contract';
import { and, count, desc, eq, gte, ilike, lt, ne, or } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type CompanyScope, companyScope, inScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { company, operationLog } from '../../core/db/schema';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';

/** One page of log entries matching the filters, within the scope. */
export async function listOperationLog(
  db: Db,
  scope: CompanyScope,
  q: OperationLogListRequest,
): Promise<{ list: OperationLogRow[]; total: number }> {
  const where = and(
    inScope(scope, operationLog.companyId),
    q.operator
      ? or(
          ilike(operationLog.account, likePattern(q.operator)),
          ilike(operationLog.operatorName, likePattern(q.operator)),
        )
      : undefined,
    q.action ? eq(operationLog.action, q.action) : undefined,
    q.targetType ? eq(operationLog.targetType, q.targetType) : undefined,
    q.result === 'success'
      ? eq(operationLog.code, 0)
      : q.result === 'failure'
        ? ne(operationLog.code, 0)
        : undefined,
    q.from !== undefined ? gte(operationLog.ts, new Date(q.from)) : undefined,
    q.to !== undefined ? lt(operationLog.ts, new Date(q.to)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(operationLog).where(where);
  const rows = await db
    .select({ log: operationLog, companyName: company.name })
    .from(operationLog)
    .leftJoin(company, eq(company.id, operationLog.companyId))
    .where(where)
    .orderBy(desc(operationLog.id))
    .limit(q.pageSize)
    .offset((q.pageNum - 1) * q.pageSize);
  const list = rows.map(({ log, companyName }) => ({
    id: log.id,
    ts: log.ts.toISOString(),
    companyId: log.companyId,
    companyName,
    employeeId: log.employeeId,
    account: log.account,
    operatorName: log.operatorName,
    action: log.action,
    targetType: log.targetType,
    targetId: log.targetId,
    before: log.before ?? null,
    after: log.after ?? null,
    code: log.code,
    ip: log.ip,
  }));
  return { list, total: Number(total) };
}

export const logRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, endpoints.log.pageList, async (request) =>
    ok(request, await listOperationLog(app.db, await companyScope(app.db, request.auth), request.body)),
  );
};
