/**
 * Benchmark: the scoped list call `device/pageList` on PostgreSQL (design §6: ≥ 0.7 × the same
 * queries in a bare Fastify + pg route; p99 ≤ 50 ms at 200 req/s), load from another process.
 *
 * The caller is an employee of an agent company with a `company` data-scope role granted the
 * site/device list page: its scope is its company and the four below it (5 of 11 bench
 * companies, 300 of 660 devices), so the list query carries the scope's `company_id IN (…)`.
 *
 * Fair baseline: the queries our route runs for one warm call are recorded at the pg pool (text,
 * parameters, prepared-statement name, row mode and type parsers exactly as Drizzle sends them)
 * and the bare route replays exactly those, in order, on its own pool of the same size, then
 * builds the same page from the rows: same statements, same WHERE, same response bytes (checked).
 * Queries our route only runs on a cold call (the menu table, cached MENU_CACHE_MS) are replayed
 * by the bare route at most once per MENU_CACHE_MS: the same caching on both.
 *
 * autocannon runs in a forked child process (bench/load-child.ts); servers run here.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { getTableColumns, sql } from 'drizzle-orm';
import Fastify from 'fastify';
import pg from 'pg';
import { MENU_CACHE_MS } from '../apps/server/src/access/menu-access';
import { browserPasswordDigest, hashPassword } from '../apps/server/src/access/password';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { openDatabase } from '../apps/server/src/core/db/database';
import {
  company,
  device,
  employee,
  employeeRole,
  role,
  roleMenu,
  userAccount,
} from '../apps/server/src/core/db/schema';
import { registerBenchFleet } from './device-fleet';
import type { LoadResult } from './load-child';

/** Menu 201 (Site configuration, `device:site:list`) grants `device/pageList`. */
const LIST_MENU_ID = 201;
const PATH = '/api-bms/device/pageList';
const BODY = { pageNum: 2, pageSize: 20 };
const POOL = 10;
export const SATURATION_CONNECTIONS = 50;
export const RATE = 200;
const SECONDS = 8;

export interface ApiFigures {
  label: string;
  mode: 'saturation' | 'rate';
  result: LoadResult;
}

export interface ApiBench {
  figures: ApiFigures[];
  /** Ours ÷ bare requests/s at saturation (best round of each). */
  ratio: number;
  queries: { warm: number; coldOnly: number; names: string[] };
  responseBytes: { ours: number; bare: number };
  scopeCompanies: number;
}

interface Captured {
  config: pg.QueryConfig & { name?: string; rowMode?: string; types?: unknown };
  values: unknown[];
}

/** Records every query issued on any pg pool while `run` runs. */
async function capture(run: () => Promise<unknown>): Promise<Captured[]> {
  const proto = pg.Pool.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const seen: Captured[] = [];
  proto.query = function (this: unknown, config: unknown, values?: unknown) {
    if (config && typeof config === 'object') {
      seen.push({ config: config as Captured['config'], values: Array.isArray(values) ? [...values] : [] });
    }
    return original.apply(this, [config, values] as unknown[]);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return seen;
}

function loadChild() {
  const child = fork(fileURLToPath(new URL('./load-child.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    run: (options: autocannon.Options) =>
      new Promise<LoadResult>((resolve, reject) => {
        const onMessage = (m: { type: string; result?: LoadResult; error?: string }) => {
          child.off('message', onMessage);
          if (m.type === 'done') resolve(m.result!);
          else reject(new Error(m.error));
        };
        child.on('message', onMessage);
        child.send({ type: 'run', options });
      }),
    close: () => {
      child.send({ type: 'exit' });
      child.kill();
    },
  };
}

async function postJson(url: string, body: object, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: bench reads a few known fields of the answer
  return { text, json: JSON.parse(text) as { code: number; data: any } };
}

/** Companies, a scoped role and its employee, and the bench fleet; answers the credentials. */
async function seedScope(db: Awaited<ReturnType<typeof openDatabase>>['db'], scryptLogN: number) {
  const tag = randomBytes(3).toString('hex');
  const [platform] = await db.select({ id: company.id }).from(company).orderBy(company.id).limit(1);
  const [agent] = await db
    .insert(company)
    .values({ name: `Bench agent ${tag}`, type: 'agent', parentId: platform!.id })
    .returning();
  const inScope = [agent!.id];
  for (let i = 0; i < 4; i++) {
    const [c] = await db
      .insert(company)
      .values({ name: `Bench owner ${tag}-${i}`, type: 'owner', parentId: agent!.id })
      .returning();
    inScope.push(c!.id);
  }
  const outside: number[] = [];
  for (let i = 0; i < 6; i++) {
    const [c] = await db
      .insert(company)
      .values({ name: `Bench other ${tag}-${i}`, type: 'owner', parentId: platform!.id })
      .returning();
    outside.push(c!.id);
  }
  for (const companyId of [...inScope, ...outside]) await registerBenchFleet(db, 10, { companyId });
  const [r] = await db
    .insert(role)
    .values({ companyId: agent!.id, name: `bench-${tag}`, code: `bench-${tag}`, dataScope: 'company' })
    .returning();
  await db.insert(roleMenu).values({ roleId: r!.id, menuId: LIST_MENU_ID });
  const password = 'bench-secret-1';
  const [user] = await db
    .insert(userAccount)
    .values({
      account: `bench-${tag}`,
      passwordHash: await hashPassword(browserPasswordDigest(password), scryptLogN),
    })
    .returning();
  const [e] = await db
    .insert(employee)
    .values({ companyId: agent!.id, userId: user!.id, name: 'Bench operator' })
    .returning();
  await db.insert(employeeRole).values({ employeeId: e!.id, roleId: r!.id });
  return { account: user!.account, password, companyId: agent!.id, scopeCompanies: inScope.length };
}

/** The bare route: replays the recorded statements, then builds the page as ours does. */
async function bareServer(url: string, warm: Captured[], coldOnly: Captured[], msg: string) {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  pool.on('error', () => {});
  const app = Fastify();
  // Drizzle's row mode 'array': the device's columns in table order, then the joined fields.
  const columns = [
    ...Object.keys(getTableColumns(device)),
    'siteName',
    'gatewaySn',
    'online',
    'gatewayLastSeenAt',
  ];
  const at = Object.fromEntries(columns.map((c, i) => [c, i])) as Record<string, number>;
  const time = (v: unknown) => (v == null ? null : new Date(String(v)).getTime());
  let coldAt = 0;
  app.post('/list', async () => {
    if (coldOnly.length > 0 && Date.now() - coldAt >= MENU_CACHE_MS) {
      coldAt = Date.now();
      for (const q of coldOnly) await pool.query(q.config, q.values);
    }
    const results: pg.QueryResult[] = [];
    for (const q of warm) results.push(await pool.query(q.config, q.values));
    const [countResult, listResult] = results.slice(-2) as [pg.QueryResult, pg.QueryResult];
    const total = Number((countResult.rows[0] as unknown[])[0]);
    const list = (listResult.rows as unknown[][]).map((r) => {
      const gatewayId = r[at.gatewayId!] as number | null;
      return {
        id: r[at.id!],
        companyId: r[at.companyId!],
        siteId: r[at.siteId!],
        siteName: r[at.siteName!],
        gatewayId,
        gatewaySn: r[at.gatewaySn!],
        sn: r[at.sn!],
        type: r[at.type!],
        model: r[at.model!],
        ratedPowerKw: r[at.ratedPowerKw!],
        capacityKwh: r[at.capacityKwh!],
        mqttClientId: r[at.mqttClientId!],
        connAddress: r[at.connAddress!],
        connPort: r[at.connPort!],
        firmwareVersion: r[at.firmwareVersion!],
        hasSecret: r[at.secretHash!] !== null,
        online: Boolean(r[at.online!]),
        lastSeenAt: gatewayId ? time(r[at.gatewayLastSeenAt!]) : time(r[at.lastSeenAt!]),
        offlineReason: gatewayId ? null : r[at.offlineReason!],
      };
    });
    return { code: 0, msg, data: { total, list } };
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${base}/list`,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

export async function benchScopedList(adminUrl: string): Promise<ApiBench> {
  const name = `ess_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${name}`;
  const url = dbUrl.toString();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-api-'));
  const load = loadChild();
  const database = await openDatabase({ databaseUrl: url, dataDir, poolSize: POOL });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let bare: Awaited<ReturnType<typeof bareServer>> | undefined;
  try {
    await database.migrate();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
    });
    await seedIfEmpty(database.db, {
      adminPassword: config.adminPassword,
      scryptLogN: config.auth.scryptLogN,
    });
    const who = await seedScope(database.db, config.auth.scryptLogN);
    await database.db.execute(sql`ANALYZE`);
    app = await buildApp({ config, db: database.db, logger: false, devices: false });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const terminalId = 'bench-api-terminal';
    const login = await postJson(`${base}/api-bms/user/login`, {
      account: who.account,
      password: browserPasswordDigest(who.password),
      terminalId,
    });
    const info = await postJson(`${base}/api-bms/user/getUserInfo`, {
      userId: login.json.data.userId,
      companyId: who.companyId,
      terminalId,
      loginTicket: login.json.data.loginTicket,
    });
    const headers = { 'content-type': 'application/json', 'x-token': String(info.json.data.token) };
    const call = () => postJson(`${base}${PATH}`, BODY, headers);

    // Record what one call runs: cold (menu cache empty) and warm, three times to be sure.
    await new Promise((r) => setTimeout(r, MENU_CACHE_MS + 100));
    let ours = '';
    const cold = await capture(async () => {
      ours = (await call()).text;
    });
    const warmRuns = [];
    for (let i = 0; i < 3; i++) warmRuns.push(await capture(call));
    const texts = (qs: Captured[]) => qs.map((q) => q.config.text).join('\n;\n');
    if (new Set(warmRuns.map(texts)).size !== 1)
      throw new Error('a warm call did not run the same queries each time');
    const warm = warmRuns[0]!;
    const warmTexts = new Set(warm.map((q) => q.config.text));
    const coldOnly = cold.filter((q) => !warmTexts.has(q.config.text));
    const parsed = JSON.parse(ours) as {
      code: number;
      msg: string;
      data: { list: unknown[]; total: number };
    };
    if (parsed.code !== 0 || parsed.data.list.length !== BODY.pageSize) {
      throw new Error(`device/pageList answered ${ours.slice(0, 200)}`);
    }

    bare = await bareServer(url, warm, coldOnly, parsed.msg);
    const bareText = await (
      await fetch(bare.url, { method: 'POST', headers, body: JSON.stringify(BODY) })
    ).text();
    if (Buffer.byteLength(bareText) !== Buffer.byteLength(ours)) {
      throw new Error(
        `the bare route answers ${bareText.length} bytes, ours ${ours.length}: not the same page`,
      );
    }

    const figures: ApiFigures[] = [];
    const target = { ours: `${base}${PATH}`, bare: bare.url };
    const run = async (label: 'ours' | 'bare', mode: 'saturation' | 'rate') => {
      const options: autocannon.Options = {
        url: target[label],
        method: 'POST',
        headers,
        body: JSON.stringify(BODY),
        duration: SECONDS,
        connections: mode === 'saturation' ? SATURATION_CONNECTIONS : 20,
        ...(mode === 'rate' ? { overallRate: RATE } : {}),
      };
      await load.run({ ...options, duration: 2 }); // warm-up (JIT, pools, prepared statements)
      figures.push({ label, mode, result: await load.run(options) });
    };
    // Alternate, two rounds: a shared machine drifts.
    for (let round = 0; round < 2; round++) {
      await run('ours', 'saturation');
      await run('bare', 'saturation');
    }
    await run('ours', 'rate');
    await run('bare', 'rate');
    const best = (label: string) =>
      Math.max(
        ...figures
          .filter((f) => f.label === label && f.mode === 'saturation')
          .map((f) => f.result.requestsPerS),
      );
    return {
      figures,
      ratio: best('ours') / best('bare'),
      queries: {
        warm: warm.length,
        coldOnly: coldOnly.length,
        names: warm.map((q) => q.config.name ?? '(unnamed)'),
      },
      responseBytes: { ours: Buffer.byteLength(ours), bare: Buffer.byteLength(bareText) },
      scopeCompanies: who.scopeCompanies,
    };
  } finally {
    load.close();
    await bare?.close();
    await app?.close();
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
