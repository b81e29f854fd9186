/**
 * Entry point: load config, open and migrate the database, seed a fresh one, start the device
 * side (broker, ingest) and the demo fleet, build the app and listen. Twice a day: telemetry
 * partitions ahead and past retention, and log rows past retention (db/log-retention.ts). SIGINT/SIGTERM stop the
 * simulator, close the HTTP server (letting requests finish), the broker (storing what was
 * acknowledged), then the database.
 */
import type { RunningFleet } from '@ess/simulator';
import { seedIfEmpty } from './access/seed';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './core/config';
import { DataDirInUseError, openDatabase } from './core/db/database';
import { startDemoFleet } from './demo/demo-fleet';
import { DeviceService } from './devices/device-service';
import { dropExpiredPartitions, ensurePartitions } from './devices/telemetry-partitions';
import { purgeExpiredLogs } from './jobs/log-retention';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await database.migrate();
  const seeded = await seedIfEmpty(database.db, {
    adminPassword: config.adminPassword,
    scryptLogN: config.auth.scryptLogN,
  });

  const app = await buildApp({ config, db: database.db, devices: null });
  const log = app.log;
  const maintainPartitions = async () => {
    await ensurePartitions(database.db, log);
    const dropped = await dropExpiredPartitions(database.db, config.telemetryRetentionDays);
    if (dropped.length) log.info({ dropped }, 'expired telemetry partitions dropped');
  };
  // Log retention runs in the background (first run after listen): a large first purge must not
  // hold up the start.
  const purgeLogs = async () => {
    const purged = await purgeExpiredLogs(database.db, config.logRetention);
    if (purged.operationLog || purged.connectionLog || purged.sentMail) {
      log.info({ purged }, 'log rows past their retention deleted');
    }
  };
  await maintainPartitions();
  const maintenanceTimer = setInterval(() => {
    void maintainPartitions().catch((err) => log.error({ err }));
    void purgeLogs().catch((err) => log.error({ err }));
  }, 12 * 3600_000);
  maintenanceTimer.unref();

  const devices = new DeviceService(database.db, log, {
    mqttUrl: config.mqttUrl,
    mqttPort: config.mqttPort,
    mqttHost: config.host,
  });
  await devices.start();
  app.live.start(devices);
  app.touPush.start(devices);
  app.alarmMail.start(devices);
  app.devices = devices;

  let fleet: RunningFleet | null = null;
  if (config.demo.sites > 0 && config.demo.simulator) {
    const brokerUrl = config.mqttUrl ?? `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
    fleet = await startDemoFleet(database.db, log, { ...config.demo, brokerUrl }, () =>
      devices.directory.refresh(),
    );
  }

  if (seeded) log.info('Seeded a new database: sign in as admin with ADMIN_PASSWORD (default admin123).');
  log.info(
    { engine: database.engine, dataDir: database.engine === 'pglite' ? config.dataDir : undefined },
    'database ready',
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await fleet?.stop();
    await app.close();
    await devices.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const address = await app.listen({ port: config.port, host: config.host });
  void purgeLogs().catch((err) => log.error({ err }));
  log.info(
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
