/**
 * Child process of the device benchmarks (started by bench/device-fleet.ts `startPublishers`):
 * connects one MQTT client per gateway, then on "go" publishes each gateway's telemetry with
 * QoS 1, keeping `window` messages in flight per client, and reports the time to the last
 * PUBACK. With `durationMs` in the plan it publishes continuously for that long instead of
 * `perClient` messages (windowed throughput runs). Runs apart from the server so that the two do
 * not share an event loop.
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { PublishPlan } from './device-fleet';
import { telemetryPayload } from './device-payloads';

let clients: MqttClient[] = [];
let plan: PublishPlan;

const send = (message: object) => process.send?.(message);

async function connect(p: PublishPlan) {
  plan = p;
  clients = await Promise.all(
    p.gateways.map((g) =>
      mqtt.connectAsync(p.url, {
        clientId: g.sn,
        username: g.sn,
        password: g.secret,
        reconnectPeriod: 0,
        clean: true,
        keepalive: 60,
      }),
    ),
  );
  send({ type: 'ready' });
}

async function go() {
  const started = performance.now();
  let acked = 0;
  await Promise.all(
    clients.map(async (client, g) => {
      const gateway = plan.gateways[g]!;
      const topic = `ess/v1/${gateway.sn}/telemetry`;
      let next = 0;
      const end = plan.durationMs ? started + plan.durationMs : Number.POSITIVE_INFINITY;
      const lane = async () => {
        while (plan.durationMs ? performance.now() < end : next < plan.perClient) {
          const i = next++;
          await client.publishAsync(topic, telemetryPayload(gateway, i, plan.baseTs + i * plan.stepMs), {
            qos: 1,
          });
          acked++;
        }
      };
      await Promise.all(Array.from({ length: plan.window }, lane));
    }),
  );
  send({ type: 'done', ms: performance.now() - started, acked });
}

process.on('message', (m: { type: string; plan?: PublishPlan }) => {
  const run = m.type === 'plan' ? connect(m.plan!) : m.type === 'go' ? go() : undefined;
  if (m.type === 'exit') {
    void Promise.all(clients.map((c) => c.endAsync())).finally(() => process.exit(0));
    return;
  }
  run?.catch((err: Error) => send({ type: 'error', error: err.message }));
});
