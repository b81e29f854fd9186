/**
 * `/api-bms/device/deadLetterPageList` (issue 13): device messages the database refused for a
 * reason in their data (devices/ingest.ts stores them in `device_dead_letter`), newest first,
 * within the caller's company scope — letters of a gateway no longer known (no company) only
 * for a caller who sees every company. Needs `monitor:deadletter:list`. Reads are not audited.
 */
import {
  type DeadLetterKind,
  type DeadLetterListRequest,
  type DeadLetterRow,
  endpoints,
} from '@ess/contract';
import { and, count, desc, eq, ilike, or } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type CompanyScope, companyScope, inScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { company, deviceDeadLetter, site } from '../../core/db/schema';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';

/** One page of dead letters matching the filters, within the scope, newest first. */
export async function listDeadLetters(
  db: Db,
  scope: CompanyScope,
  q: DeadLetterListRequest,
): Promise<{ list: DeadLetterRow[]; total: number }> {
  const where = and(
    inScope(scope, deviceDeadLetter.companyId),
    q.kind ? eq(deviceDeadLetter.kind, q.kind) : undefined,
    q.siteId ? eq(deviceDeadLetter.siteId, q.siteId) : undefined,
    q.keyword
      ? or(
          ilike(deviceDeadLetter.gatewaySn, likePattern(q.keyword)),
          ilike(deviceDeadLetter.deviceSn, likePattern(q.keyword)),
        )
      : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(deviceDeadLetter).where(where);
  const rows = await db
    .select({
      letter: deviceDeadLetter,
      companyName: company.name,
      siteName: site.name,
      timezone: site.timezone,
    })
    .from(deviceDeadLetter)
    .leftJoin(company, eq(company.id, deviceDeadLetter.companyId))
    .leftJoin(site, eq(site.id, deviceDeadLetter.siteId))
    .where(where)
    .orderBy(desc(deviceDeadLetter.receivedAt), desc(deviceDeadLetter.id))
    .limit(q.pageSize)
    .offset((q.pageNum - 1) * q.pageSize);
  const list = rows.map(({ letter, companyName, siteName, timezone }) => ({
    id: letter.id,
    receivedAt: letter.receivedAt.getTime(),
    companyId: letter.companyId,
    companyName,
    siteId: letter.siteId,
    siteName,
    timezone,
    gatewaySn: letter.gatewaySn,
    deviceSn: letter.deviceSn,
    kind: letter.kind as DeadLetterKind,
    payload: letter.payload,
    error: letter.error,
    errorCode: letter.errorCode,
  }));
  return { list, total: Number(total) };
}

export const deadLetterRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, endpoints.device.deadLetterPageList, async (request) =>
    ok(request, await listDeadLetters(app.db, await companyScope(app.db, request.auth), request.body)),
  );
};
