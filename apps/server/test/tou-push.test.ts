/**
 * Delivery of ToU schemes to the EMS with a fake EMS (support/fake-ems.ts): an mqtt.js client on
 * the test server's embedded broker, logged in as the site's gateway, that answers `set_tou_plan`
 * with ok, with a refusal, not at all, or when the test says so (held). Observed through the API
 * (`tou/pushStatus`, `tou/push`) and the commands the EMS receives:
 *  - assigned while the EMS never connected: pending, `push` answers 3033; its first connection
 *    gets the scheme, which is then applied with a time;
 *  - saving the scheme sends the new version at once without waiting for the EMS; a refusal is
 *    failed with the EMS's reason, no reply is failed with 'timeout' (`push` answers 3035 with
 *    the reason);
 *  - a failed push is sent again when the gateway reconnects;
 *  - saved while the gateway is offline: pending, `push` answers 3034, and the reconnect sends
 *    and applies it;
 *  - every (re)connection sends the scheme again, applied or not (an EMS that lost it gets it
 *    back), and so does a change of the site's time zone;
 *  - one send per site at a time: a `push` during a background send, and a reconnect during a
 *    send, wait for it; a late reply to the scheme a site was moved off does not mark the new
 *    scheme applied;
 *  - rows left `sent` by a previous run are pending after a start;
 *  - no unhandled rejection along the way.
 */
import { endpoints, errorMessage, type TouPushRow } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, deviceDelivery } from '../src/core/db/schema';
import { DeviceService } from '../src/devices/device-service';
import { TouPushService } from '../src/devices/tou-push';
import { call, signIn } from './support/client';
import { FakeEms } from './support/fake-ems';
import { unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { validScheme } from './support/tou';
import { waitFor } from './support/wait';

/** Short reply timeout, so that "no reply" is quick to observe. */
const COMMAND_TIMEOUT_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

describe.each(engines)('ToU push to the EMS on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let token: string;
  let siteId: number;
  let gatewayId: number;
  let schemeId: number;
  let version = 1;
  let ems: FakeEms;
  let siteCode: string;
  const emses: FakeEms[] = [];
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);

  const brokerUrl = () => `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
  const api = (path: string, body: object, lang?: 'zh' | 'en') =>
    call(ctx.app, path, body, { token, ...(lang ? { lang } : {}) });
  const status = async (scheme = schemeId, site = siteId): Promise<TouPushRow> => {
    const answer = await api(endpoints.tou.pushStatus.path, { id: scheme });
    expect(answer.code).toBe(0);
    return answer.data.list.find((r: TouPushRow) => r.siteId === site);
  };
  const waitForState = (state: TouPushRow['state'], atVersion = version) =>
    waitFor(async () => {
      const row = await status();
      return row.state === state && row.pushedVersion === atVersion ? row : undefined;
    });
  const save = async () => {
    const doc = validScheme();
    doc.dailyPlans[0]!.periods[1]!.priceCnyPerKwh = 1 + version / 100;
    const answer = await api(endpoints.tou.update.path, {
      id: schemeId,
      version,
      name: 'Shanghai C&I',
      document: doc,
    });
    expect(answer.code, answer.msg).toBe(0);
    version = answer.data.version;
    return answer;
  };
  const gatewayOnline = async () =>
    (await ctx.database.db.select().from(device).where(eq(device.id, gatewayId)))[0]!.online;
  /** A site in Shanghai with an EMS (not connected yet). */
  const siteWithEms = async (name: string) => {
    const tag = unique('q')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(-16);
    const site = await api(endpoints.site.save.path, { code: tag, name, timezone: 'Asia/Shanghai' });
    const saved = await api(endpoints.device.save.path, {
      siteId: site.data.id,
      sn: `EMS-${tag}`,
      type: 'ems',
    });
    const fake = new FakeEms(brokerUrl, saved.data.secret.sn, saved.data.secret.secret);
    emses.push(fake);
    return { siteId: site.data.id as number, ems: fake };
  };
  const newScheme = async (name: string) => {
    const answer = await api(endpoints.tou.save.path, { name: unique(name), document: validScheme() });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.id as number;
  };

  beforeAll(async () => {
    process.on('unhandledRejection', record);
    ctx = await createTestApp(engine);
    devices = new DeviceService(ctx.database.db, ctx.app.log, {
      mqttPort: 0,
      mqttHost: '127.0.0.1',
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    await devices.start();
    ctx.app.devices = devices;
    ctx.app.touPush.start(devices);
    token = (await signIn(ctx.app)).token;
    const tag = unique('p')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(-16);
    siteCode = tag;
    const site = await api(endpoints.site.save.path, {
      code: tag,
      name: 'Push site',
      timezone: 'Asia/Urumqi',
    });
    siteId = site.data.id;
    const saved = await api(endpoints.device.save.path, { siteId, sn: `EMS-${tag}`, type: 'ems' });
    gatewayId = saved.data.id;
    ems = new FakeEms(brokerUrl, saved.data.secret.sn, saved.data.secret.secret);
    emses.push(ems);
    const scheme = await api(endpoints.tou.save.path, { name: 'Shanghai C&I', document: validScheme() });
    schemeId = scheme.data.id;
  });
  afterAll(async () => {
    for (const fake of emses) await fake.disconnect();
    await ctx?.app.touPush.settled();
    await devices?.close();
    await ctx?.close();
    process.off('unhandledRejection', record);
  });

  it('assigned before the EMS ever connected: pending, 3033 on push, applied at its first connection', async () => {
    const assigned = await api(endpoints.tou.assign.path, { id: schemeId, siteIds: [siteId] });
    expect(assigned.data.list[0]).toMatchObject({
      siteId,
      state: 'pending',
      schemeVersion: 1,
      pushedVersion: null,
    });
    await ctx.app.touPush.settled();
    expect(await status()).toMatchObject({ state: 'pending', sentAt: null, appliedAt: null });
    expect(await api(endpoints.tou.push.path, { siteId })).toEqual({
      code: 3033,
      msg: errorMessage(3033, 'zh'),
      data: null,
    });

    const connectedAt = Date.now();
    await ems.connect();
    const applied = await waitForState('applied', 1);
    expect(applied).toMatchObject({ gatewaySn: ems.sn, gatewayOnline: true, schemeVersion: 1, reason: null });
    expect(Date.parse(applied.appliedAt!)).toBeGreaterThanOrEqual(connectedAt - 1000);
    expect(Date.parse(applied.appliedAt!)).toBeGreaterThanOrEqual(Date.parse(applied.sentAt!));
    expect(ems.plans()).toEqual([{ schemeId, version: 1, timezone: 'Asia/Urumqi', scheme: validScheme() }]);
  });

  it('push answers the applied row', async () => {
    const before = ems.plans().length;
    const pushed = await api(endpoints.tou.push.path, { siteId });
    expect(pushed).toMatchObject({ code: 0, data: { siteId, state: 'applied', pushedVersion: version } });
    expect(ems.plans()).toHaveLength(before + 1);
  });

  it('saving sends the new version without waiting for the EMS; a refusal is failed with its reason', async () => {
    // An EMS that does not answer: the save must not wait for it. The row's states are taken from
    // the delivery's change events (not polled), so a loaded machine cannot make the test miss
    // 'sent' by reading after the 1 s reply timeout already failed the send.
    ems.mode = { kind: 'silent' };
    const before = ems.plans().length;
    const states: string[] = [];
    const stop = ctx.app.touPush.delivery.onChange((c) => {
      if (c.message.siteId === siteId) states.push(`${c.message.state}@${c.message.version}`);
    });
    try {
      // Answered 0 although the EMS never answers: a save that waited for it would answer 3035.
      await save();
      await waitFor(() => ems.plans().length > before);
      expect(ems.plans().at(-1)).toMatchObject({ version: 2 });
      expect(await waitForState('failed', 2)).toMatchObject({ reason: 'timeout' });
      // The change event follows the row's commit: the row can read 'failed' a moment before the
      // event arrives (seen on PostgreSQL in a loaded CI run).
      await waitFor(() => states.includes('failed@2'));
      expect(states).toContain('sent@2');
      expect(states.indexOf('sent@2')).toBeLessThan(states.indexOf('failed@2'));
    } finally {
      stop();
    }

    ems.mode = { kind: 'refuse', error: 'tariff table full' };
    expect(await api(endpoints.tou.push.path, { siteId }, 'en')).toEqual({
      code: 3035,
      msg: 'Sending data to the device failed: tariff table full',
      data: null,
    });
    expect(await status()).toMatchObject({ state: 'failed', schemeVersion: 2, reason: 'tariff table full' });
  });

  it('no reply: failed with "timeout"; a failed push is sent again at the reconnect', async () => {
    ems.mode = { kind: 'silent' };
    const answer = await api(endpoints.tou.push.path, { siteId });
    expect(answer).toEqual({ code: 3035, msg: `${errorMessage(3035, 'zh')}：timeout`, data: null });
    expect(await status()).toMatchObject({ state: 'failed', reason: 'timeout', pushedVersion: 2 });

    await ems.disconnect();
    await waitFor(async () => !(await gatewayOnline()));
    ems.mode = { kind: 'accept' };
    const count = ems.plans().length;
    await ems.connect();
    const applied = await waitForState('applied', 2);
    expect(applied.reason).toBeNull();
    expect(ems.plans().slice(count)).toEqual([expect.objectContaining({ version: 2 })]);
  });

  it('saved while the gateway is offline: pending, 3034 on push, sent and applied at the reconnect', async () => {
    await ems.disconnect();
    await waitFor(async () => !(await gatewayOnline()));
    const count = ems.plans().length;
    await save();
    await ctx.app.touPush.settled();
    expect(await status()).toMatchObject({ state: 'pending', schemeVersion: 3, gatewayOnline: false });
    expect(await api(endpoints.tou.push.path, { siteId }, 'en')).toEqual({
      code: 3034,
      msg: 'Device offline',
      data: null,
    });
    expect(await status()).toMatchObject({ state: 'pending', schemeVersion: 3 });
    expect(ems.plans()).toHaveLength(count);

    await ems.connect();
    const applied = await waitForState('applied', 3);
    expect(applied.schemeVersion).toBe(3);
    expect(ems.plans().slice(count)).toEqual([expect.objectContaining({ version: 3 })]);
    const detail = await api(endpoints.tou.detail.path, { id: schemeId });
    expect(ems.plans().at(-1)!.scheme).toEqual(detail.data.document);
  });

  it('every connection sends the scheme again, applied or not: an EMS that lost it gets it back', async () => {
    expect(await status()).toMatchObject({ state: 'applied', pushedVersion: 3 });
    // Reconnected (the demo fleet after a server restart keeps its plan only in memory).
    let count = ems.plans().length;
    await ems.disconnect();
    await waitFor(async () => !(await gatewayOnline()));
    await ems.connect();
    await waitFor(() => ems.plans().length > count);
    expect(ems.plans().slice(count)).toEqual([expect.objectContaining({ schemeId, version: 3 })]);
    await ctx.app.touPush.settled();
    expect(await status()).toMatchObject({ state: 'applied', pushedVersion: 3 });
    // Online again without having been seen offline: sent again too.
    count = ems.plans().length;
    await ems.announce();
    await waitFor(() => ems.plans().length > count);
    await ctx.app.touPush.settled();
    expect(ems.plans().slice(count)).toEqual([expect.objectContaining({ schemeId, version: 3 })]);
    expect(await status()).toMatchObject({ state: 'applied', pushedVersion: 3 });
  });

  it('a new time zone of the site goes out with the scheme', async () => {
    const count = ems.plans().length;
    const updated = await api(endpoints.site.update.path, {
      id: siteId,
      code: siteCode,
      name: 'Push site',
      timezone: 'Asia/Shanghai',
    });
    expect(updated.code, updated.msg).toBe(0);
    await waitFor(() => ems.plans().length > count);
    await ctx.app.touPush.settled();
    expect(ems.plans().slice(count)).toEqual([
      expect.objectContaining({ schemeId, version: 3, timezone: 'Asia/Shanghai' }),
    ]);
    expect(await status()).toMatchObject({ state: 'applied', pushedVersion: 3 });
    // The same zone again sends nothing.
    await api(endpoints.site.update.path, {
      id: siteId,
      code: siteCode,
      name: 'Push site 2',
      timezone: 'Asia/Shanghai',
    });
    await ctx.app.touPush.settled();
    expect(ems.plans()).toHaveLength(count + 1);
  });

  it('a push during a background send waits for it, then sends and answers applied', async () => {
    ems.mode = { kind: 'hold' };
    const count = ems.plans().length;
    await save();
    await waitFor(() => ems.held.length === 1);
    const pushed = api(endpoints.tou.push.path, { siteId });
    // While the first send is out nothing else goes to the EMS.
    await sleep(300);
    expect(ems.plans()).toHaveLength(count + 1);
    ems.release();
    await waitFor(() => ems.held.length === 1 && ems.plans().length === count + 2);
    ems.release();
    expect(await pushed).toMatchObject({
      code: 0,
      data: { siteId, state: 'applied', pushedVersion: version },
    });
    expect(
      ems
        .plans()
        .slice(count)
        .map((p) => p.version),
    ).toEqual([version, version]);
    ems.mode = { kind: 'accept' };
  });

  it('a reconnect during a send waits for it; the resend is applied even though the first timed out', async () => {
    ems.mode = { kind: 'hold' };
    const count = ems.plans().length;
    await save();
    await waitFor(() => ems.held.length === 1);
    // The server's own send times (the commands' `ts`), not when this test noticed them: on a
    // loaded machine the test may see the first command late, which once made the gap look short.
    const firstSentAt = ems.held[0]!.command.ts;
    // The connection drops with the command unanswered and comes back.
    ems.held.length = 0;
    await ems.disconnect();
    await waitFor(async () => !(await gatewayOnline()));
    await ems.connect();
    // The resend waits for the first send, which ends with its timeout.
    await waitFor(() => ems.held.length === 1, COMMAND_TIMEOUT_MS * 3);
    expect(ems.held[0]!.command.ts - firstSentAt).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS);
    // Answered only once the first send's timeout is well past.
    await sleep(firstSentAt + COMMAND_TIMEOUT_MS + 200 - Date.now());
    ems.release();
    expect(await waitForState('applied', version)).toMatchObject({ schemeVersion: version, reason: null });
    expect(
      ems
        .plans()
        .slice(count)
        .map((p) => p.version),
    ).toEqual([version, version]);
    ems.mode = { kind: 'accept' };
  });

  it("moved to another scheme while the old one's send is out: the old one's late reply does not settle the new", async () => {
    const other = await siteWithEms('Switch site');
    const first = await newScheme('first');
    const second = await newScheme('second');
    await other.ems.connect();
    other.ems.mode = { kind: 'hold' };
    expect((await api(endpoints.tou.assign.path, { id: first, siteIds: [other.siteId] })).code).toBe(0);
    await waitFor(() => other.ems.held.length === 1);
    expect((await api(endpoints.tou.assign.path, { id: second, siteIds: [other.siteId] })).code).toBe(0);
    await sleep(300);
    // The first scheme's version 1 answers ok after the site moved to the second scheme's version 1.
    other.ems.release({ ok: true });
    await waitFor(() => other.ems.plans().length === 2 && other.ems.held.length === 1);
    expect(other.ems.plans().map((p) => [p.schemeId, p.version])).toEqual([
      [first, 1],
      [second, 1],
    ]);
    expect(await status(second, other.siteId)).toMatchObject({
      state: 'sent',
      pushedVersion: 1,
      appliedAt: null,
    });
    other.ems.release({ ok: false, error: 'no room for another tariff' });
    const failed = await waitFor(async () => {
      const row = await status(second, other.siteId);
      return row.state === 'failed' ? row : undefined;
    });
    expect(failed).toMatchObject({ reason: 'no room for another tariff', appliedAt: null });
    expect((await api(endpoints.tou.pushStatus.path, { id: first })).data.list).toEqual([]);
  });

  it("rows a previous run left 'sent' are pending after a start (no command is out any more)", async () => {
    const db = ctx.database.db;
    await db
      .update(deviceDelivery)
      .set({ state: 'sent' })
      .where(and(eq(deviceDelivery.kind, 'tou'), eq(deviceDelivery.siteId, siteId)));
    const restarted = new TouPushService(db, ctx.app.log);
    restarted.start(null);
    await restarted.settled();
    restarted.stop();
    expect(await status()).toMatchObject({ state: 'pending', schemeVersion: version });
  });

  it('a site moved off the scheme has no delivery row; the push answers 3060', async () => {
    expect((await api(endpoints.tou.assign.path, { id: schemeId, siteIds: [] })).data.list).toEqual([]);
    expect(await api(endpoints.tou.push.path, { siteId })).toEqual({
      code: 3060,
      msg: errorMessage(3060, 'zh'),
      data: null,
    });
  });

  it('nothing ended in an unhandled rejection', async () => {
    await ctx.app.touPush.settled();
    expect(unhandled).toEqual([]);
  });
});
