/**
 * The demo's flaky gateway (gateway.ts `dropoutAt`, issue 14): in an outage window it loses its
 * connection without a goodbye (the broker publishes its last will), stays away, reconnects at
 * the window's end and then sends what it measured meanwhile; the windows are seeded; message
 * ids carry the start's stamp, so a restarted gateway never reuses one. The simulation clock is
 * driven by hand: no wall-clock race.
 */
import { createServer, type Server } from 'node:net';
import { deviceTopic, type TelemetryPayload } from '@ess/contract';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropoutAt, SimGateway } from '../src/gateway';
import { createSimSite } from '../src/sim-site';
import { uniqueFleet } from './support';

const START = Date.UTC(2025, 6, 15, 2, 0);
const tag = `d${process.pid.toString(36)}`;
const [site] = uniqueFleet(1, 1, tag);

let broker: Aedes;
let server: Server;
let url: string;
let observer: MqttClient;
const received: Array<{ topic: string; payload: Record<string, unknown> }> = [];

async function waitFor<T>(what: string, probe: () => T | undefined | false, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  broker = await Aedes.createBroker();
  server = createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  url = `mqtt://127.0.0.1:${addr.port}`;
  observer = await mqtt.connectAsync(url, { clientId: `observer-${tag}`, reconnectPeriod: 0 });
  observer.on('message', (topic, payload) => {
    if (payload.length > 0) received.push({ topic, payload: JSON.parse(payload.toString()) });
  });
  await observer.subscribeAsync(`ess/v1/${site!.gatewaySn}/#`, { qos: 1 });
});

afterAll(async () => {
  await observer?.endAsync();
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => broker.close(() => r()));
});

describe('dropouts', () => {
  it('outage windows are seeded: the same for a seed, 3–9 min, in about one hour of eight', () => {
    const sn = site!.gatewaySn;
    const windows = new Map<number, { fromMs: number; toMs: number }>();
    for (let t = START; t < START + 20 * 86_400_000; t += 60_000) {
      const w = dropoutAt(1, sn, t);
      if (w) windows.set(w.fromMs, w);
    }
    expect(windows.size).toBeGreaterThan(30);
    expect(windows.size).toBeLessThan(90);
    for (const w of windows.values()) {
      expect(w.toMs - w.fromMs).toBeGreaterThanOrEqual(3 * 60_000);
      expect(w.toMs - w.fromMs).toBeLessThanOrEqual(9 * 60_000);
      expect(dropoutAt(1, sn, w.fromMs)).toEqual(w);
      expect(dropoutAt(1, sn, w.toMs)).not.toEqual(w);
    }
    const other = [...windows.keys()].filter((from) => dropoutAt(2, sn, from + 1)?.fromMs === from);
    expect(other.length).toBeLessThan(windows.size / 2);
  });

  it('the gateway drops off without a goodbye, comes back at the window’s end and sends what it measured meanwhile', async () => {
    const sn = site!.gatewaySn;
    let outage: { fromMs: number; toMs: number } | null = null;
    for (let t = START + 3_600_000; !outage; t += 60_000) outage = dropoutAt(1, sn, t);
    const gateway = new SimGateway({
      site: site!,
      url,
      secret: undefined,
      state: createSimSite(site!, 1, outage.fromMs - 10 * 60_000),
      dropouts: true,
      seed: 1,
      mqtt: { reconnectPeriod: 100 },
    });
    await gateway.start();
    const on = (kind: Parameters<typeof deviceTopic>[1]) =>
      received.filter((m) => m.topic === deviceTopic(sn, kind)).map((m) => m.payload);
    try {
      gateway.advance(outage.fromMs - 60_000);
      await waitFor('telemetry before', () => on('telemetry').length >= 8);
      gateway.advance(outage.fromMs + 60_000);
      const will = await waitFor('last will', () => on('status').find((s) => s.online === false));
      expect(will).toMatchObject({ online: false, reason: 'lwt' });
      expect(gateway.stats).toMatchObject({ dropouts: 1, connected: false });
      const before = on('telemetry').length;
      gateway.advance(outage.toMs - 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(on('telemetry').length).toBe(before); // away: nothing sent
      expect(gateway.stats.connected).toBe(false);

      gateway.advance(outage.toMs + 60_000);
      await waitFor('birth again', () => on('status').filter((s) => s.online === true).length >= 2);
      const minutes = (outage.toMs + 60_000 - (outage.fromMs + 60_000)) / 60_000;
      const after = (await waitFor('the backlog', () => {
        const t = on('telemetry');
        return t.length >= before + minutes ? t : undefined;
      })) as unknown as TelemetryPayload[];
      const sent = after.slice(before).map((t) => t.ts);
      expect(sent.some((ts) => ts > outage!.fromMs && ts < outage!.toMs)).toBe(true);
      expect(sent).toEqual([...sent].sort((x, y) => x - y)); // in order
      // ids carry this start's stamp: a restarted gateway starts another series
      const ids = after.map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
      const stamp = (outage.fromMs - 10 * 60_000).toString(36);
      expect(ids.every((id) => id.startsWith(`${stamp}-`))).toBe(true);
    } finally {
      await gateway.stop();
    }
  });
});
