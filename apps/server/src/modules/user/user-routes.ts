/**
 * `/api-bms/user/*` (spec §7): login, getUserInfo, getLanguageMenu, refreshToken, loginOut,
 * getPermission. Every body is schema-validated (bad input → -100 naming the field); answers
 * are `{code, msg, data}` with HTTP 200. The session handshake is described in
 * auth/session-service.ts and docs/api.md.
 */
import {
  ApiPath,
  ErrorCode,
  envelopeOf,
  fromServerLanguage,
  getLanguageMenuRequest,
  getLanguageMenuResponse,
  getPermissionRequest,
  getPermissionResponse,
  getUserInfoRequest,
  loginOutRequest,
  loginRequest,
  loginResponse,
  refreshTokenRequest,
  refreshTokenResponse,
  userInfoResponse,
} from '@ess/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordChange } from '../../access/audit';
import { tokenOf } from '../../access/auth-hook';
import { menuAccess, permissionsOf, toMenuTree } from '../../access/menu-access';
import { ApiError } from '../../core/http/api-error';
import { ok } from '../../core/http/envelope';
import { buildUserInfo } from './user-info';

const tags = ['user'];

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, sessions } = app;
  const clientOf = (request: { ip: string; headers: Record<string, unknown> }) => ({
    ip: request.ip,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
  });

  app.post(
    ApiPath.login,
    {
      config: { public: true, audit: { action: 'user.login', targetType: 'account' } },
      schema: {
        tags,
        summary: 'Sign in: check account and password digest; answer companies and a login ticket',
        description:
          'Errors: 5080 unknown account or wrong password, 5052 employee disabled, 6001 company disabled, 5082 throttled.',
        body: loginRequest,
        response: { 200: envelopeOf(loginResponse.nullable()) },
      },
    },
    async (request) => {
      // The log entry belongs to the account's (first) company, so its administrators see it.
      recordChange(request, { companyId: await sessions.firstCompanyOfAccount(request.body.account) });
      return ok(request, await sessions.login(request.body, clientOf(request)));
    },
  );

  app.post(
    ApiPath.getUserInfo,
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'User info: open a session with a login ticket, or reload it with X-Token',
        description:
          'With loginTicket: 5081 ticket unknown/used/expired, 5051 not an employee of companyId, 5052, 6001. ' +
          'With X-Token: the token errors (9999, 50012, 50014, -102) and 5081 when userId/companyId are not the session’s.',
        body: getUserInfoRequest,
        response: { 200: envelopeOf(userInfoResponse.nullable()) },
      },
    },
    async (request) => {
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
    },
  );

  app.post(
    ApiPath.getLanguageMenu,
    {
      config: { signedIn: true },
      schema: {
        tags,
        summary: "The caller's menu tree in 'cn' (Chinese) or 'en', filtered by the caller's roles",
        body: getLanguageMenuRequest,
        response: { 200: envelopeOf(getLanguageMenuResponse.nullable()) },
      },
    },
    async (request) => {
      const access = await menuAccess(db, request.auth.employeeId);
      return ok(request, { menuList: toMenuTree(access.rows, fromServerLanguage(request.body.language)) });
    },
  );

  app.post(
    ApiPath.refreshToken,
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Rotate the refresh token and issue a new access token',
        description:
          'Errors: 9999 unknown token, 50012 session revoked or rotated token reused (the session is then revoked), -102 session past its absolute end.',
        body: refreshTokenRequest,
        response: { 200: envelopeOf(refreshTokenResponse.nullable()) },
      },
    },
    async (request) => ok(request, await sessions.refresh(request.body)),
  );

  app.post(
    ApiPath.loginOut,
    {
      config: { signedIn: true, audit: { action: 'user.logout', targetType: 'session' } },
      schema: {
        tags,
        summary: "Log out: revoke this terminal's session",
        body: loginOutRequest,
        response: { 200: envelopeOf(z.null()) },
      },
    },
    async (request) => {
      await sessions.logout(request.auth);
      return ok(request, null);
    },
  );

  app.post(
    ApiPath.getPermission,
    {
      config: { signedIn: true },
      schema: {
        tags,
        summary: "The caller's permission strings (`module:resource:action`; administrators also `*:*:*`)",
        body: getPermissionRequest,
        response: { 200: envelopeOf(getPermissionResponse.nullable()) },
      },
    },
    async (request) => {
      return ok(request, { permissions: permissionsOf(await menuAccess(db, request.auth.employeeId)) });
    },
  );
};
