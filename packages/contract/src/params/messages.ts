/**
 * Device parameters on the wire (docs/device-protocol.md "Parameters"): the `get_params` and
 * `set_params` commands with their replies, and the `params` report a gateway publishes on its
 * own (after a change on a device's own screen, or after it starts).
 *
 * **Versioning: one version per device.** Every change of a device's desired parameters gets
 * the next `version` of that device (a positive integer the server keeps, growing by one). The
 * device keeps the version of the last `set_params` it took (0 before the first) and:
 *
 * - a **higher** version is applied (each change on its own, validate.ts `applyParamChanges`)
 *   and becomes the version in force — even when every change of it was refused;
 * - the **same** version again (a QoS 1 redelivery, the server's resend after a reconnect) is
 *   not applied again: the device answers what it answered the first time (`repeated: true`),
 *   so a late duplicate never undoes a change made on the device since;
 * - a **lower** version is refused whole (`stale: true`) and changes nothing.
 *
 * So a stale write never undoes a newer one. The version is per device, not per parameter,
 * because a `set_params` carries every change of the device that is not yet applied (all
 * pending ones, not only the latest edit): the newest version is always a superset of what an
 * older one still had to say, and refusing the older one whole loses nothing. Local changes do
 * not move the version; they are reported (`params`, `cause: 'local'`) and the server shows them
 * as drift. The server numbers its next change above both its own last version and the one the
 * device reports ({@link nextParamsVersion}), so a device that ran ahead of a restored server
 * database is not refused forever.
 */
import { z } from 'zod';
import {
  DEVICE_TYPES,
  type DeviceType,
  deviceSnSchema,
  deviceTextSchema,
  deviceTsSchema,
  isStorableText,
  messageIdSchema,
  PROTOCOL_VERSION,
} from '../device/protocol';
import type { ParamValue } from './schema';
import { type ParamChangeOutcome, paramIssueText } from './validate';

/** Parameter keys: lower snake case, like point names (unit as suffix). */
export const PARAM_KEY_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;

/** Most parameters in one message (the largest schema has under 30). */
export const MAX_PARAMS_PER_MESSAGE = 64;

/** Longest text value (host names are up to 253). */
export const MAX_PARAM_TEXT_LENGTH = 255;

const paramKey = z.string().regex(PARAM_KEY_PATTERN);

/** One value: a finite number or a storable text. */
export const paramValueSchema: z.ZodType<ParamValue> = z.union([
  z.number().finite(),
  z.string().max(MAX_PARAM_TEXT_LENGTH).refine(isStorableText, 'NUL or lone surrogate in value'),
]);

/** Key → value; at most {@link MAX_PARAMS_PER_MESSAGE}. */
export const paramValuesSchema = z
  .record(paramKey, paramValueSchema)
  .refine(
    (v) => Object.keys(v).length <= MAX_PARAMS_PER_MESSAGE,
    `at most ${MAX_PARAMS_PER_MESSAGE} parameters`,
  );

const version = z.number().int().min(0);

/** `params` of `get_params`: which device behind the gateway (or the gateway itself). */
export const getParamsParams = z.object({ deviceSn: deviceSnSchema });
export type GetParamsParams = z.infer<typeof getParamsParams>;

/**
 * What a device runs: every parameter it has (not only ours), and the version of the last
 * `set_params` it took (0: none). The `result` of a `get_params` reply, and the body of a
 * `params` report.
 */
export const paramsSnapshotSchema = z.object({
  deviceSn: deviceSnSchema,
  deviceType: z.enum(DEVICE_TYPES),
  version,
  values: paramValuesSchema,
});
export type ParamsSnapshot = z.infer<typeof paramsSnapshotSchema>;

/**
 * `params` of `set_params`: changes for one device behind the gateway (or the gateway itself),
 * at the device's next `version` (above). `values` holds every change of the device not yet
 * applied, at least one.
 */
export const setParamsParams = z.object({
  deviceSn: deviceSnSchema,
  version: z.number().int().min(1),
  values: paramValuesSchema.refine((v) => Object.keys(v).length > 0, 'at least one parameter'),
});
export type SetParamsParams = z.infer<typeof setParamsParams>;

export const PARAM_CHANGE_STATUSES = ['applied', 'refused'] as const;
export type ParamChangeStatus = (typeof PARAM_CHANGE_STATUSES)[number];

/**
 * The device's answer for one change: `applied`, or `refused` with why — `messageKey` and
 * `params` of the contract's validator when it was one of its rules (the console shows the
 * translated text, validate.ts `paramIssueText`), else only the device's own `reason` (English).
 * `value`: what is in force afterwards (refused: the value kept; null when it has none).
 */
export const paramChangeResultSchema = z.object({
  status: z.enum(PARAM_CHANGE_STATUSES),
  value: paramValueSchema.nullable(),
  reason: deviceTextSchema(500).optional(),
  messageKey: z.string().max(64).optional(),
  params: z.record(z.string().max(32), z.union([z.string().max(255), z.number()])).optional(),
});
export type ParamChangeResult = z.infer<typeof paramChangeResultSchema>;

/**
 * `result` of the reply to `set_params`: the version now in force and one result per change.
 * `ok` of the reply is true only when every change was applied; `error` then names the first
 * refusal ("cooling_stop_c: …"). `repeated`: the same version again, answered as the first time.
 * `stale`: a lower version than the one in force (`version`), refused whole, `results` empty.
 */
export const setParamsResult = z.object({
  deviceSn: deviceSnSchema,
  version,
  results: z.record(paramKey, paramChangeResultSchema),
  repeated: z.boolean().optional(),
  stale: z.boolean().optional(),
});
export type SetParamsResult = z.infer<typeof setParamsResult>;

/** Why a gateway reports parameters on its own: a change on the device itself, or its start. */
export const PARAMS_REPORT_CAUSES = ['local', 'startup'] as const;
export type ParamsReportCause = (typeof PARAMS_REPORT_CAUSES)[number];

/**
 * `ess/v1/<gatewaySn>/params`, QoS 1, not retained, gateway → server: what one device runs,
 * whole, published after a change on the device (its own screen, a local tool: `cause: 'local'`,
 * `changed` naming the keys) and after the gateway starts or reconnects (`'startup'`). `id`
 * unique per gateway (deduplication of redeliveries).
 */
export const paramsReportPayload = paramsSnapshotSchema.extend({
  v: z.literal(PROTOCOL_VERSION),
  id: messageIdSchema,
  ts: deviceTsSchema,
  cause: z.enum(PARAMS_REPORT_CAUSES),
  changed: z.array(paramKey).max(MAX_PARAMS_PER_MESSAGE).optional(),
});
export type ParamsReportPayload = z.infer<typeof paramsReportPayload>;

/** What a device does with a `set_params` of `incoming` version while it runs `inForce`. */
export function paramsVersionVerdict(inForce: number, incoming: number): 'apply' | 'repeat' | 'stale' {
  return incoming > inForce ? 'apply' : incoming === inForce ? 'repeat' : 'stale';
}

/** The `error` of a stale `set_params` reply. */
export function staleParamsError(incoming: number, inForce: number): string {
  return `params version ${incoming} is older than version ${inForce} in force; ignored`;
}

/** The version of the server's next change of a device: above its own last and the device's. */
export function nextParamsVersion(lastServerVersion: number, reportedVersion: number | null): number {
  return Math.max(lastServerVersion, reportedVersion ?? 0) + 1;
}

/** The wire form of one change's outcome (validate.ts `applyParamChanges`), its reason in English. */
export function paramChangeResult(type: DeviceType, outcome: ParamChangeOutcome): ParamChangeResult {
  if (outcome.status === 'applied' || !outcome.issue) return { status: outcome.status, value: outcome.value };
  const { issue } = outcome;
  return {
    status: 'refused',
    value: outcome.value,
    reason: paramIssueText(type, issue, 'en'),
    messageKey: issue.messageKey,
    ...(issue.params ? { params: issue.params } : {}),
  };
}

/**
 * The `error` of a `set_params` reply with refusals: the first refused key and its reason, and
 * how many more ("cooling_stop_c: Cooling stop temperature must be below the cooling start
 * temperature (and 1 more)"); undefined when every change was applied.
 */
export function setParamsError(results: Readonly<Record<string, ParamChangeResult>>): string | undefined {
  const refused = Object.entries(results).filter(([, r]) => r.status === 'refused');
  if (refused.length === 0) return undefined;
  const [key, first] = refused[0]!;
  const more = refused.length > 1 ? ` (and ${refused.length - 1} more)` : '';
  return `${key}: ${first.reason ?? 'refused'}${more}`.slice(0, 500);
}
