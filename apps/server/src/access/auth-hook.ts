/**
 * Authentication and authorisation of calls.
 *
 * Every `/api-bms` route declares exactly one access rule in its `config`, or the server refuses
 * to start (and a test lists the routes):
 *  - `public: true` — no X-Token (sign-in, token refresh, user info with a login ticket);
 *  - `signedIn: true` — any valid X-Token (own settings, own menu, the dashboard, logout);
 *  - `permission: 'module:resource:action'` — a valid X-Token whose roles grant the string
 *    (the same string as the console's button; administrators hold `*:*:*`); 5034 otherwise.
 * An account that must still change a password an administrator set (`mustChangePassword`:
 * new account, reset) is answered 5058 on every signed-in call but those the endpoint table
 * marks `beforePasswordChange` (password change, own menu and permissions, logout; user info
 * is public) — the console's forced dialog is not the only guard.
 * The caller is then available as `request.auth`, and the declared rules as `app.apiRoutes`.
 *
 * The routes are exactly the contract's endpoint table (`ALL_ENDPOINTS`; modules register them
 * with core/http/endpoint.ts `route`): a route that is not an entry, or declares another access
 * rule or audit than its entry, stops the server when it is registered; an entry without a
 * route stops it when it gets ready.
 */
import {
  ALL_ENDPOINTS,
  API_PREFIX,
  allows,
  type Endpoint,
  type EndpointAudit,
  ErrorCode,
  TOKEN_HEADER,
} from '@ess/contract';
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
    /** Answered while the caller must still change its password (endpoint `beforePasswordChange`). */
    beforePasswordChange?: boolean;
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

/** How a route is reached: its path, the one access rule it declares and what it logs. */
export interface ApiRouteAccess {
  path: string;
  access: { kind: 'public' } | { kind: 'signedIn' } | { kind: 'permission'; permission: string };
  /** The operation-log entry of every answer (`config.audit`), if any. */
  audit?: { action: string; targetType: string };
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

/** The access rule of a table entry, as a route declares it. */
function accessOfEntry(entry: Endpoint): ApiRouteAccess['access'] {
  if ('public' in entry.access) return { kind: 'public' };
  if ('signedIn' in entry.access) return { kind: 'signedIn' };
  return { kind: 'permission', permission: entry.access.permission };
}

const sameAudit = (a: EndpointAudit | ApiRouteAccess['audit'], b: EndpointAudit | ApiRouteAccess['audit']) =>
  a?.action === b?.action && a?.targetType === b?.targetType;

/**
 * The table entry of a registered route; throws when its path is not an entry of `table`, or
 * it declares another access rule or audit than the entry (a route written by hand).
 */
export function entryOf(route: ApiRouteAccess, table: readonly Endpoint[] = ALL_ENDPOINTS): Endpoint {
  const entry = table.find((e) => e.path === route.path);
  if (!entry) {
    throw new Error(
      `route ${route.path} is not in the endpoint table (packages/contract endpoints.ts): add an entry and register it with route()`,
    );
  }
  if (
    JSON.stringify(accessOfEntry(entry)) !== JSON.stringify(route.access) ||
    !sameAudit(entry.audit, route.audit)
  ) {
    throw new Error(`route ${route.path} declares other access or audit than its endpoint table entry`);
  }
  return entry;
}

/** Throws when an entry of `table` has no route among `routes`. */
export function assertEveryEntryRegistered(
  routes: readonly ApiRouteAccess[],
  table: readonly Endpoint[] = ALL_ENDPOINTS,
): void {
  const registered = new Set(routes.map((r) => r.path));
  const missing = table.filter((e) => !registered.has(e.path)).map((e) => e.path);
  if (missing.length > 0) throw new Error(`endpoints without a route: ${missing.join(', ')}`);
}

/**
 * Installs the checks on the calls' plugin scope; every route registered there afterwards is
 * checked against its endpoint table entry and appended to `routes` (decorated on the root
 * instance as `apiRoutes`); when the scope gets ready, every entry must have a route.
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
    const config = route.config as FastifyRequest['routeOptions']['config'] | undefined;
    const declared: ApiRouteAccess = { path: route.url, access: accessOf(route.url, config) };
    if (config?.audit) declared.audit = { ...config.audit };
    entryOf(declared);
    routes.push(declared);
  });
  app.addHook('onReady', async () => assertEveryEntryRegistered(routes));
  app.addHook('preValidation', async (request) => {
    const { public: isPublic, permission, beforePasswordChange } = request.routeOptions.config;
    if (isPublic) return;
    request.auth = await sessions.authenticate(tokenOf(request));
    if (request.auth.mustChangePassword && !beforePasswordChange) {
      throw new ApiError(ErrorCode.PASSWORD_CHANGE_REQUIRED);
    }
    if (permission && !allows(permissionsOf(await callerAccess(db, request)), permission)) {
      throw new ApiError(ErrorCode.NO_PERMISSION);
    }
  });
}
