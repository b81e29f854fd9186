/**
 * Benchmark: device-to-browser latency. The server (embedded broker, live push over /ws) runs
 * here; a child process (bench/live-clients.ts) holds 100 authenticated dashboard sockets
 * subscribed to 'fleet' and, as a site's gateway, publishes telemetry carrying a marker value,
 * timing when each socket first sees it. Fleet updates go out on a 1-second tick, so the
 * latency is the store time plus the wait for the next tick (0–1 s) plus the snapshot.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserPasswordDigest } from '../apps/server/src/access/password';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { DeviceService } from '../apps/server/src/devices/device-service';
import { ensurePartitions } from '../apps/server/src/devices/telemetry-partitions';
import { registerBenchFleet } from './device-fleet';
import { freshDatabase } from './device-ingest';
import type { LivePlan } from './live-clients';

export const SOCKETS = 100;
const SAMPLES = 10;
const SITES = 10;

export interface LatencyFigures {
  label: string;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  missed: number;
}

async function postJson(url: string, body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: Record<string, unknown> };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;

async function measure(postgresUrl: string | undefined): Promise<LatencyFigures> {
  const { database, url, drop } = await freshDatabase(postgresUrl);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-live-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(url ? { DATABASE_URL: url } : {}),
  });
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({ config, db: database.db, logger: false });
  await ensurePartitions(database.db, app.log);
  const devices = new DeviceService(database.db, app.log, { mqttPort: 0, mqttHost: '127.0.0.1' });
  await devices.start();
  app.live.start(devices);
  app.devices = devices;
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const child = fork(fileURLToPath(new URL('./live-clients.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const terminalId = 'bench-live-terminal';
    const login = await postJson(`${base}/api-bms/user/login`, {
      account: 'admin',
      password: browserPasswordDigest(config.adminPassword),
      terminalId,
    });
    const companyList = login.data.companyList as { id: number }[];
    const info = await postJson(`${base}/api-bms/user/getUserInfo`, {
      userId: login.data.userId,
      companyId: companyList[0]!.id,
      terminalId,
      loginTicket: login.data.loginTicket,
    });
    const gateways = await registerBenchFleet(database.db, SITES, { companyId: companyList[0]!.id });
    await devices.directory.refresh();
    const gateway = gateways[0]!;
    const plan: LivePlan = {
      wsUrl: `${base.replace('http', 'ws')}/ws`,
      origin: base,
      token: String(info.data.token),
      mqttUrl: `mqtt://127.0.0.1:${devices.brokerAddress.port}`,
      gateway,
      siteCode: gateway.sn.slice('EMS-'.length),
      sockets: SOCKETS,
      samples: SAMPLES,
    };
    const result = await new Promise<{ latencies: number[]; missed: number }>((resolve, reject) => {
      child.on('message', (m: { type: string; error?: string; latencies: number[]; missed: number }) => {
        if (m.type === 'done') resolve(m);
        if (m.type === 'error') reject(new Error(m.error));
      });
      child.once('exit', (code) => reject(new Error(`socket process exited (${code})`)));
      child.send({ type: 'plan', plan });
    });
    const sorted = [...result.latencies].sort((a, b) => a - b);
    return {
      label: `embedded + ${database.engine}`,
      samples: sorted.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      maxMs: sorted.at(-1) ?? Number.NaN,
      missed: result.missed,
    };
  } finally {
    child.kill();
    await app.close();
    await devices.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** PGlite, and PostgreSQL when `postgresUrl` is given. */
export async function benchLiveLatency(postgresUrl: string | undefined): Promise<LatencyFigures[]> {
  const figures = [await measure(undefined)];
  if (postgresUrl) figures.push(await measure(postgresUrl));
  return figures;
}
