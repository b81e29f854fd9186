/**
 * Benchmark: an upgrade of 200 simulated gateways (EMS) with a 20 MiB package through the
 * server (design: nothing stalls, server RSS ≤ 300 MB).
 *
 * The server runs as `npm start` runs it — the whole app (buildApp) with its embedded broker,
 * the firmware store, the download route and the batch service, at their configured defaults
 * (OTA_MAX_DOWNLOADS) — on one of two databases: PGlite (in the server's process, as the
 * default install runs; its WebAssembly instance alone is ~700 MB of RSS) or PostgreSQL (a fresh
 * database `ess_bench_<hex>` on the given server, 10 pooled connections as in production,
 * dropped afterwards), where the RSS is the server's own. {@link benchOtaIsolated} runs each in a
 * fresh process (this file forked with `--ota-child`), so that neither earlier bench sections nor
 * the other engine's run leave memory in the figure. The 200 demo sites are registered the way the demo
 * registers them (demo-fleet.ts `registerDemoFleet`: a site per gateway, its devices, a secret).
 * The device side runs in a child process (bench/ota-fleet.ts): the simulator's fleet on the
 * server's broker, each gateway downloading for real over HTTP with Range, hashing as it goes,
 * reporting each phase and rebooting; every 10th gateway drops its download halfway once and
 * resumes. The package is uploaded by that child too, through the real streamed upload call.
 *
 * Then, as an operator would: publish the package, list the candidates, create a batch of all
 * eligible gateways (first wave 10, waves of 100, pause above 50 % failed, the batch's default
 * limits otherwise), and wait until
 * every device is final (or 15 minutes). Figures: wall time from `upgrade/create` to the last
 * device final, peak RSS of this process (the server: sampled every 100 ms; the baseline with
 * the fleet connected, the peak during the upload and during the batch), download throughput
 * (bytes the devices received ÷ the span from the first download's start to the last one's
 * end; also the mean per device), resumes, and whether anything stalled (devices not final,
 * or final in another state than `success`, with their reasons).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firmwareUploadQuery, UPGRADE_FINAL_STATES, type UpgradeDeviceState } from '@ess/contract';
import { browserPasswordDigest } from '../apps/server/src/access/password';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { registerDemoFleet } from '../apps/server/src/demo/demo-fleet';
import { freshDatabase } from './device-ingest';
import type { OtaFleetPlan, OtaFleetStats } from './ota-fleet';

/** Gateways and package size; BENCH_OTA_DEVICES / BENCH_OTA_MIB change them for a quick look. */
export const OTA_DEVICES = Number(process.env.BENCH_OTA_DEVICES ?? 200);
export const OTA_PACKAGE_BYTES = Number(process.env.BENCH_OTA_MIB ?? 20) * 1024 * 1024;
const SEED = 7;
const FIRST_WAVE = 10;
const WAVE = 100;
const DROP_EVERY = 10;
const FAILURE_THRESHOLD_PCT = 50;
const LIMIT_MS = 15 * 60_000;
const TO_VERSION = 'EMS-9.0.0';

export interface OtaFigures {
  /** Where the server's data lived. */
  engine: 'pglite' | 'postgres';
  devices: number;
  packageMiB: number;
  uploadS: number;
  uploadMBps: number;
  wallS: number;
  rssBaselineMb: number;
  rssPeakUploadMb: number;
  rssPeakBatchMb: number;
  /** RSS before the database was opened (Node, tsx and the server's modules loaded). */
  rssAtStartMb: number;
  /** Peak of `arrayBuffers` during the batch: PGlite's WebAssembly memory and Node buffers. */
  arrayBuffersPeakBatchMb: number;
  /** Peak JS heap in use during the batch. */
  heapPeakBatchMb: number;
  /** Bytes received by the devices ÷ first download start → last download end. */
  throughputMBps: number;
  /** Mean rate of one device's download. */
  perDeviceMBps: number;
  downloadedMiB: number;
  requests: number;
  resumed: number;
  final: number;
  byState: Record<string, number>;
  failures: Array<{ sn: string; state: string; reason: string | null; detail: string | null }>;
  /** Gateways that report the new version in their birth, per the simulator. */
  upgradedInSimulator: number;
  concurrency: number;
  stalled: boolean;
}

type Envelope = { code: number; msg: string; data: Record<string, unknown> | null };

/** Progress lines with BENCH_DEBUG set. */
const debug = (text: string) => {
  if (process.env.BENCH_DEBUG)
    console.log(
      `    [${new Date().toISOString().slice(11, 19)}] ${text} (rss ${mbOf(process.memoryUsage.rss())} MB)`,
    );
};

/**
 * {@link benchOta} in a fresh child process (this file with `--ota-child`; stdout/stderr shared),
 * so the RSS figures are of a process that ran nothing else. Rejects with the child's error, or
 * when it exits without figures.
 */
export function benchOtaIsolated(postgresUrl: string | undefined): Promise<OtaFigures> {
  const child = fork(fileURLToPath(import.meta.url), ['--ota-child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_OTA_CHILD_URL: postgresUrl ?? '' },
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m: { type: string; figures?: OtaFigures; error?: string }) => {
      if (m.type === 'figures') resolve(m.figures!);
      else if (m.type === 'error') reject(new Error(m.error));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`ota bench process exited (${code}) without figures`)));
  });
}

/**
 * One OTA run with the server in this process: on PostgreSQL at `postgresUrl` (a fresh database,
 * dropped afterwards) or, without it, on PGlite in a temporary folder.
 */
export async function benchOta(postgresUrl?: string): Promise<OtaFigures> {
  const rssAtStart = process.memoryUsage.rss();
  const { database, url, drop } = await freshDatabase(postgresUrl);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-ota-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(url ? { DATABASE_URL: url } : {}),
  });
  debug(`database: ${database.engine}`);
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({
    config,
    db: database.db,
    logger: false,
    devices: { mqttPort: 0 },
    demo: false,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const { credentials } = await registerDemoFleet(database.db, { sites: OTA_DEVICES, seed: SEED });
  await app.devices!.directory.refresh();
  debug(`server up at ${base}, ${OTA_DEVICES} sites registered`);

  const child = fork(fileURLToPath(new URL('./ota-fleet.ts', import.meta.url)), [], {
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
      child.once('exit', (code) => reject(new Error(`fleet process exited (${code})`)));
    });
  const fleetStats = async () => {
    const answer = next<{ stats: OtaFleetStats }>('stats');
    child.send({ type: 'stats' });
    return (await answer).stats;
  };

  // 'startup' (opening, migrating, registering) is not a figure: the baseline is taken once the fleet is connected
  let rssPhase: 'startup' | 'baseline' | 'upload' | 'batch' = 'startup';
  const rssPeak = { startup: 0, baseline: 0, upload: 0, batch: 0 };
  let heapPeak = 0;
  let arrayBuffersPeak = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > rssPeak[rssPhase]) rssPeak[rssPhase] = m.rss;
    if (rssPhase === 'batch') {
      heapPeak = Math.max(heapPeak, m.heapUsed);
      arrayBuffersPeak = Math.max(arrayBuffersPeak, m.arrayBuffers);
    }
  }, 100);

  try {
    const terminalId = 'bench-ota-terminal';
    const post = async (call: string, body: object, token?: string): Promise<Envelope> => {
      const res = await fetch(`${base}/api-bms/${call}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { 'x-token': token } : {}) },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Envelope;
    };
    const ok = (call: string, e: Envelope) => {
      if (e.code !== 0) throw new Error(`${call}: ${e.code} ${e.msg}`);
      return e.data as Record<string, unknown>;
    };
    const login = ok(
      'user/login',
      await post('user/login', {
        account: 'admin',
        password: browserPasswordDigest(config.adminPassword),
        terminalId,
      }),
    );
    const companyList = login.companyList as { id: number }[];
    const info = ok(
      'user/getUserInfo',
      await post('user/getUserInfo', {
        userId: login.userId,
        companyId: companyList[0]!.id,
        terminalId,
        loginTicket: login.loginTicket,
      }),
    );
    const token = String(info.token);
    const call = async (name: string, body: object) => ok(name, await post(name, body, token));

    const ready = next<{ connected: number }>('ready');
    child.send({
      type: 'plan',
      plan: {
        mqttUrl: `mqtt://127.0.0.1:${app.devices!.brokerAddress.port}`,
        seed: SEED,
        sites: OTA_DEVICES,
        credentials: Object.fromEntries(credentials),
        speed: 1,
        dropEvery: DROP_EVERY,
      } satisfies OtaFleetPlan,
    });
    const { connected } = await ready;
    debug(`${connected} gateways connected`);
    rssPhase = 'baseline';
    if (connected < OTA_DEVICES) throw new Error(`only ${connected} of ${OTA_DEVICES} gateways connected`);
    // the server has seen every birth (online, firmware) once the candidates say so
    await new Promise((r) => setTimeout(r, 2_000));
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 100)); // samples of the baseline

    rssPhase = 'upload';
    const uploaded = next<{ status: number; body: string; sha256: string; ms: number }>('uploaded');
    const query = firmwareUploadQuery({
      name: 'EMS 9.0 (bench)',
      version: TO_VERSION,
      deviceType: 'ems',
      fileName: 'ems-9.0.0.bin',
    });
    child.send({
      type: 'upload',
      url: `${base}/api-bms/firmware/upload?${query}`,
      token,
      sizeBytes: OTA_PACKAGE_BYTES,
    });
    const up = await uploaded;
    const pkg = ok('firmware/upload', JSON.parse(up.body) as Envelope);
    if (pkg.sha256 !== up.sha256) throw new Error(`server SHA-256 ${String(pkg.sha256)} ≠ ${up.sha256}`);
    await call('firmware/publish', { id: pkg.id });
    debug(`package ${String(pkg.id)} uploaded in ${Math.round(up.ms)} ms and published`);

    rssPhase = 'batch';
    const candidates = await call('upgrade/candidates', { packageId: pkg.id });
    debug(`candidates: ${String(candidates.eligible)} eligible of ${String(candidates.total)}`);
    const eligible = (candidates.list as Array<{ deviceId: number; exclusion: string | null }>).filter(
      (c) => c.exclusion === null,
    );
    if (eligible.length < OTA_DEVICES) {
      throw new Error(`only ${eligible.length} of ${OTA_DEVICES} gateways eligible`);
    }
    const t0 = performance.now();
    const created = await call('upgrade/create', {
      packageId: pkg.id,
      deviceIds: eligible.map((c) => c.deviceId),
      firstWaveSize: FIRST_WAVE,
      waveSize: WAVE,
      // A site discharging below 30 % SOC refuses (low_soc_busy), as it should: two such in the
      // first wave of 10 must not pause the batch (which would then wait for an operator).
      failureRateThresholdPct: FAILURE_THRESHOLD_PCT,
      deadlineAt: Date.now() + LIMIT_MS,
    });
    const batchId = created.id as number;
    debug(`batch ${batchId} created`);
    let detail: Record<string, unknown> = {};
    let finalCount = 0;
    let lastLine = performance.now();
    for (;;) {
      const page = await call('upgrade/pageList', { pageNum: 1, pageSize: 10 });
      const row = (page.list as Array<{ id: number; counts: Record<UpgradeDeviceState, number> }>).find(
        (b) => b.id === batchId,
      );
      finalCount = row ? UPGRADE_FINAL_STATES.reduce((n, s) => n + row.counts[s], 0) : 0;
      if (process.env.BENCH_DEBUG && performance.now() - lastLine > 10_000) {
        lastLine = performance.now();
        const busy = row ? Object.entries(row.counts).filter(([, n]) => n > 0) : [];
        debug(row ? busy.map(([s, n]) => `${s} ${n}`).join(', ') : `batch ${batchId} not listed`);
      }
      if (finalCount >= OTA_DEVICES || performance.now() - t0 > LIMIT_MS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const wallS = (performance.now() - t0) / 1000;
    detail = await call('upgrade/detail', { id: batchId });
    const devices = detail.devices as Array<{
      sn: string;
      state: string;
      reason: string | null;
      detail: string | null;
    }>;
    const byState: Record<string, number> = {};
    for (const d of devices) byState[d.state] = (byState[d.state] ?? 0) + 1;
    // the last births (success comes after them) have reached the simulator's counters
    const sim = await fleetStats();
    const spanS = Math.max(0.001, (sim.lastDownloadEndMs - sim.firstDownloadAtMs) / 1000);
    const mb = sim.bytes / 1e6;
    return {
      engine: database.engine,
      devices: devices.length,
      packageMiB: OTA_PACKAGE_BYTES / 1048576,
      uploadS: round(up.ms / 1000, 2),
      uploadMBps: round(OTA_PACKAGE_BYTES / 1e6 / (up.ms / 1000), 1),
      wallS: round(wallS, 1),
      rssBaselineMb: mbOf(rssPeak.baseline),
      rssPeakUploadMb: mbOf(rssPeak.upload),
      rssPeakBatchMb: mbOf(rssPeak.batch),
      rssAtStartMb: mbOf(rssAtStart),
      arrayBuffersPeakBatchMb: mbOf(arrayBuffersPeak),
      heapPeakBatchMb: mbOf(heapPeak),
      throughputMBps: round(mb / spanS, 1),
      perDeviceMBps: round(sim.accepted ? mb / (sim.downloadMs / 1000) : 0, 2),
      downloadedMiB: round(sim.bytes / 1048576, 0),
      requests: sim.requests,
      resumed: sim.ranged,
      final: finalCount,
      byState,
      failures: devices
        .filter((d) => d.state !== 'success')
        .map((d) => ({ sn: d.sn, state: d.state, reason: d.reason, detail: d.detail })),
      upgradedInSimulator: sim.versions[TO_VERSION] ?? 0,
      concurrency: Number((detail as { maxConcurrentDownloads?: number }).maxConcurrentDownloads ?? 0),
      stalled: devices.some((d) => !(UPGRADE_FINAL_STATES as readonly string[]).includes(d.state)),
    };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'exit' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    child.kill();
    await app.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const mbOf = (bytes: number) => Math.round(bytes / 1048576);

if (process.argv.includes('--ota-child') && process.send) {
  const send = (m: object) => new Promise<void>((r) => process.send!(m, () => r()));
  try {
    const figures = await benchOta(process.env.BENCH_OTA_CHILD_URL || undefined);
    await send({ type: 'figures', figures });
  } catch (err) {
    await send({ type: 'error', error: (err as Error).message });
  }
  process.exit(0);
}
