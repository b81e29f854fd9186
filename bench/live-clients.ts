/**
 * Child process of the live-latency benchmark (bench/live-latency.ts), apart from the server so
 * that the two do not share an event loop:
 *
 * 1. opens `sockets` dashboard sockets (authenticated), each subscribed to `fleet` and to the
 *    `device:<id>` channel of every site's PCS;
 * 2. as the sites' gateways, publishes telemetry for `durationMs`, each gateway every
 *    `minGapMs`–`maxGapMs` (irregular, so publications fall at every phase of any timer), with a
 *    unique marker as the PCS power; every socket times when it first sees each marker on the
 *    PCS's channel (a later marker seen first counts the earlier one as superseded, not missed);
 * 3. then stays connected and answers `mark` requests (one marker from one gateway, for the
 *    browser measurement) until told to exit.
 */
import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import type { BenchGateway } from './device-payloads';
import { telemetryPayload } from './device-payloads';

export interface LivePlan {
  wsUrl: string;
  origin: string;
  token: string;
  mqttUrl: string;
  gateways: BenchGateway[];
  /** The PCS device id of each gateway (same order). */
  pcsIds: number[];
  sockets: number;
  durationMs: number;
  minGapMs: number;
  maxGapMs: number;
}

export interface LiveResult {
  latencies: number[];
  published: number;
  missed: number;
  superseded: number;
}

interface ServerMessage {
  type: string;
  deviceId?: number;
  points?: Record<string, number>;
}

const send = (message: object) => process.send?.(message);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Markers in flight per PCS id: marker → publish time (ms). */
const pending = new Map<number, Map<number, number>>();
/** Per socket and PCS id: the highest marker seen so far. */
let seenUpTo: Map<number, number>[] = [];
const latencies: number[] = [];
let superseded = 0;

function onDevice(socketIndex: number, m: ServerMessage) {
  const marker = m.points?.p_kw;
  if (m.deviceId === undefined || marker === undefined) return;
  const sent = pending.get(m.deviceId)?.get(marker);
  if (sent === undefined) return;
  const seen = seenUpTo[socketIndex]!;
  const before = seen.get(m.deviceId) ?? Number.NEGATIVE_INFINITY;
  if (marker <= before) return;
  const now = Date.now();
  // Markers between the last one seen and this one were coalesced away on this socket.
  for (const [k] of pending.get(m.deviceId)!) if (k > before && k < marker) superseded++;
  seen.set(m.deviceId, marker);
  latencies.push(now - sent);
}

async function openSocket(plan: LivePlan, index: number): Promise<WebSocket> {
  const socket = new WebSocket(plan.wsUrl, { origin: plan.origin });
  let subscribed: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve;
  });
  socket.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as ServerMessage;
    if (m.type === 'ready') {
      socket.send(
        JSON.stringify({
          type: 'subscribe',
          channels: ['fleet', ...plan.pcsIds.map((id) => `device:${id}`)],
        }),
      );
    }
    if (m.type === 'fleet') {
      subscribed?.();
      subscribed = undefined;
    }
    if (m.type === 'device') onDevice(index, m);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'auth', token: plan.token }));
  await ready;
  return socket;
}

let nextMarker = 1;
let devices: MqttClient[] = [];
let plan: LivePlan;

/** Publishes one message of gateway `g` whose PCS power is a fresh marker; answers it and the time. */
async function publishMarker(g: number, given?: number): Promise<{ marker: number; sentAt: number }> {
  const gateway = plan.gateways[g]!;
  // Markers stay inside the PCS's plausible range (±100 kW) with a 3-digit fraction.
  const marker = given ?? Number((-99 + (nextMarker++ % 198000) / 1000).toFixed(3));
  const sentAt = Date.now();
  pending.get(plan.pcsIds[g]!)!.set(marker, sentAt);
  await devices[g]!.publishAsync(
    `ess/v1/${gateway.sn}/telemetry`,
    telemetryPayload(gateway, nextMarker++, sentAt, { p_kw: marker }),
    { qos: 1 },
  );
  return { marker, sentAt };
}

async function run(p: LivePlan) {
  plan = p;
  seenUpTo = Array.from({ length: plan.sockets }, () => new Map());
  for (const id of plan.pcsIds) pending.set(id, new Map());
  const sockets: WebSocket[] = [];
  for (let i = 0; i < plan.sockets; i += 10) {
    sockets.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, plan.sockets - i) }, (_, k) => openSocket(plan, i + k)),
      )),
    );
  }
  devices = await Promise.all(
    plan.gateways.map((g) =>
      mqtt.connectAsync(plan.mqttUrl, {
        clientId: g.sn,
        username: g.sn,
        password: g.secret,
        reconnectPeriod: 0,
      }),
    ),
  );
  send({ type: 'connected' });
  let published = 0;
  const end = Date.now() + plan.durationMs;
  await Promise.all(
    plan.gateways.map(async (_, g) => {
      await sleep(Math.random() * plan.maxGapMs);
      while (Date.now() < end) {
        await publishMarker(g);
        published++;
        await sleep(plan.minGapMs + Math.random() * (plan.maxGapMs - plan.minGapMs));
      }
    }),
  );
  await sleep(3_000); // the last deliveries
  // Every (socket, marker) pair either arrived, was superseded on that socket, or is missed.
  const expected = published * plan.sockets;
  const missed = expected - latencies.length - superseded;
  send({ type: 'done', latencies, published, missed, superseded } satisfies LiveResult & { type: string });
  process.once('disconnect', () => {
    for (const s of sockets) s.close();
  });
}

process.on('message', (m: { type: string; plan?: LivePlan; gateway?: number; marker?: number }) => {
  if (m.type === 'plan') run(m.plan!).catch((err: Error) => send({ type: 'error', error: err.message }));
  if (m.type === 'mark') {
    publishMarker(m.gateway!, m.marker).then(
      (r) => send({ type: 'marked', ...r }),
      (err: Error) => send({ type: 'error', error: err.message }),
    );
  }
  if (m.type === 'exit') {
    void Promise.all(devices.map((d) => d.endAsync())).finally(() => process.exit(0));
  }
});
