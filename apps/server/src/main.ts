/**
 * Entry point: loads the configuration, builds the app (app.ts: database, device side, jobs,
 * services, routes and, when configured, the demo fleet), listens, and closes the app on
 * SIGINT/SIGTERM — which stops the demo fleet, closes the HTTP server (letting requests finish),
 * stops the scheduler, closes the broker (storing what was acknowledged), then the database.
 * A close that hangs for 15 s ends the process with code 1.
 *
 * Exit codes: 78 for a bad configuration or a data folder in use, 1 for any other failure.
 */
import { buildApp } from './app';
import { ConfigError, loadConfig } from './core/config';
import { DataDirInUseError } from './core/db/database';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp({ config });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(
    `ESS Console is ready: open ${address.replace('0.0.0.0', 'localhost')} and sign in (admin / admin123 by default).`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError) {
    console.error(err.message);
    process.exit(78);
  }
  console.error(err);
  process.exit(1);
});
