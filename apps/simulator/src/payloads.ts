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
  describeIssuePath,
  ErrorCode,
  type EventPayload,
  errorMessage,
  type OfflineReason,
  PROTOCOL_VERSION,
  type ReplyPayload,
  type SetTouPlanParams,
  type StatusPayload,
  setTouPlanParams,
  type TelemetryPayload,
  type TouSchemeDocument,
  validateScheme,
} from '@ess/contract';
import { z } from 'zod';
import type { FleetSite } from './fleet';
import type { AlarmEvent } from './model/alarms';
import { type SiteReadings, type SiteState, setAcThresholds, setTouPlan } from './model/site';

/** SN of the site's device of `type` (the first one registered). */
export function snOf(site: FleetSite, type: DeviceType): string | undefined {
  return site.devices.find((d) => d.type === type)?.sn;
}

/** Birth (`online: true`) or death payload of the status topic. */
export function buildStatus(
  site: FleetSite,
  ts: number,
  online: boolean,
  opts: { reason?: Exclude<OfflineReason, 'timeout'>; intervalS?: number } = {},
): StatusPayload {
  if (!online) return { v: PROTOCOL_VERSION, ts, online, reason: opts.reason ?? 'clean' };
  return {
    v: PROTOCOL_VERSION,
    ts,
    online,
    firmware: site.firmware,
    model: site.devices.find((d) => d.type === 'ems')?.model ?? site.profile,
    ...(opts.intervalS ? { intervalS: opts.intervalS } : {}),
  };
}

/**
 * Telemetry of all devices of the site from one step's readings. `withCells` adds the BMS
 * per-cell arrays (the gateway does that on every 5th message).
 */
export function buildTelemetry(
  site: FleetSite,
  readings: SiteReadings,
  opts: { id: string; ts: number; withCells: boolean },
): TelemetryPayload {
  const devices: TelemetryPayload['devices'] = [];
  // Devices in the contract's order of types (gateway first).
  for (const type of DEVICE_TYPES) {
    const points = readings[type];
    const sn = snOf(site, type);
    if (!points || !sn) continue;
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

/** What the gateway's command handler may change. */
export interface CommandContext {
  state: SiteState;
  /** Device clock − simulation clock, ms. */
  clockOffsetMs: number;
  /** Simulation clock now, ms. */
  simNowMs: number;
}

export interface CommandOutcome {
  state: SiteState;
  clockOffsetMs: number;
  /** Undefined when the message has no usable id (nothing to reply to). */
  reply?: ReplyPayload;
  name?: string;
}

const setParamsSchema = z
  .object({
    cooling_start_c: z.number().min(25).max(40).optional(),
    heating_start_c: z.number().min(5).max(30).optional(),
  })
  .strict();

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
 * - `set_params` `{cooling_start_c?, heating_start_c?}` (25–40 / 5–30 °C): air-conditioner
 *   thresholds;
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
    case 'set_params': {
      const p = setParamsSchema.safeParse(params);
      if (!p.success) {
        return { ...keep, name, reply: reply(false, ctx.clockOffsetMs, { error: issueText(p.error) }) };
      }
      const cooling = p.data.cooling_start_c ?? ctx.state.coolingStartC;
      const heating = p.data.heating_start_c ?? ctx.state.heatingStartC;
      if (heating >= cooling) {
        return {
          ...keep,
          name,
          reply: reply(false, ctx.clockOffsetMs, { error: 'heating_start_c must be below cooling_start_c' }),
        };
      }
      return {
        state: setAcThresholds(ctx.state, { coolingStartC: cooling, heatingStartC: heating }),
        clockOffsetMs: ctx.clockOffsetMs,
        name,
        reply: reply(true, ctx.clockOffsetMs),
      };
    }
  }
}
