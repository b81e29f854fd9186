/**
 * Device parameters in the console (issue 15, spec §2 `/paramsconfig`): the device tree, a
 * device's shadow (what the operator wants beside what the device last reported), changes,
 * reading from the device, history, copying to devices of the same model, and the gateway's
 * one-time initialization. The parameter model is `params/schema.ts`, its rules
 * `params/validate.ts`, the wire `params/messages.ts` (docs/device-protocol.md "Parameters").
 *
 * **Per-parameter state** ({@link PARAM_STATES}) of one key of one device:
 * - `in_sync`: no change of ours is outstanding and the device reports what we want (or we want
 *   nothing of it: `desired` null);
 * - `pending`: an operator's change waits to be sent (gateway offline or never connected: it is
 *   kept and sent at the reconnect, never lost, never sent twice);
 * - `sent`: the `set_params` holding it is out, waiting for the answer;
 * - `applied`: the device answered it applied (`reported` = `desired`);
 * - `refused`: the device refused it (`reason`, and `messageKey`/`messageParams` when it was a
 *   rule of the contract's validator: the console shows it translated);
 * - `timeout`: the device did not answer in time (retry possible, and retried like every
 *   delivery: docs/device-protocol.md "Delivery of desired state");
 * - `drift`: the device reports a value other than the one it applied from us, without a
 *   change of ours outstanding — it was changed on the device (its own screen, a local tool).
 *
 * Times are ISO 8601 (UTC); the console shows them in the site's time zone (`timezone`).
 */
import { z } from 'zod';
import { DEVICE_TYPES } from '../device/protocol';
import { paramValueSchema, paramValuesSchema } from '../params/messages';
import { userInfoEcho } from './envelope';
import { DELIVERY_STATES } from './live';
import { idSchema as id, keywordSchema, pageRequestShape, pageResponse } from './primitives';

export const PARAM_STATES = ['in_sync', 'pending', 'sent', 'applied', 'refused', 'timeout', 'drift'] as const;
export type ParamState = (typeof PARAM_STATES)[number];

/** Where a recorded change came from: an operator's edit, a copy, initialization, or the device itself (drift). */
export const PARAM_CHANGE_SOURCES = ['operator', 'copy', 'initialize', 'device'] as const;
export type ParamChangeSource = (typeof PARAM_CHANGE_SOURCES)[number];

/** Most target devices of one copy (batch). */
export const MAX_PARAMS_COPY_TARGETS = 50;

// ---------------------------------------------------------------------------------------------
// Tree: sites → devices with a parameter schema

export const paramsTreeRequest = z.object({ userInfo: userInfoEcho, keyword: keywordSchema });

export const paramsTreeDeviceSchema = z.object({
  deviceId: id,
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  /** Null for the gateway itself. */
  gatewayId: z.number().int().nullable(),
  online: z.boolean(),
  /** Keys not `in_sync` (pending, sent, refused, timeout, drift). */
  outOfSync: z.number().int(),
  drift: z.boolean(),
});
export type ParamsTreeDevice = z.infer<typeof paramsTreeDeviceSchema>;

export const paramsTreeSiteSchema = z.object({
  siteId: id,
  siteName: z.string(),
  companyName: z.string(),
  timezone: z.string(),
  /** When the gateway was initialized (ISO); null: not yet (`paramsInitialize`). */
  initializedAt: z.string().nullable(),
  devices: z.array(paramsTreeDeviceSchema),
});
export type ParamsTreeSite = z.infer<typeof paramsTreeSiteSchema>;

/** Sites of the caller's scope holding at least one device with parameters, devices gateway first. */
export const paramsTreeResponse = z.object({ sites: z.array(paramsTreeSiteSchema) });

// ---------------------------------------------------------------------------------------------
// One device's shadow

export const paramsDeviceRequest = z.object({ userInfo: userInfoEcho, deviceId: id });

export const paramRowSchema = z.object({
  key: z.string(),
  /** What the operator wants (null: nothing of ours; the device's own value stands). */
  desired: paramValueSchema.nullable(),
  /** What the device last reported or answered (null: never reported). */
  reported: paramValueSchema.nullable(),
  state: z.enum(PARAM_STATES),
  /** Refusal or failure in English from the device; the console prefers messageKey. */
  reason: z.string().nullable(),
  messageKey: z.string().nullable(),
  messageParams: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
  /** When this key last changed state. */
  changedAt: z.string().nullable(),
});
export type ParamRow = z.infer<typeof paramRowSchema>;

export const paramsDeviceResponse = z.object({
  deviceId: id,
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  siteId: id,
  siteName: z.string(),
  timezone: z.string(),
  online: z.boolean(),
  /** The device's parameter version of the last change of ours (0: none). */
  version: z.number().int(),
  /** The version the device last reported running (null: never reported). */
  reportedVersion: z.number().int().nullable(),
  /** When the device last reported its parameters (get_params answer or `params` report). */
  reportedAt: z.string().nullable(),
  /** The delivery of `version` (docs/device-protocol.md "Delivery of desired state"); null: nothing sent yet. */
  delivery: z
    .object({
      state: z.enum(DELIVERY_STATES),
      attempt: z.number().int(),
      sentAt: z.string().nullable(),
      reason: z.string().nullable(),
      retryAt: z.string().nullable(),
    })
    .nullable(),
  /** One row per parameter of the type's schema, in schema order. */
  params: z.array(paramRowSchema),
  /** Device keys the schema does not know, as reported (shown read-only). */
  extra: z.record(z.string(), paramValueSchema),
});
export type ParamsDeviceResponse = z.infer<typeof paramsDeviceResponse>;

// ---------------------------------------------------------------------------------------------
// Change

/**
 * The operator's changes of one device: key → value (only the keys that change). Checked by
 * `validateParams` against the device's type with the desired values it completes (a rule
 * between parameters sees the whole set); a broken rule answers -100 naming the key, nothing
 * stored. Unknown keys: -100.
 */
export const paramsSetRequest = z.object({
  userInfo: userInfoEcho,
  deviceId: id,
  values: paramValuesSchema.refine((v) => Object.keys(v).length > 0, 'at least one parameter'),
});

/**
 * The stored change and where its delivery stands. `waiting`: why it was not sent at once —
 * 3033 the gateway never connected, 3034 it is offline — it goes out at the reconnect; null when
 * it was sent. The answer does not wait for the device: per-key states follow over the live
 * channel `delivery:params` (read the device again on a message for it).
 */
export const paramsSetResponse = z.object({
  version: z.number().int(),
  waiting: z.union([z.literal(3033), z.literal(3034)]).nullable(),
  device: paramsDeviceResponse,
});

// ---------------------------------------------------------------------------------------------
// Read from the device (get_params), resend

/** Asks the device what it runs and waits for the answer (up to the reply timeout, 10 s). */
export const paramsReadResponse = paramsDeviceResponse;

// ---------------------------------------------------------------------------------------------
// History

export const paramsHistoryRequest = z.object({ ...pageRequestShape, deviceId: id });

export const paramChangeRowSchema = z.object({
  id: id,
  at: z.string(),
  /** Who: the employee's name; null for the device's own change (drift). */
  by: z.string().nullable(),
  source: z.enum(PARAM_CHANGE_SOURCES),
  key: z.string(),
  oldValue: paramValueSchema.nullable(),
  newValue: paramValueSchema.nullable(),
  version: z.number().int(),
  /** The device's answer to it: applied / refused / timeout, or null while none. */
  outcome: z.enum(['applied', 'refused', 'timeout']).nullable(),
  reason: z.string().nullable(),
  answeredAt: z.string().nullable(),
});
export type ParamChangeRow = z.infer<typeof paramChangeRowSchema>;
export const paramsHistoryResponse = pageResponse(paramChangeRowSchema);

// ---------------------------------------------------------------------------------------------
// Copy to devices of the same model

/**
 * Copies the source device's desired values (or those of `keys`) to each target, as a change of
 * each target. Targets must be of the same type and model and in the caller's scope; network and
 * identity parameters (address, SIM, time zone) are never copied.
 */
export const paramsCopyRequest = z.object({
  userInfo: userInfoEcho,
  fromDeviceId: id,
  toDeviceIds: z.array(id).min(1).max(MAX_PARAMS_COPY_TARGETS),
  keys: z.array(z.string().max(48)).max(64).optional(),
});

/** One result per target: code 0 (stored; `waiting` as for a change) or the refusal's code and text. */
export const paramsCopyResponse = z.object({
  results: z.array(
    z.object({
      deviceId: id,
      sn: z.string().nullable(),
      code: z.number().int(),
      msg: z.string(),
      version: z.number().int().nullable(),
      waiting: z.union([z.literal(3033), z.literal(3034)]).nullable(),
    }),
  ),
});

// ---------------------------------------------------------------------------------------------
// Initialization (commissioning)

/**
 * The first-time `initialize` of a site's gateway: writes the site's time zone, the defaults of
 * every parameter of its devices and the gateway's network settings once (`network`, checked as
 * the EMS's network group). A second attempt answers 3049 (spec §8 "initialization already
 * performed").
 */
export const paramsInitializeRequest = z.object({
  userInfo: userInfoEcho,
  siteId: id,
  network: paramValuesSchema.optional(),
});
export const paramsInitializeResponse = z.object({
  initializedAt: z.string(),
  /** Devices whose defaults were stored as a change. */
  devices: z.number().int(),
  waiting: z.union([z.literal(3033), z.literal(3034)]).nullable(),
});
