/**
 * Starts the real server (`apps/server/src/main.ts`, as `npm start` does after building the
 * console) on a free port with a fresh data folder, waits until it answers, and hands its base
 * URL to the tests as `inject('baseUrl')`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
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

export default async function setup(project: TestProject) {
  // WEB_DIST_DIR (the server's own setting) lets a run test a console built elsewhere.
  const webDist = path.resolve(root, process.env.WEB_DIST_DIR || 'apps/web/dist');
  if (!existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(
      `The console is not built in ${webDist}: run \`npm run build:web\` first (npm test does).`,
    );
  }
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
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`The server exited with code ${server.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}/login`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('The server did not start within 90 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  project.provide('baseUrl', baseUrl);
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
}
