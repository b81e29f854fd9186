/**
 * What survives what (docs/operations.md): the server acknowledges a device message (PUBACK) only
 * once it is stored or settled, and nothing a broker acknowledged to a gateway is lost when the
 * database goes away, the broker restarts (plain subscriptions; see 2. for shared ones) or a
 * server instance dies.
 *
 * - Always (PGlite, the embedded broker): the device directory serves its cache while the database
 *   is unreachable and refuses to call an SN unknown then; a status the database cannot take is
 *   not acknowledged by the embedded broker and arrives once the database is back.
 * - Drills (when TEST_DATABASE_URL is set — CI — and initdb/pg_ctl and mosquitto are installed):
 *   processes the test owns (support/outage-services.ts), a gateway publishing QoS 1 telemetry
 *   at 20 msg/s throughout:
 *   1. database outage: a throwaway PostgreSQL cluster stopped (fast shutdown) for 12 s of
 *      publishing (240 messages; the drill ran 60 s — 12 s takes the same path: it is
 *      longer than the directory's 5 s cache age, and the ingest's retry backoff reaches its
 *      5 s ceiling), then started;
 *   2. broker restart: a throwaway Mosquitto (persistence on) stopped for 5 s of publishing and
 *      started again, the server and the gateway reconnecting on their own — with one instance on
 *      plain subscriptions (MQTT_SHARE_GROUP=off: nothing lost), and with a shared subscription
 *      (Mosquitto 2.0 does not keep it across a restart: the server renews it, and everything
 *      sent after that is stored; what came before is counted as lost);
 *   3. instance death: the server instance dies (socket dropped, no DISCONNECT) holding 100
 *      unacknowledged messages, 100 more arrive while it is away, and the instance starts again
 *      with the same client id.
 *   Each drill asserts that every message the broker acknowledged to the gateway is stored, once
 *   (the shared-subscription one: every message sent after the re-subscription), and prints its
 *   figures (sent, acknowledged, stored, duplicates, re-deliveries, dead-lettered, lost). Also on
 *   the throwaway broker: a status the database cannot take is retried, unacknowledged.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deviceTopic, endpoints } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIfEmpty } from '../src/access/seed';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/core/config';
import { type Database, type Db, openDatabase } from '../src/core/db/database';
import { device, telemetry } from '../src/core/db/schema';
import { DeviceDirectory } from '../src/devices/device-directory';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import {
  DrillGateway,
  outageServicesMissing,
  ThrowawayMosquitto,
  ThrowawayPostgres,
} from './support/outage-services';
import { createTestApp, TEST_SCRYPT_LOG_N, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

/**
 * Runs a clean-up step, waiting at most `ms` for it; one that throws or takes longer is printed
 * with its name (the test goes on with the next step).
 */
async function closeWithin(
  name: string,
  step: () => Promise<unknown> | undefined,
  ms = 20_000,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  const outcome = await Promise.race([
    Promise.resolve()
      .then(step)
      .then(
        () => 'closed',
        (err: Error) => `failed: ${err.message}`,
      ),
    new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`still going after ${ms} ms`), ms);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'closed') console.warn(`outage drill clean-up: ${name} ${outcome}`);
  else if (Date.now() - started > 5_000)
    console.warn(`outage drill clean-up: ${name} took ${Date.now() - started} ms`);
}

/** An error as node-postgres gives it when the server is down. */
const unreachable = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** `db` whose every query fails as an unreachable server's would while `down()` is true. */
function switchable(db: Db, down: () => boolean): Db {
  const failing = new Set(['select', 'insert', 'update', 'delete', 'execute', 'transaction']);
  return new Proxy(db, {
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !failing.has(prop) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!down()) return value.apply(target, args);
        if (prop === 'transaction' || prop === 'execute') return Promise.reject(unreachable());
        throw unreachable();
      };
    },
  });
}

/** A site with a gateway (EMS) and a PCS behind it, registered through the API. */
async function registerSite(app: FastifyInstance, tag: string) {
  const { token } = await signIn(app);
  const api = (p: string, body: object) => call(app, p, body, { token });
  const site = await api(endpoints.site.save.path, { code: `O-${tag}`, name: `Outage ${tag}` });
  const ems = await api(endpoints.device.save.path, {
    siteId: site.data.id,
    sn: `EMS-O-${tag}`,
    type: 'ems',
  });
  const pcs = await api(endpoints.device.save.path, {
    siteId: site.data.id,
    sn: `PCS-O-${tag}`,
    type: 'pcs',
    gatewayId: ems.data.id,
  });
  expect([site.code, ems.code, pcs.code]).toEqual([0, 0, 0]);
  return {
    gateway: {
      id: ems.data.id as number,
      sn: ems.data.secret.sn as string,
      secret: ems.data.secret.secret as string,
    },
    pcs: { id: pcs.data.id as number, sn: `PCS-O-${tag}` },
  };
}

describe('device directory and embedded broker while the database is unreachable', () => {
  let ctx: TestContext;
  let site: Awaited<ReturnType<typeof registerSite>>;
  let down = false;
  const tag = randomBytes(4).toString('hex').toUpperCase();

  beforeAll(async () => {
    ctx = await createTestApp('pglite');
    site = await registerSite(ctx.app, tag);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('the directory serves its cache for a known SN, and rejects rather than call an SN unknown', async () => {
    let clock = Date.now();
    const directory = new DeviceDirectory(
      switchable(ctx.database.db, () => down),
      5_000,
      undefined,
      () => clock,
    );
    await directory.refresh();
    down = true;
    try {
      clock += 6_000; // the cache is older than its 5 s: the reload fails, the cached entry is served
      expect((await directory.lookup(site.gateway.sn))?.deviceId).toBe(site.gateway.id);
      expect(directory.loadFailures).toBe(1);
      // Not in the cache: registered or not cannot be told without the database.
      await expect(directory.lookup(`NOBODY-${tag}`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      clock += 2_000; // past the 1 s pause after a failed reload: tried again, served again
      expect((await directory.lookup(site.pcs.sn))?.gatewayId).toBe(site.gateway.id);
      expect(directory.loadFailures).toBe(2);
    } finally {
      down = false;
    }
    clock += 2_000;
    expect(await directory.lookup(`NOBODY-${tag}`)).toBeUndefined(); // reloaded: really unknown
    expect(directory.loadFailures).toBe(2);
  });

  it('embedded broker: a status the database cannot take is not acknowledged; it is stored once the database is back', async () => {
    const devices = new DeviceService(
      switchable(ctx.database.db, () => down),
      ctx.app.log,
      { mqttPort: 0, mqttHost: '127.0.0.1' },
    );
    await devices.start();
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${devices.brokerAddress.port}`, {
      clientId: site.gateway.sn,
      username: site.gateway.sn,
      password: site.gateway.secret,
      clean: false,
      reconnectPeriod: 100,
    });
    let disconnects = 0;
    client.on('close', () => disconnects++);
    try {
      down = true;
      let acknowledged = false;
      const published = client
        .publishAsync(
          deviceTopic(site.gateway.sn, 'status'),
          JSON.stringify({ v: 1, ts: Date.now(), online: true, firmware: `FW-${tag}` }),
          { qos: 1, retain: true },
        )
        .then(() => {
          acknowledged = true;
        });
      // The failed handling closes the connection without a PUBACK; the gateway reconnects and
      // sends it again, and again, while the database is away.
      await waitFor(() => disconnects >= 2, 10_000);
      expect(acknowledged).toBe(false);
      down = false;
      await published;
      const [row] = await ctx.database.db.select().from(device).where(eq(device.id, site.gateway.id));
      expect(row?.firmwareVersion).toBe(`FW-${tag}`);
    } finally {
      down = false;
      await client.endAsync(true);
      await devices.close();
    }
  });
});

const missing = outageServicesMissing();
const drills = Boolean(process.env.TEST_DATABASE_URL) && missing.length === 0;
if (process.env.TEST_DATABASE_URL && missing.length > 0) {
  console.warn(`outage drills skipped: ${missing.join(', ')} not installed`);
}

interface Figures {
  drill: string;
  sent: number;
  acknowledged: number;
  stored: number;
  duplicates: number;
  redelivered: number;
  deadLettered: number;
  lost: number;
}

/** Rows of the gateway's messages: stored, and stored more than once (by device + ts). */
async function storedOf(db: Db, pcsId: number, gateway: DrillGateway) {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int`, distinct: sql<number>`count(DISTINCT ${telemetry.ts})::int` })
    .from(telemetry)
    .where(
      sql`${telemetry.deviceId} = ${pcsId} AND ${telemetry.ts} >= ${new Date(gateway.base).toISOString()} AND ${telemetry.ts} < ${new Date(gateway.base + gateway.sent).toISOString()}`,
    );
  return { stored: r!.n, duplicates: r!.n - r!.distinct };
}

/**
 * Waits until the gateway has every message settled and (`waitForAll`) the database holds all it
 * got acknowledged; answers the figures (printed) whether or not it got there.
 */
async function settle(
  drill: string,
  db: Db,
  pcsId: number,
  gateway: DrillGateway,
  devices: DeviceService,
  waitForAll = true,
) {
  await waitFor(() => gateway.settled, 30_000).catch(() => undefined);
  if (waitForAll) {
    await waitFor(
      async () => (await storedOf(db, pcsId, gateway)).stored >= gateway.acknowledged,
      30_000,
    ).catch(() => undefined);
  }
  const { stored, duplicates } = await storedOf(db, pcsId, gateway);
  const figures: Figures = {
    drill,
    sent: gateway.sent,
    acknowledged: gateway.acknowledged,
    stored,
    duplicates,
    redelivered: devices.ingest.stats.duplicateRows,
    deadLettered: devices.ingest.stats.deadLettered,
    lost: gateway.acknowledged - stored,
  };
  console.info(`outage drill ${JSON.stringify(figures)}`);
  return figures;
}

describe.skipIf(!drills)('outage drills (throwaway PostgreSQL cluster and Mosquitto)', () => {
  const tag = randomBytes(4).toString('hex').toUpperCase();
  let broker: ThrowawayMosquitto;

  beforeAll(async () => {
    broker = await ThrowawayMosquitto.create();
  });
  afterAll(async () => {
    await broker?.destroy();
  });

  it('database outage: no PUBACK while it is away; every acknowledged message stored once after', async () => {
    const cluster = await ThrowawayPostgres.create();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-drill-'));
    let database: Database | undefined;
    let app: FastifyInstance | undefined;
    let devices: DeviceService | undefined;
    let gateway: DrillGateway | undefined;
    try {
      database = await openDatabase({ databaseUrl: cluster.url, dataDir, poolSize: 4 });
      await database.migrate();
      const config = loadConfig({
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        SCRYPT_LOG_N: String(TEST_SCRYPT_LOG_N),
        DATABASE_URL: cluster.url,
      });
      await seedIfEmpty(database.db, {
        adminPassword: config.adminPassword,
        scryptLogN: config.auth.scryptLogN,
      });
      app = await buildApp({
        config,
        db: database.db,
        logger: false,
        devices: false,
        scheduler: false,
        demo: false,
      });
      await app.ready();
      const site = await registerSite(app, `D${tag}`);
      devices = new DeviceService(database.db, app.log, {
        mqttUrl: broker.url,
        mqttPort: 0,
        mqttShareGroup: `drill-db-${tag}`,
        mqttClientId: `ess-drill-db-${tag}`,
        mqttSessionExpiryS: 600,
      });
      await devices.start();
      gateway = new DrillGateway(broker.url, site.gateway.sn, site.pcs.sn, Date.now() - 3_600_000);
      await gateway.connect();
      gateway.steady();
      await waitFor(() => (devices!.acknowledgedData ?? 0) >= 20, 10_000);

      await cluster.stop();
      const stoppedAt = gateway.sent;
      const failures = devices.ingest.stats.flushFailures;
      // Once a write has failed, nothing stored before the stop is still waiting for its PUBACK.
      await waitFor(() => devices!.ingest.stats.flushFailures > failures, 10_000);
      const acknowledgedAtStop = devices.acknowledgedData;
      await waitFor(() => gateway!.sent >= stoppedAt + 240, 30_000); // 12 s at 20 msg/s
      expect(devices.acknowledgedData).toBe(acknowledgedAtStop);
      await cluster.start();

      const startedAt = gateway.sent;
      await waitFor(() => gateway!.sent >= startedAt + 40, 10_000);
      gateway.pause();
      const figures = await settle('database outage', database.db, site.pcs.id, gateway, devices);
      expect(figures.acknowledged).toBe(figures.sent);
      expect(figures).toMatchObject({ lost: 0, duplicates: 0, deadLettered: 0 });
      expect(figures.stored).toBe(figures.sent);
    } finally {
      // Each step bounded and named: what the drill asserts is above; a close that hangs after
      // it (a pool waiting for a client, a broker session) is reported by name instead of
      // ending the test at its timeout with no trace (a clean-clone CI run did that once).
      await closeWithin('gateway', () => gateway?.close());
      await closeWithin('device service', () => devices?.close());
      await closeWithin('app', () => app?.close());
      await closeWithin('database', () => database?.close());
      await closeWithin('cluster', () => cluster.destroy());
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  describe('on TEST_DATABASE_URL', () => {
    let ctx: TestContext;
    beforeAll(async () => {
      ctx = await createTestApp('postgres');
    });
    afterAll(async () => {
      await ctx?.close();
    });

    it('external broker: a status the database cannot take is retried unacknowledged, and stored once it is back', async () => {
      const site = await registerSite(ctx.app, `X${tag}`);
      let down = false;
      const devices = new DeviceService(
        switchable(ctx.database.db, () => down),
        ctx.app.log,
        {
          mqttUrl: broker.url,
          mqttPort: 0,
          mqttShareGroup: `drill-status-${tag}`,
          mqttClientId: `ess-drill-status-${tag}`,
          mqttSessionExpiryS: 60,
        },
      );
      const retries = () =>
        (devices as unknown as { external: { handlingRetries: number } }).external.handlingRetries;
      const client = await mqtt.connectAsync(broker.url, { clientId: site.gateway.sn, reconnectPeriod: 0 });
      try {
        await devices.start();
        down = true;
        await client.publishAsync(
          deviceTopic(site.gateway.sn, 'status'),
          JSON.stringify({ v: 1, ts: Date.now(), online: true, firmware: `FW-${tag}` }),
          { qos: 1, retain: true },
        );
        await waitFor(() => retries() >= 2, 10_000); // failed, and tried again, and again
        down = false;
        const row = await waitFor(async () => {
          const [r] = await ctx.database.db.select().from(device).where(eq(device.id, site.gateway.id));
          return r?.firmwareVersion === `FW-${tag}` && r.online && r;
        }, 10_000);
        expect(row.offlineReason).toBeNull();
      } finally {
        down = false;
        await client.endAsync();
        await devices.close();
      }
    });

    it('broker restart, one instance on plain subscriptions (MQTT_SHARE_GROUP=off): every acknowledged message stored once', async () => {
      const site = await registerSite(ctx.app, `B${tag}`);
      const devices = new DeviceService(ctx.database.db, ctx.app.log, {
        mqttUrl: broker.url,
        mqttPort: 0,
        mqttShareGroup: null,
        mqttClientId: `ess-drill-broker-${tag}`,
        mqttSessionExpiryS: 600,
      });
      const gateway = new DrillGateway(broker.url, site.gateway.sn, site.pcs.sn, Date.now() - 3_500_000);
      try {
        await devices.start();
        await gateway.connect();
        gateway.steady();
        await waitFor(() => (devices.acknowledgedData ?? 0) >= 20, 10_000);

        await broker.stop();
        const stoppedAt = gateway.sent;
        await waitFor(() => gateway.sent >= stoppedAt + 100, 30_000); // 5 s at 20 msg/s
        await broker.start();
        const startedAt = gateway.sent;
        await waitFor(() => gateway.sent >= startedAt + 60, 30_000);
        gateway.pause();

        const figures = await settle(
          'broker restart (plain)',
          ctx.database.db,
          site.pcs.id,
          gateway,
          devices,
        );
        expect(figures.acknowledged).toBe(figures.sent);
        expect(figures).toMatchObject({ lost: 0, duplicates: 0, deadLettered: 0 });
        expect(figures.stored).toBe(figures.sent);
      } finally {
        await gateway.close();
        await devices.close();
      }
    }, 90_000);

    it('broker restart, shared subscription: the server subscribes again and stores everything sent after that', async () => {
      const site = await registerSite(ctx.app, `S${tag}`);
      const devices = new DeviceService(ctx.database.db, ctx.app.log, {
        mqttUrl: broker.url,
        mqttPort: 0,
        mqttShareGroup: `drill-shared-${tag}`,
        mqttClientId: `ess-drill-shared-${tag}`,
        mqttSessionExpiryS: 600,
      });
      const subscribed = () =>
        (devices as unknown as { external: { subscribedConnections: number } }).external
          .subscribedConnections;
      const gateway = new DrillGateway(broker.url, site.gateway.sn, site.pcs.sn, Date.now() - 3_300_000);
      try {
        await devices.start();
        await gateway.connect();
        gateway.steady();
        await waitFor(() => (devices.acknowledgedData ?? 0) >= 20, 10_000);

        await broker.stop();
        const stoppedAt = gateway.sent;
        await waitFor(() => gateway.sent >= stoppedAt + 100, 30_000);
        await broker.start();
        // Mosquitto 2.0 restored the server's session but not its shared subscription: until the
        // server renews it, what gateways send has no subscriber (the broker drops it).
        await waitFor(() => subscribed() >= 2, 10_000);
        const resubscribedAt = gateway.sent;
        await waitFor(() => gateway.sent >= resubscribedAt + 60, 30_000);
        gateway.pause();

        const sentAfter = gateway.sent - resubscribedAt;
        const storedAfter = () =>
          storedOf(ctx.database.db, site.pcs.id, {
            base: gateway.base + resubscribedAt,
            sent: sentAfter,
          } as DrillGateway);
        await waitFor(async () => (await storedAfter()).stored >= sentAfter, 30_000).catch(() => undefined);
        const figures = await settle(
          'broker restart (shared)',
          ctx.database.db,
          site.pcs.id,
          gateway,
          devices,
          false,
        );
        expect(await storedAfter()).toEqual({ stored: sentAfter, duplicates: 0 });
        expect(figures).toMatchObject({ duplicates: 0, deadLettered: 0 });
      } finally {
        await gateway.close();
        await devices.close();
      }
    }, 90_000);

    it('instance death: the instance started again with its client id stores what it held and what arrived meanwhile', async () => {
      const site = await registerSite(ctx.app, `I${tag}`);
      const options = {
        mqttUrl: broker.url,
        mqttPort: 0,
        mqttShareGroup: `drill-death-${tag}`,
        mqttClientId: `ess-drill-death-${tag}`,
        mqttSessionExpiryS: 600,
      };
      // The instance that dies: its writes never finish, so it acknowledges nothing.
      const db = ctx.database.db;
      const stuck = new Promise<never>(() => {});
      const hanging = new Proxy(db, {
        get: (target, prop) => (prop === 'transaction' ? () => stuck : Reflect.get(target, prop, target)),
      });
      const dying = new DeviceService(hanging, ctx.app.log, options);
      const gateway = new DrillGateway(broker.url, site.gateway.sn, site.pcs.sn, Date.now() - 3_400_000);
      let again: DeviceService | undefined;
      try {
        await dying.start();
        await gateway.connect();
        for (let i = 0; i < 100; i++) gateway.publish();
        await waitFor(() => dying.ingest.stats.messages >= 100, 10_000);
        expect(dying.acknowledgedData).toBe(0);
        // Death: the socket drops without a DISCONNECT; nothing more runs on that instance.
        const internal = dying as unknown as { external: { client: mqtt.MqttClient } };
        internal.external.client.end(true);

        for (let i = 0; i < 100; i++) gateway.publish();
        await waitFor(() => gateway.settled, 10_000); // the broker holds them for the dead session

        again = new DeviceService(db, ctx.app.log, options);
        await again.start();
        const figures = await settle('instance death', db, site.pcs.id, gateway, again);
        expect(figures.acknowledged).toBe(200);
        expect(figures).toMatchObject({ stored: 200, lost: 0, duplicates: 0, deadLettered: 0 });
      } finally {
        await gateway.close();
        await again?.close();
      }
    }, 90_000);
  });
});
