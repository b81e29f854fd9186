/**
 * Test support: a server built by `buildApp` on a fresh database of either engine.
 *
 * - PGlite always, in a temporary folder. Creating a PGlite cluster (initdb in WebAssembly) takes
 *   seconds, so the folder starts as a copy of a migrated, unseeded template built once per
 *   migration set and PGlite version and shared by all test processes (in the OS temp folder);
 *   the app still opens it with `openDatabase` and runs `migrate` and `seedIfEmpty` as at start.
 *   `database.test.ts` covers a truly fresh folder.
 * - PostgreSQL when `TEST_DATABASE_URL` is set: a new database is created on that server for
 *   each context and dropped afterwards, so test files never see each other's rows.
 */

import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { seedIfEmpty } from '../../src/access/seed';
import { type BuildAppOptions, buildApp } from '../../src/app';
import { type Config, loadConfig } from '../../src/core/config';
import { type Database, openDatabase } from '../../src/core/db/database';

export type Engine = 'pglite' | 'postgres';

/** Engines to run server tests on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set. */
export const engines: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** Cheaper scrypt for tests (production default N = 2^17 is tested separately). */
export const TEST_SCRYPT_LOG_N = 12;

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  config: Config;
  close(): Promise<void>;
}

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/** The template's folder: named after the migrations and the PGlite version it was built with. */
function templateDir(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(migrationsFolder, file);
    if (file.endsWith('.sql') || file.endsWith('.json')) hash.update(file).update(readFileSync(full));
  }
  // The package's exports hide package.json: walk up from its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  hash.update(readFileSync(path.join(dir, 'package.json')));
  return path.join(os.tmpdir(), `ess-pglite-template-${hash.digest('hex').slice(0, 16)}`);
}

let template: Promise<string> | undefined;

/** A migrated, empty PGlite data folder to copy; built by the first process that needs it. */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = templateDir();
    if (existsSync(path.join(dir, 'pglite'))) return dir;
    const building = mkdtempSync(`${dir}.building-`);
    const database = await openDatabase({ dataDir: building });
    await database.migrate();
    await database.close();
    try {
      renameSync(building, dir);
    } catch {
      // Another process finished first: use its template.
      rmSync(building, { recursive: true, force: true });
    }
    return dir;
  })();
  return template;
}

/**
 * What of the app a test runs besides the API (defaults: none of it): the device side (true, or
 * overrides such as `{ mqttPort: 0, mqttHost: '127.0.0.1' }`), the scheduler's timer, the demo
 * fleet (SIMULATOR/DEMO_SITES in `env` decide, as at start); a logger (default none), e.g.
 * `{ level: 'error', stream }` to read what the server logs; the ToU delivery's options (clock,
 * retries); the upgrade batches' options (clock, download limit).
 */
export type TestAppOptions = Pick<
  BuildAppOptions,
  'devices' | 'scheduler' | 'demo' | 'logger' | 'delivery' | 'upgrade'
>;

/** Builds a migrated, seeded server on a fresh database of `engine`. */
export async function createTestApp(
  engine: Engine,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestContext> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-test-'));
  let dropDatabase = async () => {};
  let database: Database | undefined;
  const cleanUp = async () => {
    await database?.close();
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let databaseUrl: string | undefined;
    if (engine === 'pglite') {
      cpSync(path.join(await pgliteTemplate(), 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
    }
    if (engine === 'postgres') {
      const adminUrl = process.env.TEST_DATABASE_URL!;
      const name = `ess_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
      dropDatabase = async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      };
    }
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SCRYPT_LOG_N: String(TEST_SCRYPT_LOG_N),
      // A free port for the embedded broker's TLS listener, so test files can run side by side.
      MQTT_TLS_PORT: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    });
    const opened = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: 4,
    });
    database = opened;
    await opened.migrate();
    await seedIfEmpty(opened.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
    const app = await buildApp({
      config,
      db: opened.db,
      logger: options.logger ?? false,
      devices: options.devices ?? false,
      scheduler: options.scheduler ?? false,
      demo: options.demo ?? false,
      delivery: options.delivery,
      upgrade: options.upgrade,
    });
    await app.ready();
    return {
      app,
      database: opened,
      config,
      close: async () => {
        await app.close();
        await cleanUp();
      },
    };
  } catch (err) {
    await cleanUp().catch(() => {});
    throw err;
  }
}
