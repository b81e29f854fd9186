/**
 * `/api-bms/alarm/*` and `/api-bms/mail/*` (contract api/alarm.ts, docs/api.md
 * "Alarms"): active alarms, the event history, acknowledgement, filter options and the mail
 * outbox. Codes: 3100 alarm not found, 3101 already acknowledged, 3103 mail not found,
 * 3120–3122 time range.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope, dataScopeOf } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { AlarmService } from './alarm-service';

export const alarmRoutes: FastifyPluginAsyncZod = async (app) => {
  const alarms = new AlarmService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  /** The full data scope: the outbox is also limited by the department part (mails name employees). */
  const dataScope = (request: { auth: { companyId: number; employeeId: number } }) =>
    dataScopeOf(app.db, request.auth);

  route(app, endpoints.alarm.activeList, async (request) =>
    ok(request, await alarms.activeList(await scopeOf(request), request.body)),
  );

  route(app, endpoints.alarm.historyList, async (request) =>
    ok(request, await alarms.historyList(await scopeOf(request), request.body)),
  );

  route(app, endpoints.alarm.ack, async (request) => {
    const result = await alarms.acknowledge(
      await scopeOf(request),
      request.auth.employeeId,
      request.body.ids,
    );
    recordChange(request, { targetId: result.acknowledged.join(','), after: result });
    return ok(request, result);
  });

  route(app, endpoints.alarm.filterOptions, async (request) =>
    ok(request, await alarms.filterOptions(await scopeOf(request))),
  );

  route(app, endpoints.mail.outboxList, async (request) =>
    ok(request, {
      ...(await alarms.outboxList(await dataScope(request), request.body)),
      smtpConfigured: app.alarmMail.smtpConfigured,
    }),
  );

  route(app, endpoints.mail.outboxDetail, async (request) =>
    ok(request, await alarms.outboxDetail(await dataScope(request), request.body.id)),
  );
};
