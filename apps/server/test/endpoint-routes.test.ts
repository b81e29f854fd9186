/**
 * Routes from the endpoint table (core/http/endpoint.ts, access/auth-hook.ts,
 * access/audit.ts): the server answers exactly the calls of `ALL_ENDPOINTS`, each with the entry's
 * access rule and audit; a route without an entry, or an entry without a route, stops the server;
 * audited actions are those of the contract's vocabulary; the OpenAPI description lists every call.
 */
import {
  ALL_ENDPOINTS,
  AUDIT_ACTION_LABELS,
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type Endpoint,
  endpoints,
  XLSX_MIME,
} from '@ess/contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAuditVocabulary, registerAudit } from '../src/access/audit';
import { type ApiRouteAccess, assertEveryEntryRegistered, registerAuthHook } from '../src/access/auth-hook';
import type { SessionService } from '../src/access/session-service';
import type { Db } from '../src/core/db/database';
import { accessConfig, fileRoute, route } from '../src/core/http/endpoint';
import { ok } from '../src/core/http/envelope';
import { createTestApp, type TestContext } from './support/test-app';

/** A bare calls' scope with the auth hook and the audit, as app.ts builds it (no database used). */
function bareApi() {
  const app = Fastify().withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const routes: ApiRouteAccess[] = [];
  registerAuthHook(app, {} as SessionService, {} as Db, routes);
  registerAudit(app, {} as Db);
  return { app, routes };
}

describe('the running server’s routes', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp('pglite');
  });
  afterAll(async () => ctx?.close());

  it('are exactly the endpoint table’s calls, each once', () => {
    const registered = ctx.app.apiRoutes.map((r) => r.path);
    const table = ALL_ENDPOINTS.map((e) => e.path);
    expect(new Set(registered).size).toBe(registered.length);
    expect(registered.filter((p) => !table.includes(p as Endpoint['path']))).toEqual([]);
    expect(table.filter((p) => !registered.includes(p))).toEqual([]);
  });

  it('declare the access rule and audit of their table entry', () => {
    const byPath = new Map(ctx.app.apiRoutes.map((r) => [r.path, r]));
    for (const e of ALL_ENDPOINTS) {
      const declared = byPath.get(e.path)!;
      const access =
        'public' in e.access
          ? { kind: 'public' }
          : 'signedIn' in e.access
            ? { kind: 'signedIn' }
            : { kind: 'permission', permission: e.access.permission };
      expect(declared.access, e.path).toEqual(access);
      expect(declared.audit, e.path).toEqual(e.audit);
    }
  });

  it('record only actions and target types of the vocabulary, each with its zh and en name', () => {
    const audited = ctx.app.apiRoutes.filter((r) => r.audit);
    expect(audited.length).toBeGreaterThan(0);
    for (const { path, audit } of audited) {
      expect(AUDIT_ACTIONS, path).toContain(audit!.action);
      expect(AUDIT_TARGET_TYPES, path).toContain(audit!.targetType);
      const label = AUDIT_ACTION_LABELS[audit!.action as keyof typeof AUDIT_ACTION_LABELS];
      expect(label.zh.trim(), path).not.toBe('');
      expect(label.en.trim(), path).not.toBe('');
    }
  });

  it('are all in the OpenAPI description with their body and answer', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api-docs/json' });
    const doc = response.json();
    for (const e of ALL_ENDPOINTS) {
      const post = doc.paths[e.path]?.post;
      expect(post, e.path).toBeDefined();
      expect(post.summary, e.path).toBe(e.summary);
      expect(post.tags, e.path).toEqual([...e.tags]);
      if (e.upload) {
        // The file is the body; the fields are the query string (firmware.upload).
        expect(
          post.parameters.filter((p: { in: string }) => p.in === 'query').length,
          e.path,
        ).toBeGreaterThan(0);
      } else {
        expect(post.requestBody.content['application/json'].schema, e.path).toBeDefined();
      }
      const answer = post.responses['200'].content;
      expect(answer['application/json'].schema.properties, e.path).toHaveProperty('data');
    }
    const xlsx = doc.paths[endpoints.export.xlsx.path].post.responses['200'].content;
    expect(xlsx[XLSX_MIME].schema).toMatchObject({ type: 'string', format: 'binary' });
    // The public cockpit asks for no token; other calls keep the document's X-Token.
    expect(doc.paths[endpoints.screen.cockpitPublic.path].post.security).toEqual([]);
    expect(doc.paths[endpoints.screen.cockpit.path].post.security).toBeUndefined();
  });
});

/** Registers `routes` in a plugin of `app` and gets it ready: rejects when a check refuses. */
async function start<A>(app: A, routes: (api: A) => void): Promise<void> {
  const fastify = app as unknown as FastifyInstance;
  await fastify.register(async (api) => routes(api as unknown as A));
  await fastify.ready();
}

describe('the start-up checks', () => {
  it('a route without a table entry stops the server', async () => {
    const { app } = bareApi();
    const started = start(app, (api: typeof app) => {
      api.post('/api-bms/nowhere/call', { config: { signedIn: true } }, async () => null);
    });
    await expect(started).rejects.toThrow(/not in the endpoint table/);
  });

  it('a route of a table path with other access or audit than its entry stops the server', async () => {
    const configs: object[] = [
      { permission: 'system:role:list' },
      { public: true, audit: { action: 'tou.save', targetType: 'tou_scheme' } },
      // The entry's permission, but no audit.
      accessConfig(endpoints.tou.save.access),
    ];
    for (const config of configs) {
      const { app } = bareApi();
      const started = start(app, (api: typeof app) => {
        api.post(endpoints.tou.save.path, { config }, async () => null);
      });
      await expect(started).rejects.toThrow(/other access or audit than its endpoint table entry/);
    }
  });

  it('a table entry without a route stops the server', async () => {
    const { app } = bareApi();
    const started = start(app, (api: typeof app) => {
      route(api, endpoints.tou.save, async (request) => ok(request, { id: 1 }));
    });
    await expect(started).rejects.toThrow(/endpoints without a route: .*\/api-bms\/tou\/detail/);
    expect(() => assertEveryEntryRegistered([], [endpoints.tou.save])).toThrow(/\/api-bms\/tou\/save/);
    expect(() =>
      assertEveryEntryRegistered(
        [{ path: endpoints.tou.save.path, access: { kind: 'signedIn' } }],
        [endpoints.tou.save],
      ),
    ).not.toThrow();
  });

  it('an action outside the audit vocabulary stops the server, even through a cast', async () => {
    // The audit alone (the auth hook would first refuse the path).
    const app = Fastify();
    registerAudit(app, {} as Db);
    const started = start(app, (api: typeof app) => {
      api.post(
        '/api-bms/x/y',
        { config: { audit: { action: 'tou.rename' as never, targetType: 'tou_scheme' } } },
        async () => null,
      );
    });
    await expect(started).rejects.toThrow(/tou\.rename on tou_scheme: not in the audit vocabulary/);
    expect(() =>
      assertAuditVocabulary('/api-bms/x/y', { action: 'tou.save', targetType: 'scheme' }),
    ).toThrow();
    expect(() =>
      assertAuditVocabulary('/api-bms/x/y', { action: 'tou.save', targetType: 'tou_scheme' }),
    ).not.toThrow();
  });

  it('route() refuses a call that answers a file, fileRoute() one that answers an envelope', () => {
    const { app } = bareApi();
    expect(() => route(app, endpoints.export.xlsx, async (request) => ok(request, null))).toThrow(
      /fileRoute/,
    );
    expect(() => fileRoute(app, endpoints.export.sites, async (_request, reply) => reply.send(''))).toThrow(
      /with route/,
    );
  });
});
