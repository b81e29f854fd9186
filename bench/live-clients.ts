/**
 * Child process of the live-latency benchmark (bench/live-latency.ts): opens the dashboard
 * sockets (authenticated, subscribed to 'fleet'), then, as the site's gateway, publishes
 * telemetry whose PCS power is a marker value and records when each socket first sees that
 * value in a fleet update. Samples are spaced irregularly so that publications fall at every
 * phase of the server's 1-second update tick.
 */
import mqtt from 'mqtt';
import WebSocket from 'ws';
import type { BenchGateway } from './device-payloads';
import { telemetryPayload } from './device-payloads';

export interface LivePlan {
  wsUrl: string;
  origin: string;
  token: string;
  mqttUrl: string;
  gateway: BenchGateway;
  siteCode: string;
  sockets: number;
  samples: number;
}

interface FleetMessage {
  type: string;
  sites?: { code: string; batteryPowerKw: number | null }[];
}

const send = (message: object) => process.send?.(message);

async function openSocket(plan: LivePlan, onFleet: (m: FleetMessage) => void): Promise<WebSocket> {
  const socket = new WebSocket(plan.wsUrl, { origin: plan.origin });
  let subscribed: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve;
  });
  socket.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as FleetMessage;
    if (m.type === 'ready') socket.send(JSON.stringify({ type: 'subscribe', channels: ['fleet'] }));
    if (m.type === 'fleet') {
      subscribed?.();
      subscribed = undefined;
      onFleet(m);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'auth', token: plan.token }));
  await ready;
  return socket;
}

async function run(plan: LivePlan) {
  let marker = Number.NaN;
  let sentAt = 0;
  const seen: (number | undefined)[] = [];
  const sockets = await Promise.all(
    Array.from({ length: plan.sockets }, (_, i) =>
      openSocket(plan, (m) => {
        if (seen[i] !== undefined) return;
        const site = m.sites?.find((s) => s.code === plan.siteCode);
        if (site?.batteryPowerKw === marker) seen[i] = Date.now() - sentAt;
      }),
    ),
  );
  const device = await mqtt.connectAsync(plan.mqttUrl, {
    clientId: plan.gateway.sn,
    username: plan.gateway.sn,
    password: plan.gateway.secret,
    reconnectPeriod: 0,
  });
  const latencies: number[] = [];
  let missed = 0;
  for (let k = 0; k < plan.samples; k++) {
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 1000));
    seen.length = 0;
    marker = 500 + k;
    sentAt = Date.now();
    await device.publishAsync(
      `ess/v1/${plan.gateway.sn}/telemetry`,
      telemetryPayload(plan.gateway, k, Date.now(), { p_kw: marker }),
      { qos: 1 },
    );
    const deadline = Date.now() + 5_000;
    while (seen.filter((v) => v !== undefined).length < plan.sockets && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    for (let i = 0; i < plan.sockets; i++) {
      const v = seen[i];
      if (v === undefined) missed++;
      else latencies.push(v);
    }
  }
  await device.endAsync();
  for (const s of sockets) s.close();
  send({ type: 'done', latencies, missed });
}

process.on('message', (m: { type: string; plan?: LivePlan }) => {
  if (m.type === 'plan') run(m.plan!).catch((err: Error) => send({ type: 'error', error: err.message }));
  if (m.type === 'exit') process.exit(0);
});
