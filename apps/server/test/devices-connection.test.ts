/**
 * Online/offline through the embedded broker: a gateway that stays silent for the heartbeat
 * timeout goes offline with reason 'timeout' (a row in device_connection_log), comes back with its
 * next message, and a `{online:false, reason:'clean'}` status before disconnecting gives reason
 * 'clean'. The tracker runs on a manual clock and the test runs its sweep, so no step races the
 * wall clock (a 400 ms real timeout once turned 'clean' into 'timeout' on a loaded CI machine).
 */
import { deviceTopic } from '@ess/contract';
import { asc, eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, deviceConnectionLog } from '../src/core/db/schema';
import { ConnectionTracker } from '../src/devices/connection-tracker';
import type { DeviceDirectory, DirectoryEntry } from '../src/devices/device-directory';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const HEARTBEAT_TIMEOUT_MS = 60_000;

describe.each(engines)('gateway online/offline on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let gateway: { id: number; sn: string; secret: string };
  /** The tracker's clock: it moves only when the test says so. */
  let now = Date.now();

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    const admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `HB-${engine}`, name: 'Heartbeat site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-HB-${engine}`, type: 'ems' });
    gateway = { id: ems.data.id, sn: ems.data.secret.sn, secret: ems.data.secret.secret };
    devices = new DeviceService(ctx.database.db, ctx.app.log, {
      mqttPort: 0,
      mqttHost: '127.0.0.1',
      heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
      // The periodic sweep never fires during the test; the test runs it (tracker.sweep()).
      heartbeatSweepMs: 3_600_000,
      clock: () => now,
    });
    await devices.start();
  });
  afterAll(async () => {
    await devices?.close();
    await ctx?.close();
  });

  const state = async () => {
    const [row] = await ctx.database.db.select().from(device).where(eq(device.id, gateway.id));
    return row!;
  };
  const log = () =>
    ctx.database.db
      .select({ online: deviceConnectionLog.online, reason: deviceConnectionLog.reason })
      .from(deviceConnectionLog)
      .where(eq(deviceConnectionLog.deviceId, gateway.id))
      .orderBy(asc(deviceConnectionLog.id));

  it('a silent gateway goes offline by timeout and comes back with its next message; a clean status is reason clean', async () => {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${devices.brokerAddress.port}`, {
      clientId: gateway.sn,
      username: gateway.sn,
      password: gateway.secret,
      reconnectPeriod: 0,
      keepalive: 60,
    });
    const status = (body: object) =>
      client.publishAsync(
        deviceTopic(gateway.sn, 'status'),
        JSON.stringify({ v: 1, ts: Date.now(), ...body }),
        {
          qos: 1,
          retain: true,
        },
      );
    await status({ online: true });
    expect(await state()).toMatchObject({ online: true, offlineReason: null });

    // Silent (the MQTT connection stays up; keep-alive pings are not device messages): still
    // online one millisecond before the timeout, offline at it.
    now += HEARTBEAT_TIMEOUT_MS - 1;
    await devices.tracker.sweep();
    expect(await state()).toMatchObject({ online: true, offlineReason: null });
    now += 2;
    await devices.tracker.sweep();
    expect(await state()).toMatchObject({ online: false, offlineReason: 'timeout' });
    expect(client.connected).toBe(true);
    expect(await log()).toEqual([
      { online: true, reason: null },
      { online: false, reason: 'timeout' },
    ]);

    // Any valid message is a heartbeat: telemetry brings it back.
    await client.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      JSON.stringify({
        v: 1,
        id: 't-1',
        ts: Date.now(),
        devices: [{ sn: gateway.sn, type: 'ems', points: { soc_pct: 50 } }],
      }),
      { qos: 1 },
    );
    // (The heartbeat's online change is written beside the telemetry batch, not before its PUBACK.)
    expect(await waitFor(async () => ((await state()).online ? state() : undefined))).toMatchObject({
      online: true,
      offlineReason: null,
    });

    // Clean shutdown: death status, then DISCONNECT.
    await status({ online: false, reason: 'clean' });
    await client.endAsync();
    expect(await state()).toMatchObject({ online: false, offlineReason: 'clean' });
    // The sweep does not turn a clean disconnect into a timeout later.
    now += HEARTBEAT_TIMEOUT_MS * 2;
    await devices.tracker.sweep();
    expect(await log()).toEqual([
      { online: true, reason: null },
      { online: false, reason: 'timeout' },
      { online: true, reason: null },
      { online: false, reason: 'clean' },
    ]);
    expect((await state()).offlineReason).toBe('clean');
  });
});

/**
 * Several instances sharing the ingest (MQTT share group): each hears only its share of a
 * gateway's messages. Two trackers on one database and one clock; A hears the gateway, B hears
 * nothing of it. B's sweep must not call it offline while A hears it (A's sweep stores when it
 * heard it); once nobody hears it, both sweeping record one timeout between them.
 */
describe.each(engines)('gateway heartbeat across two instances on %s', (engine) => {
  let ctx: TestContext;
  let entry: DirectoryEntry;
  let now = Date.now();
  const changes: { by: string; online: boolean; reason: string | null }[] = [];

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    const admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `HB2-${engine}`, name: 'Shared heartbeat site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-HB2-${engine}`, type: 'ems' });
    await ctx.database.db
      .update(device)
      .set({ online: true, lastSeenAt: new Date(now) })
      .where(eq(device.id, ems.data.id));
    entry = {
      deviceId: ems.data.id,
      sn: `EMS-HB2-${engine}`,
      type: 'ems',
      siteId: site.data.id,
      companyId: 1,
      gatewayId: ems.data.id,
      isGateway: true,
      secretHash: null,
      mqttClientId: null,
      timezone: 'Asia/Shanghai',
    };
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const tracker = async (by: string) => {
    const directory = { byDeviceId: (id: number) => (id === entry.deviceId ? entry : undefined) };
    const t = new ConnectionTracker(
      ctx.database.db,
      directory as unknown as DeviceDirectory,
      ctx.app.log,
      { onChange: (c) => changes.push({ by, online: c.online, reason: c.reason }) },
      HEARTBEAT_TIMEOUT_MS,
      () => now,
    );
    await t.start();
    return t;
  };
  const timeouts = () =>
    ctx.database.db
      .select({ online: deviceConnectionLog.online, reason: deviceConnectionLog.reason })
      .from(deviceConnectionLog)
      .where(eq(deviceConnectionLog.deviceId, entry.deviceId));

  it('kept online by what the other instance heard; one timeout when nobody hears it', async () => {
    const a = await tracker('A');
    const b = await tracker('B');
    // Three timeouts' worth of time, the gateway heard by A every 20 s, each instance sweeping.
    for (let s = 0; s < 9; s++) {
      now += 20_000;
      a.seen(entry);
      await a.sweep();
      await b.sweep();
    }
    expect(b.isOnline(entry.deviceId)).toBe(true);
    expect(changes).toEqual([]);
    expect(
      (await ctx.database.db.select().from(device).where(eq(device.id, entry.deviceId)))[0],
    ).toMatchObject({
      online: true,
      lastSeenAt: new Date(now),
    });
    // Silent: both sweep past the timeout; one of them records it.
    now += HEARTBEAT_TIMEOUT_MS + 1;
    await Promise.all([a.sweep(), b.sweep()]);
    await Promise.all([a.sweep(), b.sweep()]);
    expect(await timeouts()).toEqual([{ online: false, reason: 'timeout' }]);
    expect(changes.map((c) => c.reason)).toEqual(['timeout']);
    expect([a.isOnline(entry.deviceId), b.isOnline(entry.deviceId)]).toEqual([false, false]);
  });
});
