/**
 * Test support for the outage drills (devices-outages.test.ts): a throwaway PostgreSQL cluster
 * and a throwaway Mosquitto broker that a test owns, stops and starts, each in its own temporary
 * folder on a free port, and a simulated gateway that publishes QoS 1 telemetry at a steady rate
 * and counts what the broker acknowledged.
 *
 * PostgreSQL: `initdb` / `pg_ctl` from /usr/lib/postgresql/<newest>/bin (or PATH), run as the
 * `postgres` user when the tests run as root (initdb refuses root). Mosquitto: `mosquitto` from
 * PATH or /usr/sbin, with persistence in its folder (`user root` when run as root, so it can write
 * there). {@link outageServicesMissing} names what is missing, for `describe.skipIf`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deviceTopic } from '@ess/contract';
import mqtt, { type MqttClient } from 'mqtt';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

function onPath(name: string, extra: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extra];
  for (const dir of dirs) {
    const file = path.join(dir, name);
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}

/** The folder of `initdb` and `pg_ctl`: the newest /usr/lib/postgresql/<v>/bin, else PATH's. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  const initdb = onPath('initdb');
  return initdb && existsSync(path.join(path.dirname(initdb), 'pg_ctl')) ? path.dirname(initdb) : undefined;
}

const pgBin = postgresBin();
const mosquittoBin = onPath('mosquitto', ['/usr/sbin', '/usr/local/sbin']);

/** What the drills lack on this machine (empty: they can run). */
export function outageServicesMissing(): string[] {
  const missing: string[] = [];
  if (!pgBin) missing.push('initdb/pg_ctl');
  if (!mosquittoBin) missing.push('mosquitto');
  return missing;
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts TCP connections on `port` (polling every 50 ms). */
async function accepting(port: number, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nothing listens on port ${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A PostgreSQL cluster of its own (trust authentication, user `postgres`, fsync off). */
export class ThrowawayPostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Runs initdb in a new temporary folder and starts the cluster. */
  static async create(): Promise<ThrowawayPostgres> {
    if (!pgBin) throw new Error('initdb/pg_ctl not found');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-drill-pg-'));
    if (isRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const pg = new ThrowawayPostgres(dir, await freePort());
    await pg.as('initdb', ['-D', pg.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await pg.start();
    return pg;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  private as(tool: 'initdb' | 'pg_ctl', args: string[]) {
    const file = path.join(pgBin!, tool);
    return isRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
  }

  /** Starts the cluster and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await this.as('pg_ctl', [
      '-D',
      this.data,
      '-o',
      options,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }

  /** Fast shutdown (connections are cut, as when the server goes away), waiting until it is down. */
  async stop(): Promise<void> {
    await this.as('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
  }

  /** Stops the cluster if it runs and removes its folder. */
  async destroy(): Promise<void> {
    await this.as('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A Mosquitto of its own with the persistence and queue settings docs/device-protocol.md
 * "External broker" asks for (anonymous clients allowed: the drills are about delivery, not ACLs).
 */
export class ThrowawayMosquitto {
  private process: ChildProcess | null = null;

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  static async create(): Promise<ThrowawayMosquitto> {
    if (!mosquittoBin) throw new Error('mosquitto not found');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ess-drill-mqtt-'));
    const broker = new ThrowawayMosquitto(dir, await freePort());
    writeFileSync(
      path.join(dir, 'mosquitto.conf'),
      [
        `listener ${broker.port} 127.0.0.1`,
        'allow_anonymous true',
        'persistence true',
        `persistence_location ${dir}/`,
        'max_queued_messages 100000',
        'max_inflight_messages 1000',
        'persistent_client_expiration 1d',
        `log_dest file ${path.join(dir, 'mosquitto.log')}`,
        ...(isRoot ? ['user root'] : []),
        '',
      ].join('\n'),
    );
    await broker.start();
    return broker;
  }

  /** Starts the broker (restoring what it persisted) and waits until it accepts connections. */
  async start(): Promise<void> {
    const child = spawn(mosquittoBin!, ['-c', path.join(this.dir, 'mosquitto.conf')], {
      stdio: 'ignore',
    });
    this.process = child;
    await accepting(this.port);
  }

  /** SIGTERM (a normal stop: Mosquitto writes its persistence file), waiting until it exited. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.process = null;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A gateway reporting one PCS: message `i` is telemetry at `base + i` ms (so each stored row
 * names its message), QoS 1, from an mqtt.js client with a persistent session that reconnects
 * every 250 ms and keeps what it could not send while the broker was away.
 */
export class DrillGateway {
  /** Messages handed to the client. */
  sent = 0;
  /** Messages the broker acknowledged (PUBACK to the gateway). */
  acknowledged = 0;
  /** Publishes that failed on the gateway's side (never acknowledged). */
  failed = 0;
  private client: MqttClient | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    readonly sn: string,
    private readonly deviceSn: string,
    /** Device time of message 0 (ms). */
    readonly base: number,
  ) {}

  async connect(): Promise<void> {
    this.client = await mqtt.connectAsync(this.url, {
      clientId: this.sn,
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: 3600 },
      reconnectPeriod: 250,
      connectTimeout: 2_000,
    });
  }

  /** Publishes the next message. */
  publish(): void {
    const i = this.sent++;
    const body = {
      v: 1,
      id: `d-${i}`,
      ts: this.base + i,
      devices: [{ sn: this.deviceSn, type: 'pcs', points: { p_kw: i } }],
    };
    this.client!.publish(deviceTopic(this.sn, 'telemetry'), JSON.stringify(body), { qos: 1 }, (err) => {
      if (err) this.failed++;
      else this.acknowledged++;
    });
  }

  /** Publishes one message every `everyMs` until {@link pause}. */
  steady(everyMs = 50): void {
    this.timer ??= setInterval(() => this.publish(), everyMs);
  }

  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Every message sent is acknowledged or failed. */
  get settled(): boolean {
    return this.acknowledged + this.failed === this.sent;
  }

  async close(): Promise<void> {
    this.pause();
    await this.client?.endAsync(true);
  }
}
