/**
 * Benchmark: device telemetry ingest (messages/s and points/s) with N simulated gateways, each
 * publishing QoS 1 telemetry of 6 devices × 12 points with a fixed in-flight window, from a
 * separate process.
 *
 * - embedded broker (aedes) on PGlite and on PostgreSQL: a PUBACK means stored, so the time to
 *   the last PUBACK is the ingest time; stored rows are counted afterwards (nothing lost?);
 * - PostgreSQL behind Mosquitto (the server as an MQTT_URL client), beside a bare mqtt.js
 *   subscriber on the same broker that only counts the same publishers' messages: the time
 *   until the last message is stored (resp. counted). The ratio ours / bare is the figure.
 *
 * It also measures storage per raw point on PostgreSQL (telemetry partitions with indexes and
 * TOAST, and the rollups separately).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import mqtt from 'mqtt';
import pg from 'pg';
import { type Database, openDatabase } from '../apps/server/src/core/db/database';
import { rowsOf } from '../apps/server/src/core/db/rows';
import { DeviceService } from '../apps/server/src/devices/device-service';
import { ensurePartitions } from '../apps/server/src/devices/telemetry-partitions';
import { type BenchGateway, registerBenchFleet, startPublishers } from './device-fleet';
import { POINTS_PER_MESSAGE, SITE_TYPES } from './device-payloads';

export const GATEWAYS = 50;
export const WINDOW = 16;
export const PER_CLIENT = 80;
/**
 * Messages per gateway through Mosquitto: 50 × 36 = 1,800 fit in the server's in-flight window
 * (Receive Maximum 1,000) plus Mosquitto's default queue per client (max_queued_messages 1,000);
 * a larger burst than the server absorbs is dropped by the broker (measured separately).
 */
export const EXTERNAL_PER_CLIENT = 36;
/** Device time step: a message a minute, so rollups hold what a real fleet's would. */
const STEP_MS = 60_000;

export interface IngestFigures {
  label: string;
  messages: number;
  seconds: number;
  msgPerS: number;
  pointsPerS: number;
  stored: number;
  expected: number;
}

export interface StorageFigures {
  rawRows: number;
  rawPoints: number;
  rawBytes: number;
  rollupRows: number;
  rollupBytes: number;
}

const log = Fastify({ logger: false }).log;

function figures(
  label: string,
  messages: number,
  ms: number,
  stored: number,
  expected: number,
): IngestFigures {
  const seconds = ms / 1000;
  return {
    label,
    messages,
    seconds,
    msgPerS: Math.round(messages / seconds),
    pointsPerS: Math.round((messages * POINTS_PER_MESSAGE) / seconds),
    stored,
    expected,
  };
}

async function countRows(db: Database['db']): Promise<number> {
  return Number(rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM telemetry`))[0]!.n);
}

/** A fresh database: PGlite in a temporary folder, or a new database on `postgresUrl`. */
export async function freshDatabase(
  postgresUrl: string | undefined,
): Promise<{ database: Database; url?: string; drop(): Promise<void> }> {
  if (!postgresUrl) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-ingest-'));
    const database = await openDatabase({ dataDir });
    await database.migrate();
    return {
      database,
      drop: async () => {
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `ess_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: os.tmpdir(), poolSize: 10 });
  await database.migrate();
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const plan = (url: string, gateways: BenchGateway[], perClient = PER_CLIENT) => ({
  url,
  gateways,
  perClient,
  window: WINDOW,
  baseTs: Date.now() - perClient * STEP_MS - 60_000,
  stepMs: STEP_MS,
});

/**
 * Polls `progress` until it reaches `target`, or stops moving for 3 s (messages lost on the
 * way); answers the milliseconds from `started` to the last progress.
 */
async function until(progress: () => number, target: number, started: number): Promise<number> {
  let last = progress();
  let lastAt = performance.now();
  while (last < target && performance.now() - lastAt < 3_000 && performance.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 5));
    const now = progress();
    if (now !== last) {
      last = now;
      lastAt = performance.now();
    }
  }
  return lastAt - started;
}

/** Embedded broker on `postgresUrl` (or PGlite); `inspect` runs on the database before it is dropped. */
async function embedded(
  postgresUrl: string | undefined,
  inspect?: (db: Database['db']) => Promise<void>,
): Promise<IngestFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  await ensurePartitions(database.db, log);
  const gateways = await registerBenchFleet(database.db, GATEWAYS);
  const devices = new DeviceService(database.db, log, { mqttPort: 0, mqttHost: '127.0.0.1' });
  await devices.start();
  const publishers = await startPublishers(plan(`mqtt://127.0.0.1:${devices.brokerAddress.port}`, gateways));
  try {
    const { ms } = await publishers.go();
    const messages = GATEWAYS * PER_CLIENT;
    const stored = await countRows(database.db);
    await inspect?.(database.db);
    return figures(`embedded + ${database.engine}`, messages, ms, stored / SITE_TYPES.length, messages);
  } finally {
    await publishers.close();
    await devices.close();
    await drop();
  }
}

/** The server behind `brokerUrl` on a fresh PostgreSQL database: time until all is stored. */
async function external(postgresUrl: string, brokerUrl: string, perClient: number): Promise<IngestFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  await ensurePartitions(database.db, log);
  const gateways = await registerBenchFleet(database.db, GATEWAYS);
  const devices = new DeviceService(database.db, log, {
    mqttUrl: brokerUrl,
    mqttPort: 0,
    mqttShareGroup: `ess-bench-${randomBytes(3).toString('hex')}`,
  });
  await devices.start();
  const publishers = await startPublishers(plan(brokerUrl, gateways, perClient));
  const messages = GATEWAYS * perClient;
  try {
    const started = performance.now();
    await publishers.go();
    const rows = () => devices.ingest.stats.storedRows;
    const ms = await until(rows, messages * SITE_TYPES.length, started);
    const stored = (await countRows(database.db)) / SITE_TYPES.length;
    return figures('ours: Mosquitto + postgres', stored, ms, stored, messages);
  } finally {
    await publishers.close();
    await devices.close();
    await drop();
  }
}

/** A bare mqtt.js subscriber on `brokerUrl` counting the same publishers' messages. */
async function bare(brokerUrl: string, perClient: number): Promise<IngestFigures> {
  const tag = randomBytes(3).toString('hex').toUpperCase();
  const gateways: BenchGateway[] = Array.from({ length: GATEWAYS }, (_, s) => {
    const code = `BARE${tag}-${s}`;
    return {
      sn: `EMS-${code}`,
      secret: 'unused',
      devices: SITE_TYPES.map((type) => ({ sn: `${type.slice(0, 3).toUpperCase()}-${code}`, type })),
    };
  });
  const prefix = `ess/v1/EMS-BARE${tag}-`;
  const subscriber = await mqtt.connectAsync(brokerUrl, {
    protocolVersion: 5,
    clean: true,
    reconnectPeriod: 0,
    properties: { receiveMaximum: 1000 }, // as the server announces
  });
  let count = 0;
  subscriber.on('message', (topic) => {
    if (topic.startsWith(prefix)) count++;
  });
  await subscriber.subscribeAsync('ess/v1/+/telemetry', { qos: 1 });
  const publishers = await startPublishers(plan(brokerUrl, gateways, perClient));
  const messages = GATEWAYS * perClient;
  try {
    const started = performance.now();
    await publishers.go();
    const ms = await until(() => count, messages, started);
    return figures('bare mqtt.js subscriber', count, ms, count, messages);
  } finally {
    await publishers.close();
    await subscriber.endAsync();
  }
}

/** Storage per raw point: telemetry partitions with their indexes and TOAST; rollups apart. */
async function storage(db: Database['db']): Promise<StorageFigures> {
  await db.execute(sql`ANALYZE telemetry`);
  const [raw] = rowsOf<{ rows: number; points: number }>(
    await db.execute(sql`
      SELECT count(*)::int AS rows,
             coalesce(sum((SELECT count(*) FROM jsonb_object_keys(points))), 0)::int AS points
      FROM telemetry`),
  );
  const [bytes] = rowsOf<{ raw: string; rollup: string; rollup_rows: number }>(
    await db.execute(sql`
      SELECT (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
              WHERE i.inhparent = 'telemetry'::regclass)
             + pg_total_relation_size('telemetry') AS raw,
             pg_total_relation_size('telemetry_rollup') AS rollup,
             (SELECT count(*)::int FROM telemetry_rollup) AS rollup_rows`),
  );
  return {
    rawRows: Number(raw!.rows),
    rawPoints: Number(raw!.points),
    rawBytes: Number(bytes!.raw),
    rollupRows: Number(bytes!.rollup_rows),
    rollupBytes: Number(bytes!.rollup),
  };
}

/** Runs the ingest measurements; PostgreSQL and Mosquitto ones only when their URLs are given. */
export async function benchDeviceIngest(
  postgresUrl: string | undefined,
  brokerUrl: string | undefined,
): Promise<{ ingest: IngestFigures[]; storage?: StorageFigures; burst?: IngestFigures }> {
  const ingest = [await embedded(undefined)];
  let stored: StorageFigures | undefined;
  let burst: IngestFigures | undefined;
  if (postgresUrl) {
    ingest.push(
      await embedded(postgresUrl, async (db) => {
        stored = await storage(db);
      }),
    );
    if (brokerUrl) {
      ingest.push(await external(postgresUrl, brokerUrl, EXTERNAL_PER_CLIENT));
      ingest.push(await bare(brokerUrl, EXTERNAL_PER_CLIENT));
      burst = await external(postgresUrl, brokerUrl, PER_CLIENT);
    }
  }
  return { ingest, ...(stored ? { storage: stored } : {}), ...(burst ? { burst } : {}) };
}
