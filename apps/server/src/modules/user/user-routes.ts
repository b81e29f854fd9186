/**
 * `/api-bms/user/*` (spec §7): login, getUserInfo, getLanguageMenu, refreshToken, loginOut,
 * getPermission; ours: acceptInvitation, declineInvitation (docs/api.md "Adding an existing
 * account"). Every body is schema-validated (bad input → -100 naming the field); answers
 * are `{code, msg, data}` with HTTP 200. The session handshake is described in
 * auth/session-service.ts and docs/api.md.
 */
import { ErrorCode, endpoints, fromServerLanguage } from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { recordChange } from '../../access/audit';
import { tokenOf } from '../../access/auth-hook';
import { menuAccess, permissionsOf, toMenuTree } from '../../access/menu-access';
import { ApiError } from '../../core/http/api-error';
import { route } from '../../core/http/endpoint';
import { ok } from '../../core/http/envelope';
import { buildUserInfo } from './user-info';

const calls = endpoints.user;

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, sessions } = app;
  const clientOf = (request: { ip: string; headers: Record<string, unknown> }) => ({
    ip: request.ip,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
  });

  route(app, calls.login, async (request) => {
    // The log entry belongs to the account's (first) company, so its administrators see it.
    recordChange(request, { companyId: await sessions.firstCompanyOfAccount(request.body.account) });
    return ok(request, await sessions.login(request.body, clientOf(request)));
  });

  route(app, calls.getUserInfo, async (request) => {
    const body = request.body;
    if (body.loginTicket) {
      const { context, tokens } = await sessions.openSession(
        { ...body, loginTicket: body.loginTicket },
        clientOf(request),
      );
      return ok(request, await buildUserInfo(db, sessions, context, tokens, request.lang));
    }
    const token = tokenOf(request);
    const context = await sessions.authenticate(token);
    if (context.userId !== body.userId || context.companyId !== body.companyId) {
      throw new ApiError(ErrorCode.TOKEN_OBTAIN_FAILED);
    }
    const tokens = { token: token!, refreshToken: null, tokenExpiresAt: context.accessExpiresAt };
    return ok(request, await buildUserInfo(db, sessions, context, tokens, request.lang));
  });

  route(app, calls.getLanguageMenu, async (request) => {
    const access = await menuAccess(db, request.auth.employeeId);
    return ok(request, { menuList: toMenuTree(access.rows, fromServerLanguage(request.body.language)) });
  });

  route(app, calls.refreshToken, async (request) => ok(request, await sessions.refresh(request.body)));

  route(app, calls.loginOut, async (request) => {
    await sessions.logout(request.auth);
    return ok(request, null);
  });

  route(app, calls.getPermission, async (request) => {
    return ok(request, { permissions: permissionsOf(await menuAccess(db, request.auth.employeeId)) });
  });

  /** The account's company pick and open invitations after answering one. */
  const afterAnswer = async (userId: number) => ({
    companyList: await sessions.companyList(userId),
    invitations: await sessions.invitations(userId),
  });

  route(app, calls.acceptInvitation, async (request) => {
    const { companyId } = request.body;
    const employeeId = await sessions.answerInvitation(request.auth.userId, companyId, true);
    // Logged where the membership belongs: the inviting company.
    recordChange(request, { companyId, targetId: employeeId, after: { companyId, invitation: 'accepted' } });
    return ok(request, await afterAnswer(request.auth.userId));
  });

  route(app, calls.declineInvitation, async (request) => {
    const { companyId } = request.body;
    const employeeId = await sessions.answerInvitation(request.auth.userId, companyId, false);
    // Neither the inviting company (it would learn the account exists) nor the caller's own
    // (it would learn of the invitation): the entry belongs to no company.
    recordChange(request, {
      companyId: null,
      targetId: employeeId,
      after: { companyId, invitation: 'declined' },
    });
    return ok(request, await afterAnswer(request.auth.userId));
  });
};
