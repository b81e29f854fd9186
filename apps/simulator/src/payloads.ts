/**
 * Pure builders of the device-protocol payloads of a simulated gateway and its command
 * handling (docs/device-protocol.md; schemas in `@ess/contract`). No MQTT here: gateway.ts
 * publishes what these functions return.
 */
import {
  COMMAND_NAMES,
  type CommandName,
  commandPayload,
  DEVICE_TYPES,
  type DeviceType,
  debugFrameParams,
  describeIssuePath,
  ErrorCode,
  type EventPayload,
  errorMessage,
  getParamsParams,
  INITIALIZATION_DONE_ERROR,
  initializeParams,
  type OfflineReason,
  type ParamChangeResult,
  type ParamsReportPayload,
  type ParamValue,
  PROTOCOL_VERSION,
  paramsVersionVerdict,
  type ReplyPayload,
  type SetParamsResult,
  type SetTouPlanParams,
  type StatusPayload,
  setParamsError,
  setParamsParams,
  setTouPlanParams,
  staleParamsError,
  type TelemetryPayload,
  type TouSchemeDocument,
  validateScheme,
} from '@ess/contract';
import type { z } from 'zod';
import type { FleetSite } from './fleet';
import type { AlarmEvent } from './model/alarms';
import { applySettings, type SiteReadings, type SiteState, setTouPlan } from './model/site';
import type { OtaAnswer } from './ota';
import { changeParams, type GatewayParams, settingsOf, snapshotOf, withDevice } from './params';
import { answerFrame, busTimeMs } from './registers';

/** SN of the site's device of `type` (the first one registered). */
export function snOf(site: FleetSite, type: DeviceType): string | undefined {
  return site.devices.find((d) => d.type === type)?.sn;
}

/**
 * Birth (`online: true`) or death payload of the status topic. The birth carries the firmware
 * the gateway runs (`firmware`) and each device behind it (`devices[]`: SN, firmware, model):
 * `opts.firmware` by SN (what an upgrade installed, ota.ts), else the fleet's.
 */
export function buildStatus(
  site: FleetSite,
  ts: number,
  online: boolean,
  opts: {
    reason?: Exclude<OfflineReason, 'timeout'>;
    intervalS?: number;
    firmware?: Readonly<Record<string, string>>;
  } = {},
): StatusPayload {
  if (!online) return { v: PROTOCOL_VERSION, ts, online, reason: opts.reason ?? 'clean' };
  const behind = site.devices.filter((d) => d.sn !== site.gatewaySn);
  return {
    v: PROTOCOL_VERSION,
    ts,
    online,
    firmware: opts.firmware?.[site.gatewaySn] ?? site.firmware,
    model: site.devices.find((d) => d.type === 'ems')?.model ?? site.profile,
    ...(opts.intervalS ? { intervalS: opts.intervalS } : {}),
    ...(behind.length > 0
      ? {
          devices: behind.map((d) => ({
            sn: d.sn,
            firmware: opts.firmware?.[d.sn] ?? d.firmware,
            model: d.model,
          })),
        }
      : {}),
  };
}

/**
 * Telemetry of all devices of the site from one step's readings. `withCells` adds the BMS
 * per-cell arrays (the gateway does that on every 5th message); devices in `skip` (rebooting
 * after an upgrade) are left out.
 */
export function buildTelemetry(
  site: FleetSite,
  readings: SiteReadings,
  opts: { id: string; ts: number; withCells: boolean; skip?: ReadonlySet<string> },
): TelemetryPayload {
  const devices: TelemetryPayload['devices'] = [];
  // Devices in the contract's order of types (gateway first).
  for (const type of DEVICE_TYPES) {
    const points = readings[type];
    const sn = snOf(site, type);
    if (!points || !sn || opts.skip?.has(sn)) continue;
    devices.push({
      sn,
      type,
      points,
      ...(type === 'bms' && opts.withCells
        ? { cells: { u_v: readings.cells.u_v, t_c: readings.cells.t_c } }
        : {}),
    });
  }
  return { v: PROTOCOL_VERSION, id: opts.id, ts: opts.ts, devices };
}

/** Event payload for the alarm events of one step (the caller skips empty lists). */
export function buildEvents(
  site: FleetSite,
  events: readonly AlarmEvent[],
  opts: { id: string; ts: number },
): EventPayload {
  return {
    v: PROTOCOL_VERSION,
    id: opts.id,
    ts: opts.ts,
    events: events.map((e) => ({
      deviceSn: snOf(site, e.device) ?? site.gatewaySn,
      kind: e.kind,
      code: e.code,
      level: e.level,
      content: e.content.slice(0, 500),
      value: e.value,
    })),
  };
}

/**
 * The devices behind a gateway and their parameters (params.ts), for the parameter, debugging
 * and initialization commands.
 */
export interface DevicesContext {
  site: FleetSite;
  params: GatewayParams;
  /** Readings of the last model step (the register map's input registers); none before the first. */
  readings?: SiteReadings;
  /** Test switch: device SN → parameter key → the device's own reason to refuse it. */
  refusals?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** What the gateway's command handler may change. */
export interface CommandContext {
  state: SiteState;
  /** Device clock − simulation clock, ms. */
  clockOffsetMs: number;
  /** Simulation clock now, ms. */
  simNowMs: number;
  /** Absent: the parameter, debugging and initialization commands are refused. */
  devices?: DevicesContext;
  /** The gateway's upgrades (ota.ts `OtaAgent.command`); absent: `ota_upgrade` is refused. */
  ota?: (params: Record<string, unknown>) => OtaAnswer;
}

export interface CommandOutcome {
  state: SiteState;
  clockOffsetMs: number;
  /** Undefined when the message has no usable id (nothing to reply to). */
  reply?: ReplyPayload;
  name?: string;
  /** The devices' parameters when the command changed them (the gateway saves them). */
  params?: GatewayParams;
  /** Devices whose parameters changed outside `set_params` (a register write): report them, `cause: 'local'`. */
  localChanges?: Array<{ deviceSn: string; changed: string[] }>;
  /** Send the reply after this many ms (the bus time of `debug_frame`, its timeout when the bus stays silent). */
  delayMs?: number;
}

/**
 * The `params` report (`ess/v1/<sn>/params`) of device `deviceSn`: what it runs, whole
 * (docs/device-protocol.md "params"); undefined for a device the gateway does not have.
 */
export function buildParamsReport(
  params: GatewayParams,
  deviceSn: string,
  opts: { id: string; ts: number; cause: 'local' | 'startup'; changed?: string[] },
): ParamsReportPayload | undefined {
  const snap = snapshotOf(params, deviceSn);
  if (!snap) return undefined;
  return {
    v: PROTOCOL_VERSION,
    id: opts.id,
    ts: opts.ts,
    cause: opts.cause,
    ...snap,
    ...(opts.changed ? { changed: opts.changed } : {}),
  };
}

/** The state following `params` (the model's settings from them). */
function following(state: SiteState, params: GatewayParams): SiteState {
  return applySettings(state, settingsOf(params));
}

function issueText(error: z.ZodError): string {
  const i = error.issues[0];
  if (!i) return 'invalid';
  const path = i.path.length ? `${i.path.join('.')}: ` : '';
  return `${path}${i.message}`.slice(0, 500);
}

/**
 * Why the EMS refuses a scheme, in English: the first broken rule's catalogue text with where it
 * is (`daily plan "Workday", period 2: Periods must not overlap or conflict`), and how many more
 * there are; undefined when the EMS can run it.
 *
 * Every rule of tou/rules.ts is checked except 3076 (yearly settings before the current year
 * must be deleted): that one keeps the operator's editing tidy; the EMS cannot enforce it
 * against its own calendar — a scheme applied in December and resent after 1 January would be
 * refused — and a past year's setting simply never matches a day.
 */
export function schemeRefusal(scheme: TouSchemeDocument): string | undefined {
  // `today` only fixes the current year of 3076, which is dropped.
  const issues = validateScheme(scheme, { today: '1970-01-01' }).filter(
    (i) => i.code !== ErrorCode.TOU_YEAR_BEFORE_CURRENT,
  );
  const first = issues[0];
  if (!first) return undefined;
  const where = describeIssuePath(scheme, first.path, 'en');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${where ? `${where}: ` : ''}${errorMessage(first.code, 'en', first.params)}${more}`.slice(0, 500);
}

/**
 * Why the EMS ignores a scheme of the same `schemeId` at a lower `version` than the one it runs
 * (a late or stale send must not undo a newer save); undefined when `next` may run. The same
 * version again (a resend at a reconnect) and any version of another scheme are taken.
 */
export function staleVersionRefusal(
  running: SetTouPlanParams | null,
  next: Pick<SetTouPlanParams, 'schemeId' | 'version'>,
): string | undefined {
  if (!running || running.schemeId !== next.schemeId || next.version >= running.version) return undefined;
  return `scheme ${next.schemeId} version ${next.version} is older than version ${running.version} in force; ignored`;
}

/**
 * Handles one message of the gateway's `cmd` topic:
 * - `time_sync` `{serverTs}`: sets the device clock to the server's (the offset applies to every
 *   timestamp the gateway sends from then on); replies ok with the applied offset;
 * - `set_tou_plan` `{schemeId, version, timezone, scheme}` (contract `setTouPlanParams`): checks
 *   the shape (the time zone included) and every plan rule but 3076 ({@link schemeRefusal}),
 *   refuses a lower version of the scheme it runs ({@link staleVersionRefusal}) and, when all
 *   hold, runs the scheme from the next model step on (replacing the previous one or the default
 *   plan) and replies `result: {version}`; otherwise replies `ok: false` with the reason in
 *   English and keeps what it ran before;
 * - `get_params` `{deviceSn}`: what the gateway or a device behind it runs (params/messages.ts
 *   `paramsSnapshotSchema`);
 * - `set_params` `{deviceSn, version, values}`: the contract's version rule (`paramsVersionVerdict`:
 *   a higher version is applied, the same one answered as the first time with `repeated`, a
 *   lower one refused whole with `stale`); each change through the contract's
 *   `applyParamChanges` (or refused with the device's own reason by the test switch
 *   `refusals`); replies `setParamsResult`, `ok` only when every change was applied, `error`
 *   the contract's `setParamsError`; the model follows from the next step on;
 * - `initialize` `{timezone, network}` (device-commands.ts): the first time, the EMS takes the
 *   time zone and network values (all or nothing, through the validator) and replies its
 *   parameters; afterwards `ok: false` with {@link INITIALIZATION_DONE_ERROR};
 * - `debug_frame` `{port, hex, timeoutMs}`: answered from the register map (registers.ts) after
 *   the bus time (`delayMs`), or `hex: null` after `timeoutMs` when no device answers; a write
 *   that is applied is reported as a local change;
 * - `ota_upgrade` (contract device/ota.ts): answered by the gateway's OTA agent (`ctx.ota`,
 *   ota.ts: accepted and run in the background, or refused with `result: {reason}`);
 * - anything else: `ok: false`. A message that is not JSON or has no string `id` gets no reply.
 */
export function handleCommand(ctx: CommandContext, raw: Buffer | string): CommandOutcome {
  const keep: CommandOutcome = { state: ctx.state, clockOffsetMs: ctx.clockOffsetMs };
  let msg: unknown;
  try {
    msg = JSON.parse(raw.toString());
  } catch {
    return keep;
  }
  const id = (msg as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) return keep;
  const reply = (ok: boolean, clockOffsetMs: number, extra: Partial<ReplyPayload> = {}): ReplyPayload => ({
    v: PROTOCOL_VERSION,
    id,
    ts: Math.round(ctx.simNowMs + clockOffsetMs),
    ok,
    ...extra,
  });
  const name = (msg as { name?: unknown }).name;
  if (typeof name !== 'string' || !(COMMAND_NAMES as readonly string[]).includes(name)) {
    return {
      ...keep,
      reply: reply(false, ctx.clockOffsetMs, { error: `unknown command "${String(name)}"` }),
    };
  }
  const parsed = commandPayload.safeParse(msg);
  if (!parsed.success) {
    return { ...keep, name, reply: reply(false, ctx.clockOffsetMs, { error: issueText(parsed.error) }) };
  }
  const params = parsed.data.params;
  switch (name as CommandName) {
    case 'ota_upgrade': {
      const a = ctx.ota?.(params) ?? { ok: false, error: 'ota_upgrade: this gateway cannot upgrade' };
      return {
        ...keep,
        name,
        reply: reply(a.ok, ctx.clockOffsetMs, {
          ...(a.error ? { error: a.error.slice(0, 500) } : {}),
          ...(a.result ? { result: a.result } : {}),
        }),
      };
    }
    case 'time_sync': {
      const serverTs = params.serverTs;
      if (typeof serverTs !== 'number' || !Number.isFinite(serverTs) || serverTs <= 0) {
        return {
          ...keep,
          name,
          reply: reply(false, ctx.clockOffsetMs, { error: 'params.serverTs must be a positive number' }),
        };
      }
      const offset = Math.round(serverTs - ctx.simNowMs);
      return {
        state: ctx.state,
        clockOffsetMs: offset,
        name,
        reply: reply(true, offset, { result: { offsetMs: offset } }),
      };
    }
    case 'set_tou_plan': {
      const refuse = (error: string): CommandOutcome => ({
        ...keep,
        name,
        reply: reply(false, ctx.clockOffsetMs, { error: error.slice(0, 500) }),
      });
      const p = setTouPlanParams.safeParse(params);
      if (!p.success) return refuse(`params: ${issueText(p.error)}`);
      const refusal = schemeRefusal(p.data.scheme) ?? staleVersionRefusal(ctx.state.touPlan, p.data);
      if (refusal) return refuse(refusal);
      const { version } = p.data;
      return {
        state: setTouPlan(ctx.state, p.data),
        clockOffsetMs: ctx.clockOffsetMs,
        name,
        reply: reply(true, ctx.clockOffsetMs, { result: { version } }),
      };
    }
    case 'get_params':
    case 'set_params':
    case 'initialize':
    case 'debug_frame': {
      const refuse = (error: string): CommandOutcome => ({
        ...keep,
        name,
        reply: reply(false, ctx.clockOffsetMs, { error: error.slice(0, 500) }),
      });
      const dev = ctx.devices;
      if (!dev) return refuse(`${name}: this gateway has no devices with parameters`);
      const answer = (
        ok: boolean,
        result: Record<string, unknown>,
        more: { error?: string | undefined; params?: GatewayParams; delayMs?: number } = {},
      ): CommandOutcome => ({
        state: more.params ? following(ctx.state, more.params) : ctx.state,
        clockOffsetMs: ctx.clockOffsetMs,
        name,
        reply: reply(ok, ctx.clockOffsetMs, { result, ...(more.error ? { error: more.error } : {}) }),
        ...(more.params ? { params: more.params } : {}),
        ...(more.delayMs !== undefined ? { delayMs: more.delayMs } : {}),
      });
      const unknownDevice = (sn: string) =>
        refuse(`unknown device ${sn} behind gateway ${dev.site.gatewaySn}`);
      if (name === 'get_params') {
        const p = getParamsParams.safeParse(params);
        if (!p.success) return refuse(`params: ${issueText(p.error)}`);
        const snap = snapshotOf(dev.params, p.data.deviceSn);
        return snap ? answer(true, snap) : unknownDevice(p.data.deviceSn);
      }
      if (name === 'set_params') {
        const p = setParamsParams.safeParse(params);
        if (!p.success) return refuse(`params: ${issueText(p.error)}`);
        const { deviceSn, version, values } = p.data;
        const device = dev.params.devices[deviceSn];
        if (!device) return unknownDevice(deviceSn);
        const verdict = paramsVersionVerdict(device.version, version);
        if (verdict === 'stale') {
          const result: SetParamsResult = { deviceSn, version: device.version, results: {}, stale: true };
          return answer(false, result, { error: staleParamsError(version, device.version) });
        }
        if (verdict === 'repeat') {
          const first = device.answer ?? repeatWithoutAnswer(device.values, deviceSn, version, values);
          return answer(first.ok, { ...first.result, repeated: true }, { error: first.error });
        }
        const changed = changeParams(dev.params, deviceSn, values, dev.refusals?.get(deviceSn));
        const ok = Object.values(changed.results).every((r) => r.status === 'applied');
        const error = setParamsError(changed.results);
        const result: SetParamsResult = { deviceSn, version, results: changed.results };
        const next = changed.params.devices[deviceSn]!;
        const stored = withDevice(changed.params, deviceSn, {
          ...next,
          version,
          answer: { ok, ...(error ? { error } : {}), result },
        });
        return answer(ok, result, { error, params: stored });
      }
      if (name === 'initialize') {
        const p = initializeParams.safeParse(params);
        if (!p.success) return refuse(`params: ${issueText(p.error)}`);
        if (dev.params.initialized) return refuse(INITIALIZATION_DONE_ERROR);
        const sn = dev.site.gatewaySn;
        const ems = dev.params.devices[sn];
        if (!ems) return unknownDevice(sn);
        const changes: Record<string, ParamValue> = { ...p.data.network, timezone: p.data.timezone };
        // all or nothing: a refused value leaves the gateway as it was, not initialized
        const changed = changeParams(dev.params, sn, changes);
        const error = setParamsError(changed.results);
        if (error) return refuse(error);
        const next: GatewayParams = { ...changed.params, initialized: true };
        return answer(true, snapshotOf(next, sn)!, { params: next });
      }
      // debug_frame
      const p = debugFrameParams.safeParse(params);
      if (!p.success) return refuse(`params: ${issueText(p.error)}`);
      const { port, hex, timeoutMs } = p.data;
      const frame = Uint8Array.from(hex.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
      const frameAnswer = answerFrame(dev.site, dev.params, dev.readings, port, frame, (sn, changes) => {
        const r = changeParams(dev.params, sn, changes, dev.refusals?.get(sn)).results;
        return setParamsError(r);
      });
      if (!frameAnswer.response) return answer(true, { hex: null, busMs: timeoutMs }, { delayMs: timeoutMs });
      const busMs = busTimeMs(port, frame.length, frameAnswer.response.length);
      const respHex = Array.from(frameAnswer.response, (b) => b.toString(16).padStart(2, '0')).join('');
      if (!frameAnswer.write) return answer(true, { hex: respHex, busMs }, { delayMs: busMs });
      const { sn, changes } = frameAnswer.write;
      const changed = changeParams(dev.params, sn, changes);
      const out = answer(true, { hex: respHex, busMs }, { params: changed.params, delayMs: busMs });
      return changed.changed.length > 0
        ? { ...out, localChanges: [{ deviceSn: sn, changed: changed.changed }] }
        : out;
    }
  }
}

/**
 * The answer to a `set_params` repeated at the version in force when the first answer is not
 * known (a parameter file from before answers were kept): each change applied when the device
 * runs its value, else refused as changed since.
 */
function repeatWithoutAnswer(
  current: Readonly<Record<string, ParamValue>>,
  deviceSn: string,
  version: number,
  values: Readonly<Record<string, ParamValue>>,
): { ok: boolean; error?: string; result: SetParamsResult } {
  const results: Record<string, ParamChangeResult> = {};
  for (const [k, v] of Object.entries(values)) {
    results[k] =
      current[k] === v
        ? { status: 'applied', value: v }
        : {
            status: 'refused',
            value: current[k] ?? null,
            reason: `changed on the device since version ${version}`,
          };
  }
  const error = setParamsError(results);
  return { ok: error === undefined, ...(error ? { error } : {}), result: { deviceSn, version, results } };
}
