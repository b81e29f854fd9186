/**
 * `npm run bench`: prints the figures the issues ask for (design §6 budgets). Benchmarks print;
 * they never fail a build. PostgreSQL figures use BENCH_DATABASE_URL, else TEST_DATABASE_URL,
 * else postgres://postgres@127.0.0.1:5432/test when that server answers; external-broker
 * figures use BENCH_MQTT_URL, else TEST_MQTT_URL, else mqtt://127.0.0.1:1883 when it answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { openDatabase } from '../apps/server/src/core/db/database';
import { benchBundles } from './bundle-size';
import { benchDeviceIngest, EXTERNAL_PER_CLIENT, GATEWAYS, PER_CLIENT, WINDOW } from './device-ingest';
import { POINTS_PER_MESSAGE } from './device-payloads';
import { benchHistory } from './history';
import { benchLiveLatency, SOCKETS } from './live-latency';
import { benchMenuThroughput } from './menu-throughput';

async function reachablePostgres(): Promise<string | undefined> {
  const url =
    process.env.BENCH_DATABASE_URL ??
    process.env.TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return undefined;
  }
}

async function reachableBroker(): Promise<string | undefined> {
  const url = process.env.BENCH_MQTT_URL ?? process.env.TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883';
  const { hostname, port } = new URL(url);
  const open = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 1883), timeout: 2000 });
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false));
  }).catch(() => false);
  return open ? url : undefined;
}

/** Load average beside the figures: this machine is shared, so they move with it. */
const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.availableParallelism()} CPUs`;

async function bundles(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-web-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ dataDir });
  await database.migrate();
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({ config, db: database.db, logger: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    console.log('\nFirst-load JavaScript (gzip level 6, as a compressing proxy would send it)');
    for (const f of await benchBundles(base)) {
      const budget = f.route === '/login' ? 200 : 350;
      console.log(
        `  ${f.route.padEnd(11)} ${String(f.gzipKb).padStart(7)} KB gzip  (${f.rawKb} KB raw, ${f.scripts} scripts; budget ${budget} KB)`,
      );
    }
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function menu(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log('\nuser/getLanguageMenu, 50 concurrent clients, 8 s each');
  const figures = await benchMenuThroughput(postgresUrl);
  for (const f of figures) {
    console.log(
      `  ${f.label.padEnd(20)} ${String(f.requestsPerS).padStart(6)} req/s  p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms  errors ${f.errors}`,
    );
  }
  const ours = figures.find((f) => f.label === 'ours on postgres');
  const bare = figures.find((f) => f.label.startsWith('bare'));
  if (ours && bare)
    console.log(`  ratio ours/bare on PostgreSQL: ${(ours.requestsPerS / bare.requestsPerS).toFixed(2)}`);
  if (!postgresUrl) console.log('  (PostgreSQL not reachable: its figures were skipped)');
}

async function devices(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  const brokerUrl = postgresUrl ? await reachableBroker() : undefined;
  console.log(
    `\nDevice ingest: ${GATEWAYS} gateways, QoS 1 telemetry of ${POINTS_PER_MESSAGE} points (6 devices × 12), ${WINDOW} in flight per gateway  [${load()}]`,
  );
  const { ingest, storage, burst } = await benchDeviceIngest(postgresUrl, brokerUrl);
  for (const f of ingest) {
    const lost = f.expected - f.stored;
    console.log(
      `  ${f.label.padEnd(27)} ${String(f.msgPerS).padStart(6)} msg/s ${String(f.pointsPerS).padStart(8)} points/s  (${f.expected} messages in ${f.seconds.toFixed(2)} s; ${lost === 0 ? 'none lost' : `${lost} LOST`})`,
    );
  }
  const ours = ingest.find((f) => f.label.startsWith('ours'));
  const bare = ingest.find((f) => f.label.startsWith('bare'));
  if (ours && bare) {
    console.log(
      `  ratio ours/bare through Mosquitto on PostgreSQL: ${(ours.msgPerS / bare.msgPerS).toFixed(2)}  (${GATEWAYS} × ${EXTERNAL_PER_CLIENT} messages each)`,
    );
  }
  if (burst) {
    console.log(
      `  burst of ${burst.expected} through Mosquitto (default max_queued_messages): ${burst.stored} stored, ${burst.expected - burst.stored} dropped by the broker  (${GATEWAYS} × ${PER_CLIENT})`,
    );
  }
  if (!postgresUrl) console.log('  (PostgreSQL not reachable: its figures were skipped)');
  else if (!brokerUrl) console.log('  (no MQTT broker reachable: the external-broker figures were skipped)');
  if (storage) {
    console.log(
      `\nTelemetry storage on PostgreSQL (after the ingest run above; a message a minute per gateway)`,
    );
    console.log(
      `  raw:     ${(storage.rawBytes / storage.rawPoints).toFixed(1)} B per point  (${storage.rawPoints} points in ${storage.rawRows} rows, ${(storage.rawBytes / 1048576).toFixed(1)} MB with indexes and TOAST; goal ≤ 90 B)`,
    );
    console.log(
      `  rollups: ${(storage.rollupBytes / storage.rawPoints).toFixed(1)} B per raw point  (${storage.rollupRows} rows, ${(storage.rollupBytes / 1048576).toFixed(1)} MB)`,
    );
  }

  console.log(
    `\nDevice-to-browser latency, ${SOCKETS} dashboard sockets on 'fleet' (1 s update tick)  [${load()}]`,
  );
  for (const f of await benchLiveLatency(postgresUrl)) {
    console.log(
      `  ${f.label.padEnd(20)} p50 ${f.p50Ms} ms  p95 ${f.p95Ms} ms  max ${f.maxMs} ms  (${f.samples} deliveries, ${f.missed} missed; goal p95 ≤ 1000 ms)`,
    );
  }
}

async function history(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log(
    `\nHistory: year chart of one point, a year of 1-minute data for 100 devices (bench/history.ts)  [${load()}]`,
  );
  for (const f of await benchHistory(postgresUrl)) {
    const speedup = f.raw.p95Ms / Math.max(0.1, f.rollup.p95Ms);
    console.log(
      `  ${f.engine.padEnd(10)} seed: raw ${f.seed.rawRows} rows in ${f.seed.rawS} s, rollups ${f.seed.rollupRows} rows in ${f.seed.rollupsS} s`,
    );
    console.log(
      `  ${' '.repeat(10)} rollup (${f.rollup.resolution}, ${f.rollup.points} points): p50 ${f.rollup.p50Ms} ms  p95 ${f.rollup.p95Ms} ms (${f.rollup.runs} runs; goal ≤ 100 ms)`,
    );
    console.log(
      `  ${' '.repeat(10)} same from raw rows:      p50 ${f.raw.p50Ms} ms  p95 ${f.raw.p95Ms} ms (${f.raw.runs} runs)  → ${speedup.toFixed(0)}× faster (goal ≥ 20×); same totals: ${f.sameTotals ? 'yes' : 'NO'}`,
    );
  }
  if (!postgresUrl) console.log('  (PostgreSQL not reachable: its figures were skipped)');
}

const only = process.argv[2];
if (!only || only === 'bundles') await bundles();
if (!only || only === 'menu') await menu();
if (!only || only === 'devices')
  await devices().catch((err: Error) => console.log(`  device benchmarks stopped: ${err.message}`));
if (!only || only === 'history')
  await history().catch((err: Error) => console.log(`  history benchmark stopped: ${err.message}`));
