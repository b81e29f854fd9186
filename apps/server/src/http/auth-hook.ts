/**
 * Authentication of calls: every `/api-bms` route needs a valid X-Token unless it declares
 * `config: { public: true }` (sign-in, token refresh, user info with a login ticket). A route
 * that declares `config: { permission }` also needs that permission from the caller's roles.
 * The caller is then available as `request.auth`.
 */
import { allows, ErrorCode, TOKEN_HEADER } from '@ess/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext, SessionService } from '../auth/session-service';
import type { Db } from '../db/database';
import { menuAccess, permissionsOf } from '../modules/menu/menu-service';
import { ApiError } from './api-error';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no X-Token. */
    public?: boolean;
    /** Permission string (`module:resource:action`) the caller's roles must grant; 5034 otherwise. */
    permission?: string;
  }
  interface FastifyRequest {
    /** The caller, set for every non-public route. */
    auth: AuthContext;
  }
}

/** The X-Token header of a request, if any. */
export function tokenOf(request: FastifyRequest): string | undefined {
  const value = request.headers[TOKEN_HEADER.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function registerAuthHook(app: FastifyInstance, sessions: SessionService, db: Db): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('preValidation', async (request) => {
    const { public: isPublic, permission } = request.routeOptions.config;
    if (isPublic) return;
    request.auth = await sessions.authenticate(tokenOf(request));
    if (permission && !allows(permissionsOf(await menuAccess(db, request.auth.employeeId)), permission)) {
      throw new ApiError(ErrorCode.NO_PERMISSION);
    }
  });
}
