/**
 * Test support: the parent's side of support/server-instance.ts — one server instance in a child
 * process (`node --import tsx`), started, asked over IPC, closed (as at SIGTERM) or killed
 * (SIGKILL: no close, no DISCONNECT, no lease released — as a crash or an OOM kill).
 *
 * `env` is the child's whole environment besides PATH and HOME (DATABASE_URL, MQTT_URL, DATA_DIR,
 * MQTT_CLIENT_ID, ESS_TEST_SHARE_GROUP, ESS_TEST_LISTEN, …; see server-instance.ts). Its pino log
 * lines (stdout) are kept parsed in `log`; stderr is kept for the error of an early exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What the instance answers to `stats`. */
export interface InstanceStats {
  /** Device data messages acknowledged (PUBACK sent: stored or settled) since it started. */
  acknowledgedData: number;
  /** Device data messages received since it started. */
  messages: number;
}

export class InstanceProcess {
  /** Its log, one parsed pino line each. */
  readonly log: Array<{ level: number; msg: string; [key: string]: unknown }> = [];
  /** The HTTP port it listens on (ESS_TEST_LISTEN=on), once started. */
  port = 0;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (answer: unknown) => void>();
  private nextId = 1;
  private stderr = '';
  private started = false;
  /** Its modules are loaded: {@link start} builds the app. */
  readonly loaded: Promise<void>;
  private readonly ready: Promise<Record<string, unknown>>;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'server-instance.ts')], {
      cwd: path.resolve(here, '../..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let buffered = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        try {
          this.log.push(JSON.parse(line));
        } catch {
          // not a log line
        }
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    const failed = this.exited.then((code) => {
      throw new Error(`instance ${name} exited (${code}): ${this.stderr}`);
    });
    failed.catch(() => undefined);
    const told = (what: 'loaded' | 'ready') =>
      Promise.race([
        failed,
        new Promise<Record<string, unknown>>((resolve) => {
          const on = (message: Record<string, unknown>) => {
            if (!message[what]) return;
            this.child.off('message', on);
            resolve(message);
          };
          this.child.on('message', on);
        }),
      ]);
    this.loaded = told('loaded').then(() => undefined);
    this.ready = told('ready');
    this.child.on('message', (message: { id?: number; answer?: unknown }) => {
      if (message.id !== undefined) this.pending.get(message.id)?.(message.answer);
    });
  }

  /** `http://127.0.0.1:<port>` (ESS_TEST_LISTEN=on, HOST=127.0.0.1). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Builds its app; resolves once it is ready (and listening, with ESS_TEST_LISTEN=on). */
  async start(): Promise<void> {
    await this.loaded;
    this.started = true;
    this.child.send({ start: true });
    const ready = await this.ready;
    if (typeof ready.port === 'number') this.port = ready.port;
  }

  ask(ask: 'stats'): Promise<InstanceStats>;
  ask<T>(ask: 'online' | 'settled' | 'close', ids?: number[]): Promise<T>;
  ask<T>(ask: 'online' | 'settled' | 'stats' | 'close', ids?: number[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (!this.running) {
        reject(new Error(`instance ${this.name} is not running`));
        return;
      }
      this.pending.set(id, (answer) => {
        this.pending.delete(id);
        resolve(answer as T);
      });
      this.child.send({ id, ask, ids });
    });
  }

  /**
   * Closes its app (as at SIGTERM) and waits for the process to end; one never started, or not
   * ended within `graceMs` (it never got as far as answering, or its close hangs), is killed.
   */
  async close(graceMs = 20_000): Promise<void> {
    if (!this.running) return;
    if (!this.started) return this.kill();
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      this.ask('close')
        .catch(() => undefined)
        .then(() => this.exited)
        .then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!ended) await this.kill();
  }

  /** SIGKILL: the process ends at once, closing nothing; resolves once it has exited. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Log lines with this message. */
  logged(msg: string): number {
    return this.log.filter((l) => l.msg === msg).length;
  }
}
