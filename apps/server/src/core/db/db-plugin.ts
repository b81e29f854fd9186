/**
 * Plugin `ess-db` (after `ess-config`): decorates the app with the Drizzle handle `db`.
 *
 * Without a database passed in, it opens the configured one (PostgreSQL at `DATABASE_URL`, else
 * PGlite in `DATA_DIR`; core/db/database.ts), applies the migrations, runs `prepare` (the
 * assembly seeds a fresh database there) and closes it in `onClose` — the last hook to run, after
 * everything that uses it. A database passed in (tests, benchmarks) is used as it is — migrated
 * and seeded by the caller — and left open: its owner closes it.
 *
 * Errors: {@link DataDirInUseError} when another process holds the PGlite folder; connection and
 * migration errors as thrown by the driver.
 */
import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { type Database, type Db, openDatabase } from './database';

declare module 'fastify' {
  interface FastifyInstance {
    /** The database every service uses (plugin `ess-db`). */
    db: Db;
  }
}

export interface DbPluginOptions {
  /** An open, migrated and seeded database owned by the caller (not closed with the app). */
  db?: Db | undefined;
  /** Runs on a database the plugin opened, after the migrations (e.g. seeding an empty one). */
  prepare?: (db: Db, log: FastifyBaseLogger) => Promise<void>;
}

export const dbPlugin = fp<DbPluginOptions>(
  async (app, options) => {
    if (options.db) {
      app.decorate('db', options.db);
      return;
    }
    const { config } = app;
    const database: Database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
    });
    app.addHook('onClose', () => database.close());
    await database.migrate();
    await options.prepare?.(database.db, app.log);
    app.decorate('db', database.db);
    app.log.info(
      { engine: database.engine, dataDir: database.engine === 'pglite' ? config.dataDir : undefined },
      'database ready',
    );
  },
  { name: 'ess-db', dependencies: ['ess-config'], fastify: '5.x' },
);
