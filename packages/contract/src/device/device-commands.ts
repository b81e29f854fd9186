/**
 * Parameters of the commands of issue 15 that are neither ToU nor parameters themselves
 * (docs/device-protocol.md "Transparent debugging", "Initialization"):
 *
 * - `debug_frame` relays raw bytes to a serial port of the EMS and answers the raw response
 *   (or none: `hex: null` when the bus stayed silent for `timeoutMs`). The EMS does not
 *   interpret the bytes; the server built and checks them (device/modbus.ts).
 * - `initialize` commissions the gateway once: the site's time zone and its network settings
 *   (the EMS's `network` group, params/schema.ts). A gateway already initialized answers
 *   `ok: false` with {@link INITIALIZATION_DONE_ERROR}, the server's code 3049.
 */
import { z } from 'zod';
import { paramValuesSchema } from '../params/messages';
import { MODBUS_MAX_FRAME_BYTES } from './modbus';
import { timezoneSchema } from './protocol';

/**
 * Serial ports of an EMS a frame can go to: `rs485_1` (the PCS/BMS bus of the cabinet),
 * `rs485_2` (meters, air conditioner), `internal` (the EMS's own register map).
 */
export const DEBUG_PORTS = ['rs485_1', 'rs485_2', 'internal'] as const;
export type DebugPort = (typeof DEBUG_PORTS)[number];

/** `params` of `debug_frame`: the bytes as lower-case hex without separators. */
export const debugFrameParams = z.object({
  port: z.enum(DEBUG_PORTS),
  hex: z
    .string()
    .regex(/^(?:[0-9a-f]{2})+$/)
    .max(2 * MODBUS_MAX_FRAME_BYTES),
  timeoutMs: z.number().int().min(50).max(10_000),
});
export type DebugFrameParams = z.infer<typeof debugFrameParams>;

/** `result` of a `debug_frame` reply: the raw response (null: nothing came within timeoutMs) and the bus time. */
export const debugFrameResult = z.object({
  hex: z
    .string()
    .regex(/^(?:[0-9a-f]{2})*$/)
    .max(2 * MODBUS_MAX_FRAME_BYTES)
    .nullable(),
  busMs: z.number().int().min(0),
});
export type DebugFrameResult = z.infer<typeof debugFrameResult>;

/** `params` of `initialize`. */
export const initializeParams = z.object({
  timezone: timezoneSchema,
  network: paramValuesSchema,
});
export type InitializeParams = z.infer<typeof initializeParams>;

/** The `error` of an `initialize` reply from a gateway that was initialized before. */
export const INITIALIZATION_DONE_ERROR = 'initialization already performed';
