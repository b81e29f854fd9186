/**
 * Opening the database (db/database.ts, db/seed.ts): the PGlite folder lock, and a second start
 * on the same data keeping every row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { count, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_ACCOUNT, PLATFORM_COMPANY_NAME, seedIfEmpty } from '../src/access/seed';
import { type Database, DataDirInUseError, openDatabase } from '../src/core/db/database';
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
