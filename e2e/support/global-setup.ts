/**
 * Starts the real server (`apps/server/src/main.ts`, as `npm start` does after building the
 * console) on a free port with a fresh data folder, waits until it answers, and hands its base
 * URL to the tests. With files run side by side (vitest.e2e.config.ts, `maxWorkers`), one server
 * per worker: the files one worker runs see one server, one after another, as before, and never
 * another file's changes in the middle of their own (browser.ts `baseUrl()` picks it by
 * `VITEST_POOL_ID`). `inject('baseUrl')` stays the first server's URL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The first server's base URL. */
    baseUrl: string;
    /** One base URL per worker, in the order of `VITEST_POOL_ID` (1, 2, …). */
    baseUrls: string[];
  }
}

const root = path.resolve(import.meta.dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A running server and how to stop it. */
interface E2eServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts one server on a free port with a fresh data folder; resolves once it answers. */
async function startServer(): Promise<E2eServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-e2e-'));
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000',
      // Cheaper password hashing (as the server tests use; production's 2^17 costs a core for
      // a good part of a second per sign-in, and the browser tests sign in hundreds of times).
      SCRYPT_LOG_N: '12',
      // A small demo fleet reporting every 2 s keeps the live screens moving during the tests.
      DEMO_SITES: '4',
      SIMULATOR_INTERVAL_S: '2',
      // two days of past for the demo sites (90 by default) keep the start fast
      DEMO_HISTORY_DAYS: '2',
      MQTT_PORT: '0',
      MQTT_TLS_PORT: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  // Generous: on a busy two-core machine a start (tsx compiling the server, PGlite's initdb)
  // has taken well over a minute.
  const deadline = Date.now() + 240_000;
  try {
    for (;;) {
      if (server.exitCode !== null) throw new Error(`The server exited with code ${server.exitCode}`);
      try {
        const res = await fetch(`${baseUrl}/login`);
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('The server did not start within 240 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, stop };
}

/** How many files run at once (vitest resolves it to 1 without file parallelism): one server each. */
function workerCount(project: TestProject): number {
  return Math.max(1, project.config.maxWorkers ?? project.vitest.config.maxWorkers ?? 1);
}

export default async function setup(project: TestProject) {
  // WEB_DIST_DIR (the server's own setting) lets a run test a console built elsewhere.
  const webDist = path.resolve(root, process.env.WEB_DIST_DIR || 'apps/web/dist');
  if (!existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(
      `The console is not built in ${webDist}: run \`npm run build:web\` first (npm test does).`,
    );
  }
  const started = await Promise.allSettled(Array.from({ length: workerCount(project) }, () => startServer()));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  project.provide('baseUrl', servers[0]!.baseUrl);
  project.provide(
    'baseUrls',
    servers.map((s) => s.baseUrl),
  );
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
