/**
 * Authentication and authorisation of calls (issue 5 "Permissions enforced on the server").
 *
 * Every `/api-bms` route declares exactly one access rule in its `config`, or the server refuses
 * to start (and a test lists the routes):
 *  - `public: true` — no X-Token (sign-in, token refresh, user info with a login ticket);
 *  - `signedIn: true` — any valid X-Token (own settings, own menu, the dashboard, logout);
 *  - `permission: 'module:resource:action'` — a valid X-Token whose roles grant the string
 *    (the same string as the console's button; administrators hold `*:*:*`); 5034 otherwise.
 * The caller is then available as `request.auth`, and the declared rules as `app.apiRoutes`.
 */
import { API_PREFIX, allows, ErrorCode, TOKEN_HEADER } from '@ess/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../core/db/database';
import { ApiError } from '../core/http/api-error';
import { type MenuAccess, menuAccess, permissionsOf } from './menu-access';
import type { AuthContext, SessionService } from './session-service';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no X-Token. */
    public?: boolean;
    /** Any signed-in caller may call it. */
    signedIn?: boolean;
    /** Permission string (`module:resource:action`) the caller's roles must grant; 5034 otherwise. */
    permission?: string;
  }
  interface FastifyRequest {
    /** The caller, set for every non-public route. */
    auth: AuthContext;
    /** What the caller's roles grant, read once per call (set on permission routes, else on first use). */
    access: MenuAccess | null;
  }
  interface FastifyInstance {
    /** Every `/api-bms` route with its declared access rule, in registration order. */
    apiRoutes: ApiRouteAccess[];
  }
}

/** How a route is reached: its path and the one access rule it declares. */
export interface ApiRouteAccess {
  path: string;
  access: { kind: 'public' } | { kind: 'signedIn' } | { kind: 'permission'; permission: string };
}

/** What the caller's roles grant, read at most once per call. */
export async function callerAccess(db: Db, request: FastifyRequest): Promise<MenuAccess> {
  request.access ??= await menuAccess(db, request.auth.employeeId);
  return request.access;
}

/** The X-Token header of a request, if any. */
export function tokenOf(request: FastifyRequest): string | undefined {
  const value = request.headers[TOKEN_HEADER.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The access rule a route config declares; throws when it declares none or more than one. */
export function accessOf(path: string, config: FastifyRequest['routeOptions']['config'] | undefined) {
  const declared: ApiRouteAccess['access'][] = [];
  if (config?.public) declared.push({ kind: 'public' });
  if (config?.signedIn) declared.push({ kind: 'signedIn' });
  if (config?.permission) declared.push({ kind: 'permission', permission: config.permission });
  if (declared.length !== 1) {
    throw new Error(
      `route ${path} must declare exactly one of config.public, config.signedIn, config.permission (found ${declared.length})`,
    );
  }
  return declared[0]!;
}

/**
 * Installs the checks on the calls' plugin scope; every route registered there afterwards is
 * appended to `routes` (decorated on the root instance as `apiRoutes`).
 */
export function registerAuthHook(
  app: FastifyInstance,
  sessions: SessionService,
  db: Db,
  routes: ApiRouteAccess[],
): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.decorateRequest('access', null);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX) || route.method === 'HEAD') return;
    routes.push({ path: route.url, access: accessOf(route.url, route.config as never) });
  });
  app.addHook('preValidation', async (request) => {
    const { public: isPublic, permission } = request.routeOptions.config;
    if (isPublic) return;
    request.auth = await sessions.authenticate(tokenOf(request));
    if (permission && !allows(permissionsOf(await callerAccess(db, request)), permission)) {
      throw new ApiError(ErrorCode.NO_PERMISSION);
    }
  });
}
