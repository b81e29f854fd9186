/**
 * The simulated EMS answers get_params / set_params / initialize with the contract's validator
 * and version rule, and keeps its parameters in a file across a restart.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  INITIALIZATION_DONE_ERROR,
  paramsSnapshotSchema,
  replyPayload,
  setParamsResult,
  validateParams,
} from '@ess/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFleet } from '../src/fleet';
import type { SiteState } from '../src/model/site';
import {
  type GatewayParams,
  hasParams,
  initialGatewayParams,
  loadGatewayParams,
  paramsFile,
  saveGatewayParams,
} from '../src/params';
import { type CommandOutcome, handleCommand } from '../src/payloads';
import { createSimSite } from '../src/sim-site';

const START = Date.UTC(2025, 6, 15, 2, 0);
const fleet = buildFleet({ seed: 1, sites: 5 });
const site = fleet[0]!;
const AC = site.devices.find((d) => d.type === 'air_conditioner')!.sn;
const EMS = site.gatewaySn;

interface Device {
  state: SiteState;
  params: GatewayParams;
  refusals?: Map<string, Map<string, string>>;
}

function fresh(): Device {
  return { state: createSimSite(site, 1, START), params: initialGatewayParams(site) };
}

let seq = 0;
/** Sends command `name` to `d`; returns the outcome and `d` moved on to it. */
function send(d: Device, name: string, params: Record<string, unknown>): CommandOutcome {
  const out = handleCommand(
    {
      state: d.state,
      clockOffsetMs: 0,
      simNowMs: START,
      devices: { site, params: d.params, ...(d.refusals ? { refusals: d.refusals } : {}) },
    },
    JSON.stringify({ v: 1, id: `c-${++seq}`, ts: START, name, params }),
  );
  expect(replyPayload.safeParse(out.reply).success).toBe(true);
  d.state = out.state;
  if (out.params) d.params = out.params;
  return out;
}

describe('get_params', () => {
  it('answers what each device runs: the defaults completed with its own values, all valid', () => {
    for (const s of fleet) {
      const d: Device = { state: createSimSite(s, 1, START), params: initialGatewayParams(s) };
      for (const dev of s.devices) {
        const out = send(d, 'get_params', { deviceSn: dev.sn });
        expect(out.reply?.ok).toBe(true);
        const snap = paramsSnapshotSchema.parse(out.reply?.result);
        expect(snap).toMatchObject({ deviceSn: dev.sn, deviceType: dev.type, version: 0 });
        expect(validateParams(dev.type, snap.values)).toEqual([]);
        expect(Object.keys(snap.values).length > 0).toBe(hasParams(dev.type));
      }
    }
    const ems = send(fresh(), 'get_params', { deviceSn: EMS }).reply?.result as { values: object };
    expect(ems.values).toMatchObject({
      operating_mode: 'tou',
      export_limit_kw: 0,
      soc_min_pct: 5,
      soc_max_pct: 100,
      timezone: 'Asia/Shanghai',
    });
    const station = fleet.find((s) => s.kind === 'station')!;
    const st = send(
      { state: createSimSite(station, 1, START), params: initialGatewayParams(station) },
      'get_params',
      { deviceSn: station.gatewaySn },
    );
    expect(st.reply?.result).toMatchObject({ values: { export_limit_kw: 10_000 } });
  });

  it('refuses a device it does not have and a malformed request', () => {
    expect(send(fresh(), 'get_params', { deviceSn: 'AC-NOPE-01' }).reply).toMatchObject({
      ok: false,
      error: `unknown device AC-NOPE-01 behind gateway ${EMS}`,
    });
    expect(send(fresh(), 'get_params', {}).reply).toMatchObject({ ok: false });
  });
});

describe('set_params', () => {
  it('applies a newer version change by change, the model follows, get_params shows it', () => {
    const d = fresh();
    const out = send(d, 'set_params', { deviceSn: AC, version: 1, values: { cooling_start_c: 30 } });
    expect(out.reply).toMatchObject({ ok: true });
    expect(setParamsResult.parse(out.reply?.result)).toEqual({
      deviceSn: AC,
      version: 1,
      results: { cooling_start_c: { status: 'applied', value: 30 } },
    });
    expect(d.state.settings.coolingStartC).toBe(30);
    expect(send(d, 'get_params', { deviceSn: AC }).reply?.result).toMatchObject({
      version: 1,
      values: { cooling_start_c: 30, cooling_stop_c: 25 },
    });
  });

  it('refuses each broken value with the validator’s reason and applies the others: ok only when all applied', () => {
    const d = fresh();
    const out = send(d, 'set_params', {
      deviceSn: AC,
      version: 3,
      values: { cooling_start_c: 45, heating_start_c: 12 },
    });
    expect(out.reply?.ok).toBe(false);
    expect(out.reply?.error).toBe('cooling_start_c: Cooling start temperature must be between 25.0 and 40.0');
    expect(out.reply?.result).toMatchObject({
      version: 3,
      results: {
        cooling_start_c: {
          status: 'refused',
          value: 28,
          messageKey: 'paramOutOfRange',
          params: { min: '25.0', max: '40.0' },
        },
        heating_start_c: { status: 'applied', value: 12 },
      },
    });
    expect([d.state.settings.coolingStartC, d.state.settings.heatingStartC]).toEqual([28, 12]);
    // a rule between parameters: the cooling stop must stay below the cooling start
    const order = send(d, 'set_params', { deviceSn: AC, version: 4, values: { cooling_stop_c: 29 } });
    expect(order.reply?.error).toMatch(/^cooling_stop_c: /);
    expect(d.params.devices[AC]!.version).toBe(4);
  });

  it('answers a repeated version as the first time and a stale one not at all', () => {
    const d = fresh();
    const first = send(d, 'set_params', { deviceSn: AC, version: 5, values: { cooling_start_c: 31 } });
    // changed on the device since: the late duplicate must not undo that
    d.params = {
      ...d.params,
      devices: {
        ...d.params.devices,
        [AC]: { ...d.params.devices[AC]!, values: { ...d.params.devices[AC]!.values, cooling_start_c: 33 } },
      },
    };
    const again = send(d, 'set_params', { deviceSn: AC, version: 5, values: { cooling_start_c: 31 } });
    expect(again.reply).toMatchObject({ ok: true, result: { ...first.reply?.result, repeated: true } });
    expect(again.params).toBeUndefined();
    expect(d.params.devices[AC]!.values.cooling_start_c).toBe(33);

    const stale = send(d, 'set_params', { deviceSn: AC, version: 4, values: { cooling_start_c: 26 } });
    expect(stale.reply).toMatchObject({
      ok: false,
      error: 'params version 4 is older than version 5 in force; ignored',
      result: { deviceSn: AC, version: 5, results: {}, stale: true },
    });
    expect(stale.params).toBeUndefined();
    expect(d.params.devices[AC]!.values.cooling_start_c).toBe(33);
  });

  it('a device told to refuse a key refuses it with its own reason (test switch)', () => {
    const d = fresh();
    d.refusals = new Map([[AC, new Map([['cooling_start_c', 'locked by the local controller']])]]);
    const out = send(d, 'set_params', {
      deviceSn: AC,
      version: 1,
      values: { cooling_start_c: 30, high_temp_alarm_c: 50 },
    });
    expect(out.reply).toMatchObject({
      ok: false,
      error: 'cooling_start_c: locked by the local controller',
      result: {
        results: {
          cooling_start_c: { status: 'refused', value: 28, reason: 'locked by the local controller' },
          high_temp_alarm_c: { status: 'applied', value: 50 },
        },
      },
    });
    expect(setParamsResult.parse(out.reply?.result).results.cooling_start_c?.messageKey).toBeUndefined();
  });
});

describe('initialize', () => {
  const network = {
    ip_mode: 'static',
    ip_address: '192.168.10.20',
    subnet_mask: '255.255.255.0',
    default_gateway: '192.168.10.1',
    dns_primary: '223.5.5.5',
  };

  it('takes the time zone and network once; a second time answers "initialization already performed"', () => {
    const d = fresh();
    const out = send(d, 'initialize', { timezone: 'Asia/Urumqi', network });
    expect(out.reply?.ok).toBe(true);
    expect(out.reply?.result).toMatchObject({
      deviceSn: EMS,
      values: { timezone: 'Asia/Urumqi', ...network },
    });
    expect(d.params.initialized).toBe(true);
    expect(send(d, 'initialize', { timezone: 'Asia/Shanghai', network: {} }).reply).toMatchObject({
      ok: false,
      error: INITIALIZATION_DONE_ERROR,
    });
    expect(d.params.devices[EMS]!.values.timezone).toBe('Asia/Urumqi');
  });

  it('a wrong network value refuses the whole initialization, which can then be done right', () => {
    const d = fresh();
    const bad = send(d, 'initialize', {
      timezone: 'Asia/Shanghai',
      network: { ...network, default_gateway: '10.0.0.1' },
    });
    expect(bad.reply?.ok).toBe(false);
    expect(bad.reply?.error).toMatch(/^default_gateway: /);
    expect(d.params.initialized).toBe(false);
    expect(d.params.devices[EMS]!.values.ip_mode).toBe('dhcp');
    expect(send(d, 'initialize', { timezone: 'Asia/Shanghai', network }).reply?.ok).toBe(true);
  });
});

describe('persistence', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sim-params-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a restarted site runs what it was set to: values, version, answer and initialization', () => {
    const d = fresh();
    send(d, 'set_params', { deviceSn: AC, version: 2, values: { cooling_start_c: 32 } });
    const first = send(d, 'set_params', { deviceSn: EMS, version: 7, values: { export_limit_kw: 12.5 } });
    saveGatewayParams(dir, EMS, d.params);

    const restarted = loadGatewayParams(dir, site);
    expect(restarted).toEqual(d.params);
    const after: Device = { state: createSimSite(site, 1, START), params: restarted };
    // the gateway applies the settings at start (gateway.ts); here the first command does
    const again = send(after, 'set_params', { deviceSn: EMS, version: 7, values: { export_limit_kw: 12.5 } });
    expect(again.reply?.result).toEqual({ ...first.reply?.result, repeated: true });
    expect(send(after, 'get_params', { deviceSn: AC }).reply?.result).toMatchObject({
      version: 2,
      values: { cooling_start_c: 32 },
    });
  });

  it('starts from the defaults when the file is missing or not a parameter file, and says why', () => {
    const other = fleet[1]!;
    expect(loadGatewayParams(dir, other)).toEqual(initialGatewayParams(other));
    writeFileSync(paramsFile(dir, other.gatewaySn), '{"v":9}');
    const errors: string[] = [];
    expect(loadGatewayParams(dir, other, {}, (m) => errors.push(m))).toEqual(initialGatewayParams(other));
    expect(errors).toEqual([expect.stringContaining('not a parameter file')]);
  });
});
