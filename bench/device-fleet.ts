/**
 * Benchmark support for the device side: a fleet of gateways registered straight into the
 * database (bench/device-payloads.ts: 6 devices × 12 points each), and a child process that runs
 * the MQTT publishers (bench/mqtt-publishers.ts) so that load generation does not share the
 * server's event loop.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DeviceType } from '@ess/contract';
import type { Db } from '../apps/server/src/core/db/database';
import { company, device, site } from '../apps/server/src/core/db/schema';
import { deviceSecretHash, newDeviceSecret } from '../apps/server/src/devices/device-secret';
import { type BenchGateway, SITE_TYPES } from './device-payloads';

export type { BenchGateway } from './device-payloads';

/** Registers `count` sites with a gateway and five devices each; answers the gateways. */
export async function registerBenchFleet(
  db: Db,
  count: number,
  options: { companyId?: number } = {},
): Promise<BenchGateway[]> {
  const tag = randomBytes(3).toString('hex').toUpperCase();
  const companyId =
    options.companyId ??
    (
      await db
        .insert(company)
        .values({ name: `Bench ${tag}`, type: 'owner' })
        .returning()
    )[0]!.id;
  const gateways: BenchGateway[] = [];
  for (let s = 0; s < count; s++) {
    const code = `B${tag}-${String(s).padStart(3, '0')}`;
    const [row] = await db
      .insert(site)
      .values({ companyId, code, name: `Bench site ${s}` })
      .returning();
    const secret = newDeviceSecret();
    const sn = (type: DeviceType) => `${type.slice(0, 3).toUpperCase()}-${code}`;
    const [gw] = await db
      .insert(device)
      .values({
        companyId,
        siteId: row!.id,
        sn: sn('ems'),
        type: 'ems',
        mqttClientId: sn('ems'),
        secretHash: deviceSecretHash(secret),
      })
      .returning();
    await db.insert(device).values(
      SITE_TYPES.slice(1).map((type) => ({
        companyId,
        siteId: row!.id,
        gatewayId: gw!.id,
        sn: sn(type),
        type,
        ratedPowerKw: type === 'pcs' ? 100 : null,
        capacityKwh: type === 'bms' ? 215 : null,
      })),
    );
    gateways.push({ sn: sn('ems'), secret, devices: SITE_TYPES.map((type) => ({ sn: sn(type), type })) });
  }
  return gateways;
}

export interface PublishPlan {
  url: string;
  gateways: BenchGateway[];
  /** Messages each gateway publishes. */
  perClient: number;
  /** Publish continuously for this long instead (perClient is then ignored). */
  durationMs?: number;
  /** QoS 1 messages each gateway keeps in flight (the next goes out when one is acknowledged). */
  window: number;
  /** Device time of message 0 and the step between messages. */
  baseTs: number;
  stepMs: number;
}

/**
 * Starts the publishers in a child process and connects them; `go()` publishes everything and
 * resolves with the milliseconds from go to the last acknowledgement.
 */
export async function startPublishers(plan: PublishPlan): Promise<{
  go(): Promise<{ ms: number; acked: number }>;
  close(): Promise<void>;
}> {
  const child = fork(fileURLToPath(new URL('./mqtt-publishers.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string; error?: string }) => {
        if (m.type === 'error') reject(new Error(m.error));
        else if (m.type === type) resolve(m as T);
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`publisher process exited (${code})`)));
    });
  const ready = next('ready');
  child.send({ type: 'plan', plan });
  await ready;
  return {
    go: async () => {
      const done = next<{ ms: number; acked: number }>('done');
      child.send({ type: 'go' });
      return done;
    },
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'exit' });
      await exited;
    },
  };
}
