/**
 * Benchmark: device telemetry ingest, messages per second *stored* (rows in the database ÷ 6
 * devices per message), over a 10 s window after 1.5 s of warm-up, three runs each — in rounds,
 * every consumer once per round on a fresh target, so a shared machine's changing load weighs on
 * all alike — reported as median (min–max). Publishers run in a child process (bench/mqtt-publishers.ts): 50 gateways,
 * QoS 1 telemetry of 6 devices × 12 points, 16 messages in flight per gateway, publishing
 * continuously (the consumer is saturated).
 *
 * Consumers, for each transport:
 * - embedded (aedes in this process) on PGlite, and PostgreSQL behind Mosquitto:
 *   - ours: the server's device side (DeviceService: ingest pipeline, rollups, latest values,
 *     alarms, last-seen), PUBACK once stored — on the embedded broker in this process; behind
 *     Mosquitto as server instances in processes of their own (this file forked with
 *     `--ingest-instance`), one, then two on the same database sharing the ingest subscriptions
 *     (MQTT 5 `$share/<group>/…`, MQTT_SHARE_GROUP), as instances are deployed;
 *   - plain pipeline: parses and validates the same messages (the contract's schema), maps SNs
 *     to device ids from memory, and writes the same raw rows with one
 *     `INSERT … SELECT FROM unnest(…)` per batch (batches form while the previous write runs),
 *     PUBACK once stored: what ingest costs without our pipeline;
 *   - bare: a subscriber (aedes hook / mqtt.js) that only counts: the broker's ceiling.
 * Embedded runs also check that every acknowledged message was stored (QoS 1 lossless).
 *
 * Also measures storage per raw point on PostgreSQL (telemetry partitions with indexes and
 * TOAST; rollups apart) after a fixed run of a message a minute per gateway.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { telemetryPayload as telemetrySchema } from '@ess/contract';
import { Aedes } from 'aedes';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import pg from 'pg';
import { type Database, openDatabase } from '../apps/server/src/core/db/database';
import { rowsOf } from '../apps/server/src/core/db/rows';
import { device } from '../apps/server/src/core/db/schema';
import { DeviceService } from '../apps/server/src/devices/device-service';
import { ensurePartitions } from '../apps/server/src/devices/telemetry-partitions';
import { type BenchGateway, registerBenchFleet, startPublishers } from './device-fleet';
import { SITE_TYPES } from './device-payloads';
import { type Spread, sleep, spread } from './stats';

export const GATEWAYS = 50;
export const WINDOW = 16;
export const WARMUP_MS = 1_500;
export const MEASURE_MS = 10_000;
export const RUNS = 3;
/** Device time step: a message a minute, so rollups hold what a real fleet's would. */
const STEP_MS = 60_000;
/** Storage run: messages per gateway. */
const STORAGE_PER_CLIENT = 80;

export type Consumer = 'ours' | 'ours2' | 'plain' | 'bare';
export type Transport = 'embedded' | 'external';

export interface IngestRun {
  msgPerS: number;
  /** Messages the publishers had acknowledged at the end of the run, and messages stored. */
  acked: number;
  stored: number;
}

export interface IngestFigures {
  transport: Transport;
  consumer: Consumer;
  label: string;
  spread: Spread;
  runs: IngestRun[];
}

export interface StorageFigures {
  rawRows: number;
  rawPoints: number;
  rawBytes: number;
  rollupRows: number;
  rollupBytes: number;
}

/** Silent unless BENCH_INGEST_LOG names a pino level (e.g. `error`: what the server instances log). */
const log = Fastify({
  logger: process.env.BENCH_INGEST_LOG ? { level: process.env.BENCH_INGEST_LOG } : false,
}).log;

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

/**
 * Device time of run `run`: 6.5 days back (inside the 7-day backfill), a message a minute, and
 * each run offset by 20 s so that no two runs write the same (device, ts).
 */
const runPlan = (url: string, gateways: BenchGateway[], run: number) => ({
  url,
  gateways,
  perClient: 0,
  durationMs: WARMUP_MS + MEASURE_MS + 300,
  window: WINDOW,
  baseTs: Date.now() - 6.5 * 86_400_000 + run * 20_000,
  stepMs: STEP_MS,
});

/** A consumer under test: where publishers connect, and how many messages it has stored. */
interface Target {
  url: string;
  gateways: BenchGateway[];
  stored(): Promise<number>;
  close(): Promise<void>;
}

/** One windowed run (number `run`: its device times) against `target`. */
async function measureOnce(target: Target, run: number): Promise<IngestRun> {
  const publishers = await startPublishers(runPlan(target.url, target.gateways, run));
  try {
    const before = await target.stored();
    const going = publishers.go();
    await sleep(WARMUP_MS);
    const c0 = await target.stored();
    const t0 = performance.now();
    await sleep(MEASURE_MS);
    const c1 = await target.stored();
    const t1 = performance.now();
    const { acked } = await going;
    await sleep(500); // what was acknowledged by a broker but not yet consumed
    const after = await target.stored();
    return { msgPerS: Math.round(((c1 - c0) * 1000) / (t1 - t0)), acked, stored: after - before };
  } finally {
    await publishers.close();
  }
}

/** The database side of the plain pipeline: fresh database, fleet, SN → device id. */
async function plainDatabase(postgresUrl: string | undefined) {
  const fresh = await freshDatabase(postgresUrl);
  await ensurePartitions(fresh.database.db, log);
  const gateways = await registerBenchFleet(fresh.database.db, GATEWAYS);
  const ids = new Map(
    (await fresh.database.db.select({ id: device.id, sn: device.sn }).from(device)).map((d) => [d.sn, d.id]),
  );
  return { ...fresh, gateways, ids };
}

/**
 * The plain pipeline: parse, validate, map, and one `INSERT … SELECT FROM unnest` per batch; a
 * batch is what arrived while the previous write ran. `accept` resolves once stored.
 */
function plainPipeline(db: Database['db'], ids: Map<string, number>) {
  let queue: { rows: [number, number, string][]; done: () => void }[] = [];
  let writing = false;
  const write = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const d: number[] = [];
      const t: number[] = [];
      const p: string[] = [];
      for (const m of batch) {
        for (const [id, ts, points] of m.rows) {
          d.push(id);
          t.push(ts / 1000);
          p.push(points);
        }
      }
      // Each array travels as one parameter (an array literal): the same text on both engines.
      const jsonb = p.map((x) => `"${x.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
      try {
        await db.execute(sql`
          INSERT INTO telemetry (device_id, ts, points)
          SELECT d, to_timestamp(t), p
          FROM unnest(${`{${d.join(',')}}`}::int[], ${`{${t.join(',')}}`}::float8[], ${`{${jsonb.join(',')}}`}::jsonb[]) AS x(d, t, p)
          ON CONFLICT DO NOTHING`);
      } catch (err) {
        console.error(`plain pipeline write failed: ${(err as Error).message.split('\n')[0]}`);
      }
      for (const m of batch) m.done();
    }
    writing = false;
  };
  return (payload: Buffer): Promise<void> => {
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      return Promise.resolve();
    }
    const parsed = telemetrySchema.safeParse(json);
    if (!parsed.success) return Promise.resolve();
    const rows: [number, number, string][] = [];
    for (const e of parsed.data.devices) {
      const id = ids.get(e.sn);
      if (id !== undefined) rows.push([id, parsed.data.ts, JSON.stringify(e.points)]);
    }
    return new Promise<void>((done) => {
      queue.push({ rows, done });
      if (!writing) void write();
    });
  };
}

/** An aedes broker on a free port whose publish hook is `onPublish` (PUBACK after it resolves). */
async function aedesWith(onPublish: (payload: Buffer) => Promise<void>) {
  const broker = new Aedes();
  broker.authorizePublish = (client, packet, done) => {
    if (!client) return done(null);
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    onPublish(payload).then(
      () => done(null),
      (err: Error) => done(err),
    );
  };
  await broker.listen();
  const server = net.createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((r) => broker.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Gateways nobody registered (the bare counters do not look them up). */
function unregisteredGateways(): BenchGateway[] {
  const tag = randomBytes(3).toString('hex').toUpperCase();
  return Array.from({ length: GATEWAYS }, (_, s) => {
    const code = `BARE${tag}-${s}`;
    return {
      sn: `EMS-${code}`,
      secret: 'unused',
      devices: SITE_TYPES.map((type) => ({ sn: `${type.slice(0, 3).toUpperCase()}-${code}`, type })),
    };
  });
}

/** mqtt.js subscriber on `brokerUrl` whose handler's promise defers the PUBACK (as ours does). */
async function subscriber(
  brokerUrl: string,
  topic: string,
  handle: (topic: string, payload: Buffer) => Promise<void>,
) {
  const client: MqttClient = await mqtt.connectAsync(brokerUrl, {
    protocolVersion: 5,
    clean: true,
    reconnectPeriod: 0,
    properties: { receiveMaximum: 1000 }, // as the server announces
  });
  const deferred = new Error('PUBACK deferred');
  client.handleMessage = (packet, done) => {
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    const handled = handle(packet.topic, payload);
    if (packet.qos !== 1 || packet.messageId === undefined) return void done();
    const messageId = packet.messageId;
    void handled.then(() =>
      (
        client as unknown as {
          _sendPacket(p: { cmd: 'puback'; messageId: number; reasonCode: number }): void;
        }
      )._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 }),
    );
    done(deferred);
  };
  await client.subscribeAsync(topic, { qos: 1 });
  return client;
}

/**
 * `count` server instances (DeviceService on PostgreSQL `databaseUrl` and broker `brokerUrl`, the
 * ingest subscriptions shared in group `shareGroup`), each in a process of its own; resolves
 * once all are subscribed; `close()` stops them (each stores what it acknowledged first).
 */
async function startInstances(count: number, databaseUrl: string, brokerUrl: string, shareGroup: string) {
  const children = Array.from({ length: count }, () =>
    fork(fileURLToPath(import.meta.url), ['--ingest-instance'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        BENCH_INSTANCE_DATABASE_URL: databaseUrl,
        BENCH_INSTANCE_MQTT_URL: brokerUrl,
        BENCH_INSTANCE_SHARE_GROUP: shareGroup,
      },
    }),
  );
  const next = (child: (typeof children)[number], type: string) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (m: { type: string; error?: string }) => {
        if (m.type === type) resolve();
        else if (m.type === 'error') reject(new Error(m.error));
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`ingest instance exited (${code})`)));
    });
  await Promise.all(children.map((c) => next(c, 'ready')));
  return {
    close: async () => {
      await Promise.all(
        children.map(async (c) => {
          const exited = new Promise((r) => c.once('exit', r));
          c.send({ type: 'exit' });
          await exited;
        }),
      );
    },
  };
}

/** The child of {@link startInstances}: one server instance's device side until told to exit. */
async function runInstance(): Promise<void> {
  const send = (m: object) => new Promise<void>((r) => process.send!(m, () => r()));
  const database = await openDatabase({
    databaseUrl: process.env.BENCH_INSTANCE_DATABASE_URL!,
    dataDir: os.tmpdir(),
    poolSize: 10,
  });
  const devices = new DeviceService(database.db, log, {
    mqttUrl: process.env.BENCH_INSTANCE_MQTT_URL!,
    mqttPort: 0,
    mqttShareGroup: process.env.BENCH_INSTANCE_SHARE_GROUP!,
  });
  await devices.start();
  process.on('message', (m: { type: string }) => {
    if (m.type !== 'exit') return;
    void devices
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
  await send({ type: 'ready' });
}

async function targetOf(
  transport: Transport,
  consumer: Consumer,
  postgresUrl: string | undefined,
  brokerUrl: string | undefined,
): Promise<Target> {
  const perMessage = SITE_TYPES.length;
  if ((consumer === 'ours' || consumer === 'ours2') && transport === 'external') {
    const { database, url, drop } = await freshDatabase(postgresUrl);
    await ensurePartitions(database.db, log);
    const gateways = await registerBenchFleet(database.db, GATEWAYS);
    const instances = await startInstances(
      consumer === 'ours2' ? 2 : 1,
      url!,
      brokerUrl!,
      `ess-bench-${randomBytes(3).toString('hex')}`,
    );
    return {
      url: brokerUrl!,
      gateways,
      stored: async () => Math.floor((await countRows(database.db)) / perMessage),
      close: async () => {
        await instances.close();
        await drop();
      },
    };
  }
  if (consumer === 'ours' || consumer === 'ours2') {
    const { database, drop } = await freshDatabase(transport === 'external' ? postgresUrl : undefined);
    await ensurePartitions(database.db, log);
    const gateways = await registerBenchFleet(database.db, GATEWAYS);
    const devices = new DeviceService(database.db, log, { mqttPort: 0, mqttHost: '127.0.0.1' });
    await devices.start();
    return {
      url: `mqtt://127.0.0.1:${devices.brokerAddress.port}`,
      gateways,
      stored: async () => Math.floor((await countRows(database.db)) / perMessage),
      close: async () => {
        await devices.close();
        await drop();
      },
    };
  }
  if (consumer === 'plain') {
    const { database, drop, gateways, ids } = await plainDatabase(
      transport === 'external' ? postgresUrl : undefined,
    );
    const accept = plainPipeline(database.db, ids);
    const stored = async () => Math.floor((await countRows(database.db)) / perMessage);
    if (transport === 'embedded') {
      const broker = await aedesWith(accept);
      return {
        url: broker.url,
        gateways,
        stored,
        close: async () => {
          await broker.close();
          await drop();
        },
      };
    }
    const client = await subscriber(brokerUrl!, 'ess/v1/+/telemetry', (_topic, payload) => accept(payload));
    return {
      url: brokerUrl!,
      gateways,
      stored,
      close: async () => {
        await client.endAsync();
        await drop();
      },
    };
  }
  // bare: count the messages of these gateways.
  const gateways = unregisteredGateways();
  const prefix = gateways[0]!.sn.replace(/-\d+$/, '-');
  let count = 0;
  const stored = async () => count;
  if (transport === 'embedded') {
    const broker = await aedesWith(async () => {
      count++;
    });
    return { url: broker.url, gateways, stored, close: broker.close };
  }
  const client = await subscriber(brokerUrl!, 'ess/v1/+/telemetry', async (topic) => {
    if (topic.startsWith(`ess/v1/${prefix}`)) count++;
  });
  return { url: brokerUrl!, gateways, stored, close: () => client.endAsync() };
}

const LABELS: Record<Consumer, string> = {
  ours: 'ours',
  ours2: 'ours, two instances',
  plain: 'plain INSERT … unnest',
  bare: 'bare counting subscriber',
};

/**
 * The consumers of one transport, one after another: embedded — ours, plain, bare; external —
 * bare, plain, ours with one instance, ours with two (each on a fresh database).
 * BENCH_INGEST_CONSUMERS (e.g. `ours,ours2`) keeps some of them.
 */
export async function benchIngest(
  transport: Transport,
  postgresUrl: string | undefined,
  brokerUrl: string | undefined,
): Promise<IngestFigures[]> {
  const figures: IngestFigures[] = [];
  const only = process.env.BENCH_INGEST_CONSUMERS?.split(',');
  const consumers = (
    transport === 'embedded'
      ? (['ours', 'plain', 'bare'] as const)
      : (['bare', 'plain', 'ours', 'ours2'] as const)
  ).filter((c) => !only || only.includes(c));
  // Rounds: each consumer once per round, on a fresh target, so that a machine whose load changes
  // during the section (it is shared) weighs on every consumer alike.
  const runs = new Map<Consumer, IngestRun[]>(consumers.map((c) => [c, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const consumer of consumers) {
      const target = await targetOf(transport, consumer, postgresUrl, brokerUrl);
      try {
        runs.get(consumer)!.push(await measureOnce(target, run));
      } finally {
        await target.close();
      }
    }
  }
  for (const consumer of consumers) {
    const r = runs.get(consumer)!;
    figures.push({
      transport,
      consumer,
      label: transport === 'external' && consumer === 'ours' ? 'ours, one instance' : LABELS[consumer],
      spread: spread(r.map((x) => x.msgPerS)),
      runs: r,
    });
  }
  return figures;
}

/** Storage per raw point: telemetry partitions with their indexes and TOAST; rollups apart. */
export async function benchStorage(postgresUrl: string): Promise<StorageFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  await ensurePartitions(database.db, log);
  const gateways = await registerBenchFleet(database.db, GATEWAYS);
  const devices = new DeviceService(database.db, log, { mqttPort: 0, mqttHost: '127.0.0.1' });
  await devices.start();
  const publishers = await startPublishers({
    url: `mqtt://127.0.0.1:${devices.brokerAddress.port}`,
    gateways,
    perClient: STORAGE_PER_CLIENT,
    window: WINDOW,
    baseTs: Date.now() - STORAGE_PER_CLIENT * STEP_MS - 60_000,
    stepMs: STEP_MS,
  });
  try {
    await publishers.go();
    const db = database.db;
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
  } finally {
    await publishers.close();
    await devices.close();
    await drop();
  }
}

if (process.argv.includes('--ingest-instance') && process.send) {
  runInstance().catch((err: Error) => {
    process.send!({ type: 'error', error: err.message }, () => process.exit(1));
  });
}
