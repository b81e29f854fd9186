/**
 * `npm run bench [-- <section>…] [--check]`: prints the figures of design §6 (docs/architecture.md
 * "Budgets"). Sections: bundles, api, ingest (= ingest:embedded + ingest:external), storage,
 * live, history, ota (= ota:postgres + ota:pglite; BENCH_OTA_DB=postgres|pglite keeps one),
 * scheduler, bills; all
 * when none is named. With `--check` it ends with a table of budgets met and
 * missed and exits 1 when a measured budget is missed (or a section failed); it is not part of
 * `npm test`.
 *
 * PostgreSQL figures use BENCH_DATABASE_URL, else TEST_DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/test when that server answers; external-broker figures use
 * BENCH_MQTT_URL, else TEST_MQTT_URL, else mqtt://127.0.0.1:1883 when it answers.
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
import { benchScopedList, RATE, SATURATION_CONNECTIONS } from './api-throughput';
import { BILL_HISTORY_MONTHS, BILL_PROJECTS, benchBills } from './bills';
import { checkBudgets, failed, type Measured, printChecks } from './budgets';
import { benchBundles } from './bundle-size';
import {
  benchIngest,
  benchStorage,
  GATEWAYS,
  type IngestFigures,
  MEASURE_MS,
  RUNS,
  WINDOW,
} from './device-ingest';
import { POINTS_PER_MESSAGE } from './device-payloads';
import { benchHistory } from './history';
import { benchLiveLatency, type LatencyFigures, SITES, SOCKETS } from './live-latency';
import { benchOtaIsolated, OTA_DEVICES, OTA_PACKAGE_BYTES } from './ota';
import { benchScheduler, MEASURE_S, SCHEDULER_TASKS } from './scheduler';

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
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
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

const measured: Measured = { errors: {} };

async function bundles(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-web-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ dataDir });
  await database.migrate();
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({ config, db: database.db, logger: false, devices: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    console.log('\nFirst-load JavaScript as the server sends it (accept-encoding: gzip, br)');
    const figures = await benchBundles(base);
    for (const f of figures) {
      const budget = f.route === '/login' ? 200 : 350;
      console.log(
        `  ${f.route.padEnd(11)} ${String(f.servedKb).padStart(7)} KB served [${f.encodings.join(', ')}]  (${f.rawKb} KB decoded, ${f.gzipKb} KB if gzip -6; ${f.scripts} scripts; budget ${budget} KB gzipped)`,
      );
    }
    measured.bundles = figures.map((f) => ({ route: f.route, servedKb: f.servedKb }));
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function api(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log(`\nScoped list call device/pageList on PostgreSQL, load from a child process  [${load()}]`);
  if (!postgresUrl) {
    console.log('  (PostgreSQL not reachable: skipped)');
    return;
  }
  const r = await benchScopedList(postgresUrl);
  console.log(
    `  caller scoped to ${r.scopeCompanies} companies; a warm call runs ${r.queries.warm} queries (${r.queries.names.join(', ')}), plus ${r.queries.coldOnly} per menu-cache period; both answer ${r.responseBytes.ours} bytes`,
  );
  for (const f of r.figures) {
    const mode = f.mode === 'saturation' ? `${SATURATION_CONNECTIONS} connections` : `${RATE} req/s offered`;
    console.log(
      `  ${f.label.padEnd(5)} ${mode.padEnd(18)} ${String(f.result.requestsPerS).padStart(6)} req/s  p50 ${f.result.p50Ms} ms  p99 ${f.result.p99Ms} ms  max ${f.result.maxMs} ms  errors ${f.result.errors + f.result.non2xx}`,
    );
  }
  const atRate = r.figures.find((f) => f.label === 'ours' && f.mode === 'rate')!;
  console.log(
    `  ratio ours/bare (best of 2 rounds each): ${r.ratio.toFixed(2)}  (budget ≥ 0.7);  ours p99 at ${RATE} req/s: ${atRate.result.p99Ms} ms (budget ≤ 50 ms)`,
  );
  measured.api = { ratio: r.ratio, p99AtRateMs: atRate.result.p99Ms };
}

function printIngest(figures: IngestFigures[]): void {
  for (const f of figures) {
    const s = f.spread;
    const lost =
      f.consumer === 'bare'
        ? ''
        : `; acked ${f.runs.map((r) => r.acked).join('/')}, stored ${f.runs.map((r) => r.stored).join('/')}`;
    console.log(
      `  ${f.label.padEnd(25)} ${String(s.median).padStart(6)} msg/s median  (min ${s.min}, max ${s.max}; ${Math.round(s.median * POINTS_PER_MESSAGE)} points/s${lost})`,
    );
  }
  const by = (c: string) => figures.find((f) => f.consumer === c)?.spread.median ?? Number.NaN;
  const two = figures.some((f) => f.consumer === 'ours2')
    ? `; two instances/one ${(by('ours2') / by('ours')).toFixed(2)} (budget ≥ 1.7), two/bare ${(by('ours2') / by('bare')).toFixed(2)}`
    : '';
  console.log(
    `  ratio ours/bare ${(by('ours') / by('bare')).toFixed(2)} (budget ≥ 0.5), ours/plain ${(by('ours') / by('plain')).toFixed(2)} (budget ≥ 0.8)${two} (medians)`,
  );
}

const ingestHeader = (what: string) =>
  `\nIngest, ${what}: ${GATEWAYS} gateways, QoS 1 telemetry of ${POINTS_PER_MESSAGE} points (6 devices × 12), ${WINDOW} in flight each, messages stored in a ${MEASURE_MS / 1000} s window, ${RUNS} runs  [${load()}]`;

async function ingestEmbedded(): Promise<void> {
  console.log(ingestHeader('embedded broker (aedes) + PGlite'));
  const figures = await benchIngest('embedded', undefined, undefined);
  printIngest(figures);
  const ours = figures.find((f) => f.consumer === 'ours')!;
  const lost = ours.runs.reduce((n, r) => n + Math.max(0, r.acked - r.stored), 0);
  console.log(
    `  ours: ${lost === 0 ? 'every acknowledged message stored' : `${lost} acknowledged messages NOT stored`}`,
  );
  measured.ingestEmbedded = { oursMedian: ours.spread.median, lost };
}

async function ingestExternal(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  const brokerUrl = postgresUrl ? await reachableBroker() : undefined;
  console.log(
    `${ingestHeader('PostgreSQL + Mosquitto')}\n  ours: server instances in processes of their own (DeviceService, pool 10, MQTT_SHARE_GROUP shared), on a fresh database each`,
  );
  if (!postgresUrl || !brokerUrl) {
    console.log('  (PostgreSQL or the MQTT broker not reachable: skipped)');
    return;
  }
  const figures = await benchIngest('external', postgresUrl, brokerUrl);
  printIngest(figures);
  const by = (c: string) => figures.find((f) => f.consumer === c)?.spread.median ?? Number.NaN;
  measured.ingestExternal = { ours: by('ours'), bare: by('bare'), plain: by('plain'), two: by('ours2') };
}

async function storage(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log('\nTelemetry storage on PostgreSQL (embedded broker; a message a minute per gateway, 80 each)');
  if (!postgresUrl) {
    console.log('  (PostgreSQL not reachable: skipped)');
    return;
  }
  const s = await benchStorage(postgresUrl);
  const perPoint = s.rawBytes / s.rawPoints;
  console.log(
    `  raw:     ${perPoint.toFixed(1)} B per point  (${s.rawPoints} points in ${s.rawRows} rows, ${(s.rawBytes / 1048576).toFixed(1)} MB with indexes and TOAST; budget ≤ 40 B)`,
  );
  console.log(
    `  rollups: ${(s.rollupBytes / s.rawPoints).toFixed(1)} B per raw point  (${s.rollupRows} rows, ${(s.rollupBytes / 1048576).toFixed(1)} MB)`,
  );
  measured.storage = { bytesPerPoint: perPoint };
}

function printLatency(f: LatencyFigures): void {
  if (f.error) {
    console.log(`  ${f.label.padEnd(28)} FAILED: ${f.error}`);
    return;
  }
  console.log(
    `  ${f.label.padEnd(28)} p50 ${f.p50Ms} ms  p95 ${f.p95Ms} ms  p99 ${f.p99Ms} ms  max ${f.maxMs} ms  (${f.published} messages, ${f.samples} deliveries, ${f.missed} missed, ${f.superseded} coalesced)`,
  );
}

async function live(): Promise<void> {
  console.log(
    `\nDevice → socket: ${SOCKETS} dashboard sockets on 'fleet' + ${SITES} PCS channels, ${SITES} gateways each publishing every 2–3.5 s for a minute; then one Chromium page  [${load()}]`,
  );
  const figures = await benchLiveLatency(undefined);
  for (const f of figures) printLatency(f);
  measured.live = { p95Ms: figures[0]!.p95Ms };
  if (process.env.BENCH_LIVE_COMPARE) {
    const [before] = await benchLiveLatency(undefined, { browser: false, sharedRound: true });
    printLatency(before!);
  }
}

async function history(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log(
    `\nHistory: year chart of one point, a year of 1-minute data for 100 devices (bench/history.ts)  [${load()}]`,
  );
  const figures = await benchHistory(postgresUrl);
  for (const f of figures) {
    const speedup = f.raw.p95Ms / Math.max(0.1, f.rollup.p95Ms);
    console.log(
      `  ${f.engine.padEnd(10)} seed: raw ${f.seed.rawRows} rows in ${f.seed.rawS} s, rollups ${f.seed.rollupRows} rows in ${f.seed.rollupsS} s`,
    );
    console.log(
      `  ${' '.repeat(10)} rollup (${f.rollup.resolution}, ${f.rollup.points} points): p50 ${f.rollup.p50Ms} ms  p95 ${f.rollup.p95Ms} ms (${f.rollup.runs} runs; budget ≤ 50 ms)`,
    );
    console.log(
      `  ${' '.repeat(10)} same from raw rows:      p50 ${f.raw.p50Ms} ms  p95 ${f.raw.p95Ms} ms (${f.raw.runs} runs)  → ${speedup.toFixed(0)}× faster; same totals: ${f.sameTotals ? 'yes' : 'NO'}`,
    );
  }
  if (!postgresUrl) console.log('  (PostgreSQL not reachable: its figures were skipped)');
  if (figures.length > 0) {
    measured.history = {
      p95Ms: Math.max(...figures.map((f) => f.rollup.p95Ms)),
      fromRollups: figures.every((f) => f.rollup.resolution !== 'raw'),
    };
  }
}

/** Scheduler overhead (bench/scheduler.ts): 1,000 every-second tasks on one scheduler, PGlite and PostgreSQL. */
async function scheduler(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log(
    `\nScheduler: ${SCHEDULER_TASKS} operator tasks firing every second on one scheduler, ${MEASURE_S} s measured (bench/scheduler.ts)  [${load()}]`,
  );
  for (const url of [undefined, postgresUrl]) {
    const f = await benchScheduler(url);
    console.log(
      `  ${f.engine.padEnd(9)} ${f.firesPerS} fires/s recorded (${f.fires} of ${f.expectedFires}; ${f.missed} missed while the task's previous fire ran, ${f.failed} failed); fire → claim p50 ${f.claimP50Ms} ms, p99 ${f.claimP99Ms} ms; event loop delay p50 ${f.loopP50Ms} ms, p99 ${f.loopP99Ms} ms, max ${f.loopMaxMs} ms (${f.loopSamples} samples); CPU ${f.cpuPct} % of a core${f.engine === 'pglite' ? ' (the database runs in this process)' : ''}`,
    );
    if (!postgresUrl) {
      console.log('  (PostgreSQL not reachable: its figures were skipped)');
      break;
    }
  }
}

/**
 * Monthly bills (bench/bills.ts): 100 projects' last month drafted, PGlite and PostgreSQL, each
 * without and with a month of 15-minute rollups at the sites (the maximum-demand query reads
 * them); the budget (≤ 2 s) is judged with them.
 */
async function bills(): Promise<void> {
  const postgresUrl = await reachablePostgres();
  console.log(
    `\nMonthly bills: ${BILL_PROJECTS} projects in operation, each one site (grid meter, PCS, storage meter) and July 2025's ToU periods, drafted by the bill-draft task's work; without, then with ${BILL_HISTORY_MONTHS} months of 15-minute rollups up to July's end (bench/bills.ts)  [${load()}]`,
  );
  for (const url of [undefined, postgresUrl]) {
    for (const history of [false, true]) {
      const f = await benchBills(url, history);
      const what = history ? `with ${f.rollupRows} rollup rows` : 'without rollups';
      const budget =
        f.closedMs !== null
          ? `; days closed (maximum demand stored) in ${f.closeDaysMs} ms, then drafted again in ${f.closedMs} ms; budget ≤ 2000 ms: ${f.closedMs <= 2000 && f.failed === 0 ? 'met' : 'MISSED'}`
          : '';
      console.log(
        `  ${f.engine.padEnd(9)} ${what.padEnd(26)} ${f.projects} bills drafted in ${f.firstMs} ms, drafted again (recomputed in place${history ? ', days not closed' : ''}) in ${f.againMs} ms; ${f.linesPerBill} lines per bill from ${f.periodRows} stored periods; ${f.failed} failed${budget} — ${f.perProjectMs} ms per project`,
      );
      if (f.closedMs === null) continue;
      const key = f.engine === 'postgres' ? 'billsPostgres' : 'billsPglite';
      measured[key] = { projects: f.projects, draftMs: f.closedMs, failed: f.failed };
    }
    if (!postgresUrl) {
      console.log('  (PostgreSQL not reachable: its figures were skipped)');
      break;
    }
  }
}

/**
 * OTA on one engine, in a fresh process (bench/ota.ts `benchOtaIsolated`). The budget's RSS is
 * judged on PostgreSQL, where the figure is the server's own; on PGlite the database runs inside
 * the server's process and its RSS is printed beside it for comparison.
 */
async function otaOn(engine: 'postgres' | 'pglite'): Promise<void> {
  const postgresUrl = engine === 'postgres' ? await reachablePostgres() : undefined;
  const where =
    engine === 'postgres'
      ? 'PostgreSQL (a fresh database, dropped after) + embedded broker'
      : 'PGlite (in the server process) + embedded broker';
  console.log(
    `\nOTA on ${where}: ${OTA_DEVICES} simulated gateways upgraded with a ${OTA_PACKAGE_BYTES / 1048576} MiB package, server in a fresh process, fleet in another (bench/ota.ts)  [${load()}]`,
  );
  if (engine === 'postgres' && !postgresUrl) {
    console.log('  (PostgreSQL not reachable: skipped)');
    return;
  }
  const f = await benchOtaIsolated(postgresUrl);
  const dbName = engine === 'postgres' ? 'PostgreSQL pool' : 'PGlite';
  console.log(
    `  upload (streamed, ${f.packageMiB} MiB): ${f.uploadS} s (${f.uploadMBps} MB/s); batch of ${f.devices} (first wave 10, waves of 100, pause above 50 % failed, ${f.concurrency} downloads at once): ${f.wallS} s from create to the last device final`,
  );
  console.log(
    `  server RSS: ${f.rssAtStartMb} MB before the database opened, ${f.rssBaselineMb} MB with the ${dbName} open and the fleet connected, peak ${f.rssPeakUploadMb} MB during the upload, peak ${f.rssPeakBatchMb} MB during the batch: the upgrade added ${f.rssPeakBatchMb - f.rssBaselineMb} MB; during the batch JS heap ≤ ${f.heapPeakBatchMb} MB, array buffers ≤ ${f.arrayBuffersPeakBatchMb} MB`,
  );
  const peak = Math.max(f.rssPeakBatchMb, f.rssPeakUploadMb);
  console.log(
    engine === 'postgres'
      ? `  budget server RSS ≤ 300 MB: ${peak <= 300 ? 'met' : 'MISSED'} (peak ${peak} MB)`
      : `  (the RSS budget is judged on PostgreSQL: here PGlite is in the process, ${f.rssBaselineMb} MB before any upgrade)`,
  );
  console.log(
    `  download: ${f.downloadedMiB} MiB received by the devices, ${f.throughputMBps} MB/s overall (first start → last end), ${f.perDeviceMBps} MB/s per device on average; ${f.requests} requests, ${f.resumed} resumed with Range`,
  );
  const states = Object.entries(f.byState)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  console.log(
    `  ${f.stalled ? 'STALLED' : 'nothing stalled'}: ${f.final} of ${f.devices} final (${states}); ${f.upgradedInSimulator} gateways report the new version in their birth`,
  );
  for (const d of f.failures.slice(0, 10))
    console.log(`    ${d.sn}: ${d.state} ${d.reason ?? ''} ${d.detail ?? ''}`);
  measured[engine === 'postgres' ? 'otaPostgres' : 'otaPglite'] = {
    devices: f.devices,
    packageMiB: f.packageMiB,
    final: f.final,
    rssPeakMb: peak,
    wallS: f.wallS,
  };
  if (f.stalled) throw new Error('devices left in a non-final state');
}

/**
 * Engines of the `ota` section: BENCH_OTA_DB=postgres or =pglite runs one; otherwise PostgreSQL
 * (when reachable) and then PGlite, each in its own process.
 */
const otaEngines = (): ('postgres' | 'pglite')[] => {
  const only = process.env.BENCH_OTA_DB;
  if (only === 'postgres' || only === 'pglite') return [only];
  if (only) throw new Error(`BENCH_OTA_DB=${only}: expected postgres or pglite`);
  return ['postgres', 'pglite'];
};

const SECTIONS: Record<string, [keyof Measured | 'scheduler', () => Promise<void>][]> = {
  bundles: [['bundles', bundles]],
  api: [['api', api]],
  ingest: [
    ['ingestEmbedded', ingestEmbedded],
    ['ingestExternal', ingestExternal],
  ],
  'ingest:embedded': [['ingestEmbedded', ingestEmbedded]],
  'ingest:external': [['ingestExternal', ingestExternal]],
  storage: [['storage', storage]],
  live: [['live', live]],
  history: [['history', history]],
  // devices left in a non-final state stop the run (an error in --check); the RSS budget is a row
  ota: otaEngines().map((e) =>
    e === 'postgres' ? ['otaPostgres', () => otaOn('postgres')] : ['otaPglite', () => otaOn('pglite')],
  ),
  'ota:postgres': [['otaPostgres', () => otaOn('postgres')]],
  'ota:pglite': [['otaPglite', () => otaOn('pglite')]],
  scheduler: [['scheduler', scheduler]],
  bills: [['billsPglite', bills]],
};

const args = process.argv.slice(2);
const check = args.includes('--check');
const named = args.filter((a) => !a.startsWith('--'));
for (const n of named) {
  if (!SECTIONS[n]) {
    console.error(`unknown section ${n}; sections: ${Object.keys(SECTIONS).join(', ')}`);
    process.exit(2);
  }
}
const chosen = named.length
  ? named
  : ['bundles', 'api', 'ingest', 'storage', 'live', 'history', 'ota', 'scheduler', 'bills'];
for (const name of chosen) {
  for (const [key, run] of SECTIONS[name]!) {
    try {
      await run();
    } catch (err) {
      measured.errors[key] = (err as Error).message.split('\n')[0]!;
      console.log(`  ${name} stopped: ${measured.errors[key]}`);
    }
  }
}
if (check) {
  const rows = checkBudgets(measured);
  printChecks(rows);
  const missed = failed(rows);
  console.log(
    missed.length
      ? `\n${missed.length} budget condition(s) missed or not measurable.`
      : '\nEvery budget measured here is met.',
  );
  process.exit(missed.length ? 1 : 0);
}
process.exit(0);
