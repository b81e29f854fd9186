/**
 * Two server instances share one upgrade batch without double-sending ("Bad input and faults";
 * runs only with TEST_DATABASE_URL and TEST_MQTT_URL: PostgreSQL and Mosquitto). Instance A is
 * the test app, instance B a second `buildApp` on its own connection pool to the same database and
 * its own client id on the same broker (one share group for the `ota` events). Each instance may
 * have 4 devices downloading (OTA_MAX_DOWNLOADS), the batch 20: so both must start devices for
 * the batch to go at full width. 20 gateways upgrade; both instances sweep and claim at the same
 * moments, over and over, and react to every reply, event and birth (replies and births reach
 * both). Proven (and seen failing without the claim's lock and condition): every
 * gateway received `ota_upgrade` exactly once, every device succeeded, both instances sent some,
 * and neither ever had more than its 4 in `sent`/`downloading`.
 */
import { randomBytes } from 'node:crypto';
import { endpoints } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { type Database, openDatabase } from '../src/core/db/database';
import { upgradeDevice } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { unique } from './support/fixtures';
import { createPublishedPackage, registerGateways } from './support/ota-fleet';
import { OtaGateway } from './support/ota-gateway';
import { createTestApp, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const databaseUrl = process.env.TEST_DATABASE_URL;
const brokerUrl = process.env.TEST_MQTT_URL;
const run = databaseUrl && brokerUrl ? describe : describe.skip;

run('an upgrade batch shared by two instances on PostgreSQL', () => {
  let ctx: TestContext;
  let b: FastifyInstance;
  let dbB: Database;
  let token: string;
  const clock = Date.now();
  let gateways: OtaGateway[] = [];
  let ids: number[] = [];
  const group = `ota${randomBytes(4).toString('hex')}`;
  const devicesOf = (name: string) => ({
    mqttUrl: brokerUrl,
    mqttShareGroup: group,
    mqttClientId: `${group}-${name}`,
    commandTimeoutMs: 5000,
  });
  /** Most devices each instance had downloading at any moment, sampled from the database. */
  const peak = new Map<string, number>();
  let sampling: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    ctx = await createTestApp(
      'postgres',
      {},
      { devices: devicesOf('a'), upgrade: { now: () => clock, instanceId: 'A', maxDownloads: 4 } },
    );
    dbB = await openDatabase({
      databaseUrl: ctx.config.databaseUrl,
      dataDir: ctx.config.dataDir,
      poolSize: 4,
    });
    b = await buildApp({
      config: ctx.config,
      db: dbB.db,
      logger: false,
      devices: devicesOf('b'),
      scheduler: false,
      demo: false,
      upgrade: { now: () => clock, instanceId: 'B', maxDownloads: 4 },
    });
    await b.ready();
    token = (await signIn(ctx.app)).token;
    const registered = await registerGateways(ctx.app, token, unique('TWO'), 20);
    ids = registered.map((r) => r.id);
    await ctx.app.devices!.directory.refresh();
    await b.devices!.directory.refresh();
    gateways = registered.map((r) => new OtaGateway(() => brokerUrl!, r.sn, r.secret, '1.0.0'));
    for (const g of gateways) await g.connect();
    await waitFor(
      () => ids.every((id) => ctx.app.devices!.tracker.isOnline(id) && b.devices!.tracker.isOnline(id)),
      20_000,
    );
  }, 90_000);

  afterAll(async () => {
    clearInterval(sampling);
    await Promise.all(gateways.map((g) => g.disconnect().catch(() => undefined)));
    await b?.upgrades.settled();
    await b?.close();
    await dbB?.close();
    await ctx?.app.upgrades.settled();
    await ctx?.close();
  });

  it('sends each device its command once, both instances sending within their own limit', async () => {
    const packageId = await createPublishedPackage(ctx.database.db, { deviceType: 'ems', version: '4.0.0' });
    sampling = setInterval(() => {
      void ctx.database.db
        .select({ by: upgradeDevice.startedBy, n: sql<number>`count(*)::int` })
        .from(upgradeDevice)
        .where(sql`${upgradeDevice.state} IN ('sent', 'downloading')`)
        .groupBy(upgradeDevice.startedBy)
        .then((rows) => {
          for (const r of rows) peak.set(r.by ?? '', Math.max(peak.get(r.by ?? '') ?? 0, Number(r.n)));
        })
        .catch(() => undefined);
    }, 20);
    const created = await call(
      ctx.app,
      endpoints.upgrade.create.path,
      {
        packageId,
        deviceIds: ids,
        firstWaveSize: 20,
        maxConcurrentDownloads: 20,
        deadlineAt: clock + 3600_000,
      },
      { token },
    );
    expect(created.code, created.msg).toBe(0);
    const batchId = created.data.id as number;
    // Both claim at the same moments, over and over (far more often than their schedulers would):
    // any claim that is not exclusive shows up as a second command to some gateway.
    await waitFor(async () => {
      await Promise.all([ctx.app.upgrades.sweep(), b.upgrades.sweep()]);
      for (let i = 0; i < 5; i++) await Promise.all([ctx.app.upgrades.startDue(), b.upgrades.startDue()]);
      const rows = await ctx.database.db
        .select({ state: upgradeDevice.state })
        .from(upgradeDevice)
        .where(eq(upgradeDevice.batchId, batchId));
      return rows.every((r) => r.state === 'success');
    }, 60_000);
    await Promise.all([ctx.app.upgrades.settled(), b.upgrades.settled()]);
    await Promise.all(gateways.map((g) => g.idle()));
    expect(gateways.map((g) => g.sentFor(batchId).length)).toEqual(Array(20).fill(1));
    const by = await ctx.database.db
      .select({ by: upgradeDevice.startedBy, n: sql<number>`count(*)::int` })
      .from(upgradeDevice)
      .where(eq(upgradeDevice.batchId, batchId))
      .groupBy(upgradeDevice.startedBy);
    expect(by.map((r) => r.by).sort()).toEqual(['A', 'B']);
    expect(Math.max(...peak.values())).toBeLessThanOrEqual(4);
  });
});
