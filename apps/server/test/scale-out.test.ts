/**
 * Scale-out proven (issue 18 item 4; runs only when TEST_DATABASE_URL and TEST_MQTT_URL are set):
 * two whole server instances, A and B, each a process of its own (support/server-instance.ts with
 * ESS_TEST_LISTEN=on: the app from the environment, listening on its own HTTP port, its scheduler
 * running), on one fresh PostgreSQL database and the machine's Mosquitto, in an MQTT 5 share group
 * of this test's own. Everything is observed as a client would: HTTP calls and `/ws` sockets to
 * each instance, a fake EMS and a load gateway on the broker, and the database's rows.
 *
 *  1. a session made on A (login + getUserInfo over HTTP) is valid on B, and a login ticket
 *     issued by A is taken by B;
 *  2. a gateway's telemetry (QoS 1) is received by one instance each message (share group) and
 *     stored once, and the live update reaches `/ws` sockets on both instances — whichever
 *     instance stored it (the other hears of it through PostgreSQL NOTIFY: devices/live-relay.ts);
 *  3. a ToU push (at the birth after the assignment, and one asked through B), a parameter change
 *     (params/set through B) and an OTA command (an upgrade batch created through A on a published
 *     package) each reach the gateway's `cmd` topic once;
 *  4. a one-second scheduled task created through A's `job/save` (kind `alarm-mail`, cron
 *     `* * * * * *`) has one `job_run` row per fire time, none missing, claimed by both instances;
 *  5. B killed (SIGKILL) while a gateway publishes QoS 1 telemetry at 20 msg/s: A goes on storing
 *     its share, and every fire time after the kill is run by A, with no gap longer than the
 *     lease (ESS_TEST_JOB_LEASE_MS: a run B held when it died blocks the task until its lease runs
 *     out, then A takes it over). What B's broker session held — messages in flight to B when it
 *     died, and, as Mosquitto 2.0 goes on choosing a member that is away, its share of the new
 *     ones — is stored once B is back with its client id (docs/operations.md "What survives
 *     what"): then every message the broker acknowledged to the gateway is stored exactly once.
 *
 * "Once" for commands needs a window after the expected send in which no second one arrives: the
 * commands of 3. are counted again at the end of the file, many seconds and both instances'
 * upgrade sweeps (every 5 s) later.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyParamChanges,
  type CommandPayload,
  defaultParams,
  endpoints,
  LIVE_PATH,
  paramChangeResult,
  setParamsError,
  setParamsParams,
} from '@ess/contract';
import { and, asc, eq, gte, lt, lte } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { jobRun, telemetry } from '../src/core/db/schema';
import { digest, type Envelope } from './support/client';
import { FakeEms } from './support/fake-ems';
import { InstanceProcess } from './support/instance-process';
import { createPublishedPackage } from './support/ota-fleet';
import { DrillGateway } from './support/outage-services';
import { createTestApp, TEST_SCRYPT_LOG_N, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';
import { waitFor as waitUntil } from './support/wait';

const databaseUrl = process.env.TEST_DATABASE_URL;
const brokerUrl = process.env.TEST_MQTT_URL;

const waitFor = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000) =>
  waitUntil(probe, ms);

/** Lease of a claimed run in both instances (ms): how long a run held by a dead instance blocks its task. */
const LEASE_MS = 3_000;
/** The test's scheduled task fires every second (cron `* * * * * *`, the shortest period). */
const FIRE_EVERY_MS = 1_000;

/** One POST as the console makes it, over HTTP to `base`; answers the envelope. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and checked by the tests
async function http<T = any>(base: string, p: string, body: object, token?: string): Promise<Envelope<T>> {
  const response = await fetch(`${base}${p}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'accept-language': 'en-US,en;q=0.9',
      ...(token ? { 'x-token': token } : {}),
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status} on ${p}: ${await response.text()}`);
  return (await response.json()) as Envelope<T>;
}

// biome-ignore lint/suspicious/noExplicitAny: live messages are checked field by field
type LiveMessage = { type: string; [key: string]: any };

/** A `/ws` socket signed in with `token` (as the console does: auth first, then subscribe). */
async function liveSocket(base: string, token: string, channels: string[]) {
  const socket = new WebSocket(`${base.replace('http', 'ws')}${LIVE_PATH}`);
  const messages: LiveMessage[] = [];
  socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const seen = (type: string, predicate: (m: LiveMessage) => boolean = () => true) =>
    waitFor(() => messages.find((m) => m.type === type && predicate(m)), 10_000);
  socket.send(JSON.stringify({ type: 'auth', token }));
  await seen('ready');
  socket.send(JSON.stringify({ type: 'subscribe', channels }));
  return { socket, messages, seen };
}

describe.skipIf(!databaseUrl || !brokerUrl)(
  'scale-out: two server processes on one PostgreSQL and one broker',
  { timeout: 60_000 },
  () => {
    const tag = randomBytes(4).toString('hex').toUpperCase();
    const shareGroup = `ess-test-so-${tag}`;
    const clientIds = { A: `ess-test-so-a-${tag}`, B: `ess-test-so-b-${tag}` };
    const dataDirs: string[] = [];
    /** Every instance process spawned (closed in afterAll, newest first). */
    const processes: InstanceProcess[] = [];
    let ctx: TestContext;
    let a: InstanceProcess;
    let b: InstanceProcess;
    let token: string;
    let ems: FakeEms;
    let emsId: number;
    let siteId: number;
    let pcs: { id: number; sn: string };
    let acId: number;
    /** The one-second task created through A's `job/save` (its runs are `job:<id>` in `job_run`). */
    let taskId: number;
    let load: { gateway: DrillGateway; pcsId: number } | null = null;
    const sockets: WebSocket[] = [];

    /** An instance process with the test's environment (not started). */
    const instance = (name: 'A' | 'B', instanceId: string = name) => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), `ess-scale-${name.toLowerCase()}-`));
      dataDirs.push(dataDir);
      const spawned = new InstanceProcess(name, {
        NODE_ENV: 'test',
        LOG_LEVEL: process.env.ESS_DEBUG_SO ? 'debug' : 'warn',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: ctx.config.databaseUrl!,
        MQTT_URL: brokerUrl!,
        MQTT_CLIENT_ID: clientIds[name],
        // Long enough for B's session to outlive its death; ended in afterAll either way.
        MQTT_SESSION_EXPIRY_S: '600',
        SCRYPT_LOG_N: String(TEST_SCRYPT_LOG_N),
        SIMULATOR: 'off',
        ESS_TEST_SHARE_GROUP: shareGroup,
        ESS_TEST_LISTEN: 'on',
        ESS_TEST_INSTANCE_ID: instanceId,
        ESS_TEST_JOB_LEASE_MS: String(LEASE_MS),
      });
      processes.push(spawned);
      return spawned;
    };
    const stats = async () => {
      const [sa, sb] = await Promise.all([a.ask('stats'), b.running ? b.ask('stats') : null]);
      return { a: sa, b: sb };
    };
    const settled = () => Promise.all([a, b].filter((i) => i.running).map((i) => i.ask('settled')));
    /** Commands named `name` the EMS received, and whether any id came twice. */
    const received = (name: CommandPayload['name']) => {
      const list = ems.commands(name);
      return { count: list.length, distinctIds: new Set(list.map((c) => c.id)).size };
    };

    beforeAll(async () => {
      ctx = await createTestApp('postgres');
      a = instance('A');
      b = instance('B');
      await Promise.all([a.start(), b.start()]);
      // Registration through A, as an operator would, before the gateway is on the broker.
      const login = await http(a.url, endpoints.user.login.path, {
        account: 'admin',
        password: digest('admin123'),
        terminalId: `so-${tag}`,
      });
      expect(login.code, login.msg).toBe(0);
      const info = await http(a.url, endpoints.user.getUserInfo.path, {
        userId: login.data.userId,
        companyId: login.data.companyList[0].id,
        terminalId: `so-${tag}`,
        loginTicket: login.data.loginTicket,
      });
      expect(info.code, info.msg).toBe(0);
      token = info.data.token;
      const api = (p: string, body: object) => http(a.url, p, body, token);
      const site = await api(endpoints.site.save.path, { code: `SO-${tag}`, name: `Scale-out ${tag}` });
      expect(site.code, site.msg).toBe(0);
      siteId = site.data.id;
      const saved = await api(endpoints.device.save.path, { siteId, sn: `EMS-SO-${tag}`, type: 'ems' });
      expect(saved.code, saved.msg).toBe(0);
      emsId = saved.data.id;
      const pcsSaved = await api(endpoints.device.save.path, {
        siteId,
        sn: `PCS-SO-${tag}`,
        type: 'pcs',
        gatewayId: emsId,
        ratedPowerKw: 100,
      });
      expect(pcsSaved.code, pcsSaved.msg).toBe(0);
      pcs = { id: pcsSaved.data.id, sn: `PCS-SO-${tag}` };
      const ac = await api(endpoints.device.save.path, {
        siteId,
        sn: `AC-SO-${tag}`,
        type: 'air_conditioner',
        model: 'Envicool EC-5',
        gatewayId: emsId,
      });
      expect(ac.code, ac.msg).toBe(0);
      acId = ac.data.id;
      const scheme = await api(endpoints.tou.save.path, {
        name: `Scale-out ${tag}`,
        document: validScheme(),
      });
      expect(scheme.code, scheme.msg).toBe(0);
      const assigned = await api(endpoints.tou.assign.path, { id: scheme.data.id, siteIds: [siteId] });
      expect(assigned.code, assigned.msg).toBe(0);
      // A one-second task, as an operator creates it (misfire skip: no catch-up run at start).
      const task = await api(endpoints.job.save.path, {
        name: `Scale-out ${tag}`,
        group: 'SCALE_OUT',
        kind: 'alarm-mail',
        cron: '* * * * * *',
        timezone: 'UTC',
        misfire: 'skip',
        timeoutS: 60,
      });
      expect(task.code, task.msg).toBe(0);
      taskId = task.data.id;

      // The EMS: answers ToU plans ok (fake-ems default), parameter changes as the protocol says a
      // device does, and accepts an OTA command.
      ems = new FakeEms(() => brokerUrl!, saved.data.secret.sn, saved.data.secret.secret);
      let acValues = defaultParams('air_conditioner');
      ems.on('set_params', (command) => {
        const p = setParamsParams.parse(command.params);
        const applied = applyParamChanges('air_conditioner', acValues, p.values);
        acValues = applied.values;
        const results = Object.fromEntries(
          Object.entries(applied.results).map(([k, o]) => [k, paramChangeResult('air_conditioner', o)]),
        );
        const error = setParamsError(results);
        return {
          ok: error === undefined,
          ...(error ? { error } : {}),
          result: { deviceSn: p.deviceSn, version: p.version, results },
        };
      });
      ems.on('ota_upgrade', () => ({ ok: true }));
      await ems.connect();
      await waitFor(async () => (await a.ask<number[]>('online', [emsId])).length === 1);
      await waitFor(async () => (await b.ask<number[]>('online', [emsId])).length === 1);
    }, 90_000);

    afterAll(async () => {
      if (process.env.ESS_DEBUG_SO)
        for (const i of processes) console.log(i.name, i.log.map((l) => `${l.level} ${l.msg}`).join('\n'));
      for (const s of sockets) s.close();
      await load?.gateway.close();
      await ems?.disconnect(true);
      for (const p of [...processes].reverse()) await p.close();
      // End the persistent broker sessions (instances', the load gateway's) on the shared broker.
      const sessions = [clientIds.A, clientIds.B, ...(load ? [load.gateway.sn] : [])];
      for (const clientId of sessions) {
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

    it('a session made on A works on B; a login ticket from A is taken by B', async () => {
      const onB = await http(b.url, endpoints.site.pageList.path, { pageNum: 1, pageSize: 10 }, token);
      expect(onB.code, onB.msg).toBe(0);
      expect(onB.data.list.map((s: { id: number }) => s.id)).toContain(siteId);
      const login = await http(a.url, endpoints.user.login.path, {
        account: 'admin',
        password: digest('admin123'),
        terminalId: `so2-${tag}`,
      });
      const info = await http(b.url, endpoints.user.getUserInfo.path, {
        userId: login.data.userId,
        companyId: login.data.companyList[0].id,
        terminalId: `so2-${tag}`,
        loginTicket: login.data.loginTicket,
      });
      expect(info.code, info.msg).toBe(0);
      const onA = await http(
        a.url,
        endpoints.site.pageList.path,
        { pageNum: 1, pageSize: 10 },
        info.data.token,
      );
      expect(onA.code, onA.msg).toBe(0);
    });

    it("a gateway's data is stored once and its live updates reach sockets on both instances", async () => {
      const live = await Promise.all(
        [a, b].map((i) => liveSocket(i.url, token, ['fleet', `device:${pcs.id}`])),
      );
      sockets.push(...live.map((l) => l.socket));
      const before = await stats();
      const base = Date.now() - 60_000;
      const values = [41, 42, 43, 44];
      for (const [n, p_kw] of values.entries()) {
        await ems.publish('telemetry', {
          id: `so-${n}`,
          ts: base + n,
          devices: [{ sn: pcs.sn, type: 'pcs', points: { p_kw } }],
        });
        // Each update reaches both sockets (a device channel sends at most one update a second).
        for (const l of live) await l.seen('device', (m) => m.deviceId === pcs.id && m.points.p_kw === p_kw);
      }
      for (const l of live) await l.seen('fleet', (m) => m.overview?.dischargingPowerKw === 44);
      const after = await stats();
      const byA = after.a.messages - before.a.messages;
      const byB = after.b!.messages - before.b!.messages;
      // One instance took each message (share group), and each instance took some.
      expect(byA + byB).toBe(values.length);
      console.info(`scale-out live: messages received by A ${byA}, by B ${byB}`);
      const rows = await ctx.database.db
        .select({ ts: telemetry.ts, points: telemetry.points })
        .from(telemetry)
        .where(and(eq(telemetry.deviceId, pcs.id), gte(telemetry.ts, new Date(base))))
        .orderBy(asc(telemetry.ts));
      expect(rows.map((r) => r.points.p_kw)).toEqual(values);
    });

    it('a ToU push, a parameter change and an OTA command each reach the gateway once', async () => {
      // The scheme assigned before the EMS came online went out once, at its birth.
      await waitFor(() => ems.plans().length >= 1);
      await settled();
      expect(received('set_tou_plan')).toEqual({ count: 1, distinctIds: 1 });
      // A push asked through B.
      const pushed = await http(b.url, endpoints.tou.push.path, { siteId }, token);
      expect(pushed.code, pushed.msg).toBe(0);
      expect(pushed.data.state).toBe('applied');
      // A parameter change asked through B.
      const set = await http(
        b.url,
        endpoints.params.set.path,
        { deviceId: acId, values: { cooling_start_c: 31 } },
        token,
      );
      expect(set.code, set.msg).toBe(0);
      await waitFor(async () => {
        const detail = await http(a.url, endpoints.params.detail.path, { deviceId: acId }, token);
        return (
          detail.data.params.find((p: { key: string }) => p.key === 'cooling_start_c')?.state === 'applied'
        );
      });
      // An upgrade batch through A.
      const packageId = await createPublishedPackage(ctx.database.db, {
        deviceType: 'ems',
        version: `9.${tag.length}.0`,
      });
      const created = await http(
        a.url,
        endpoints.upgrade.create.path,
        { packageId, deviceIds: [emsId], firstWaveSize: 1, deadlineAt: Date.now() + 3_600_000 },
        token,
      );
      expect(created.code, created.msg).toBe(0);
      await waitFor(() => ems.commands('ota_upgrade').length >= 1);
      await settled();
      expect(received('set_tou_plan')).toEqual({ count: 2, distinctIds: 2 });
      expect(received('set_params')).toEqual({ count: 1, distinctIds: 1 });
      expect(received('ota_upgrade')).toEqual({ count: 1, distinctIds: 1 });
    });

    it('a one-second task runs once per fire time, on both instances', async () => {
      // Ten fire times at least, and until each instance has claimed some (whichever inserts its
      // claim first runs a fire; B loads the task within its 5 s table poll).
      const rows = await waitFor(async () => {
        const r = await runs(0, Date.now());
        const by = new Set(r.map((row) => row.claimedBy));
        return r.length >= 10 && by.has('A') && by.has('B') && r;
      }, 40_000);
      const from = rows[0]!.fireAt.getTime();
      const to = rows.at(-1)!.fireAt.getTime();
      expect(gapsOf(rows).filter((g) => g !== FIRE_EVERY_MS)).toEqual([]);
      expect(rows.length).toBe((to - from) / FIRE_EVERY_MS + 1);
      expect(rows.filter((r) => r.state !== 'succeeded' && r.fireAt.getTime() < to)).toEqual([]);
      console.info(
        `scale-out task: ${rows.length} fires, A ran ${rows.filter((r) => r.claimedBy === 'A').length}, B ${rows.filter((r) => r.claimedBy === 'B').length}`,
      );
    });

    it('B killed under device load: no acknowledged message lost, its task runs on A', async () => {
      // B's successor, its modules loaded before the load starts so that its start after the kill
      // is quick; it connects (with B's client id) only when started.
      const again = instance('B', 'B2');
      const [registered] = await Promise.all([registerLoadGateway(), again.loaded]);
      const gateway = new DrillGateway(brokerUrl!, registered.sn, registered.pcsSn, Date.now() - 7_200_000);
      load = { gateway, pcsId: registered.pcsId };
      await gateway.connect();
      gateway.steady(50);
      const before = await stats();
      // Both instances store some of its messages before the kill.
      await waitFor(async () => {
        const s = await stats();
        return (
          s.a.acknowledgedData - before.a.acknowledgedData >= 10 &&
          s.b!.acknowledgedData - before.b!.acknowledgedData >= 10
        );
      });
      const killedAt = Date.now();
      await b.kill();
      const sentAtKill = gateway.sent;
      // A goes on storing its share, and runs every fire time from the end of B's lease on.
      const last = Math.ceil((killedAt + LEASE_MS + 3 * FIRE_EVERY_MS) / FIRE_EVERY_MS) * FIRE_EVERY_MS;
      await waitFor(async () => (await runs(last, last)).length === 1, 30_000);
      await waitFor(() => gateway.sent >= sentAtKill + 100, 30_000);
      gateway.pause();
      await waitFor(() => gateway.settled, 30_000);
      const storedWhileBDown = await storedOf(gateway, registered.pcsId);

      const from = Math.floor(killedAt / FIRE_EVERY_MS) * FIRE_EVERY_MS - 3 * FIRE_EVERY_MS;
      const fires = await runs(from, last);
      const afterKill = fires.filter((r) => r.fireAt.getTime() > killedAt);
      expect(afterKill.length).toBeGreaterThan(0);
      expect(afterKill.filter((r) => r.claimedBy !== 'A')).toEqual([]);
      // The longest pause: a run B held when it died blocks the task until its lease runs out.
      const gaps = gapsOf(fires);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(LEASE_MS + FIRE_EVERY_MS);
      // A run B held unfinished was taken over by A (or finished before the kill).
      expect(fires.filter((r) => r.state === 'running' && r.fireAt.getTime() < last)).toEqual([]);

      // B back with its client id: the broker hands it what its session held.
      b = again;
      await b.start();
      await waitFor(
        async () => (await storedOf(gateway, registered.pcsId)).stored >= gateway.acknowledged,
        30_000,
      ).catch(() => undefined);
      const stored = await storedOf(gateway, registered.pcsId);
      const figures = {
        sent: gateway.sent,
        sentAtKill,
        acknowledged: gateway.acknowledged,
        failed: gateway.failed,
        storedWhileBDown: storedWhileBDown.stored,
        storedByB2: (await b.ask('stats')).acknowledgedData,
        stored: stored.stored,
        duplicates: stored.duplicates,
        missing: stored.missing,
        maxTaskGapMs: Math.max(...gaps),
      };
      console.info(`scale-out kill: ${JSON.stringify(figures)}`);
      expect(figures.acknowledged).toBe(figures.sent);
      expect(figures).toMatchObject({ stored: gateway.acknowledged, duplicates: 0, missing: [] });
    });

    it('the commands of 3. still arrived once each, after both instances swept again', async () => {
      await settled();
      expect(received('set_tou_plan')).toEqual({ count: 2, distinctIds: 2 });
      expect(received('set_params')).toEqual({ count: 1, distinctIds: 1 });
      expect(received('ota_upgrade')).toEqual({ count: 1, distinctIds: 1 });
    });

    /** Runs of the test's one-second task with fire times in [from, to] (ms), in order. */
    async function runs(from: number, to: number) {
      return ctx.database.db
        .select({ fireAt: jobRun.fireAt, claimedBy: jobRun.claimedBy, state: jobRun.state })
        .from(jobRun)
        .where(
          and(
            eq(jobRun.task, `job:${taskId}`),
            gte(jobRun.fireAt, new Date(from)),
            lte(jobRun.fireAt, new Date(to)),
          ),
        )
        .orderBy(asc(jobRun.fireAt));
    }

    /**
     * Rows of the load gateway's messages (message i is at base + i ms), rows stored twice (none
     * can be: the key is device + ts), and the first few messages sent but not stored.
     */
    async function storedOf(gateway: DrillGateway, pcsId: number) {
      const rows = await ctx.database.db
        .select({ ts: telemetry.ts })
        .from(telemetry)
        .where(
          and(
            eq(telemetry.deviceId, pcsId),
            gte(telemetry.ts, new Date(gateway.base)),
            lt(telemetry.ts, new Date(gateway.base + gateway.sent)),
          ),
        );
      const have = new Set(rows.map((r) => r.ts.getTime() - gateway.base));
      const missing = [...Array(gateway.sent).keys()].filter((i) => !have.has(i)).slice(0, 20);
      return { stored: rows.length, duplicates: rows.length - have.size, missing };
    }

    /** Another gateway with a PCS behind it, registered through A, for the load. */
    async function registerLoadGateway() {
      const api = (p: string, body: object) => http(a.url, p, body, token);
      const gw = await api(endpoints.device.save.path, { siteId, sn: `EMS-SO-L-${tag}`, type: 'ems' });
      const pc = await api(endpoints.device.save.path, {
        siteId,
        sn: `PCS-SO-L-${tag}`,
        type: 'pcs',
        gatewayId: gw.data.id,
      });
      expect([gw.code, pc.code]).toEqual([0, 0]);
      return { sn: gw.data.secret.sn as string, pcsSn: `PCS-SO-L-${tag}`, pcsId: pc.data.id as number };
    }
  },
);

/** Differences between consecutive fire times (ms). */
function gapsOf(rows: { fireAt: Date }[]): number[] {
  return rows.slice(1).map((r, i) => r.fireAt.getTime() - rows[i]!.fireAt.getTime());
}
