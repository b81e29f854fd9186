/**
 * Entry point: load config, open and migrate the database, seed a fresh one, build the app and
 * listen. SIGINT/SIGTERM close the HTTP server (letting requests finish), then the database.
 */
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { DataDirInUseError, openDatabase } from './db/database';
import { seedIfEmpty } from './db/seed';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await database.migrate();
  const seeded = await seedIfEmpty(database.db, {
    adminPassword: config.adminPassword,
    scryptLogN: config.auth.scryptLogN,
  });
  const app = await buildApp({ config, db: database.db });
  if (seeded) app.log.info('Seeded a new database: sign in as admin with ADMIN_PASSWORD (default admin123).');
  app.log.info(
    { engine: database.engine, dataDir: database.engine === 'pglite' ? config.dataDir : undefined },
    'database ready',
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError) {
    console.error(err.message);
    process.exit(78);
  }
  console.error(err);
  process.exit(1);
});
