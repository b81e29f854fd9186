/**
 * Authentication of calls: every `/api-bms` route needs a valid X-Token unless it declares
 * `config: { public: true }` (sign-in, token refresh, user info with a login ticket).
 * The caller is then available as `request.auth`.
 */
import { TOKEN_HEADER } from '@ess/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext, SessionService } from '../auth/session-service';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no X-Token. */
    public?: boolean;
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

export function registerAuthHook(app: FastifyInstance, sessions: SessionService): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.public) return;
    request.auth = await sessions.authenticate(tokenOf(request));
  });
}
