/**
 * Delivery rules of docs/device-protocol.md through the embedded broker, as a device sees them:
 * clock skew (future timestamps stored at receive time and a `time_sync` on the gateway's cmd
 * topic; data older than 7 days dropped), out-of-order messages (both stored, latest values
 * and rollups follow device time), flooding (2,000 QoS 1 messages as fast as the client sends
 * them: all stored, the API still answers) and oversized payloads (dropped and counted, the
 * connection stays).
 */
import { type CommandPayload, deviceTopic, endpoints, MAX_PAYLOAD_BYTES } from '@ess/contract';
import { and, eq, sql } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { device, deviceLatest, telemetry, telemetryRollup } from '../src/core/db/schema';
import { DeviceDirectory } from '../src/devices/device-directory';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

interface Gateway {
  id: number;
  siteId: number;
  sn: string;
  secret: string;
  pcs: { id: number; sn: string };
}

/**
 * `db` whose SELECT queries run at once but answer `ms` later (a slow directory load that
 * overlaps a registry change).
 */
function slowAnswers(db: Db, ms: number): Db {
  const wrap = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    return new Proxy(value, {
      get(target, prop) {
        const member = Reflect.get(target, prop, target);
        if (typeof member !== 'function') return member;
        if (prop === 'then') {
          return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) =>
            member.call(
              target,
              (v: unknown) => new Promise((r) => setTimeout(() => r(v), ms)).then(ok),
              fail,
            );
        }
        return (...args: unknown[]) => wrap(member.apply(target, args));
      },
    });
  };
  return new Proxy(db, {
    get(target, prop) {
      const member = Reflect.get(target, prop, target);
      return prop === 'select' ? (...args: unknown[]) => wrap(member.apply(target, args)) : member;
    },
  });
}

describe.each(engines)('device delivery rules on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let token: string;
  let companyId: number;
  let n = 0;
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    const admin = await signIn(ctx.app);
    token = admin.token;
    companyId = admin.companyId;
    devices = new DeviceService(ctx.database.db, ctx.app.log, { mqttPort: 0, mqttHost: '127.0.0.1' });
    await devices.start();
    ctx.app.devices = devices; // registry changes reload the broker's device directory
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await devices?.close();
    await ctx?.close();
  });

  /** A new site with a gateway (EMS) and one PCS behind it. */
  async function register(): Promise<Gateway> {
    const tag = `DL${engine === 'postgres' ? 'P' : 'G'}${++n}`;
    const api = (path: string, body: object) => call(ctx.app, `/api-bms/${path}`, body, { token });
    const site = await api('site/save', { code: `S-${tag}`, name: `Delivery ${tag}` });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-${tag}`, type: 'ems' });
    const pcs = await api('device/save', {
      siteId: site.data.id,
      sn: `PCS-${tag}`,
      type: 'pcs',
      gatewayId: ems.data.id,
    });
    expect(pcs.code).toBe(0);
    // The registry reloads the broker's directory after each change, once the answer is sent:
    // wait for a reload that surely includes these devices.
    await devices.directory.refresh();
    return {
      id: ems.data.id,
      siteId: site.data.id,
      sn: ems.data.secret.sn,
      secret: ems.data.secret.secret,
      pcs: { id: pcs.data.id, sn: `PCS-${tag}` },
    };
  }

  async function connect(gw: Gateway): Promise<MqttClient> {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${devices.brokerAddress.port}`, {
      clientId: gw.sn,
      username: gw.sn,
      password: gw.secret,
      reconnectPeriod: 0,
    });
    clients.push(client);
    return client;
  }

  const telemetryOf = (gw: Gateway, id: string, ts: number, points: Record<string, number>) =>
    JSON.stringify({ v: 1, id, ts, devices: [{ sn: gw.pcs.sn, type: 'pcs', points }] });

  const rowsOf = (deviceId: number) =>
    ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, deviceId)).orderBy(telemetry.ts);

  it('a directory refresh asked for during a running load sees a device registered meanwhile', async () => {
    const gw = await register();
    const sn = `PCS-LATE-${engine}`;
    const directory = new DeviceDirectory(slowAnswers(ctx.database.db, 200));
    const running = directory.refresh(); // its query runs now, before the insert; the answer comes later
    const [row] = await ctx.database.db
      .insert(device)
      .values({ companyId, siteId: gw.siteId, gatewayId: gw.id, sn, type: 'pcs' })
      .returning({ id: device.id });
    await directory.refresh(); // asked for after the insert, as the registry does
    expect(directory.cached(sn)?.deviceId).toBe(row!.id);
    await running;
  });

  it('stores a timestamp an hour ahead at the receive time and sends the gateway a time_sync', async () => {
    const gw = await register();
    const client = await connect(gw);
    await client.subscribeAsync(deviceTopic(gw.sn, 'cmd'), { qos: 1 });
    const commands: CommandPayload[] = [];
    client.on('message', (_topic, payload) => {
      const cmd = JSON.parse(payload.toString()) as CommandPayload;
      commands.push(cmd);
      client.publish(
        deviceTopic(gw.sn, 'reply'),
        JSON.stringify({ v: 1, id: cmd.id, ts: Date.now(), ok: true }),
        {
          qos: 1,
        },
      );
    });
    const skewBefore = devices.ingest.stats.clockSkew;
    const sentAt = Date.now();
    await client.publishAsync(
      deviceTopic(gw.sn, 'telemetry'),
      telemetryOf(gw, 'skew-1', sentAt + 3600_000, { p_kw: 12 }),
      { qos: 1 },
    );
    const rows = await rowsOf(gw.pcs.id);
    expect(rows).toHaveLength(1);
    expect(Math.abs(rows[0]!.ts.getTime() - sentAt)).toBeLessThanOrEqual(5000);
    expect(rows[0]!.points).toEqual({ p_kw: 12 });
    expect(devices.ingest.stats.clockSkew).toBe(skewBefore + 1);

    const sync = await waitFor(() => commands.find((c) => c.name === 'time_sync'));
    expect(Math.abs((sync.params.serverTs as number) - Date.now())).toBeLessThanOrEqual(5000);
  });

  it('drops telemetry older than 7 days and counts it; 6 days old is stored at its own time', async () => {
    const gw = await register();
    const client = await connect(gw);
    const before = devices.ingest.stats.tooOld;
    const eightDays = Date.now() - 8 * 86_400_000;
    const sixDays = Date.now() - 6 * 86_400_000;
    await client.publishAsync(
      deviceTopic(gw.sn, 'telemetry'),
      telemetryOf(gw, 'old-8', eightDays, { p_kw: 1 }),
      {
        qos: 1,
      },
    );
    await client.publishAsync(
      deviceTopic(gw.sn, 'telemetry'),
      telemetryOf(gw, 'old-6', sixDays, { p_kw: 2 }),
      {
        qos: 1,
      },
    );
    expect(devices.ingest.stats.tooOld).toBe(before + 1);
    const rows = await rowsOf(gw.pcs.id);
    expect(rows.map((r) => [r.ts.getTime(), r.points])).toEqual([[sixDays, { p_kw: 2 }]]);
    expect(client.connected).toBe(true);
  });

  describe('out-of-order messages (the later sent carries the older time)', () => {
    // Two device times two minutes apart inside one 15-minute bucket two hours ago (15-minute
    // buckets are aligned to UTC quarter hours, so hour and site-local day buckets agree too).
    const bucket = Math.floor((Date.now() - 2 * 3600_000) / 900_000) * 900_000;
    const older = bucket + 60_000;
    const newer = bucket + 180_000;

    async function expectOrderedByDeviceTime(gw: Gateway) {
      expect((await rowsOf(gw.pcs.id)).map((r) => [r.ts.getTime(), r.points])).toEqual([
        [older, { p_kw: 10, pf: 0.9 }],
        [newer, { p_kw: 20, q_kvar: 5 }],
      ]);
      const [latest] = await ctx.database.db
        .select()
        .from(deviceLatest)
        .where(eq(deviceLatest.deviceId, gw.pcs.id));
      expect(latest!.ts.getTime()).toBe(newer);
      // The newer message's values win; the older one only fills the point the newer lacks.
      expect(latest!.points).toEqual({ p_kw: 20, q_kvar: 5, pf: 0.9 });
      const rollups = await ctx.database.db
        .select()
        .from(telemetryRollup)
        .where(and(eq(telemetryRollup.deviceId, gw.pcs.id), eq(telemetryRollup.point, 'p_kw')));
      expect(rollups.map((r) => r.bucketS).sort()).toEqual([3600, 86400, 900]);
      for (const r of rollups) {
        expect(r).toMatchObject({ n: 2, sum: 30, min: 10, max: 20, firstValue: 10, lastValue: 20 });
        expect([r.firstTs.getTime(), r.lastTs.getTime()]).toEqual([older, newer]);
      }
    }

    it('in two batches: both stored, latest values and rollup first/last follow device time', async () => {
      const gw = await register();
      const client = await connect(gw);
      const topic = deviceTopic(gw.sn, 'telemetry');
      await client.publishAsync(topic, telemetryOf(gw, 'ooo-1', newer, { p_kw: 20, q_kvar: 5 }), { qos: 1 });
      await client.publishAsync(topic, telemetryOf(gw, 'ooo-2', older, { p_kw: 10, pf: 0.9 }), { qos: 1 });
      await expectOrderedByDeviceTime(gw);
    });

    it('in one batch: the same outcome', async () => {
      const gw = await register();
      const client = await connect(gw);
      const topic = deviceTopic(gw.sn, 'telemetry');
      await Promise.all([
        client.publishAsync(topic, telemetryOf(gw, 'ooo-1', newer, { p_kw: 20, q_kvar: 5 }), { qos: 1 }),
        client.publishAsync(topic, telemetryOf(gw, 'ooo-2', older, { p_kw: 10, pf: 0.9 }), { qos: 1 }),
      ]);
      await expectOrderedByDeviceTime(gw);
    });
  });

  it('a flood of 2,000 QoS 1 messages from one gateway is stored completely; the API keeps answering', async () => {
    const gw = await register();
    const client = await connect(gw);
    const topic = deviceTopic(gw.sn, 'telemetry');
    const start = Date.now() - 3600_000;
    const count = 2000;
    const storedBefore = devices.ingest.stats.storedRows;
    let flooding = true;
    const flood = Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.publishAsync(topic, telemetryOf(gw, `f-${i}`, start + i, { p_kw: i, freq_hz: 50 }), {
          qos: 1,
        }),
      ),
    ).finally(() => {
      flooding = false;
    });
    // The API answers while the flood is being stored.
    const answers: number[] = [];
    while (flooding) {
      const response = await call(ctx.app, endpoints.dashboard.overview.path, {}, { token });
      answers.push(response.code);
    }
    await flood;
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((c) => c === 0)).toBe(true);

    const [stored] = await ctx.database.db
      .select({
        n: sql<number>`count(*)::int`,
        distinctTs: sql<number>`count(DISTINCT ${telemetry.ts})::int`,
      })
      .from(telemetry)
      .where(eq(telemetry.deviceId, gw.pcs.id));
    expect(stored).toEqual({ n: count, distinctTs: count });
    expect(devices.ingest.stats.storedRows - storedBefore).toBe(count);
    const [sum] = await ctx.database.db
      .select({ n: sql<number>`sum(${telemetryRollup.n})::int` })
      .from(telemetryRollup)
      .where(
        and(
          eq(telemetryRollup.deviceId, gw.pcs.id),
          eq(telemetryRollup.point, 'p_kw'),
          eq(telemetryRollup.bucketS, 900),
        ),
      );
    expect(sum!.n).toBe(count);
    expect(client.connected).toBe(true);
  });

  it('drops a payload over 256 KiB as malformed; the connection stays and the next message is stored', async () => {
    const gw = await register();
    const client = await connect(gw);
    const topic = deviceTopic(gw.sn, 'telemetry');
    const ts = Date.now() - 1000;
    // Valid in every field (zod ignores the unknown `pad`): only the size makes it unacceptable.
    const big = JSON.stringify({
      v: 1,
      id: 'big',
      ts,
      devices: [{ sn: gw.pcs.sn, type: 'pcs', points: { p_kw: 1 } }],
      pad: 'x'.repeat(MAX_PAYLOAD_BYTES),
    });
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    const malformed = devices.ingest.stats.malformed;
    // The embedded broker (aedes) has no packet-size limit of its own: the message reaches
    // ingest, which drops it; the PUBACK still comes.
    await client.publishAsync(topic, big, { qos: 1 });
    expect(devices.ingest.stats.malformed).toBe(malformed + 1);
    expect(await rowsOf(gw.pcs.id)).toHaveLength(0);
    expect(client.connected).toBe(true);
    await client.publishAsync(topic, telemetryOf(gw, 'small', ts, { p_kw: 1 }), { qos: 1 });
    expect((await rowsOf(gw.pcs.id)).map((r) => r.points)).toEqual([{ p_kw: 1 }]);
  });
});
