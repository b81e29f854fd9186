/**
 * Devices over MQTT through the embedded broker: a registered gateway connects with its SN and
 * secret, publishes birth, telemetry and events, and shows up online with its values; the ACL
 * and authentication refuse what they must; a redelivered message is stored once.
 */
import { deviceTopic } from '@ess/contract';
import { eq, sql } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alarmEvent, device, deviceLatest, telemetry, telemetryRollup } from '../src/core/db/schema';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

describe.each(engines)('device ingest through the embedded broker on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let port: number;
  let gateway: { id: number; sn: string; secret: string };
  let pcsId: number;

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    const admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `T-${engine}`, name: 'Test site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-T-${engine}`, type: 'ems' });
    gateway = { id: ems.data.id, sn: ems.data.secret.sn, secret: ems.data.secret.secret };
    const pcs = await api('device/save', {
      siteId: site.data.id,
      sn: `PCS-T-${engine}`,
      type: 'pcs',
      gatewayId: gateway.id,
    });
    pcsId = pcs.data.id;
    devices = new DeviceService(ctx.database.db, ctx.app.log, { mqttPort: 0, mqttHost: '127.0.0.1' });
    await devices.start();
    port = devices.brokerAddress.port!;
  });
  afterAll(async () => {
    await devices?.close();
    await ctx?.close();
  });

  const connect = (username: string, password: string, clientId = username) =>
    mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId,
      username,
      password,
      reconnectPeriod: 0,
      clean: true,
    });

  it('refuses anonymous clients, unknown SNs and wrong secrets', async () => {
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 })).rejects.toThrow();
    await expect(connect('NOPE-0001', 'x')).rejects.toThrow(/Bad username or password|Not authorized/i);
    await expect(connect(gateway.sn, 'wrong-secret')).rejects.toThrow(/Bad username or password/i);
    await expect(connect(gateway.sn, gateway.secret, 'other-client-id')).rejects.toThrow(/Not authorized/i);
  });

  it('a gateway comes online, its telemetry is stored with rollups and latest values, redelivery stored once', async () => {
    const client = await connect(gateway.sn, gateway.secret);
    const ts = Date.now() - 1000;
    const unknownBefore = devices.ingest.stats.unknownSn;
    await client.publishAsync(
      deviceTopic(gateway.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), online: true, firmware: 'EMS-2.4.1' }),
      { qos: 1, retain: true },
    );
    const message = JSON.stringify({
      v: 1,
      id: '1',
      ts,
      devices: [
        { sn: gateway.sn, type: 'ems', points: { soc_pct: 55 } },
        { sn: `PCS-T-${engine}`, type: 'pcs', points: { p_kw: -50, freq_hz: 50.01 } },
        { sn: 'NOT-MINE-01', type: 'pcs', points: { p_kw: 1 } },
      ],
    });
    await client.publishAsync(deviceTopic(gateway.sn, 'telemetry'), message, { qos: 1 });
    // PUBACK came back only after the batch was stored:
    const rows = await ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, pcsId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.points).toEqual({ p_kw: -50, freq_hz: 50.01 });
    await client.publishAsync(deviceTopic(gateway.sn, 'telemetry'), message, { qos: 1 }); // redelivery
    expect(await ctx.database.db.select().from(telemetry).where(eq(telemetry.deviceId, pcsId))).toHaveLength(
      1,
    );
    const rollups = await ctx.database.db
      .select()
      .from(telemetryRollup)
      .where(sql`${telemetryRollup.deviceId} = ${pcsId} AND ${telemetryRollup.point} = 'p_kw'`);
    expect(rollups.map((r) => [r.bucketS, r.n, r.sum]).sort()).toEqual([
      [3600, 1, -50],
      [86400, 1, -50],
      [900, 1, -50],
    ]);
    const [latest] = await ctx.database.db
      .select()
      .from(deviceLatest)
      .where(eq(deviceLatest.deviceId, pcsId));
    expect(latest?.points).toEqual({ p_kw: -50, freq_hz: 50.01 });
    const [gw] = await ctx.database.db.select().from(device).where(eq(device.id, gateway.id));
    expect(gw).toMatchObject({ online: true, firmwareVersion: 'EMS-2.4.1', offlineReason: null });
    // NOT-MINE-01 (not behind this gateway) was dropped from each of the two deliveries.
    expect(devices.ingest.stats.unknownSn).toBe(unknownBefore + 2);
    await client.endAsync();
  });

  it('events are stored once; malformed payloads are counted and the connection stays', async () => {
    const client = await connect(gateway.sn, gateway.secret);
    const event = JSON.stringify({
      v: 1,
      id: 'e-1',
      ts: Date.now(),
      events: [
        {
          deviceSn: `PCS-T-${engine}`,
          kind: 'produce',
          code: 'pcs.over_temperature',
          level: 'warning',
          content: 'IGBT 92 °C',
        },
      ],
    });
    await client.publishAsync(deviceTopic(gateway.sn, 'event'), event, { qos: 1 });
    await client.publishAsync(deviceTopic(gateway.sn, 'event'), event, { qos: 1 });
    const events = await ctx.database.db.select().from(alarmEvent).where(eq(alarmEvent.deviceId, pcsId));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ code: 'pcs.over_temperature', level: 'warning', kind: 'produce' });
    const before = devices.ingest.stats.malformed;
    await client.publishAsync(deviceTopic(gateway.sn, 'telemetry'), '{not json', { qos: 1 });
    await client.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      JSON.stringify({ v: 2, id: 'x', ts: 1, devices: [] }),
      { qos: 1 },
    );
    expect(devices.ingest.stats.malformed).toBe(before + 2);
    expect(client.connected).toBe(true);
    await client.endAsync();
  });

  it('refuses publishing and subscribing outside the gateway’s own topics', async () => {
    const client = await connect(gateway.sn, gateway.secret);
    await expect(client.subscribeAsync('#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await expect(client.subscribeAsync('ess/v1/+/cmd', { qos: 1 })).rejects.toThrow(/Subscribe error/);
    const granted = await client.subscribeAsync(deviceTopic(gateway.sn, 'cmd'), { qos: 1 });
    expect(granted.map((g) => g.qos)).toEqual([1]);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish('ess/v1/SOMEONE-ELSE/telemetry', '{}', { qos: 1 });
    await closed;
    client.end(true);
  });

  it('a last will marks the gateway offline with reason lwt; a command round trip works', async () => {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: gateway.sn,
      username: gateway.sn,
      password: gateway.secret,
      reconnectPeriod: 0,
      will: {
        topic: deviceTopic(gateway.sn, 'status'),
        payload: Buffer.from(JSON.stringify({ v: 1, ts: Date.now(), online: false, reason: 'lwt' })),
        qos: 1,
        retain: true,
      },
    });
    await client.subscribeAsync(deviceTopic(gateway.sn, 'cmd'), { qos: 1 });
    await client.publishAsync(
      deviceTopic(gateway.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), online: true }),
      { qos: 1 },
    );
    client.on('message', (_topic, payload) => {
      const cmd = JSON.parse(payload.toString());
      client.publish(
        deviceTopic(gateway.sn, 'reply'),
        JSON.stringify({ v: 1, id: cmd.id, ts: Date.now(), ok: true }),
        { qos: 1 },
      );
    });
    const reply = await devices.commands.send(gateway.sn, 'time_sync', { serverTs: Date.now() });
    expect(reply.ok).toBe(true);
    client.stream.destroy(); // connection lost without DISCONNECT: the broker publishes the will
    const [gw] = await waitFor(async () => {
      const r = await ctx.database.db.select().from(device).where(eq(device.id, gateway.id));
      return r[0]?.online === false ? r : undefined;
    });
    expect(gw?.offlineReason).toBe('lwt');
  });
  it('a connection lost without a will is offline lwt; a DISCONNECT without a death message is clean', async () => {
    const offlineReason = () =>
      waitFor(async () => {
        const [gw] = await ctx.database.db.select().from(device).where(eq(device.id, gateway.id));
        return gw?.online === false ? gw.offlineReason : undefined;
      });
    const birth = JSON.stringify({ v: 1, ts: Date.now(), online: true });
    const lost = await connect(gateway.sn, gateway.secret);
    await lost.publishAsync(deviceTopic(gateway.sn, 'status'), birth, { qos: 1 });
    lost.stream.destroy();
    expect(await offlineReason()).toBe('lwt');

    const polite = await connect(gateway.sn, gateway.secret);
    await polite.publishAsync(deviceTopic(gateway.sn, 'status'), birth, { qos: 1 });
    await polite.endAsync();
    expect(await offlineReason()).toBe('clean');
  });
});
