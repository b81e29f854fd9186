/**
 * Live push over /ws: token in the first message, Origin checked, a full snapshot on subscribe
 * and updates (at most one a second) when a device reports.
 */
import { deviceTopic } from '@ess/contract';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DeviceService } from '../src/devices/device-service';
import { call, type SignedIn, signIn } from './support/client';
import { addStaff } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

// biome-ignore lint/suspicious/noExplicitAny: messages are checked field by field below
type Message = { type: string; [key: string]: any };

function openSocket(url: string, origin?: string) {
  const socket = new WebSocket(url, origin ? { origin } : {});
  const messages: Message[] = [];
  socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const next = async (type: string, ms = 5000, predicate: (m: Message) => boolean = () => true) => {
    const end = Date.now() + ms;
    for (;;) {
      const i = messages.findIndex((m) => m.type === type && predicate(m));
      if (i >= 0) return messages.splice(i, 1)[0]!;
      if (Date.now() > end) throw new Error(`no ${type} message within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { socket, opened, closed, next, send: (m: object) => socket.send(JSON.stringify(m)) };
}

describe.each(engines)('live push on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let base: string;
  let admin: SignedIn;
  let gateway: { sn: string; secret: string };

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    devices = new DeviceService(ctx.database.db, ctx.app.log, { mqttPort: 0, mqttHost: '127.0.0.1' });
    await devices.start();
    ctx.app.live.start(devices);
    ctx.app.devices = devices;
    base = (await ctx.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    admin = await signIn(ctx.app);
    const api = (path: string, body: object) =>
      call(ctx.app, `/api-bms/${path}`, body, { token: admin.token });
    const site = await api('site/save', { code: `L-${engine}`, name: 'Live site' });
    const ems = await api('device/save', { siteId: site.data.id, sn: `EMS-L-${engine}`, type: 'ems' });
    await api('device/save', {
      siteId: site.data.id,
      sn: `PCS-L-${engine}`,
      type: 'pcs',
      gatewayId: ems.data.id,
      ratedPowerKw: 100,
    });
    await api('device/save', {
      siteId: site.data.id,
      sn: `BMS-L-${engine}`,
      type: 'bms',
      gatewayId: ems.data.id,
      capacityKwh: 215,
    });
    gateway = { sn: ems.data.secret.sn, secret: ems.data.secret.secret };
  });
  afterAll(async () => {
    await devices?.close();
    await ctx?.close();
  });

  it('refuses another origin and a bad token', async () => {
    const foreign = openSocket(`${base}/ws`, 'http://evil.example');
    expect(await foreign.closed).toBe(4003);
    const bad = openSocket(`${base}/ws`);
    await bad.opened;
    bad.send({ type: 'auth', token: 'nonsense' });
    expect((await bad.next('error')).code).toBe(50008);
    expect(await bad.closed).toBe(4001);
  });

  it('closes the socket of an employee the moment they are disabled', async () => {
    const staff = await addStaff(ctx.database.db, { companyId: admin.companyId });
    const session = await signIn(ctx.app, staff.account, staff.password);
    const live = openSocket(`${base}/ws`, base.replace('ws', 'http'));
    await live.opened;
    live.send({ type: 'auth', token: session.token });
    await live.next('ready');
    const disabled = await call(
      ctx.app,
      '/api-bms/employee/status',
      { id: staff.employeeId, status: 'disabled' },
      { token: admin.token },
    );
    expect(disabled.code).toBe(0);
    expect((await live.next('error', 3000)).code).toBe(50012);
    expect(await live.closed).toBe(4001);
  });

  it('answers subscribe with a snapshot, then pushes what a device reports', async () => {
    const live = openSocket(`${base}/ws`, base.replace('ws', 'http'));
    await live.opened;
    live.send({ type: 'subscribe', channels: ['fleet'] });
    expect((await live.next('error')).code).toBe(9999); // not authenticated yet
    live.send({ type: 'auth', token: admin.token });
    await live.next('ready');
    live.send({ type: 'subscribe', channels: ['fleet'] });
    const snapshot = await live.next('fleet');
    expect(snapshot.overview).toMatchObject({ gatewaysOnline: 0, capacityKwh: 215 });

    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${devices.brokerAddress.port}`, {
      clientId: gateway.sn,
      username: gateway.sn,
      password: gateway.secret,
      reconnectPeriod: 0,
    });
    await device.publishAsync(
      deviceTopic(gateway.sn, 'telemetry'),
      JSON.stringify({
        v: 1,
        id: '1',
        ts: Date.now(),
        devices: [
          { sn: `PCS-L-${engine}`, type: 'pcs', points: { p_kw: 42 } },
          { sn: `BMS-L-${engine}`, type: 'bms', points: { soc_pct: 61 } },
        ],
      }),
      { qos: 1 },
    );
    const update = await live.next('fleet', 5000, (m) => m.overview.dischargingPowerKw === 42);
    expect(update.overview).toMatchObject({ gatewaysOnline: 1, dischargingPowerKw: 42, fleetSocPct: 61 });
    await device.endAsync();
    live.socket.close();
  });
});
