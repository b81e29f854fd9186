/**
 * `/api-bms/debug/*` (contract `endpoints.debug`, rules in api/debug.ts): transparent debugging
 * of a gateway (`/deviceDebugging`, spec §2). Every call needs `device:debug:use`.
 *
 * | call   | body                                                  | answers                      |
 * |--------|-------------------------------------------------------|------------------------------|
 * | open   | {gatewayId}                                           | the session                  |
 * | send   | sessionId, port, frame (modbus / hex), timeoutMs, confirmWrite | {frame, expiresAt}  |
 * | close  | {sessionId}                                           | null                         |
 * | frames | gatewayId, pageNum, pageSize                          | {list, total}, newest first  |
 *
 * Codes: modules/debug/debug-service.ts. A malformed frame answers -100 naming the field
 * (`frame.hex`, `frame.request.count`…) with the contract's frame-error text in the caller's
 * language: a `preValidation` hook of this module checks the frame before the schema does, whose
 * own message would be English (or zod's generic text in Chinese).
 *
 * Operation log (access/audit.ts): open, send and close are recorded with the gateway as the
 * target (`device`, its id); `send`'s `after` holds the session, port, the request as hex (also
 * for a frame built from a Modbus request), whether it writes and was confirmed, the response as
 * hex, timeout and round trip — a refused frame still shows its hex.
 */
import { endpoints } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { companyScope } from '../../access/company-scope';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { checkRawFrame } from './debug-frames';

const calls = endpoints.debug;

export const debugRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.debugSessions;
  const scopeOf = (request: { auth: { companyId: number; employeeId: number } }) =>
    companyScope(app.db, request.auth);

  // Only this module's routes (an encapsulated plugin); after the scope's auth hook.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.url === calls.send.path) checkRawFrame(request.body, request.lang);
  });

  route(app, calls.open, async (request) => {
    recordChange(request, { targetId: request.body.gatewayId });
    const session = await service.open(request.auth, await scopeOf(request), request.body.gatewayId);
    recordChange(request, {
      after: { gatewayId: session.gatewayId, sessionId: session.sessionId, expiresAt: session.expiresAt },
    });
    return ok(request, session);
  });

  route(app, calls.send, async (request) => {
    const answer = await service.send(
      request.auth,
      await scopeOf(request),
      request.body,
      request.lang,
      (change) => recordChange(request, change),
    );
    return ok(request, answer);
  });

  route(app, calls.close, async (request) => {
    recordChange(request, { after: { sessionId: request.body.sessionId } });
    const { gatewayId } = await service.close(request.auth, request.body.sessionId);
    recordChange(request, { targetId: gatewayId });
    return ok(request, null);
  });

  route(app, calls.frames, async (request) =>
    ok(request, await service.frames(await scopeOf(request), request.body, request.lang)),
  );
};
