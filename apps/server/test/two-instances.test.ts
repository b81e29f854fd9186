/**
 * Two server instances on one PostgreSQL database and one Mosquitto (issue 13 item 4; runs only
 * when TEST_DATABASE_URL and TEST_MQTT_URL are set). Instance A is `buildApp` in this process;
 * instance B is a process of its own (support/server-instance.ts: the whole app from the
 * environment, in the same share group, with its own stable client id). B is a separate process
 * so that nothing the two could share in one process (a module's state, one event loop
 * serialising their reactions to the same broker message) can hide a double send or a lost
 * reply; A stays in process so that the test calls its API and waits for its delivery queue
 * directly.
 *
 * Three sites each with a fake EMS on the broker (an mqtt.js client logged in with the gateway's
 * SN and secret) that answers every command ok at once (or holds its answer when told). Observed:
 * the `set_tou_plan` commands each EMS receives on its `cmd` topic, the API's answers and the
 * delivery rows. Proven:
 *  - both instances starting with the scheme not yet applied: one send per site, applied;
 *  - ten pushes through A: each answers applied (no 3035), and each reaches the EMS once; the
 *    replies to commands A sends itself (time_sync) all reach A;
 *  - A stopping with a command out: the EMS's reply, received by B, settles it (applied, no
 *    resend);
 *  - a gateway reconnecting, or announcing itself online again: one send, never one per instance;
 *  - B restarting while A runs: no send (nothing changed for the gateways); both restarting after
 *    a gateway reconnected while no instance ran: one send to that gateway, none to the others.
 *
 * "No second send" needs a short quiet window after the expected one: see {@link quiet}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CommandPayload, deviceTopic, endpoints } from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { deviceDelivery } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { createTestApp, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';
import { waitFor as waitUntil } from './support/wait';

const databaseUrl = process.env.TEST_DATABASE_URL;
const brokerUrl = process.env.TEST_MQTT_URL;
const here = path.dirname(fileURLToPath(import.meta.url));

const waitFor = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000) =>
  waitUntil(probe, ms);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long to go on listening after the expected send, to see that no second one follows. A
 * second send would be the other instance's reaction to the same broker message (a birth, a
 * death, a reply), which reaches both instances within milliseconds; both instances' delivery
 * queues are waited for before and after the window, so a send started inside it is received and
 * answered before the count is taken.
 */
const QUIET_MS = 400;

/** An EMS that answers every command ok at once (or, with `hold`, when released) and keeps what it received. */
class FakeEms {
  readonly received: CommandPayload[] = [];
  hold = false;
  readonly held: CommandPayload[] = [];
  private client: MqttClient | null = null;

  constructor(
    readonly id: number,
    readonly siteId: number,
    readonly sn: string,
    private readonly secret: string,
  ) {}

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(brokerUrl!, {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 0,
      clean: true,
    });
    this.client = client;
    await client.subscribeAsync(deviceTopic(this.sn, 'cmd'), { qos: 1 });
    client.on('message', (topic, payload) => {
      if (topic !== deviceTopic(this.sn, 'cmd')) return;
      const command = JSON.parse(payload.toString()) as CommandPayload;
      this.received.push(command);
      if (this.hold) this.held.push(command);
      else this.answer(command);
    });
    await this.announce();
  }

  /** Answers ok. */
  answer(command: CommandPayload): Promise<unknown> {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'reply'),
      JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ok: true }),
      { qos: 1 },
    );
  }

  /** Publishes the birth (`online: true`, retained) again, as a gateway does after connecting. */
  announce(): Promise<unknown> {
    return this.status({ online: true });
  }

  async disconnect(clearRetained = false): Promise<void> {
    if (!this.client) return;
    await this.status({ online: false, reason: 'clean' });
    if (clearRetained)
      await this.client.publishAsync(deviceTopic(this.sn, 'status'), '', { qos: 1, retain: true });
    await this.client.endAsync();
    this.client = null;
  }

  /** How many `set_tou_plan` commands arrived. */
  plans(): number {
    return this.received.filter((c) => c.name === 'set_tou_plan').length;
  }

  private status(body: object) {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), ...body }),
      { qos: 1, retain: true },
    );
  }
}

/** Instance B: support/server-instance.ts in a child process, asked over IPC. */
class ChildInstance {
  /** Its log, one parsed pino line each. */
  readonly log: Array<{ level: number; msg: string; [key: string]: unknown }> = [];
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (answer: unknown) => void>();
  private nextId = 1;
  private stderr = '';
  /** Its modules are loaded: {@link start} builds the app. */
  readonly loaded: Promise<void>;
  private readonly ready: Promise<void>;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'support/server-instance.ts')], {
      cwd: path.resolve(here, '..'),
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
    const exited = new Promise<never>((_, reject) =>
      this.child.on('exit', (code) => reject(new Error(`instance B exited (${code}): ${this.stderr}`))),
    );
    exited.catch(() => undefined);
    const told = (what: 'loaded' | 'ready') =>
      Promise.race([
        exited,
        new Promise<void>((resolve) => {
          const on = (message: Record<string, unknown>) => {
            if (!message[what]) return;
            this.child.off('message', on);
            resolve();
          };
          this.child.on('message', on);
        }),
      ]);
    this.loaded = told('loaded');
    this.ready = told('ready');
    this.child.on('message', (message: { id?: number; answer?: unknown }) => {
      if (message.id !== undefined) this.pending.get(message.id)?.(message.answer);
    });
  }

  /** Builds its app; resolves once it is ready. */
  async start(): Promise<void> {
    await this.loaded;
    this.child.send({ start: true });
    await this.ready;
  }

  ask<T>(ask: 'online' | 'settled' | 'close', ids?: number[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      this.pending.set(id, (answer) => {
        this.pending.delete(id);
        resolve(answer as T);
      });
      this.child.send({ id, ask, ids });
    });
  }

  /** Closes its app (as at SIGTERM) and waits for the process to end. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    await this.ask('close').catch(() => undefined);
    await exited;
  }

  /** Log lines with this message. */
  logged(msg: string): number {
    return this.log.filter((l) => l.msg === msg).length;
  }
}

// Tests here stop and start whole server instances (one of them a child process): on a busy
// two-core CI machine that alone can pass the default 30 s, so each test may take 90 s.
describe.skipIf(!databaseUrl || !brokerUrl)(
  'two server instances on one database and one broker',
  { timeout: 90_000 },
  () => {
    const tag = randomBytes(4).toString('hex').toUpperCase();
    const shareGroup = `ess-test-2i-${tag}`;
    const clientIdOfB = `ess-test-2i-b-${tag}`;
    const dataDirs: string[] = [];
    let ctx: TestContext;
    let a: FastifyInstance | null = null;
    let b: ChildInstance | null = null;
    let token: string;
    const emses: FakeEms[] = [];

    /** Instance A: the whole app in this process, on the test's database and the broker. */
    const startA = async () => {
      const app = await buildApp({
        config: ctx.config,
        db: ctx.database.db,
        logger: false,
        devices: { mqttUrl: brokerUrl, mqttShareGroup: shareGroup },
        scheduler: false,
        demo: false,
      });
      await app.ready();
      return app;
    };
    /** Instance B with its modules loaded, not started yet (see {@link ChildInstance.start}). */
    const loadB = async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-instance-b-'));
      dataDirs.push(dataDir);
      const instance = new ChildInstance({
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        DATABASE_URL: ctx.config.databaseUrl!,
        MQTT_URL: brokerUrl!,
        ESS_TEST_SHARE_GROUP: shareGroup,
        // Stable across B's restarts, as an instance's is (its broker session is resumed).
        MQTT_CLIENT_ID: clientIdOfB,
        SCRYPT_LOG_N: '12',
        SIMULATOR: 'off',
      });
      await instance.loaded;
      return instance;
    };
    const startB = async () => {
      const instance = await loadB();
      await instance.start();
      return instance;
    };
    /** A and B built at the same moment. */
    const startBoth = async () => {
      const instance = await loadB();
      const [app] = await Promise.all([startA(), instance.start()]);
      return [app, instance] as const;
    };
    const ids = () => emses.map((e) => e.id);
    /** Both instances hold every gateway online (or every one offline). */
    const seenEverywhere = (online: boolean, which = ids()) =>
      waitFor(async () => {
        const onB = await b!.ask<number[]>('online', which);
        return which.every(
          (id) => a!.devices!.tracker.isOnline(id) === online && onB.includes(id) === online,
        );
      });
    /** Both instances' delivery queues are empty, stay so for QUIET_MS, and are empty again. */
    const quiet = async () => {
      await Promise.all([a!.touPush.settled(), b!.ask('settled')]);
      await sleep(QUIET_MS);
      await Promise.all([a!.touPush.settled(), b!.ask('settled')]);
    };
    const rows = () => ctx.database.db.select().from(deviceDelivery).where(eq(deviceDelivery.kind, 'tou'));
    const allApplied = async () => {
      const r = await rows();
      return r.length === emses.length && r.every((row) => row.state === 'applied' && row.claimedBy === null);
    };
    const plans = () => emses.map((e) => e.plans());

    beforeAll(async () => {
      // Registration through an app without a device side: nothing is sent yet.
      ctx = await createTestApp('postgres');
      const admin = await signIn(ctx.app);
      const api = (p: string, body: object) => call(ctx.app, p, body, { token: admin.token });
      const scheme = await api(endpoints.tou.save.path, {
        name: `Two instances ${tag}`,
        document: validScheme(),
      });
      expect(scheme.code, scheme.msg).toBe(0);
      for (let n = 1; n <= 3; n++) {
        const site = await api(endpoints.site.save.path, {
          code: `TI-${tag}-${n}`,
          name: `Site ${n} ${tag}`,
        });
        const ems = await api(endpoints.device.save.path, {
          siteId: site.data.id,
          sn: `EMS-TI-${tag}-${n}`,
          type: 'ems',
        });
        expect(ems.code, ems.msg).toBe(0);
        emses.push(new FakeEms(ems.data.id, site.data.id, ems.data.secret.sn, ems.data.secret.secret));
      }
      const assigned = await api(endpoints.tou.assign.path, {
        id: scheme.data.id,
        siteIds: emses.map((e) => e.siteId),
      });
      expect(assigned.code, assigned.msg).toBe(0);
      await ctx.app.touPush.settled();
      // The EMSes are online on the broker before any instance with a device side starts.
      for (const ems of emses) await ems.connect();
    });
    afterAll(async () => {
      for (const ems of emses) await ems.disconnect(true);
      await b?.close();
      await a?.close();
      // End the instances' persistent sessions on the shared broker (they would last a day).
      for (const clientId of [clientIdOfB, ctx?.config.mqttClientId]) {
        if (!clientId) continue;
        const client = await mqtt.connectAsync(brokerUrl!, {
          clientId,
          clean: true,
          protocolVersion: 5,
          properties: { sessionExpiryInterval: 0 },
          reconnectPeriod: 0,
        });
        await client.endAsync();
      }
      await ctx?.close();
      for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    });

    it('both instances starting with the scheme not applied yet: one set_tou_plan per site, applied', async () => {
      expect((await rows()).map((r) => r.state)).toEqual(['pending', 'pending', 'pending']);
      [a, b] = await startBoth();
      token = (await signIn(a)).token;
      await seenEverywhere(true);
      await waitFor(allApplied);
      await quiet();
      expect(plans()).toEqual([1, 1, 1]);
      expect(await allApplied()).toBe(true);
    });

    it('ten pushes through A: each answers applied (no 3035) and reaches the EMS once', async () => {
      const [ems] = emses;
      const before = ems!.plans();
      for (let n = 0; n < 10; n++) {
        const pushed = await call(a!, endpoints.tou.push.path, { siteId: ems!.siteId }, { token });
        expect(pushed, `push ${n + 1}`).toMatchObject({ code: 0, data: { state: 'applied', reason: null } });
      }
      await quiet();
      expect(ems!.plans()).toBe(before + 10);
    });

    it('commands A sends outside the delivery (time_sync): every reply reaches A', async () => {
      // Replies are not a shared subscription: with one, about every other reply went to B and the
      // command failed with 3035 'no reply' although the EMS answered.
      const [, ems] = emses;
      for (let n = 0; n < 6; n++) {
        const reply = await a!.devices!.commands.send(ems!.sn, 'time_sync', { serverTs: Date.now() });
        expect(reply, `time_sync ${n + 1}`).toMatchObject({ ok: true });
      }
    });

    it('A stopping with a command out: the reply settles it on B (applied, not sent again)', async () => {
      const [ems] = emses;
      const before = plans();
      const settledByB = b!.logged('delivery settled by a reply to another instance');
      ems!.hold = true;
      // A (alone) sends the site's scheme again, as at a reannounce it saw first.
      a!.touPush.delivery.resendSite(ems!.siteId);
      const command = await waitFor(() => ems!.held[0]);
      await a!.close();
      a = null;
      const [out] = await rows().then((r) => r.filter((row) => row.siteId === ems!.siteId));
      // A re-send of the applied version keeps the row applied while it is out (issue 14 item 3).
      expect(out).toMatchObject({ state: 'applied', commandId: command.id });
      expect(out!.claimedBy).not.toBeNull();
      ems!.hold = false;
      ems!.held.length = 0;
      await ems!.answer(command);
      await waitFor(() => b!.logged('delivery settled by a reply to another instance') > settledByB);
      const [settled] = await rows().then((r) => r.filter((row) => row.siteId === ems!.siteId));
      expect(settled).toMatchObject({ state: 'applied', commandId: command.id, attempt: out!.attempt });
      expect(settled).toMatchObject({ claimedBy: null, leaseUntil: null, reason: null });
      a = await startA();
      await seenEverywhere(true);
      await quiet();
      expect(plans()).toEqual([before[0]! + 1, before[1], before[2]]);
    });

    it('a gateway reconnecting: one set_tou_plan, never one per instance', async () => {
      const [, ems] = emses;
      for (let n = 0; n < 3; n++) {
        const before = plans();
        await ems!.disconnect();
        await seenEverywhere(false, [ems!.id]);
        await ems!.connect();
        await seenEverywhere(true, [ems!.id]);
        await waitFor(() => ems!.plans() > before[1]!);
        await quiet();
        expect(plans()).toEqual([before[0], before[1]! + 1, before[2]]);
      }
      expect(await allApplied()).toBe(true);
    });

    it('a gateway announcing itself online again while online: one set_tou_plan', async () => {
      const [, , ems] = emses;
      for (let n = 0; n < 3; n++) {
        const before = plans();
        await ems!.announce();
        await waitFor(() => ems!.plans() > before[2]!);
        await quiet();
        expect(plans()).toEqual([before[0], before[1], before[2]! + 1]);
      }
      expect(await allApplied()).toBe(true);
    });

    it('B restarting while A runs: no send (nothing changed for the gateways)', async () => {
      const before = plans();
      await b!.close();
      b = await startB();
      await seenEverywhere(true);
      await quiet();
      expect(plans()).toEqual(before);
    });

    it('both restarting after a gateway reconnected while none ran: one send to it, none to the others', async () => {
      const [ems] = emses;
      await b!.close();
      await a!.close();
      b = null;
      a = null;
      // Dropped and back while no instance runs: the broker keeps its new birth (retained), and the
      // death and birth for each instance's session, handed over when that instance is back.
      await ems!.disconnect();
      await ems!.connect();
      const before = plans();
      // A first: it sends. B, started once that is applied, handles the same death and birth late.
      a = await startA();
      await waitFor(async () => ems!.plans() > before[0]! && (await allApplied()));
      b = await startB();
      await seenEverywhere(true);
      await quiet();
      expect(plans()).toEqual([before[0]! + 1, before[1], before[2]]);
      expect(await allApplied()).toBe(true);
    });
  },
);
