/**
 * What the HTTP layer answers outside the calls' own logic: unknown calls, the console's
 * history fallback (built and not built), the OpenAPI description, security headers.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { ALL_ENDPOINTS, endpoints } from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestContext } from './support/test-app';

const INDEX_HTML = '<!doctype html><html><head><title>ESS Console</title></head><body></body></html>';

describe.each(engines)('HTTP layer on %s', (engine) => {
  let built: TestContext;
  let notBuilt: TestContext;
  let distDir: string;
  let emptyDir: string;
  beforeAll(async () => {
    // Both console states, whatever apps/web/dist holds right now.
    distDir = mkdtempSync(path.join(os.tmpdir(), 'ess-dist-'));
    writeFileSync(path.join(distDir, 'index.html'), INDEX_HTML);
    // A compressed copy of index.html (an older build made them) must not make it cacheable.
    writeFileSync(path.join(distDir, 'index.html.br'), brotliCompressSync(INDEX_HTML));
    mkdirSync(path.join(distDir, 'assets'));
    writeFileSync(path.join(distDir, 'assets', 'index-abc123.js'), 'console.log("ess");');
    // The build's compressed copies (vite-plugin-compression2), as the server finds them.
    writeFileSync(
      path.join(distDir, 'assets', 'index-abc123.js.br'),
      brotliCompressSync('console.log("ess");'),
    );
    writeFileSync(path.join(distDir, 'assets', 'index-abc123.js.gz'), gzipSync('console.log("ess");'));
    emptyDir = mkdtempSync(path.join(os.tmpdir(), 'ess-nodist-'));
    [built, notBuilt] = await Promise.all([
      createTestApp(engine, { WEB_DIST_DIR: distDir }),
      createTestApp(engine, { WEB_DIST_DIR: emptyDir }),
    ]);
  });
  afterAll(async () => {
    await built?.close();
    await notBuilt?.close();
    rmSync(distDir, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
  });

  describe('unknown calls', () => {
    it.each([
      ['POST', '/api-bms/nope'],
      ['POST', '/api-bms/user/nope?x=1'],
      ['GET', endpoints.user.login.path],
      ['GET', '/api-bms/'],
    ] as const)('%s %s answers HTTP 404 with a -100 envelope', async (method, url) => {
      const response = await built.app.inject({ method, url, ...(method === 'POST' ? { payload: {} } : {}) });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const answer = response.json();
      expect(answer).toEqual({ code: -100, msg: expect.stringMatching(/^请求参数错误：/), data: null });
      expect(answer.msg).toContain(url.split('?')[0]);
    });

    it('answers in English on request', async () => {
      const response = await built.app.inject({
        method: 'POST',
        url: '/api-bms/nope',
        payload: {},
        headers: { 'accept-language': 'en' },
      });
      expect(response.json().msg).toBe('Request parameter error: no call POST /api-bms/nope');
    });

    it('a POST to a console path answers 404 with a -100 envelope', async () => {
      const response = await built.app.inject({ method: 'POST', url: '/dashboard', payload: {} });
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe(-100);
    });
  });

  describe('console not built', () => {
    it.each(['/', '/dashboard', '/login', '/screen/sys'])(
      'GET %s answers 503 text naming the build',
      async (url) => {
        const response = await notBuilt.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
        expect(response.statusCode).toBe(503);
        expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(response.body).toContain('npm run build:web');
      },
    );

    it('calls still work', async () => {
      const response = await notBuilt.app.inject({
        method: 'POST',
        url: endpoints.user.getPermission.path,
        payload: {},
      });
      expect(response.json().code).toBe(9999);
    });
  });

  describe('console built', () => {
    it.each(['/', '/dashboard', '/login', '/screen/sys', '/upgradeRecordDetail?id=3'])(
      'GET %s answers index.html, not cached',
      async (url) => {
        // As a browser asks: one that accepts brotli may get the compressed copy.
        const response = await built.app.inject({
          method: 'GET',
          url,
          headers: { accept: 'text/html', 'accept-encoding': 'gzip, br' },
        });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        const body =
          response.headers['content-encoding'] === 'br'
            ? brotliDecompressSync(response.rawPayload).toString()
            : response.body;
        expect(body).toBe(INDEX_HTML);
        // A cached index.html would keep pointing at the previous build's assets after a deploy.
        expect(response.headers['cache-control']).toBe('no-cache');
      },
    );

    it('GET /index.html is not cached either', async () => {
      const response = await built.app.inject({
        method: 'GET',
        url: '/index.html',
        headers: { 'accept-encoding': 'gzip, br' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
    });

    it('serves built assets with a cache lifetime', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('console.log("ess");');
      expect(response.headers['cache-control']).toMatch(/max-age=\d+/);
    });

    it('sends the brotli or gzip copy of an asset to a browser that accepts it, the plain file otherwise', async () => {
      const url = '/assets/index-abc123.js';
      const br = await built.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe('console.log("ess");');
      const gz = await built.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe('console.log("ess");');
      const plain = await built.app.inject({
        method: 'GET',
        url,
        headers: { 'accept-encoding': 'identity' },
      });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe('console.log("ess");');
    });

    it('a missing asset answers 404, not index.html', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/assets/missing-000.js' });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('<!doctype html>');
    });

    it('answers with security headers', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/dashboard' });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    });
  });

  describe('OpenAPI', () => {
    it('/api-docs/json lists every call as a POST', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/api-docs/json' });
      expect(response.statusCode).toBe(200);
      const doc = response.json();
      expect(doc.openapi).toMatch(/^3\./);
      for (const call of ALL_ENDPOINTS.map((e) => e.path)) {
        expect(doc.paths[call], call).toBeDefined();
        expect(doc.paths[call].post, call).toBeDefined();
      }
      expect(
        doc.paths[endpoints.user.login.path].post.requestBody.content['application/json'].schema.required,
      ).toEqual(expect.arrayContaining(['account', 'password', 'terminalId']));
    });

    it('/api-docs serves the documentation page', async () => {
      const response = await built.app.inject({ method: 'GET', url: '/api-docs' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    });
  });
});

describe('console at the default WEB_DIST_DIR', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp('pglite');
  });
  afterAll(async () => ctx?.close());

  it('answers index.html when apps/web/dist is built, else 503 naming the build', async () => {
    expect(ctx.config.webDistDir.endsWith(path.join('apps', 'web', 'dist'))).toBe(true);
    const index = path.join(ctx.config.webDistDir, 'index.html');
    // The app looked for index.html when it was built, a moment ago; another process may build
    // or clean the console at any time, so read the folder's state as close to that as possible.
    const builtNow = existsSync(index);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/dashboard',
      headers: { accept: 'text/html' },
    });
    if (builtNow) {
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(readFileSync(index, 'utf8'));
    } else {
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain('npm run build:web');
    }
  });
});
