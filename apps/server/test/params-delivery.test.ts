/**
 * Device parameters end to end over MQTT (issue 15 items 2, 3, 6): the server's `/api-bms/params/*`
 * calls with a fake EMS (support/fake-ems.ts) on the test server's broker that answers
 * `set_params` / `get_params` / `initialize` the way the protocol says a device does — the
 * contract's `applyParamChanges` per key and `paramsVersionVerdict` per version — and publishes
 * `params` reports. Observed through the API (detail, history, copy, initialize) and the commands
 * the EMS receives:
 *  - set → applied (per key, reported value, history with who and the answer);
 *  - refused per key with the device's reason and the validator's messageKey;
 *  - no answer → timeout;
 *  - gateway offline → waiting 3034, pending, applied at the reconnect, sent once;
 *  - a device that runs a newer version answers stale → the change goes out above it, applied;
 *  - a local change reported by the device → drift with a history row of source 'device';
 *  - read (get_params) stores what the device runs;
 *  - copy to devices of the same model, one result per target (3047 for another model);
 *  - initialize once (command sent), 3049 the second time;
 *  - -100 naming the key for a range error and for the air conditioner's order rule, nothing stored.
 */
import {
  applyParamChanges,
  type CommandPayload,
  type DeviceType,
  defaultParams,
  endpoints,
  INITIALIZATION_DONE_ERROR,
  type ParamRow,
  type ParamValue,
  paramChangeResult,
  paramIssueText,
  paramsVersionVerdict,
  setParamsError,
  setParamsParams,
  staleParamsError,
  validateParams,
} from '@ess/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceService } from '../src/devices/device-service';
import { call, signIn } from './support/client';
import { type CommandAnswer, FakeEms } from './support/fake-ems';
import { unique } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

/** Short reply timeout, so that "no reply" is quick to observe. */
const COMMAND_TIMEOUT_MS = 800;

/** What a device behind the fake EMS runs, answered as the protocol says. */
class FakeDevice {
  version = 0;
  values: Record<string, ParamValue>;
  /** Keys the device refuses whatever the value (a device's own limit), with its reason. */
  refuse = new Map<string, string>();
  answered = new Map<number, NonNullable<CommandAnswer>>();
  constructor(
    readonly sn: string,
    readonly type: DeviceType,
  ) {
    this.values = defaultParams(type);
  }

  setParams(command: CommandPayload): CommandAnswer {
    const p = setParamsParams.parse(command.params);
    const verdict = paramsVersionVerdict(this.version, p.version);
    if (verdict === 'stale')
      return {
        ok: false,
        error: staleParamsError(p.version, this.version),
        result: { deviceSn: this.sn, version: this.version, results: {}, stale: true },
      };
    if (verdict === 'repeat') {
      const first = this.answered.get(p.version)!;
      return { ...first, result: { ...first.result, repeated: true } };
    }
    const allowed: Record<string, ParamValue> = {};
    const results: Record<string, ReturnType<typeof paramChangeResult>> = {};
    for (const [k, v] of Object.entries(p.values)) {
      const why = this.refuse.get(k);
      if (why) results[k] = { status: 'refused', value: this.values[k] ?? null, reason: why };
      else allowed[k] = v;
    }
    const applied = applyParamChanges(this.type, this.values, allowed);
    this.values = applied.values;
    for (const [k, o] of Object.entries(applied.results)) results[k] = paramChangeResult(this.type, o);
    this.version = p.version;
    const error = setParamsError(results);
    const answer = {
      ok: error === undefined,
      ...(error ? { error } : {}),
      result: { deviceSn: this.sn, version: this.version, results },
    };
    this.answered.set(p.version, answer);
    return answer;
  }

  snapshot() {
    return { deviceSn: this.sn, deviceType: this.type, version: this.version, values: { ...this.values } };
  }
}

describe.each(engines)('device parameters over MQTT on %s', (engine) => {
  let ctx: TestContext;
  let devices: DeviceService;
  let token: string;
  let siteId: number;
  let emsId: number;
  let acId: number;
  let ac2Id: number;
  let meterId: number;
  let ems: FakeEms;
  const behind = new Map<string, FakeDevice>();
  let silent = false;
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);

  const brokerUrl = () => `mqtt://127.0.0.1:${devices.brokerAddress.port}`;
  const api = (path: string, body: object, lang: 'zh' | 'en' = 'en') =>
    call(ctx.app, path, body, { token, lang });
  const detail = async (deviceId: number) => {
    const answer = await api(endpoints.params.detail.path, { deviceId });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data as { params: ParamRow[]; version: number; reportedAt: string | null };
  };
  const row = async (deviceId: number, key: string) =>
    (await detail(deviceId)).params.find((p) => p.key === key)!;
  const waitForState = (deviceId: number, key: string, state: ParamRow['state'], ms = 5000) =>
    waitFor(async () => {
      const r = await row(deviceId, key);
      return r.state === state ? r : undefined;
    }, ms);
  const history = async (deviceId: number) => {
    const answer = await api(endpoints.params.history.path, { deviceId, pageNum: 1, pageSize: 50 });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.list as Array<Record<string, unknown>>;
  };
  const device = (sn: string) => behind.get(sn)!;

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
    ctx.app.paramsPush.start(devices);
    token = (await signIn(ctx.app)).token;
    const tag = unique('pp')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(-14);
    const site = await api(endpoints.site.save.path, {
      code: tag,
      name: 'Params site',
      timezone: 'Asia/Shanghai',
    });
    siteId = site.data.id;
    const saved = await api(endpoints.device.save.path, { siteId, sn: `EMS-${tag}`, type: 'ems' });
    emsId = saved.data.id;
    const add = async (sn: string, type: DeviceType, model: string) => {
      const answer = await api(endpoints.device.save.path, { siteId, sn, type, model, gatewayId: emsId });
      expect(answer.code, answer.msg).toBe(0);
      behind.set(sn, new FakeDevice(sn, type));
      return answer.data.id as number;
    };
    acId = await add(`AC1-${tag}`, 'air_conditioner', 'Envicool EC-5');
    ac2Id = await add(`AC2-${tag}`, 'air_conditioner', 'Envicool EC-5');
    meterId = await add(`MTR-${tag}`, 'meter', 'Acrel DTSD1352');
    behind.set(saved.data.secret.sn, new FakeDevice(saved.data.secret.sn, 'ems'));
    ems = new FakeEms(brokerUrl, saved.data.secret.sn, saved.data.secret.secret);
    ems.on('set_params', (c) =>
      silent ? null : device((c.params as { deviceSn: string }).deviceSn).setParams(c),
    );
    ems.on('get_params', (c) => ({
      ok: true,
      result: device((c.params as { deviceSn: string }).deviceSn).snapshot(),
    }));
    ems.on('initialize', () =>
      ems.commands('initialize').length > 1 ? { ok: false, error: INITIALIZATION_DONE_ERROR } : { ok: true },
    );
  });
  afterAll(async () => {
    await ems?.disconnect();
    await ctx?.app.paramsPush.settled();
    await devices?.close();
    await ctx?.close();
    process.off('unhandledRejection', record);
  });

  const acSn = () => [...behind.keys()].find((k) => k.startsWith('AC1-'))!;

  it('offline: kept (3034 waiting, pending), sent once at the reconnect and applied', async () => {
    // Connected once, then gone: offline, not "never connected".
    await ems.connect();
    await waitFor(async () => (await api(endpoints.params.tree.path, {})).data.sites[0]?.devices[0]?.online);
    await ems.disconnect();
    await waitFor(async () => !(await api(endpoints.params.tree.path, {})).data.sites[0]?.devices[0]?.online);
    const answer = await api(endpoints.params.set.path, { deviceId: acId, values: { cooling_start_c: 30 } });
    expect(answer.code, answer.msg).toBe(0);
    expect(answer.data.waiting).toBe(3034);
    expect(answer.data.version).toBe(1);
    expect(answer.data.device.params.find((p: ParamRow) => p.key === 'cooling_start_c')).toMatchObject({
      desired: 30,
      state: 'pending',
    });
    await ctx.app.paramsPush.settled();
    expect(ems.commands('set_params')).toHaveLength(0);
    await ems.connect();
    const applied = await waitForState(acId, 'cooling_start_c', 'applied');
    expect(applied.reported).toBe(30);
    await ctx.app.paramsPush.settled();
    expect(ems.commands('set_params')).toHaveLength(1);
    expect(device(acSn()).values.cooling_start_c).toBe(30);
    // Another reconnect with nothing outstanding sends nothing.
    await ems.disconnect();
    await waitFor(async () => !(await api(endpoints.params.tree.path, {})).data.sites[0]?.devices[0]?.online);
    await ems.connect();
    await waitFor(async () => (await api(endpoints.params.tree.path, {})).data.sites[0]?.devices[0]?.online);
    await ctx.app.paramsPush.settled();
    expect(ems.commands('set_params')).toHaveLength(1);
  });

  it('set → applied, with the history row saying who and the answer', async () => {
    const answer = await api(endpoints.params.set.path, {
      deviceId: acId,
      values: { cooling_start_c: 32, heating_start_c: 12 },
    });
    expect(answer.code, answer.msg).toBe(0);
    expect(answer.data.waiting).toBeNull();
    expect(answer.data.version).toBe(2);
    await waitForState(acId, 'cooling_start_c', 'applied');
    expect(await row(acId, 'heating_start_c')).toMatchObject({ state: 'applied', reported: 12, desired: 12 });
    const rows = await history(acId);
    expect(rows[0]).toMatchObject({
      source: 'operator',
      version: 2,
      outcome: 'applied',
      by: expect.any(String),
    });
    expect(rows.find((r) => r.key === 'cooling_start_c' && r.version === 2)).toMatchObject({
      oldValue: 30,
      newValue: 32,
    });
  });

  it('refused per key with the device’s reason; the others applied', async () => {
    device(acSn()).refuse.set('high_temp_alarm_c', 'locked by the installer');
    const answer = await api(endpoints.params.set.path, {
      deviceId: acId,
      values: { high_temp_alarm_c: 50, low_temp_alarm_c: 2 },
    });
    expect(answer.code, answer.msg).toBe(0);
    const refused = await waitForState(acId, 'high_temp_alarm_c', 'refused');
    expect(refused.reason).toBe('locked by the installer');
    expect(await row(acId, 'low_temp_alarm_c')).toMatchObject({ state: 'applied', reported: 2 });
    const rows = await history(acId);
    expect(rows.find((r) => r.key === 'high_temp_alarm_c')).toMatchObject({
      outcome: 'refused',
      reason: 'locked by the installer',
    });
    device(acSn()).refuse.clear();
    // Nothing outstanding now: retry answers 3048.
    expect((await api(endpoints.params.retry.path, { deviceId: acId })).code).toBe(3048);
  });

  it('no answer → timeout; retry sends it again and it is applied', async () => {
    silent = true;
    await api(endpoints.params.set.path, { deviceId: acId, values: { cooling_stop_c: 27 } });
    const timedOut = await waitForState(acId, 'cooling_stop_c', 'timeout');
    expect(timedOut.reason).toBe('timeout');
    expect((await history(acId))[0]).toMatchObject({ key: 'cooling_stop_c', outcome: 'timeout' });
    silent = false;
    const retried = await api(endpoints.params.retry.path, { deviceId: acId });
    expect(retried.code, retried.msg).toBe(0);
    expect(retried.data.params.find((p: ParamRow) => p.key === 'cooling_stop_c')).toMatchObject({
      state: 'applied',
      reported: 27,
    });
    expect((await history(acId))[0]).toMatchObject({ key: 'cooling_stop_c', outcome: 'applied' });
  });

  it('a device running a newer version answers stale: the change goes out above it and is applied', async () => {
    const meter = [...behind.values()].find((d) => d.type === 'meter')!;
    meter.version = 40;
    const answer = await api(endpoints.params.set.path, { deviceId: meterId, values: { ct_ratio: 200 } });
    expect(answer.code, answer.msg).toBe(0);
    expect(answer.data.version).toBe(1);
    const applied = await waitForState(meterId, 'ct_ratio', 'applied');
    expect(applied.reported).toBe(200);
    expect(meter.version).toBe(41);
    const versions = ems
      .commands('set_params')
      .map((c) => c.params as { deviceSn: string; version: number })
      .filter((p) => p.deviceSn === meter.sn)
      .map((p) => p.version);
    expect(versions).toEqual([1, 41]);
    expect((await detail(meterId)).version).toBe(41);
  });

  it('a local change reported by the device is drift, with a history row of the device', async () => {
    const ac = device(acSn());
    ac.values.cooling_start_c = 35;
    await ems.publish('params', {
      id: unique('r'),
      ...ac.snapshot(),
      cause: 'local',
      changed: ['cooling_start_c'],
    });
    const drift = await waitForState(acId, 'cooling_start_c', 'drift');
    expect(drift).toMatchObject({ desired: 32, reported: 35 });
    expect((await history(acId))[0]).toMatchObject({
      source: 'device',
      key: 'cooling_start_c',
      oldValue: 32,
      newValue: 35,
      by: null,
    });
    const tree = await api(endpoints.params.tree.path, {});
    const node = tree.data.sites[0].devices.find((d: { deviceId: number }) => d.deviceId === acId);
    expect(node).toMatchObject({ drift: true });
  });

  it('read asks the device (get_params) and stores what it runs', async () => {
    const ac2 = [...behind.values()].find((d) => d.sn.startsWith('AC2-'))!;
    ac2.values.cooling_start_c = 29;
    const answer = await api(endpoints.params.read.path, { deviceId: ac2Id });
    expect(answer.code, answer.msg).toBe(0);
    expect(answer.data.reportedAt).not.toBeNull();
    expect(answer.data.params.find((p: ParamRow) => p.key === 'cooling_start_c')).toMatchObject({
      reported: 29,
      desired: null,
      state: 'in_sync',
    });
  });

  it('copy: one result per target, 3047 for another type or model', async () => {
    const answer = await api(endpoints.params.copy.path, {
      fromDeviceId: acId,
      toDeviceIds: [ac2Id, meterId, 999999],
    });
    expect(answer.code, answer.msg).toBe(0);
    const [ok, mismatch, missing] = answer.data.results;
    expect(ok).toMatchObject({ deviceId: ac2Id, code: 0, waiting: null });
    expect(mismatch).toMatchObject({ deviceId: meterId, code: 3047 });
    expect(missing).toMatchObject({ deviceId: 999999, code: 3030 });
    await waitForState(ac2Id, 'cooling_start_c', 'applied');
    expect((await row(ac2Id, 'cooling_start_c')).reported).toBe(32);
    expect((await history(ac2Id))[0]).toMatchObject({ source: 'copy' });
  });

  it('-100 naming the key for a range error and for the order rule; nothing stored', async () => {
    const before = (await history(acId)).length;
    const range = await api(endpoints.params.set.path, { deviceId: acId, values: { cooling_start_c: 45 } });
    expect(range.code).toBe(-100);
    expect(range.msg).toContain('cooling_start_c');
    const [rangeIssue] = validateParams('air_conditioner', { cooling_start_c: 45 }, { partial: true });
    expect(range.msg).toContain(paramIssueText('air_conditioner', rangeIssue!, 'en'));
    // Cooling stop at or above the cooling start (32 desired): broken order rule.
    const order = await api(
      endpoints.params.set.path,
      { deviceId: acId, values: { cooling_stop_c: 33 } },
      'zh',
    );
    expect(order.code).toBe(-100);
    expect(order.msg).toContain('cooling_stop_c');
    const orderIssue = validateParams(
      'air_conditioner',
      { cooling_stop_c: 33, cooling_start_c: 32 },
      { partial: true },
    )[0]!;
    expect(order.msg).toContain(paramIssueText('air_conditioner', orderIssue, 'zh'));
    const unknownKey = await api(endpoints.params.set.path, { deviceId: acId, values: { no_such_key: 1 } });
    expect(unknownKey.code).toBe(-100);
    expect(unknownKey.msg).toContain('no_such_key');
    expect(await history(acId)).toHaveLength(before);
  });

  it('initialize once: defaults stored, `initialize` sent; the second time 3049', async () => {
    const first = await api(endpoints.params.initialize.path, {
      siteId,
      network: { ip_mode: 'dhcp', mqtt_host: 'mqtt.example.com', mqtt_port: 8883 },
    });
    expect(first.code, first.msg).toBe(0);
    expect(first.data).toMatchObject({ devices: 4, waiting: null });
    await waitFor(() => ems.commands('initialize').length === 1);
    expect(ems.commands('initialize')[0]!.params).toEqual({
      timezone: 'Asia/Shanghai',
      network: { ip_mode: 'dhcp', mqtt_host: 'mqtt.example.com', mqtt_port: 8883 },
    });
    expect((await history(emsId))[0]).toMatchObject({ source: 'initialize' });
    const second = await api(endpoints.params.initialize.path, { siteId });
    expect(second.code).toBe(3049);
    const tree = await api(endpoints.params.tree.path, {});
    expect(tree.data.sites[0].initializedAt).toBe(first.data.initializedAt);
    await ctx.app.paramsPush.settled();
    expect(unhandled).toEqual([]);
  });
});
