/**
 * Opens the database: PostgreSQL when `DATABASE_URL` is set, otherwise the embedded PGlite in
 * `DATA_DIR/pglite` (design §2). Both are driven through Drizzle with the same schema, SQL and
 * migrations; the handle returned is engine-agnostic.
 *
 * PGlite is single-connection: the data folder is guarded by a lock file so that a second
 * process on the same folder fails fast with {@link DataDirInUseError} instead of corrupting it,
 * while a restart after a crash opens at once (data-dir-lock.ts checks whether the recorded
 * holder still runs).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock';
import * as schema from './schema';

/** The Drizzle handle every service uses, whatever the engine. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Applies the committed migrations in `apps/server/drizzle` (idempotent). */
  migrate(): Promise<void>;
  /** Closes connections and releases the data-folder lock. */
  close(): Promise<void>;
}

export { DataDirInUseError } from './data-dir-lock';

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../drizzle');

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; when absent, PGlite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /** Pool size for PostgreSQL (default 10). */
  poolSize?: number;
}

/** Opens (but does not migrate) the configured database. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options.dataDir);
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool replaces it on next use.
  pool.on('error', (err) => console.error(`PostgreSQL connection lost: ${err.message}`));
  // pg-pool listens for errors only on idle clients: a connection cut while a client is checked
  // out between two queries (inside a transaction, during a fast shutdown) emits 'error' with no
  // listener, an uncaught exception that would end the process. The query in flight (or the next
  // one) fails on its own and the caller's retry handles it; here it is only logged.
  pool.on('connect', (client) => {
    client.on('error', (err) => console.error(`PostgreSQL connection lost: ${err.message}`));
  });
  // Fail fast on a wrong URL rather than at the first request.
  const client = await pool.connect();
  client.release();
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    engine: 'postgres',
    migrate: () => migratePg(db as never, { migrationsFolder }),
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  const release = await lockDataDir(dataDir);
  try {
    const client = await PGlite.create(path.join(dataDir, 'pglite'));
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    return {
      db,
      engine: 'pglite',
      migrate: () => migratePglite(db as never, { migrationsFolder }),
      close: async () => {
        await client.close();
        await release();
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
