/**
 * A simulated gateway on a real broker (in-process aedes, or TEST_MQTT_URL): `params` reports at
 * its start and after a local change, get_params / set_params / debug_frame over cmd and
 * cmd/reply, the test switches (a refused key, a silenced command), and its parameters kept in
 * a folder across a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModbusRequest, deviceTopic, paramsReportPayload, replyPayload } from '@ess/contract';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimGateway } from '../src/gateway';
import { createSimSite } from '../src/sim-site';
import { uniqueFleet } from './support';

const START = Date.UTC(2025, 6, 15, 2, 0);
const tag = `p${process.pid.toString(36)}${Date.now().toString(36).slice(-5)}`;
const site = uniqueFleet(1, 1, tag)[0]!;
const SN = site.gatewaySn;
const AC = site.devices.find((d) => d.type === 'air_conditioner')!.sn;
const external = process.env.TEST_MQTT_URL;
const dir = mkdtempSync(path.join(tmpdir(), 'sim-params-mqtt-'));

let url: string;
let broker: Aedes | undefined;
let server: Server | undefined;
let server_: MqttClient;
const received: Array<{ topic: string; payload: Record<string, unknown> }> = [];
const gateways: SimGateway[] = [];

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const reports = () => received.filter((m) => m.topic === deviceTopic(SN, 'params')).map((m) => m.payload);
const replyTo = (id: string) =>
  received.find((m) => m.topic === deviceTopic(SN, 'reply') && m.payload.id === id)?.payload;

let seq = 0;
async function command(name: string, params: object): Promise<string> {
  const id = `c-${tag}-${++seq}`;
  await server_.publishAsync(
    deviceTopic(SN, 'cmd'),
    JSON.stringify({ v: 1, id, ts: Date.now(), name, params }),
    {
      qos: 1,
    },
  );
  return id;
}

async function start(): Promise<SimGateway> {
  const g = new SimGateway({
    site,
    url,
    secret: undefined,
    state: createSimSite(site, 1, START),
    paramsDir: dir,
    mqtt: { reconnectPeriod: 200 },
  });
  gateways.push(g);
  await g.start();
  g.advance(START + 60_000);
  return g;
}

beforeAll(async () => {
  if (external) {
    url = external;
  } else {
    broker = await Aedes.createBroker();
    const srv = createServer(broker.handle);
    server = srv;
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const addr = srv.address();
    if (!addr || typeof addr === 'string') throw new Error('no port');
    url = `mqtt://127.0.0.1:${addr.port}`;
  }
  server_ = await mqtt.connectAsync(url, { clientId: `server-${tag}`, reconnectPeriod: 0 });
  server_.on('message', (topic, payload) => {
    if (payload.length > 0) received.push({ topic, payload: JSON.parse(payload.toString()) });
  });
  await server_.subscribeAsync(`ess/v1/${SN}/#`, { qos: 1 });
});

afterAll(async () => {
  for (const g of gateways) await g.stop();
  if (server_) {
    await server_.publishAsync(deviceTopic(SN, 'status'), '', { qos: 1, retain: true });
    await server_.endAsync();
  }
  if (external) {
    const c = await mqtt.connectAsync(url, { clientId: SN, clean: true, reconnectPeriod: 0 });
    await c.endAsync();
  }
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await new Promise<void>((r) => (broker ? broker.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

describe(`a gateway's parameters on a real broker (${external ? 'TEST_MQTT_URL' : 'in-process aedes'})`, () => {
  it('reports each device at start, answers commands, obeys the test switches and keeps its parameters across a restart', async () => {
    let g = await start();
    // one startup report per device with parameters
    const startup = await waitFor('startup reports', () => (reports().length >= 5 ? reports() : undefined));
    for (const r of startup) expect(paramsReportPayload.parse(r).cause).toBe('startup');
    expect(startup.map((r) => r.deviceType).sort()).toEqual([
      'air_conditioner',
      'bms',
      'ems',
      'meter',
      'pcs',
    ]);

    // set_params, with one key the device refuses on its own
    g.refuseParam(AC, 'high_temp_alarm_c', 'locked by the local controller');
    const set = await command('set_params', {
      deviceSn: AC,
      version: 1,
      values: { cooling_start_c: 30, high_temp_alarm_c: 50 },
    });
    const answer = replyPayload.parse(await waitFor('set reply', () => replyTo(set)));
    expect(answer).toMatchObject({
      ok: false,
      error: 'high_temp_alarm_c: locked by the local controller',
      result: { results: { cooling_start_c: { status: 'applied', value: 30 } } },
    });
    expect(g.state.settings.coolingStartC).toBe(30);

    // a silenced command is never answered (nor carried out); the others still are
    g.silence('get_params');
    const unanswered = await command('get_params', { deviceSn: AC });
    const read = await command('debug_frame', {
      port: 'rs485_2',
      hex: Buffer.from(buildModbusRequest({ fn: 3, address: 20, register: 1, count: 1 })).toString('hex'),
      timeoutMs: 1000,
    });
    // cooling start 30.0 °C: register value 300 = 0x012c
    expect(await waitFor('debug reply', () => replyTo(read))).toMatchObject({
      ok: true,
      result: { hex: expect.stringMatching(/^14030201 ?2c/) },
    });
    expect(replyTo(unanswered)).toBeUndefined();
    g.unsilence();

    // drift: a change on the device's own screen is reported with cause 'local'
    expect(g.localChange(AC, { cooling_start_c: 32 })).toEqual({
      cooling_start_c: { status: 'applied', value: 32 },
    });
    const local = paramsReportPayload.parse(
      await waitFor('local report', () => reports().find((r) => r.cause === 'local')),
    );
    expect(local).toMatchObject({ deviceSn: AC, version: 1, changed: ['cooling_start_c'] });
    expect(local.values.cooling_start_c).toBe(32);

    // restart: the new gateway runs what the old one was set to, and says so at its start
    await g.stop();
    received.length = 0;
    g = await start();
    expect(g.paramsOf(AC)).toMatchObject({ version: 1, values: { cooling_start_c: 32 } });
    expect(g.state.settings.coolingStartC).toBe(32);
    const again = await waitFor('startup report after restart', () =>
      reports().find((r) => r.deviceSn === AC && r.cause === 'startup'),
    );
    expect(again).toMatchObject({ version: 1, values: { cooling_start_c: 32 } });
    const get = await command('get_params', { deviceSn: AC });
    expect(await waitFor('get reply', () => replyTo(get))).toMatchObject({
      ok: true,
      result: { deviceSn: AC, version: 1, values: { cooling_start_c: 32 } },
    });
  });
});
