/**
 * The parameters of a simulated gateway's devices (docs/device-protocol.md "Parameters"): what
 * each device runs, the version of the last `set_params` it took and its answer to it, and
 * whether the gateway was initialized. Pure functions over a {@link GatewayParams} value, plus
 * reading and writing it as one small JSON file per gateway (`<dir>/<gatewaySn>.json`), so the
 * parameters survive a restart of the simulated site.
 *
 * Every change goes through the contract's `applyParamChanges` (the same validator as the
 * console and the server); the model follows through `settingsOf` (model/settings.ts).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  applyParamChanges,
  DEVICE_TYPES,
  type DeviceType,
  type ParamChangeResult,
  type ParamsSnapshot,
  type ParamValue,
  paramChangeResult,
  paramDef,
  paramDefs,
  type SetParamsResult,
  setParamsResult,
} from '@ess/contract';
import { z } from 'zod';
import type { FleetSite } from './fleet';
import { PROFILES, scaledProfile } from './model/profiles';
import {
  initialParams,
  initialParamsOptionsOf,
  type ParamsByType,
  type ParamValues,
  type SiteSettings,
  settingsFromParams,
} from './model/settings';

/** The answer a device gave to the `set_params` of its version in force (repeated as is). */
export interface ParamsAnswer {
  ok: boolean;
  error?: string;
  result: SetParamsResult;
}

/** One device's parameters. */
export interface DeviceParams {
  type: DeviceType;
  /** Version of the last `set_params` taken (0: none). */
  version: number;
  values: ParamValues;
  /** Its answer to the `set_params` of `version`. */
  answer?: ParamsAnswer;
}

/** The parameters of every device behind one gateway. */
export interface GatewayParams {
  /** `initialize` was performed (a second one is refused). */
  initialized: boolean;
  /** By device SN (the gateway's own EMS included). */
  devices: Readonly<Record<string, DeviceParams>>;
}

/** Where the gateway connects to (the EMS's `mqtt_host` / `mqtt_port` before anyone sets them). */
export interface BrokerAddress {
  mqttHost?: string;
  mqttPort?: number;
}

/** The broker address of an MQTT URL (port 1883 / 8883 when it has none); {} when unparsable. */
export function brokerAddressOf(url: string): BrokerAddress {
  try {
    const u = new URL(url);
    const tls = u.protocol === 'mqtts:' || u.protocol === 'wss:';
    return {
      mqttHost: u.hostname.replace(/^\[|\]$/g, ''),
      mqttPort: u.port ? Number(u.port) : tls ? 8883 : 1883,
    };
  } catch {
    return {};
  }
}

/** True when devices of `type` have parameters (PV inverters and environment sensors have none). */
export function hasParams(type: DeviceType): boolean {
  return paramDefs(type).length > 0;
}

/** The parameters of `site`'s devices before anyone configured them (model/settings.ts `initialParams`). */
export function initialGatewayParams(site: FleetSite, broker: BrokerAddress = {}): GatewayParams {
  const profile = scaledProfile(PROFILES[site.profile], site.units ?? 1);
  const devices: Record<string, DeviceParams> = {};
  for (const d of site.devices) {
    devices[d.sn] = {
      type: d.type,
      version: 0,
      values: initialParams(d.type, profile, { ...initialParamsOptionsOf(site), ...broker }),
    };
  }
  return { initialized: false, devices };
}

/** The model's settings from the parameters of the site's devices (one of each type). */
export function settingsOf(params: GatewayParams): SiteSettings {
  const byType: ParamsByType = {};
  for (const d of Object.values(params.devices)) byType[d.type] ??= d.values;
  return settingsFromParams(byType);
}

/** What device `sn` runs (the `result` of `get_params`, the body of a `params` report). */
export function snapshotOf(params: GatewayParams, sn: string): ParamsSnapshot | undefined {
  const d = params.devices[sn];
  return d && { deviceSn: sn, deviceType: d.type, version: d.version, values: { ...d.values } };
}

/** `params` with device `sn` replaced by `device`. */
export function withDevice(params: GatewayParams, sn: string, device: DeviceParams): GatewayParams {
  return { ...params, devices: { ...params.devices, [sn]: device } };
}

/**
 * Applies `changes` to device `sn` as its own screen or a tool on its bus does (no version):
 * each change through the contract's `applyParamChanges`, except the keys in `refused` (the
 * device's own refusals, key → reason in English). Returns the new parameters, the per-key
 * results (wire form) and the keys whose value changed.
 */
export function changeParams(
  params: GatewayParams,
  sn: string,
  changes: Readonly<Record<string, ParamValue>>,
  refused: ReadonlyMap<string, string> = new Map(),
): { params: GatewayParams; results: Record<string, ParamChangeResult>; changed: string[] } {
  const d = params.devices[sn];
  if (!d) throw new Error(`unknown device ${sn}`);
  const own: Record<string, ParamChangeResult> = {};
  const rest: Record<string, ParamValue> = {};
  for (const [k, v] of Object.entries(changes)) {
    const reason = refused.get(k);
    if (reason !== undefined) own[k] = { status: 'refused', value: d.values[k] ?? null, reason };
    else rest[k] = v;
  }
  const applied = applyParamChanges(d.type, d.values, rest);
  const results: Record<string, ParamChangeResult> = {};
  for (const k of Object.keys(changes)) {
    results[k] = own[k] ?? paramChangeResult(d.type, applied.results[k]!);
  }
  const changed = Object.keys(rest).filter(
    (k) => applied.results[k]?.status === 'applied' && d.values[k] !== applied.values[k],
  );
  return { params: withDevice(params, sn, { ...d, values: applied.values }), results, changed };
}

/* ───────────── persistence ───────────── */

const storedSchema = z.object({
  v: z.literal(1),
  gatewaySn: z.string(),
  initialized: z.boolean(),
  devices: z.record(
    z.string(),
    z.object({
      type: z.enum(DEVICE_TYPES),
      version: z.number().int().min(0),
      values: z.record(z.string(), z.union([z.number(), z.string()])),
      answer: z.object({ ok: z.boolean(), error: z.string().optional(), result: setParamsResult }).optional(),
    }),
  ),
});

/** The file of gateway `sn` in `dir`. */
export function paramsFile(dir: string, sn: string): string {
  return path.join(dir, `${sn}.json`);
}

/**
 * The parameters of `site` as last saved in `dir` over its initial ones: for each device of the
 * site of the same type, its version, answer and the values of keys its type still has. A
 * missing file gives the initial parameters; an unreadable one too, with `onError` told why.
 */
export function loadGatewayParams(
  dir: string,
  site: FleetSite,
  broker: BrokerAddress = {},
  onError: (message: string) => void = () => {},
): GatewayParams {
  const initial = initialGatewayParams(site, broker);
  const file = paramsFile(dir, site.gatewaySn);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') onError(`${file}: ${(e as Error).message}`);
    return initial;
  }
  let stored: z.infer<typeof storedSchema>;
  try {
    stored = storedSchema.parse(JSON.parse(text));
  } catch (e) {
    onError(
      `${file}: not a parameter file (${(e as Error).message.slice(0, 200)}); starting from the defaults`,
    );
    return initial;
  }
  const devices: Record<string, DeviceParams> = { ...initial.devices };
  for (const [sn, s] of Object.entries(stored.devices)) {
    const d = devices[sn];
    if (!d || d.type !== s.type) continue;
    const values = { ...d.values };
    for (const [k, v] of Object.entries(s.values)) if (paramDef(d.type, k)) values[k] = v;
    devices[sn] = { type: d.type, version: s.version, values, ...(s.answer ? { answer: s.answer } : {}) };
  }
  return { initialized: stored.initialized, devices };
}

/** Saves `params` of gateway `sn` to `dir` (written aside, then renamed: never half a file). */
export function saveGatewayParams(dir: string, sn: string, params: GatewayParams): void {
  mkdirSync(dir, { recursive: true });
  const file = paramsFile(dir, sn);
  const aside = `${file}.${process.pid}.tmp`;
  const body = { v: 1, gatewaySn: sn, initialized: params.initialized, devices: params.devices };
  writeFileSync(aside, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(aside, file);
}
