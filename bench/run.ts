/**
 * `npm run bench`: prints the figures the issues ask for (design §6 budgets). Benchmarks print;
 * they never fail a build. PostgreSQL figures use BENCH_DATABASE_URL, else TEST_DATABASE_URL,
 * else postgres://postgres@127.0.0.1:5432/test when that server answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/database';
import { seedIfEmpty } from '../apps/server/src/db/seed';
import { benchBundles } from './bundle-size';
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

await bundles();
await menu();
