/**
 * The demo fleet is optional (demo/demo-plugin.ts): when the simulator cannot be loaded (a
 * production install without optional dependencies), the server says so in its log and runs
 * without the demo — its API and device side work, and no demo site is registered.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app';
import { site } from '../src/core/db/schema';
import { createTestApp, type TestContext } from './support/test-app';

// What `import('@ess/simulator')` throws when the package is not installed.
vi.mock('../src/demo/demo-fleet', () => {
  const err = new Error("Cannot find package '@ess/simulator' imported from demo-fleet.ts") as Error & {
    code: string;
  };
  err.code = 'ERR_MODULE_NOT_FOUND';
  throw err;
});

describe('without the simulator installed', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestApp('pglite');
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('the server starts without the demo fleet and says why', async () => {
    const lines: string[] = [];
    const app = await buildApp({
      config: { ...ctx.config, demo: { ...ctx.config.demo, simulator: true, sites: 2 } },
      db: ctx.database.db,
      logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } },
      devices: { mqttPort: 0, mqttHost: '127.0.0.1' },
      scheduler: false,
    });
    try {
      await app.ready();
      expect(app.devices?.brokerAddress.port).toBeGreaterThan(0);
      const warnings = lines.map((l) => JSON.parse(l) as { msg: string });
      expect(warnings.map((w) => w.msg)).toContainEqual(
        expect.stringContaining('Demo fleet not started: the simulator (@ess/simulator) is not installed'),
      );
      expect(await ctx.database.db.select().from(site).where(eq(site.isDemo, true))).toEqual([]);
      const answer = await app.inject({
        method: 'POST',
        url: '/api-bms/screen/cockpitPublic',
        payload: {},
      });
      expect(answer.json()).toMatchObject({ code: 0 });
    } finally {
      await app.close();
    }
  });
});
