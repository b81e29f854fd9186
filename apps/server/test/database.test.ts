/**
 * Opening the database (db/database.ts, db/seed.ts): the PGlite folder lock, and a second start
 * on the same data keeping every row.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_ACCOUNT, PLATFORM_COMPANY_NAME, seedIfEmpty } from '../src/access/seed';
import { LOCK_FILE, lockDataDir, STALE_MS } from '../src/core/db/data-dir-lock';
import { type Database, DataDirInUseError, openDatabase } from '../src/core/db/database';
import { rowsOf } from '../src/core/db/rows';
import { company, employee, menu, role, userAccount } from '../src/core/db/schema';
import { createTestApp, TEST_SCRYPT_LOG_N } from './support/test-app';

const seedOptions = { adminPassword: 'admin123', scryptLogN: TEST_SCRYPT_LOG_N };

/** Rows a first start leaves: one account, company, employee, role; the seeded menu rows. */
async function counts(database: Database) {
  const db = database.db;
  const n = async (
    table: typeof userAccount | typeof company | typeof employee | typeof role | typeof menu,
  ) => (await db.select({ n: count() }).from(table))[0]!.n;
  return {
    accounts: await n(userAccount),
    companies: await n(company),
    employees: await n(employee),
    roles: await n(role),
    menus: await n(menu),
  };
}

describe('PGlite data folder', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-db-test-'));
  const open: Database[] = [];
  let seededMenus = 0;
  afterAll(async () => {
    for (const d of open) await d.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start on an empty folder creates, migrates and seeds it', async () => {
    const first = await openDatabase({ dataDir });
    open.push(first);
    expect(first.engine).toBe('pglite');
    await first.migrate();
    expect(await seedIfEmpty(first.db, seedOptions)).toBe(true);
    const initial = await counts(first);
    expect(initial).toMatchObject({ accounts: 1, companies: 1, employees: 1, roles: 1 });
    // The menu rows come from the seed migrations.
    expect(initial.menus).toBeGreaterThanOrEqual(2);
    seededMenus = initial.menus;
    const [admin] = await first.db.select().from(userAccount).where(eq(userAccount.account, ADMIN_ACCOUNT));
    expect(admin?.passwordHash.startsWith(`scrypt$${TEST_SCRYPT_LOG_N}$`)).toBe(true);
  }, 60_000);

  it('a second open of the folder while the first is open throws DataDirInUseError', async () => {
    const error = await openDatabase({ dataDir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DataDirInUseError);
    expect((error as Error).message).toContain(dataDir);
    // The first handle is unharmed.
    expect((await counts(open[0]!)).accounts).toBe(1);
  });

  it('after close a second start keeps every row and does not seed again', async () => {
    const first = open.pop()!;
    await first.db.insert(company).values({ name: 'Kept across restarts', type: 'owner' });
    await first.close();

    const second = await openDatabase({ dataDir });
    open.push(second);
    await second.migrate();
    expect(await seedIfEmpty(second.db, { ...seedOptions, adminPassword: 'other-password' })).toBe(false);
    expect(await counts(second)).toEqual({
      accounts: 1,
      companies: 2,
      employees: 1,
      roles: 1,
      menus: seededMenus,
    });
    const names = (await second.db.select({ name: company.name }).from(company)).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining([PLATFORM_COMPANY_NAME, 'Kept across restarts']));
  }, 60_000);
});

/** Starts `support/hold-data-dir.ts` on `dataDir`; resolves once it has the folder open. */
async function holder(dataDir: string): Promise<ChildProcess> {
  const script = fileURLToPath(new URL('./support/hold-data-dir.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('open')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited with code ${code}`)));
  });
  return child;
}

describe('PGlite data folder lock after a crash', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-db-crash-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a live holder in another process is refused, naming its pid and that it runs; after kill -9 a start opens at once', async () => {
    child = await holder(dataDir);
    const error = await openDatabase({ dataDir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DataDirInUseError);
    const message = (error as Error).message;
    expect(message).toContain(dataDir);
    expect(message).toContain(`process ${child.pid} on host ${os.hostname()}`);
    expect(message).toMatch(/is running/);

    child.kill('SIGKILL');
    await once(child, 'exit');
    const takeovers: string[] = [];
    const release = await lockDataDir(dataDir, { onTakeover: (what) => takeovers.push(what) });
    await release();
    // Taken over because the holder is dead, not because the lock aged (STALE_MS) — the reason
    // says which, no clock needed.
    expect(takeovers).toEqual([expect.stringContaining(`no process ${child.pid} is running`)]);

    // The whole database, as a supervisor restarts it: a second holder killed, then opened at once
    // (PGlite recovers the folder the killed process left mid-flight).
    child = await holder(dataDir);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const reopened = await openDatabase({ dataDir });
    try {
      await reopened.migrate();
      expect((await reopened.db.select({ n: count() }).from(menu))[0]!.n).toBeGreaterThan(0);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});

describe('PGlite data folder lock judgements', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ess-lock-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  /** A data folder whose lock file says `record` (merged over a plausible one), aged `ageMs`. */
  const folderWith = (record: object | string, ageMs = 0) => {
    const dir = path.join(root, String(++n));
    mkdirSync(dir);
    const file = path.join(dir, LOCK_FILE);
    const base = {
      pid: process.ppid,
      host: os.hostname(),
      bootId: null,
      startTime: null,
      token: 't',
      since: 'x',
    };
    writeFileSync(file, typeof record === 'string' ? record : JSON.stringify({ ...base, ...record }));
    const when = new Date(Date.now() - ageMs);
    utimesSync(file, when, when);
    return dir;
  };
  const take = async (dir: string) => {
    const takeovers: string[] = [];
    const release = await lockDataDir(dir, { onTakeover: (what) => takeovers.push(what) });
    const content = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
    await release();
    return { takeovers, content };
  };

  it('takes over the lock of a process that no longer runs, and of a reused process id', async () => {
    // Process ids above the kernel's pid_max (2^22) never exist.
    const gone = await take(folderWith({ pid: 4_194_305 }));
    expect(gone.takeovers).toEqual([expect.stringMatching(/no process 4194305 is running/)]);
    expect(gone.content.pid).toBe(process.pid);
    // Our parent runs, but it did not start at the recorded time: its id was reused.
    const linux = process.platform === 'linux';
    const reused = folderWith({ pid: process.ppid, startTime: '1' });
    if (linux) {
      expect((await take(reused)).takeovers).toEqual([
        expect.stringMatching(/now belongs to another program/),
      ]);
    }
    // This process's own id, from an earlier run (a container's pid 1 after a restart).
    expect((await take(folderWith({ pid: process.pid }))).takeovers).toEqual([
      expect.stringMatching(/an earlier process that had this process's id/),
    ]);
  });

  it('refuses a live holder whose start time matches, naming it', async () => {
    if (process.platform !== 'linux') return;
    const stat = readFileSync(`/proc/${process.ppid}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const dir = folderWith({ pid: process.ppid, startTime });
    await expect(lockDataDir(dir)).rejects.toThrow(
      new RegExp(
        `process ${process.ppid} on host .*: process ${process.ppid} is running, started when it took the lock`,
      ),
    );
  });

  it('judges locks it cannot check by their age: another host, an unreadable file, an earlier version', async () => {
    await expect(lockDataDir(folderWith({ host: 'elsewhere' }))).rejects.toThrow(
      /process \d+ on host elsewhere .*cannot be checked from this host, and it was refreshed 0 s ago/,
    );
    expect((await take(folderWith({ host: 'elsewhere' }, STALE_MS + 1000))).takeovers).toHaveLength(1);
    await expect(lockDataDir(folderWith('{"pi'))).rejects.toThrow(/a lock file that cannot be read/);
    expect((await take(folderWith('', STALE_MS + 1000))).takeovers).toHaveLength(1);
    // proper-lockfile's lock directory, as earlier versions left it.
    const legacy = path.join(root, 'legacy');
    mkdirSync(path.join(legacy, LOCK_FILE), { recursive: true });
    await expect(lockDataDir(legacy)).rejects.toThrow(/earlier ESS Console version/);
    const old = new Date(Date.now() - STALE_MS - 1000);
    utimesSync(path.join(legacy, LOCK_FILE), old, old);
    expect((await take(legacy)).takeovers).toEqual([expect.stringMatching(/earlier ESS Console version/)]);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL database', () => {
  it('a second start on the same database keeps every row and does not seed again', async () => {
    const ctx = await createTestApp('postgres');
    try {
      await ctx.database.db.insert(company).values({ name: 'Kept across restarts', type: 'owner' });
      const again = await openDatabase({ databaseUrl: ctx.config.databaseUrl!, dataDir: ctx.config.dataDir });
      try {
        expect(again.engine).toBe('postgres');
        await again.migrate();
        const before = await counts(ctx.database);
        expect(await seedIfEmpty(again.db, seedOptions)).toBe(false);
        expect(before).toMatchObject({ accounts: 1, companies: 2, employees: 1, roles: 1 });
        expect(await counts(again)).toEqual(before);
      } finally {
        await again.close();
      }
    } finally {
      await ctx.close();
    }
  });

  it('an unreachable server fails at open, not at the first request', async () => {
    await expect(
      openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nothing', dataDir: os.tmpdir() }),
    ).rejects.toThrow();
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'PostgreSQL connection cut while a client is checked out',
  () => {
    it('the transaction fails, nothing is thrown past it, and the next query works', async () => {
      const database = await openDatabase({
        databaseUrl: process.env.TEST_DATABASE_URL,
        dataDir: os.tmpdir(),
      });
      const uncaught: Error[] = [];
      const onUncaught = (err: Error) => uncaught.push(err);
      process.on('uncaughtException', onUncaught);
      try {
        const outcome = await database.db
          .transaction(async (tx) => {
            const pid = rowsOf<{ pid: number }>(await tx.execute(sql`SELECT pg_backend_pid() AS pid`))[0]!
              .pid;
            // Another connection ends this one between two queries of the transaction (as a fast
            // shutdown or a failover does); wait until the socket has seen it.
            await database.db.execute(sql`SELECT pg_terminate_backend(${pid})`);
            await new Promise((resolve) => setTimeout(resolve, 300));
            await tx.execute(sql`SELECT 1`);
          })
          .then(
            () => 'committed',
            (err: Error) => `failed: ${err.message}`,
          );
        expect(outcome).toMatch(/^failed: /);
        expect(uncaught).toEqual([]);
        const rows = rowsOf<{ one: number }>(await database.db.execute(sql`SELECT 1 AS one`));
        expect(rows[0]?.one).toBe(1);
      } finally {
        process.off('uncaughtException', onUncaught);
        await database.close();
      }
    });
  },
);
