/**
 * The fleet on a real broker: an in-process aedes broker that checks the credentials, or the
 * broker at TEST_MQTT_URL (CI's Mosquitto, anonymous) when that is set. SNs carry a per-run tag
 * so parallel runs on a shared broker do not collide; retained messages and persistent
 * sessions of the test gateways are removed afterwards.
 */
import { createServer, type Server } from 'node:net';
import {
  deviceTopic,
  replyPayload,
  statusPayload,
  type TelemetryPayload,
  telemetryPayload,
} from '@ess/contract';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFleet, startFleet } from '../src/index';
import { touPlan, uniqueFleet } from './support';

const START = Date.UTC(2025, 6, 15, 2, 0); // 10:00 in China
const tag = `t${process.pid.toString(36)}${Date.now().toString(36).slice(-5)}`;
const sites = uniqueFleet(1, 2, tag);
const credentials = new Map(sites.map((s, i) => [s.gatewaySn, `secret-${i}-${tag}`]));
const external = process.env.TEST_MQTT_URL;

let url: string;
let broker: Aedes | undefined;
let server: Server | undefined;
const logins: Array<{ clientId: string; username?: string | undefined; password?: string | undefined }> = [];
let observer: MqttClient;
const received: Array<{ topic: string; payload: Record<string, unknown>; retain: boolean }> = [];
let fleet: RunningFleet | undefined;

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const on = (sn: string, kind: Parameters<typeof deviceTopic>[1]) =>
  received.filter((m) => m.topic === deviceTopic(sn, kind)).map((m) => m.payload);

beforeAll(async () => {
  if (external) {
    url = external;
  } else {
    broker = await Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        logins.push({ clientId: client.id, username, password: password?.toString() });
        const ok =
          (username === 'observer' && password?.toString() === 'observer') ||
          (username === client.id &&
            username !== undefined &&
            credentials.get(username) === password?.toString());
        done(null, ok);
      },
    });
    const srv = createServer(broker.handle);
    server = srv;
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const addr = srv.address();
    if (!addr || typeof addr === 'string') throw new Error('no port');
    url = `mqtt://127.0.0.1:${addr.port}`;
  }
  observer = await mqtt.connectAsync(url, {
    clientId: `observer-${tag}`,
    username: 'observer',
    password: 'observer',
    reconnectPeriod: 0,
  });
  observer.on('message', (topic, payload, packet) => {
    if (payload.length === 0) return;
    received.push({ topic, payload: JSON.parse(payload.toString()), retain: packet.retain });
  });
  await observer.subscribeAsync(
    sites.map((s) => `ess/v1/${s.gatewaySn}/#`),
    { qos: 1 },
  );
});

afterAll(async () => {
  await fleet?.stop();
  if (observer) {
    // remove the retained status messages of the test gateways
    for (const s of sites)
      await observer.publishAsync(deviceTopic(s.gatewaySn, 'status'), '', { qos: 1, retain: true });
    await observer.endAsync();
  }
  if (external) {
    // and their persistent sessions
    for (const s of sites) {
      const c = await mqtt.connectAsync(url, {
        clientId: s.gatewaySn,
        username: s.gatewaySn,
        password: credentials.get(s.gatewaySn)!,
        clean: true,
        reconnectPeriod: 0,
      });
      await c.endAsync();
    }
  }
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await new Promise<void>((r) => (broker ? broker.close(() => r()) : r()));
});

describe(`fleet on a real broker (${external ? 'TEST_MQTT_URL' : 'in-process aedes'})`, () => {
  it('publishes birth and telemetry that parse, answers time_sync and set_tou_plan, and dies cleanly', async () => {
    fleet = await startFleet({
      url,
      sites,
      credentials,
      speed: 600,
      seed: 1,
      startTimeMs: START,
      tickMs: 50,
    });
    expect(fleet.sites.map((g) => g.stats.connected)).toEqual([true, true]);
    if (!external) {
      for (const s of sites) {
        expect(logins).toContainEqual({
          clientId: s.gatewaySn,
          username: s.gatewaySn,
          password: credentials.get(s.gatewaySn),
        });
      }
    }

    // birth (retained) and ≥ 6 telemetry messages per gateway
    for (const s of sites) {
      const birth = await waitFor('birth', () => on(s.gatewaySn, 'status')[0]);
      expect(statusPayload.parse(birth)).toMatchObject({
        v: 1,
        online: true,
        intervalS: 60,
        firmware: s.firmware,
      });
      const tel = (await waitFor('telemetry', () => {
        const t = on(s.gatewaySn, 'telemetry');
        return t.length >= 6 ? t : undefined;
      })) as TelemetryPayload[];
      for (const t of tel) telemetryPayload.parse(t);
      const first = tel.slice(0, 6);
      expect(new Set(first.map((t) => t.id)).size).toBe(6);
      // one message per 60 s of simulated time, on the minute
      for (let i = 1; i < 6; i++) expect(first[i]!.ts - first[i - 1]!.ts).toBe(60_000);
      expect(first[0]!.ts % 60_000).toBe(0);
      // cell arrays on every 5th message only
      expect(first.map((t) => t.devices.some((d) => d.cells !== undefined))).toEqual([
        false,
        false,
        false,
        false,
        true,
        false,
      ]);
      expect(new Set(first[0]!.devices.map((d) => d.sn))).toEqual(new Set(s.devices.map((d) => d.sn)));
    }

    // time_sync: set the first gateway's clock back one day
    const gw = sites[0]!.gatewaySn;
    const serverTs = START - 86_400_000;
    await observer.publishAsync(
      deviceTopic(gw, 'cmd'),
      JSON.stringify({ v: 1, id: `c-sync-${tag}`, ts: Date.now(), name: 'time_sync', params: { serverTs } }),
      { qos: 1 },
    );
    const reply = await waitFor('time_sync reply', () =>
      on(gw, 'reply').find((r) => r.id === `c-sync-${tag}`),
    );
    expect(replyPayload.parse(reply)).toMatchObject({ ok: true });
    expect(Math.abs((reply.ts as number) - serverTs)).toBeLessThan(60_000 * 5);
    const n = on(gw, 'telemetry').length;
    await waitFor('telemetry on the new clock', () => {
      const later = on(gw, 'telemetry').slice(n) as TelemetryPayload[];
      return later.find((t) => t.ts < START);
    });

    // set_tou_plan: a valid scheme is applied, an invalid one refused
    const plan = touPlan([
      ['00:00', 'charge', 50],
      ['06:00', 'idle'],
    ]);
    const day = plan.scheme.dailyPlans[0]!;
    const badPlan = {
      ...plan,
      scheme: { ...plan.scheme, dailyPlans: [{ ...day, periods: [day.periods[0]] }] },
    };
    for (const [id, params] of [
      [`c-plan-${tag}`, plan],
      [`c-bad-${tag}`, badPlan],
    ] as const) {
      await observer.publishAsync(
        deviceTopic(gw, 'cmd'),
        JSON.stringify({ v: 1, id, ts: Date.now(), name: 'set_tou_plan', params }),
        { qos: 1 },
      );
    }
    const ok = await waitFor('plan reply', () => on(gw, 'reply').find((r) => r.id === `c-plan-${tag}`));
    const bad = await waitFor('bad plan reply', () => on(gw, 'reply').find((r) => r.id === `c-bad-${tag}`));
    expect(ok).toMatchObject({ ok: true, result: { version: 1 } });
    expect(bad).toMatchObject({
      ok: false,
      error: 'daily plan "Test day", period 1: The last end time of a daily plan must be 00:00',
    });
    expect(fleet.gateway(gw)!.state.touPlan).toEqual(plan);

    // clean stop: death status on both gateways
    await fleet.stop();
    for (const s of sites) {
      const death = await waitFor('death', () => on(s.gatewaySn, 'status').find((p) => p.online === false));
      expect(statusPayload.parse(death)).toMatchObject({ online: false, reason: 'clean' });
    }
  });
});
