/**
 * `/api-bms/alarm/*` and `/api-bms/mail/*` (issue 4 item 4; contract api/alarm.ts, docs/api.md
 * "Alarms"): active alarms, the event history, acknowledgement, filter options and the mail
 * outbox. Codes: 3100 alarm not found, 3101 already acknowledged, 3103 mail not found,
 * 3120–3122 time range.
 */
import {
  AlarmPath,
  alarmAckRequest,
  alarmAckResponse,
  alarmActiveListRequest,
  alarmActiveListResponse,
  alarmFilterOptionsRequest,
  alarmFilterOptionsResponse,
  alarmHistoryListRequest,
  alarmHistoryListResponse,
  envelopeOf,
  mailOutboxDetailRequest,
  mailOutboxDetailResponse,
  mailOutboxListRequest,
  mailOutboxListResponse,
  Perm,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope, dataScopeOf } from '../../access/company-scope';
import { ok } from '../../core/http/envelope';
import type { AlarmMailer } from '../../jobs/alarm-mail';
import { AlarmService } from './alarm-service';

declare module 'fastify' {
  interface FastifyInstance {
    alarmMail: AlarmMailer;
  }
}

const tags = ['alarm'];

export const alarmRoutes: FastifyPluginAsyncZod = async (app) => {
  const alarms = new AlarmService(app.db);
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);
  /** The full data scope: the outbox is also limited by the department part (mails name employees). */
  const dataScope = (request: { auth: { companyId: number; employeeId: number } }) =>
    dataScopeOf(app.db, request.auth);

  app.post(
    AlarmPath.activeList,
    {
      config: { permission: Perm.alarmList },
      schema: {
        tags,
        summary:
          'Active alarms in the caller’s companies, newest first (filters: site, device, level, code, keyword, range of raise time, acknowledged). Errors: 3120–3122 range',
        body: alarmActiveListRequest,
        response: { 200: envelopeOf(alarmActiveListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await alarms.activeList(await scopeOf(request), request.body)),
  );

  app.post(
    AlarmPath.historyList,
    {
      config: { permission: Perm.alarmList },
      schema: {
        tags,
        summary:
          'Alarm events (produce, disappear) and EMS online/offline changes, newest first, with the alarm’s state and acknowledgement. Errors: 3120–3122 range',
        body: alarmHistoryListRequest,
        response: { 200: envelopeOf(alarmHistoryListResponse.nullable()) },
      },
    },
    async (request) => ok(request, await alarms.historyList(await scopeOf(request), request.body)),
  );

  app.post(
    AlarmPath.ack,
    {
      config: { permission: Perm.alarmAck, audit: { action: 'alarm.ack', targetType: 'alarm' } },
      schema: {
        tags,
        summary:
          'Acknowledge alarms (who and when are recorded). Errors: 3100 an alarm not found (nothing changed), 3101 all already acknowledged',
        body: alarmAckRequest,
        response: { 200: envelopeOf(alarmAckResponse.nullable()) },
      },
    },
    async (request) => {
      const result = await alarms.acknowledge(
        await scopeOf(request),
        request.auth.employeeId,
        request.body.ids,
      );
      recordChange(request, { targetId: result.acknowledged.join(','), after: result });
      return ok(request, result);
    },
  );

  app.post(
    AlarmPath.filterOptions,
    {
      config: { permission: Perm.alarmList },
      schema: {
        tags,
        summary: 'Sites of the caller’s companies with their devices, for the alarm filters',
        body: alarmFilterOptionsRequest,
        response: { 200: envelopeOf(alarmFilterOptionsResponse.nullable()) },
      },
    },
    async (request) => ok(request, await alarms.filterOptions(await scopeOf(request))),
  );

  app.post(
    AlarmPath.outboxList,
    {
      config: { permission: Perm.mailOutboxList },
      schema: {
        tags: ['mail'],
        summary:
          'Alarm mails to employees of the caller’s data scope (companies; with a department or self data scope only mails to employees of those departments or to oneself), newest first, with delivery state, attempts and last error',
        body: mailOutboxListRequest,
        response: { 200: envelopeOf(mailOutboxListResponse.nullable()) },
      },
    },
    async (request) =>
      ok(request, {
        ...(await alarms.outboxList(await dataScope(request), request.body)),
        smtpConfigured: app.alarmMail.smtpConfigured,
      }),
  );

  app.post(
    AlarmPath.outboxDetail,
    {
      config: { permission: Perm.mailOutboxList },
      schema: {
        tags: ['mail'],
        summary: 'One mail of the outbox with its text. Errors: 3103 not found',
        body: mailOutboxDetailRequest,
        response: { 200: envelopeOf(mailOutboxDetailResponse.nullable()) },
      },
    },
    async (request) => ok(request, await alarms.outboxDetail(await dataScope(request), request.body.id)),
  );
};
