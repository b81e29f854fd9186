/**
 * The desired-state delivery service (devices/delivery.ts) itself, with a kind of its own (a
 * parameter document kept in memory, sent as `set_params`) and a fake gateway that counts what it
 * receives. Two delivery service instances share one database and one broker, as two server
 * instances do: with TEST_MQTT_URL each has its own device service on that broker (MQTT 5 shared
 * subscriptions: a reply reaches either instance, whichever sent the command), otherwise both
 * use one embedded broker. Observed: exactly one send per version however both react, applied;
 * a stale reply (an older attempt) changes nothing; no reply → failed 'timeout', published; every
 * reconnect resends once; a lease left by a dead instance is swept and sent again. And through
 * the live hub: ToU delivery changes reach a console of the site's company, not one of another.
 * Reply timeouts are injected (short), and every wait is for an event, never a fixed sleep.
 */
import { randomBytes } from 'node:crypto';
import { type CommandPayload, type DeliveryKindName, deviceTopic, ErrorCode, endpoints } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { deviceDelivery } from '../src/core/db/schema';
import {
  type DeliveryChange,
  type DeliveryKind,
  DeliveryService,
  type DeliveryTarget,
  targetKey,
} from '../src/devices/delivery';
import { DeviceService } from '../src/devices/device-service';
import { TouPushService } from '../src/devices/tou-push';
import { call, signIn } from './support/client';
import { addStaff } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';
import { waitFor as waitUntil } from './support/wait';

const brokerUrl = process.env.TEST_MQTT_URL;
/**
 * Reply timeout: short enough that "no reply" is quick to observe, long enough that a loaded CI
 * machine's round trip through the broker never reaches it in the tests that expect 'applied'.
 */
const COMMAND_TIMEOUT_MS = 5000;
const waitFor = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000) =>
  waitUntil(probe, ms);

type Answer = { ok: true } | { ok: false; error: string };

/** A gateway that answers `set_params` ('accept', 'silent', or 'hold' until `release`). */
class FakeGateway {
  mode: 'accept' | 'silent' | 'hold' = 'accept';
  readonly received: CommandPayload[] = [];
  readonly held: CommandPayload[] = [];
  private client: MqttClient | null = null;

  constructor(
    private readonly url: () => string,
    readonly sn: string,
    private readonly secret: string,
  ) {}

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(this.url(), {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 0,
      clean: true,
    });
    this.client = client;
    await client.subscribeAsync(deviceTopic(this.sn, 'cmd'), { qos: 1 });
    client.on('message', (_topic, payload) => {
      const command = JSON.parse(payload.toString()) as CommandPayload;
      // Other commands (set_tou_plan, time_sync) are simply accepted.
      if (command.name !== 'set_params') return this.answer(command, { ok: true });
      this.received.push(command);
      if (this.mode === 'accept') this.answer(command, { ok: true });
      else if (this.mode === 'hold') this.held.push(command);
    });
    await this.status({ online: true });
  }

  answer(command: CommandPayload, answer: Answer): void {
    this.client!.publish(
      deviceTopic(this.sn, 'reply'),
      JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ...answer }),
      { qos: 1 },
    );
  }

  /** Versions of the `set_params` received, in order. */
  versions(): number[] {
    return this.received.map((c) => c.params.version as number);
  }

  async disconnect(clearRetained = false): Promise<void> {
    if (!this.client) return;
    await this.status({ online: false, reason: 'clean' });
    if (clearRetained)
      await this.client.publishAsync(deviceTopic(this.sn, 'status'), '', { qos: 1, retain: true });
    await this.client.endAsync();
    this.client = null;
  }

  private status(body: object) {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), ...body }),
      { qos: 1, retain: true },
    );
  }
}

describe.each(engines)('desired-state delivery service on %s', (engine) => {
  const tag = `${engine === 'postgres' ? 'P' : 'G'}${randomBytes(4).toString('hex')}`.toUpperCase();
  let ctx: TestContext;
  let token: string;
  let target: DeliveryTarget;
  let gateway: FakeGateway;
  let gatewayId: number;
  const transports: DeviceService[] = [];
  const instances: DeliveryService[] = [];
  /** Every change each instance published (`by`: the instance). */
  const changes: Array<DeliveryChange & { by: number }> = [];
  /** Ids of replies that reached an instance with no command waiting for them. */
  const unmatched: string[] = [];
  /** The desired document per target key: what the kind reads. */
  const documents = new Map<string, { version: number; value: number }>();

  const kind: DeliveryKind = {
    name: 'test' as DeliveryKindName,
    command: 'set_params',
    nothingToSend: ErrorCode.PARAM_ERROR,
    async readDesired(_tx, t) {
      const doc = documents.get(targetKey(t));
      if (!doc) return null;
      return {
        version: doc.version,
        desired: { doc: 'params' },
        params: { version: doc.version, value: doc.value },
      };
    },
  };

  const row = async () =>
    (
      await ctx.database.db
        .select()
        .from(deviceDelivery)
        .where(and(eq(deviceDelivery.kind, 'test'), eq(deviceDelivery.target, targetKey(target))))
    )[0];
  const settled = () => Promise.all(instances.map((i) => i.settled()));
  /** Saves a new version of the document; both instances learn of it (as after a save). */
  const save = (value: number) => {
    const version = (documents.get(targetKey(target))?.version ?? 0) + 1;
    documents.set(targetKey(target), { version, value });
    for (const i of instances) i.changed([target]);
    return version;
  };
  const onlineEverywhere = (online: boolean) =>
    waitFor(() => transports.every((t) => t.tracker.isOnline(gatewayId) === online));

  beforeAll(async () => {
    ctx = await createTestApp(engine);
    token = (await signIn(ctx.app)).token;
    const api = (path: string, body: object) => call(ctx.app, path, body, { token });
    const site = await api(endpoints.site.save.path, { code: `DS-${tag}`, name: `Delivery ${tag}` });
    const ems = await api(endpoints.device.save.path, {
      siteId: site.data.id,
      sn: `EMS-DS-${tag}`,
      type: 'ems',
    });
    expect(ems.code, ems.msg).toBe(0);
    gatewayId = ems.data.id;
    target = { siteId: site.data.id, deviceId: null };

    const options = { mqttPort: 0, mqttHost: '127.0.0.1', commandTimeoutMs: COMMAND_TIMEOUT_MS };
    if (brokerUrl) {
      // Two server instances on one broker: one share group, as in production.
      for (let n = 0; n < 2; n++) {
        const t = new DeviceService(ctx.database.db, ctx.app.log, {
          ...options,
          mqttUrl: brokerUrl,
          mqttShareGroup: `ess-test-ds-${tag}`,
        });
        await t.start();
        transports.push(t);
      }
    } else {
      const t = new DeviceService(ctx.database.db, ctx.app.log, options);
      await t.start();
      transports.push(t, t);
    }
    for (const [n, t] of transports.entries()) {
      const instance = new DeliveryService(ctx.database.db, ctx.app.log, kind, {
        instanceId: `instance-${n}`,
        pollEveryMs: 50,
        sweepEveryMs: 3_600_000,
      });
      instance.onChange((c) => changes.push({ ...c, by: n }));
      instance.start(t);
      instances.push(instance);
    }
    for (const t of new Set(transports)) t.commands.onUnmatchedReply((reply) => unmatched.push(reply.id));
    const url = brokerUrl ?? `mqtt://127.0.0.1:${transports[0]!.brokerAddress.port}`;
    gateway = new FakeGateway(() => url, ems.data.secret.sn, ems.data.secret.secret);
    await gateway.connect();
    await onlineEverywhere(true);
  });
  afterAll(async () => {
    await gateway?.disconnect(true);
    for (const i of instances) i.stop();
    await settled();
    for (const t of new Set(transports)) await t.close();
    await ctx?.close();
  });

  beforeEach(() => {
    // A test that failed half-way leaves the gateway answering as it was told there.
    if (gateway) gateway.mode = 'accept';
  });

  it('two instances: exactly one send per version, applied, whichever instance gets the reply', async () => {
    for (let n = 1; n <= 6; n++) {
      const version = save(n * 10);
      const applied = await waitFor(async () => {
        const r = await row();
        return r?.state === 'applied' && r.appliedVersion === version && r;
      });
      await settled();
      expect(gateway.versions().filter((v) => v === version)).toHaveLength(1);
      expect(applied).toMatchObject({ version, attempt: n, claimedBy: null, leaseUntil: null, reason: null });
      expect(gateway.received.at(-1)!.params).toEqual({ version, value: n * 10 });
    }
    expect(gateway.versions()).toEqual([1, 2, 3, 4, 5, 6]);
    // The outcome was published (by the instance that settled it, and by the sender if that was
    // another one, for its own consoles), with the site's company.
    const applied = changes.filter((c) => c.message.version === 6 && c.message.state === 'applied');
    expect(applied.length).toBeGreaterThanOrEqual(1);
    expect(new Set(applied.map((c) => c.by)).size).toBe(applied.length);
    expect(changes.every((c) => c.companyId > 0 && c.message.siteId === target.siteId)).toBe(true);
  });

  it('a reply to an older attempt changes nothing; the current attempt’s reply settles', async () => {
    gateway.mode = 'hold';
    const version = save(70);
    const first = await waitFor(() => gateway.held.shift());
    gateway.answer(first, { ok: true });
    await waitFor(async () => (await row())?.state === 'applied');
    // The operator pushes again: attempt n+1 is out; then the first command's reply comes again.
    const pushed = instances[1]!.sendNow(target);
    pushed.catch(() => undefined); // awaited below; not unhandled if an expectation fails first
    const second = await waitFor(() => gateway.held.shift());
    expect(second.id).not.toBe(first.id);
    const attempt = (await row())!.attempt;
    const before = changes.length;
    gateway.answer(first, { ok: false, error: 'stale' });
    // No command waits for it any more: it reaches an instance as an unmatched reply. (Not
    // `settled()` here: a follow-up of that reply may wait in the queue behind the held push.)
    await waitFor(() => unmatched.includes(first.id));
    // A re-send of the applied version: the row stays applied while it is out.
    expect(await row()).toMatchObject({
      state: 'applied',
      attempt,
      commandId: second.id,
      claimedBy: 'instance-1',
      reason: null,
    });
    gateway.answer(second, { ok: true });
    expect(await pushed).toMatchObject({ state: 'applied', attempt, appliedVersion: version, reason: null });
    await settled();
    // The stale refusal was never recorded or published, before or after the current reply.
    expect(await row()).toMatchObject({ state: 'applied', attempt, reason: null });
    expect(changes.slice(before).map((c) => c.message.state)).not.toContain('failed');
    expect(gateway.versions().filter((v) => v === version)).toHaveLength(2);
    gateway.mode = 'accept';
  });

  it("no reply: failed with 'timeout' after the reply timeout, and published so", async () => {
    gateway.mode = 'silent';
    const version = save(80);
    const failed = await waitFor(async () => {
      const r = await row();
      return r?.state === 'failed' && r.version === version && r;
    }, COMMAND_TIMEOUT_MS + 15_000);
    expect(Date.now() - failed.sentAt!.getTime()).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 50);
    // The device still runs the version it confirmed before.
    expect(failed).toMatchObject({
      reason: 'timeout',
      claimedBy: null,
      leaseUntil: null,
      appliedVersion: version - 1,
    });
    // Published once the row is written (the change carries the site's company, read after it).
    await waitFor(() => changes.some((c) => c.message.state === 'failed' && c.message.version === version));
    expect(changes.at(-1)!.message).toMatchObject({ state: 'failed', reason: 'timeout', version });
    await settled();
    // A failed row is not retried in a loop: the next reconnect, save or push sends it again.
    expect(gateway.versions().filter((v) => v === version)).toHaveLength(1);
    gateway.mode = 'accept';
  });

  it('every reconnect sends once across both instances, applied or not', async () => {
    for (let n = 0; n < 3; n++) {
      const count = gateway.received.length;
      await gateway.disconnect();
      await onlineEverywhere(false);
      await gateway.connect();
      await onlineEverywhere(true);
      await waitFor(async () => (await row())?.state === 'applied' && gateway.received.length > count);
      await settled();
      expect(gateway.received.length).toBe(count + 1);
    }
  });

  it('a lease left by a dead instance is freed by the sweep and the target sent again', async () => {
    const version = documents.get(targetKey(target))!.version;
    const count = gateway.received.length;
    await ctx.database.db
      .update(deviceDelivery)
      .set({
        state: 'sent',
        commandId: `c-dead-${tag}`,
        claimedBy: 'dead-instance',
        leaseUntil: new Date(Date.now() - 1000),
      })
      .where(and(eq(deviceDelivery.kind, 'test'), eq(deviceDelivery.target, targetKey(target))));
    await instances[0]!.sweep();
    await waitFor(async () => (await row())?.state === 'applied');
    await settled();
    expect(gateway.received.length).toBe(count + 1);
    expect(await row()).toMatchObject({ appliedVersion: version, claimedBy: null });
  });

  it('a held lease of a live instance is left alone: nothing is sent until it is freed', async () => {
    const count = gateway.received.length;
    await ctx.database.db
      .update(deviceDelivery)
      .set({ state: 'pending', claimedBy: 'other-instance', leaseUntil: new Date(Date.now() + 3_600_000) })
      .where(and(eq(deviceDelivery.kind, 'test'), eq(deviceDelivery.target, targetKey(target))));
    for (const i of instances) i.request([target]);
    await instances[0]!.sweep();
    await settled();
    expect(gateway.received.length).toBe(count);
    expect(await row()).toMatchObject({ state: 'pending', claimedBy: 'other-instance' });
    await ctx.database.db
      .update(deviceDelivery)
      .set({ claimedBy: null, leaseUntil: null })
      .where(and(eq(deviceDelivery.kind, 'test'), eq(deviceDelivery.target, targetKey(target))));
    instances[1]!.request([target]);
    await waitFor(async () => (await row())?.state === 'applied');
    expect(gateway.received.length).toBe(count + 1);
  });

  it('ToU delivery changes reach a console of the site’s company over /ws, not one of another company', async () => {
    const base = (await ctx.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    const open = async (sessionToken: string) => {
      const socket = new WebSocket(`${base}/ws`, { origin: base.replace('ws', 'http') });
      const messages: Array<{ type: string; [k: string]: unknown }> = [];
      socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'auth', token: sessionToken }));
      await waitFor(() => messages.some((m) => m.type === 'ready'));
      socket.send(JSON.stringify({ type: 'subscribe', channels: ['delivery:tou'] }));
      return { socket, messages };
    };
    const stranger = await addStaff(ctx.database.db);
    const own = await open(token);
    const other = await open((await signIn(ctx.app, stranger.account, stranger.password)).token);
    // The app's ToU delivery runs on the first transport; with two instances on a broker the
    // reply may reach the second, whose own ToU delivery settles it.
    ctx.app.touPush.start(transports[0]!);
    const second = transports[1] !== transports[0] ? new TouPushService(ctx.database.db, ctx.app.log) : null;
    second?.start(transports[1]!);
    const scheme = await call(
      ctx.app,
      endpoints.tou.save.path,
      { name: `live-${tag}`, document: validScheme() },
      { token },
    );
    expect(scheme.code, scheme.msg).toBe(0);
    const assigned = await call(
      ctx.app,
      endpoints.tou.assign.path,
      { id: scheme.data.id, siteIds: [target.siteId] },
      { token },
    );
    expect(assigned.code, assigned.msg).toBe(0);
    const states = await waitFor(() => {
      const seen = own.messages.filter((m) => m.type === 'delivery' && m.siteId === target.siteId);
      return seen.some((m) => m.state === 'applied') && seen.map((m) => m.state);
    }, 15_000);
    expect(states).toContain('sent');
    expect(own.messages.find((m) => m.type === 'delivery' && m.state === 'applied')).toMatchObject({
      kind: 'tou',
      siteId: target.siteId,
      deviceId: null,
      desired: { schemeId: scheme.data.id },
      version: 1,
      appliedVersion: 1,
      sending: false,
      reason: null,
    });
    await ctx.app.touPush.settled();
    await second?.settled();
    expect(other.messages.filter((m) => m.type === 'delivery')).toEqual([]);
    ctx.app.touPush.stop();
    second?.stop();
    own.socket.close();
    other.socket.close();
  });
});
