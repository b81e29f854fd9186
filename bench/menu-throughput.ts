/**
 * Benchmark: `user/getLanguageMenu` at 50 concurrent clients (autocannon), on PGlite and on
 * PostgreSQL, beside a bare Fastify + pg route that runs the same SQL and tree building without
 * our framework (auth hook, validation, envelope, serializer). The ratio ours / bare is the figure.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTree } from '@ess/contract';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { browserPasswordDigest } from '../apps/server/src/access/password';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { openDatabase } from '../apps/server/src/core/db/database';

export interface LoadFigures {
  label: string;
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

const CONNECTIONS = 50;
const DURATION_S = 8;

async function load(
  label: string,
  url: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<LoadFigures> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    label,
    requestsPerS: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function postJson(url: string, body: object, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bench reads a few known fields of the answer
  return (await res.json()) as { code: number; data: any };
}

/** Starts our server on `engine`, signs in, and loads getLanguageMenu. */
async function benchOurs(databaseUrl: string | undefined): Promise<LoadFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const database = await openDatabase({ databaseUrl, dataDir, poolSize: 10 });
  await database.migrate();
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({ config, db: database.db, logger: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const terminalId = 'bench-terminal';
    const login = await postJson(`${base}/api-bms/user/login`, {
      account: 'admin',
      password: browserPasswordDigest('admin123'),
      terminalId,
    });
    const info = await postJson(`${base}/api-bms/user/getUserInfo`, {
      userId: login.data.userId,
      companyId: login.data.companyList[0].id,
      terminalId,
      loginTicket: login.data.loginTicket,
    });
    return await load(
      `ours on ${database.engine}`,
      `${base}/api-bms/user/getLanguageMenu`,
      { language: 'en' },
      { 'x-token': info.data.token },
    );
  } finally {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A bare Fastify + pg route running the same queries (session lookup, admin check, menus). */
async function benchBare(databaseUrl: string): Promise<LoadFigures> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  pool.on('error', () => {});
  const app = Fastify();
  app.post('/menu', async () => {
    await pool.query(
      'SELECT s.id FROM auth_session s JOIN employee e ON e.id = s.employee_id JOIN company c ON c.id = s.company_id LIMIT 1',
    );
    await pool.query(
      "SELECT r.id FROM employee_role er JOIN role r ON r.id = er.role_id WHERE er.employee_id = 1 AND r.status = 'enabled' AND r.is_admin LIMIT 1",
    );
    const { rows } = await pool.query('SELECT * FROM sys_menu ORDER BY sort, id');
    const tree = buildTree(
      rows
        .filter((r) => r.type !== 'button')
        .map((r) => ({ id: r.id, parentId: r.parent_id, path: r.path, title: r.title_en })),
    );
    return { code: 0, msg: 'ok', data: { menuList: tree } };
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await load('bare Fastify + pg', `${base}/menu`, { language: 'en' });
  } finally {
    await app.close();
    await pool.end();
  }
}

async function withFreshPostgres<T>(adminUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `ess_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs all three measurements; PostgreSQL ones only when `postgresUrl` is given. */
export async function benchMenuThroughput(postgresUrl: string | undefined): Promise<LoadFigures[]> {
  const figures = [await benchOurs(undefined)];
  if (postgresUrl) {
    await withFreshPostgres(postgresUrl, async (url) => {
      figures.push(await benchOurs(url));
      figures.push(await benchBare(url));
    });
  }
  return figures;
}
