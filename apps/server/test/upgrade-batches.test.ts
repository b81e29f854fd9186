/**
 * Upgrade batches end to end over MQTT (issue 16 item 3, "Bad input and faults"): 20 fake
 * gateways (support/ota-gateway.ts) on the test server's broker answer `ota_upgrade` as the
 * protocol says — each scripted: upgrading, failing the checksum, refusing (low SOC), vanishing
 * mid-download, never answering, offline until later. Time is the engine's injected clock:
 * deadlines pass by moving it and running the sweep, never by sleeping. Observed through the
 * API (`upgrade/detail`, `pageList`, the calls' codes), the commands each gateway received and
 * the site configuration's firmware version (`device.firmware_version`). Proven, in order:
 *  - waves and the download limit: 3 of the first wave's 5 are sent (the batch's limit), the
 *    others wait; each `downloaded` frees a slot for the next; a wave starts only when the one
 *    before is settled;
 *  - success is the birth with the new version (timeline waiting → sent → downloading →
 *    downloaded → verifying → installing → rebooting → success), from/to versions kept, the
 *    device's firmware updated; a checksum failure is `failed: checksum_mismatch`;
 *  - a refusal (`low_soc_busy`) and a device silent in `downloading` past its phase timeout
 *    (`failed: timeout`, never left downloading) make wave 2's failure rate 40 % > 30 %: the batch
 *    pauses by itself and wave 3 gets nothing; cancel takes waiting devices out (7041 when none);
 *  - resume: wave 3 starts; a device silent after `sent` times out; the offline device of wave 2
 *    starts when it reconnects and succeeds;
 *  - retry: a failed device runs again (attempt 2, a fresh URL), 7040 when nothing failed;
 *  - a device offline until the deadline fails `deadline`; the batch finishes;
 *  - no device ever received `ota_upgrade` twice for one attempt;
 *  - the console's live channel `upgrade` carries the batch's row and the changed devices.
 */
import {
  endpoints,
  type LiveUpgradeMessage,
  liveUpgradeMessage,
  type UpgradeDetail,
  type UpgradeDeviceRow,
} from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { call, signIn } from './support/client';
import { unique } from './support/fixtures';
import { createPublishedPackage, registerGateways } from './support/ota-fleet';
import { OtaGateway } from './support/ota-gateway';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const S = 1000;

describe.each(engines)('upgrade batches on %s', (engine) => {
  let ctx: TestContext;
  let token: string;
  let clock = Date.now();
  let gateways: OtaGateway[] = [];
  let ids: number[] = [];
  let batchId: number;
  let packageId: number;
  /** `upgrade` messages of a console socket subscribed to the channel. */
  const live: LiveUpgradeMessage[] = [];
  let socket: WebSocket | undefined;

  const api = (path: string, body: object, lang: 'zh' | 'en' = 'en') =>
    call(ctx.app, path, body, { token, lang });
  const detail = async (): Promise<UpgradeDetail> => {
    const answer = await api(endpoints.upgrade.detail.path, { id: batchId });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data;
  };
  const row = async (i: number): Promise<UpgradeDeviceRow> =>
    (await detail()).devices.find((d) => d.deviceId === ids[i])!;
  /** Lets every reaction run: the gateways' publications, then the engine's work. */
  const settle = async () => {
    for (let round = 0; round < 3; round++) {
      await Promise.all(gateways.map((g) => g.idle()));
      await new Promise((r) => setTimeout(r, 30));
      await ctx.app.upgrades.settled();
    }
  };
  const stateOf = async (i: number, state: UpgradeDeviceRow['state']) =>
    waitFor(async () => {
      await ctx.app.upgrades.settled();
      const r = await row(i);
      return r.state === state ? r : undefined;
    });
  const sweep = async (advanceMs = 0) => {
    clock += advanceMs;
    await ctx.app.upgrades.sweep();
    await settle();
  };

  beforeAll(async () => {
    ctx = await createTestApp(
      engine,
      {},
      {
        devices: { mqttPort: 0, mqttHost: '127.0.0.1', commandTimeoutMs: 2000 },
        upgrade: { now: () => clock, maxDownloads: 4 },
      },
    );
    token = (await signIn(ctx.app)).token;
    const url = () => `mqtt://127.0.0.1:${ctx.app.devices!.brokerAddress.port}`;
    const registered = await registerGateways(ctx.app, token, unique('OTA'), 20, { model: 'EMS-100' });
    ids = registered.map((r) => r.id);
    gateways = registered.map((r) => new OtaGateway(url, r.sn, r.secret, '1.0.0'));
    packageId = await createPublishedPackage(ctx.database.db, { deviceType: 'ems', version: '2.0.0' });
    // g9 and g17 stay offline for now.
    for (const [i, g] of gateways.entries()) if (i !== 9 && i !== 17) await g.connect();
    const base = (await ctx.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    socket = new WebSocket(`${base}/ws`);
    let ready = false;
    socket.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'ready') ready = true;
      if (m.type === 'upgrade') live.push(liveUpgradeMessage.parse(m));
    });
    await new Promise((resolve) => socket!.once('open', resolve));
    socket.send(JSON.stringify({ type: 'auth', token }));
    await waitFor(() => ready);
    socket.send(JSON.stringify({ type: 'subscribe', channels: ['upgrade'] }));
    await waitFor(() =>
      gateways.every((_g, i) => i === 9 || i === 17 || ctx.app.devices!.tracker.isOnline(ids[i]!)),
    );
  }, 60_000);

  afterAll(async () => {
    socket?.close();
    await Promise.all(gateways.map((g) => g.disconnect().catch(() => undefined)));
    await ctx?.app.upgrades.settled();
    await ctx?.close();
  });

  it('candidates: offline devices excluded unless they may wait; 3061 for a package that is not published', async () => {
    const answer = await api(endpoints.upgrade.candidates.path, { packageId });
    expect(answer.code, answer.msg).toBe(0);
    const offline = answer.data.list.filter(
      (c: { deviceId: number }) => c.deviceId === ids[9] || c.deviceId === ids[17],
    );
    expect(offline.map((c: { exclusion: string }) => c.exclusion)).toEqual(['offline', 'offline']);
    expect(answer.data.eligible).toBe(18);
    const waiting = await api(endpoints.upgrade.candidates.path, { packageId, includeOffline: true });
    expect(waiting.data.eligible).toBe(20);
    const draft = await createPublishedPackage(ctx.database.db, {
      deviceType: 'ems',
      version: '2.1.0',
      state: 'unused',
    });
    const refused = await api(endpoints.upgrade.candidates.path, { packageId: draft }, 'zh');
    expect(refused.code).toBe(3061);
    expect(refused.msg).toBe('没有升级固件信息');
  });

  it('create: 7042 for a past deadline, 7039 naming an excluded device', async () => {
    const past = await api(endpoints.upgrade.create.path, {
      packageId,
      deviceIds: ids,
      deadlineAt: clock - 1,
    });
    expect(past.code).toBe(7042);
    const excluded = await api(endpoints.upgrade.create.path, {
      packageId,
      deviceIds: ids,
      deadlineAt: clock + 3600 * S,
    });
    expect(excluded.code).toBe(7039);
    expect(excluded.msg).toContain(gateways[9]!.sn);
    expect(excluded.msg).toContain('Offline');
  });

  it('wave 1: at most the batch’s 3 downloading at once; success by the birth; checksum failure', async () => {
    for (const i of [0, 1, 2, 3]) gateways[i]!.script = { kind: 'hold' };
    gateways[4]!.script = { kind: 'checksum' };
    gateways[5]!.script = { kind: 'stall' };
    gateways[6]!.script = { kind: 'refuse', reason: 'low_soc_busy' };
    gateways[8]!.script = { kind: 'upgrade', successEvent: true };
    gateways[10]!.script = { kind: 'silent' };
    const created = await api(endpoints.upgrade.create.path, {
      packageId,
      deviceIds: ids,
      firstWaveSize: 5,
      waveSize: 5,
      failureRateThresholdPct: 30,
      maxConcurrentDownloads: 3,
      includeOffline: true,
      deadlineAt: clock + 3600 * S,
      phaseTimeoutsS: { sent: 20, downloading: 60, verifying: 30, installing: 60, rebooting: 60 },
    });
    expect(created.code, created.msg).toBe(0);
    batchId = created.data.id;
    await settle();
    let d = await detail();
    expect(d.batch.batchNo).toMatch(/^UP\d{8}-\d{4,}$/);
    expect(d.batch.operatorName).not.toBe('');
    expect(d.batch).toMatchObject({ state: 'running', currentWave: 1, waveCount: 4, deviceCount: 20 });
    // Three sent (the batch's limit), two of wave 1 wait, nothing of wave 2.
    expect(gateways.map((g) => g.sentFor(batchId).length)).toEqual([1, 1, 1, ...Array(17).fill(0)]);
    expect(d.batch.counts).toMatchObject({ downloading: 3, waiting: 17 });
    const first = gateways[0]!.commands[0]!;
    expect(first).toMatchObject({ batchId, packageId, version: '2.0.0', targetDeviceSn: gateways[0]!.sn });
    expect(first.url).toMatch(/^https?:\/\/.+\/ota\/\S+$/);
    // Each `downloaded` frees a slot.
    await gateways[0]!.finish('2.0.0');
    await stateOf(0, 'success');
    await settle();
    expect(gateways[3]!.sentFor(batchId)).toHaveLength(1);
    expect(gateways[4]!.sentFor(batchId)).toHaveLength(0);
    for (const i of [1, 2, 3]) await gateways[i]!.finish('2.0.0');
    await settle();
    const failed = await stateOf(4, 'failed');
    expect(failed).toMatchObject({ reason: 'checksum_mismatch', detail: 'sha256 differs' });
    const ok = await stateOf(0, 'success');
    expect(ok.timeline.map((t) => t.state)).toEqual([
      'waiting',
      'sent',
      'downloading',
      'downloaded',
      'verifying',
      'installing',
      'rebooting',
      'success',
    ]);
    expect(ok).toMatchObject({
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      percent: 100,
      phaseDeadlineAt: null,
    });
    // The site configuration's firmware version follows the birth.
    const listed = await api(endpoints.upgrade.candidates.path, { packageId });
    expect(listed.data.list.find((c: { deviceId: number }) => c.deviceId === ids[0])).toMatchObject({
      firmware: '2.0.0',
      exclusion: 'same_version',
    });
    d = await detail();
    expect(d.batch.currentWave).toBe(2);
    // The console saw it live: the batch's row and the device's row with its timeline.
    const seen = await waitFor(() =>
      live.find(
        (m) =>
          m.batch.id === batchId && m.devices.some((x) => x.deviceId === ids[0] && x.state === 'success'),
      ),
    );
    expect(seen.batch).toMatchObject({ batchNo: d.batch.batchNo, deviceCount: 20 });
  });

  it('wave 2: a refusal and a device silent past its download timeout pause the batch by itself', async () => {
    await settle();
    const refused = await stateOf(6, 'failed');
    expect(refused).toMatchObject({ reason: 'low_soc_busy', detail: 'SOC 8 % while discharging' });
    await stateOf(7, 'success');
    await stateOf(8, 'success');
    const stalled = await row(5);
    expect(stalled).toMatchObject({ state: 'downloading', percent: 10 });
    expect(stalled.phaseDeadlineAt).not.toBeNull();
    // One failure of five (20 %): the batch runs on while the stalled device may still answer.
    expect((await detail()).batch.state).toBe('running');
    await sweep(59 * S);
    expect((await row(5)).state).toBe('downloading');
    await sweep(2 * S);
    const timedOut = await row(5);
    expect(timedOut).toMatchObject({ state: 'failed', reason: 'timeout', detail: 'downloading' });
    const d = await detail();
    expect(d.batch).toMatchObject({ state: 'paused', pausedReason: 'failure_rate', currentWave: 2 });
    expect(d.devices.find((x) => x.deviceId === ids[9])!.state).toBe('waiting');
    // Nothing of wave 3 went out.
    await sweep();
    expect(gateways.slice(10).map((g) => g.sentFor(batchId).length)).toEqual(Array(10).fill(0));
    // A late event of the timed-out device changes nothing.
    await gateways[5]!.event(gateways[5]!.commands[0]!, 'downloaded');
    await settle();
    expect((await row(5)).state).toBe('failed');
  });

  it('cancel takes out devices that have not started; 7041 when there are none', async () => {
    const cancelled = await api(endpoints.upgrade.cancel.path, {
      id: batchId,
      deviceIds: [ids[18], ids[19]],
    });
    expect(cancelled.code, cancelled.msg).toBe(0);
    expect(cancelled.data.count).toBe(2);
    expect((await row(18)).state).toBe('cancelled');
    const none = await api(endpoints.upgrade.cancel.path, { id: batchId, deviceIds: [ids[0]] }, 'zh');
    expect(none.code).toBe(7041);
    const paused = await api(endpoints.upgrade.pause.path, { id: batchId }, 'en');
    expect(paused.code).toBe(7038);
    expect(paused.msg).toBe('The batch is Paused: this is not allowed');
  });

  it('resume: wave 3 starts; silent after `sent` times out; the offline device starts when it reconnects', async () => {
    const resumed = await api(endpoints.upgrade.resume.path, { id: batchId });
    expect(resumed.code, resumed.msg).toBe(0);
    await settle();
    expect((await detail()).batch.currentWave).toBe(3);
    await gateways[9]!.connect();
    await stateOf(9, 'success');
    for (const i of [11, 12, 13, 14]) await stateOf(i, 'success');
    expect(await row(10)).toMatchObject({ state: 'sent' });
    await sweep(21 * S);
    expect(await row(10)).toMatchObject({ state: 'failed', reason: 'timeout', detail: 'sent' });
    // 1 of 5 failed in wave 3: wave 4 starts (its 3 devices not cancelled; g17 is offline).
    await settle();
    expect((await detail()).batch.currentWave).toBe(4);
    for (const i of [15, 16]) await stateOf(i, 'success');
    expect(await row(17)).toMatchObject({ state: 'waiting' });
    // The silent device was upgrading after all (a reboot longer than its timeout): its birth
    // with the batch's version turns the timeout into a success, the timeout kept in its timeline.
    gateways[10]!.bornWith = '2.0.0';
    await gateways[10]!.birth();
    const late = await stateOf(10, 'success');
    expect(late.timeline.map((t) => t.state).slice(-2)).toEqual(['failed', 'success']);
    expect(late).toMatchObject({ reason: null, percent: 100 });
  });

  it('retry: a failed device runs again with a fresh URL; 7040 when nothing failed', async () => {
    gateways[4]!.script = { kind: 'upgrade' };
    const retried = await api(endpoints.upgrade.retry.path, { id: batchId, deviceIds: [ids[4]] });
    expect(retried.code, retried.msg).toBe(0);
    expect(retried.data.count).toBe(1);
    const done = await stateOf(4, 'success');
    expect(done.attempt).toBe(2);
    expect(done.timeline.filter((t) => t.state === 'sent').map((t) => t.detail)).toEqual([null, 'attempt 2']);
    const [one, two] = gateways[4]!.sentFor(batchId);
    expect(two!.url).not.toBe(one!.url);
    const none = await api(endpoints.upgrade.retry.path, { id: batchId, deviceIds: [ids[0]] });
    expect(none.code).toBe(7040);
  });

  it('the deadline fails a device still offline; the batch finishes; nothing was sent twice in one attempt', async () => {
    await sweep(3600 * S);
    expect(await row(17)).toMatchObject({ state: 'failed', reason: 'deadline' });
    const d = await detail();
    expect(d.batch.state).toBe('finished');
    expect(d.batch.finishedAt).not.toBeNull();
    expect(d.batch.counts).toMatchObject({
      success: 15,
      failed: 3,
      cancelled: 2,
      waiting: 0,
      downloading: 0,
    });
    // Every non-final state had a deadline; none is left.
    expect(d.devices.every((x) => ['success', 'failed', 'cancelled'].includes(x.state))).toBe(true);
    const sends = gateways.map((g) => g.sentFor(batchId).length);
    expect(sends).toEqual(ids.map((_, i) => (i === 4 ? 2 : [17, 18, 19].includes(i) ? 0 : 1)));
    const list = await api(endpoints.upgrade.pageList.path, { pageNum: 1, pageSize: 10 });
    expect(list.data.list[0]).toMatchObject({ id: batchId, state: 'finished', version: '2.0.0' });
  });
});
