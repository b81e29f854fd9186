/**
 * Issue 14 item 3, the operator's sequence: a site's EMS applied its ToU scheme; then a client
 * that does not answer connects as the gateway (`mosquitto_pub` publishing a birth, as the
 * README's "Connect a device" shows). The reconnect re-sends the applied version and nobody
 * answers: the row must still say applied (the version and time the EMS confirmed) with "re-sent,
 * no answer" beside it, and the send is retried later (1, 5, 15, 60 min after the request, only
 * while the gateway is online). A new version nobody answers is failed, and the row says which
 * version the EMS still runs. Observed through `tou/pushStatus` and `tou/push` (what the console
 * shows), the commands the clients receive and the live changes; on PGlite and PostgreSQL, on the
 * embedded broker or TEST_MQTT_URL. The delivery's clock is injected (moved forward to a retry's
 * time) and each retry is checked by running the sweep; nothing waits for wall-clock minutes.
 */
import { randomBytes } from 'node:crypto';
import { type CommandPayload, endpoints, errorMessage, type TouPushRow } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceConnectionLog, deviceDelivery } from '../src/core/db/schema';
import { DEFAULT_RETRY_AFTER_MS, type DeliveryChange, nextRetryAt } from '../src/devices/delivery';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { announceOnly, clearStatus, FakeEms } from './support/fake-ems';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';
import { waitFor } from './support/wait';

const externalBroker = process.env.TEST_MQTT_URL;
/** Short reply timeout, so that "no answer" is quick to observe. */
const COMMAND_TIMEOUT_MS = 1500;
const MINUTE = 60_000;

describe('the retry schedule of an unanswered send', () => {
  const at = (ms: number) => new Date(ms);
  const asked = Date.UTC(2026, 0, 5, 8, 0, 0);
  const row = (sentAt: number, over: Partial<Parameters<typeof nextRetryAt>[0]> = {}) => ({
    state: 'applied',
    reason: 'timeout',
    claimedBy: null,
    sentAt: at(sentAt),
    requestedAt: at(asked - 3_600_000),
    resendAfter: at(asked),
    ...over,
  });

  it('retries 1, 5, 15 and 60 min after the request it answered, then no more', () => {
    expect(DEFAULT_RETRY_AFTER_MS).toEqual([MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE]);
    // The send at the request, then each retry a little after its time (the sweep's lag).
    const sends = [asked + 100, asked + MINUTE + 900, asked + 5 * MINUTE + 200, asked + 15 * MINUTE + 50];
    expect(sends.map((s) => nextRetryAt(row(s)))).toEqual([
      asked + MINUTE,
      asked + 5 * MINUTE,
      asked + 15 * MINUTE,
      asked + 60 * MINUTE,
    ]);
    expect(nextRetryAt(row(asked + 60 * MINUTE + 10))).toBeNull();
    // A later save (requested_at) is the request a failed send answered.
    expect(
      nextRetryAt(row(asked + 2 * MINUTE, { state: 'failed', requestedAt: at(asked + 2 * MINUTE - 5) })),
    ).toBe(asked + 3 * MINUTE - 5);
  });

  it('no retry for an answered, refused or still outstanding send', () => {
    expect(nextRetryAt(row(asked, { reason: null }))).toBeNull();
    expect(nextRetryAt(row(asked, { state: 'failed', reason: 'refused' }))).toBeNull();
    expect(nextRetryAt(row(asked, { claimedBy: 'instance' }))).toBeNull();
    expect(nextRetryAt(row(asked, { state: 'pending' }))).toBeNull();
  });
});

describe.each(engines)('a re-send nobody answers leaves the ToU scheme applied, on %s', (engine) => {
  const tag = `${engine === 'postgres' ? 'P' : 'G'}${randomBytes(3).toString('hex')}`.toUpperCase();
  let ctx: TestContext;
  let devices: DeviceService;
  let token: string;
  /** Added to the wall clock by the delivery's clock: moves it to a retry's time. */
  let clockOffsetMs = 0;
  const changes: DeliveryChange[] = [];
  const emses: FakeEms[] = [];
  const quiet: Array<{ end(): Promise<void> }> = [];
  const gateways: Array<{ sn: string; secret: string }> = [];
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);

  const brokerUrl = () => externalBroker ?? `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
  const api = (path: string, body: object, lang?: 'zh' | 'en') =>
    call(ctx.app, path, body, { token, ...(lang ? { lang } : {}) });
  const touPush = () => ctx.app.touPush;
  const status = async (schemeId: number, siteId: number): Promise<TouPushRow> => {
    const answer = await api(endpoints.tou.pushStatus.path, { id: schemeId });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.list.find((r: TouPushRow) => r.siteId === siteId);
  };
  const attempts = async (siteId: number) =>
    (
      await ctx.database.db
        .select({ attempt: deviceDelivery.attempt })
        .from(deviceDelivery)
        .where(and(eq(deviceDelivery.kind, 'tou'), eq(deviceDelivery.siteId, siteId)))
    )[0]!.attempt;
  const online = (gatewayId: number) => devices.tracker.isOnline(gatewayId);
  const plans = (received: CommandPayload[]) => received.filter((c) => c.name === 'set_tou_plan');

  /** A site with an EMS that applied a scheme of its own (version 1), and that scheme. */
  const appliedSite = async (name: string) => {
    const code = `NA${tag}${name}`;
    const site = await api(endpoints.site.save.path, {
      code,
      name: `No answer ${name}`,
      timezone: 'Asia/Shanghai',
    });
    expect(site.code, site.msg).toBe(0);
    const saved = await api(endpoints.device.save.path, {
      siteId: site.data.id,
      sn: `EMS-${code}`,
      type: 'ems',
    });
    expect(saved.code, saved.msg).toBe(0);
    const { sn, secret } = saved.data.secret as { sn: string; secret: string };
    const ems = new FakeEms(brokerUrl, sn, secret);
    emses.push(ems);
    gateways.push({ sn, secret });
    const scheme = await api(endpoints.tou.save.path, {
      name: `No answer ${tag} ${name}`,
      document: validScheme(),
    });
    expect(scheme.code, scheme.msg).toBe(0);
    const siteId = site.data.id as number;
    const schemeId = scheme.data.id as number;
    await ems.connect();
    await waitFor(() => online(saved.data.id));
    expect((await api(endpoints.tou.assign.path, { id: schemeId, siteIds: [siteId] })).code).toBe(0);
    const applied = await waitFor(async () => {
      const row = await status(schemeId, siteId);
      return row.state === 'applied' && row;
    }, 10_000);
    expect(applied).toMatchObject({ appliedVersion: 1, schemeVersion: 1, reason: null, sending: false });
    await touPush().settled();
    return { siteId, schemeId, gatewayId: saved.data.id as number, sn, secret, ems, applied };
  };

  beforeAll(async () => {
    process.on('unhandledRejection', record);
    ctx = await createTestApp(engine, {}, { delivery: { now: () => Date.now() + clockOffsetMs } });
    devices = new DeviceService(ctx.database.db, ctx.app.log, {
      mqttPort: 0,
      mqttHost: '127.0.0.1',
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      ...(externalBroker ? { mqttUrl: externalBroker } : {}),
    });
    await devices.start();
    ctx.app.devices = devices;
    touPush().start(devices);
    touPush().delivery.onChange((change) => changes.push(change));
    token = (await signIn(ctx.app)).token;
  });
  afterEach(() => {
    clockOffsetMs = 0;
  });
  afterAll(async () => {
    for (const client of quiet) await client.end();
    for (const ems of emses) await ems.disconnect();
    if (externalBroker) for (const g of gateways) await clearStatus(externalBroker, g.sn, g.secret);
    await ctx?.app.touPush.settled();
    ctx?.app.touPush.stop();
    await devices?.close();
    await ctx?.close();
    process.off('unhandledRejection', record);
  });

  it('the operator’s sequence: a silent client reconnects as the gateway; the site stays applied, "re-sent, no answer", retried while online', async () => {
    const site = await appliedSite('A');
    const appliedAt = site.applied.appliedAt!;
    await site.ems.disconnect();
    await waitFor(() => !online(site.gatewayId));

    // A client that publishes the gateway's birth and answers nothing.
    const silent = await announceOnly(brokerUrl(), site.sn, site.secret, { stay: true });
    quiet.push(silent);
    await waitFor(() => plans(silent.received).length === 1, 10_000);
    const resent = await waitFor(async () => {
      const row = await status(site.schemeId, site.siteId);
      return row.reason === 'timeout' && row;
    }, COMMAND_TIMEOUT_MS + 10_000);
    // What the EMS runs is unchanged; the re-send is told apart, with its time and the next try.
    expect(resent).toMatchObject({
      state: 'applied',
      appliedVersion: 1,
      appliedAt,
      schemeVersion: 1,
      sending: false,
      reason: 'timeout',
    });
    expect(Date.parse(resent.sentAt!)).toBeGreaterThan(Date.parse(appliedAt));
    const firstRetry = Date.parse(resent.retryAt!);
    expect(firstRetry - Date.parse(resent.sentAt!)).toBeGreaterThan(0);
    expect(firstRetry - Date.parse(resent.sentAt!)).toBeLessThanOrEqual(MINUTE);
    // Live: the consoles saw the re-send go out (still applied) and come back unanswered; never failed.
    // The change event follows the commit the row was read from: wait for it, do not race it.
    const seenFor = () => changes.filter((c) => c.message.siteId === site.siteId).map((c) => c.message);
    await waitFor(() => seenFor().at(-1)?.reason === 'timeout', 10_000);
    const seen = seenFor();
    expect(seen).toContainEqual(expect.objectContaining({ state: 'applied', sending: true }));
    expect(seen.at(-1)).toMatchObject({
      state: 'applied',
      sending: false,
      reason: 'timeout',
      appliedVersion: 1,
    });
    expect(seen.map((m) => m.state)).not.toContain('failed');

    // Not due yet: the sweep sends nothing.
    const before = await attempts(site.siteId);
    await touPush().delivery.sweep();
    await touPush().settled();
    expect(await attempts(site.siteId)).toBe(before);
    expect(plans(silent.received)).toHaveLength(1);

    // At the first retry's time the sweep sends it again; unanswered, the next one is 5 min after.
    clockOffsetMs = firstRetry - Date.now() + 1;
    await touPush().delivery.sweep();
    await waitFor(() => plans(silent.received).length === 2, 10_000);
    await touPush().settled();
    const retried = await status(site.schemeId, site.siteId);
    expect(retried).toMatchObject({ state: 'applied', appliedVersion: 1, appliedAt, reason: 'timeout' });
    const secondRetry = Date.parse(retried.retryAt!);
    expect(secondRetry - firstRetry).toBe(4 * MINUTE);
    expect(plans(silent.received).map((c) => c.params.version)).toEqual([1, 1]);

    // The gateway gone: its retry is not sent (the next connection sends anyway).
    await silent.end({ goodbye: true });
    await waitFor(() => !online(site.gatewayId), 10_000);
    const offline = await attempts(site.siteId);
    clockOffsetMs = secondRetry - Date.now() + 1;
    await touPush().delivery.sweep();
    await touPush().settled();
    expect(await attempts(site.siteId)).toBe(offline);
    expect(await status(site.schemeId, site.siteId)).toMatchObject({
      state: 'applied',
      appliedVersion: 1,
      reason: 'timeout',
      retryAt: retried.retryAt,
    });
  });

  it('mosquitto_pub as the README shows it (birth, then gone): the site stays applied', async () => {
    const site = await appliedSite('B');
    await site.ems.disconnect();
    await waitFor(() => !online(site.gatewayId));
    const since = new Date();
    const seen: boolean[] = [];
    const unlisten = devices.listen({
      onStatus: (change) => {
        if (change.deviceId === site.gatewayId) seen.push(change.online);
      },
    });
    await announceOnly(brokerUrl(), site.sn, site.secret);
    // Online (the delivery reacts first: its listener was registered before this one), and on
    // the embedded broker offline again at once; the re-send, if it went out, times out.
    await waitFor(
      () => seen.includes(true) && (externalBroker !== undefined || seen.at(-1) === false),
      10_000,
    );
    unlisten();
    await touPush().settled();
    const logged = await ctx.database.db
      .select()
      .from(deviceConnectionLog)
      .where(eq(deviceConnectionLog.deviceId, site.gatewayId));
    expect(logged.some((l) => l.online && l.ts >= new Date(since.getTime() - 1000))).toBe(true);
    expect(await status(site.schemeId, site.siteId)).toMatchObject({
      state: 'applied',
      appliedVersion: 1,
      appliedAt: site.applied.appliedAt,
      sending: false,
    });
  });

  it('a new version nobody answers is failed, and the row says the EMS runs the older one; a refusal too', async () => {
    const site = await appliedSite('C');
    site.ems.mode = { kind: 'silent' };
    const saved = await api(endpoints.tou.update.path, {
      id: site.schemeId,
      version: 1,
      name: `No answer ${tag} C`,
      document: validScheme(),
    });
    expect(saved.code, saved.msg).toBe(0);
    await waitFor(() => site.ems.plans().some((p) => p.version === 2), 10_000);
    const failed = await waitFor(async () => {
      const row = await status(site.schemeId, site.siteId);
      return row.state === 'failed' && row;
    }, COMMAND_TIMEOUT_MS + 10_000);
    expect(failed).toMatchObject({
      schemeVersion: 2,
      pushedVersion: 2,
      reason: 'timeout',
      appliedVersion: 1,
      appliedAt: site.applied.appliedAt,
      sending: false,
    });
    expect(failed.retryAt).not.toBeNull();

    // The EMS refuses the resend: failed with its reason; it still runs version 1.
    site.ems.mode = { kind: 'refuse', error: 'tariff table full' };
    expect(await api(endpoints.tou.push.path, { siteId: site.siteId }, 'en')).toEqual({
      code: 3035,
      msg: 'Sending data to the device failed: tariff table full',
      data: null,
    });
    expect(await status(site.schemeId, site.siteId)).toMatchObject({
      state: 'failed',
      reason: 'tariff table full',
      appliedVersion: 1,
      retryAt: null,
    });

    // Answered at last: version 2 applied, nothing left to retry.
    site.ems.mode = { kind: 'accept' };
    const pushed = await api(endpoints.tou.push.path, { siteId: site.siteId });
    expect(pushed).toMatchObject({
      code: 0,
      data: { state: 'applied', appliedVersion: 2, reason: null, retryAt: null },
    });
    expect(Date.parse(pushed.data.appliedAt)).toBeGreaterThan(Date.parse(site.applied.appliedAt!));
  });

  it('the push of the applied version that gets no answer answers 3035 and leaves the row applied', async () => {
    const site = await appliedSite('D');
    site.ems.mode = { kind: 'silent' };
    expect(await api(endpoints.tou.push.path, { siteId: site.siteId })).toEqual({
      code: 3035,
      msg: `${errorMessage(3035, 'zh')}：timeout`,
      data: null,
    });
    const row = await status(site.schemeId, site.siteId);
    expect(row).toMatchObject({ state: 'applied', appliedVersion: 1, reason: 'timeout', sending: false });
    // Retried a minute after the push.
    expect(Date.parse(row.retryAt!) - Date.parse(row.sentAt!)).toBe(MINUTE);
  });

  it('nothing ended in an unhandled rejection', async () => {
    await touPush().settled();
    expect(unhandled).toEqual([]);
  });
});
