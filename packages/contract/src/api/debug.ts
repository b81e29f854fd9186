/**
 * Transparent debugging (issue 15 item 5, spec §2 `/deviceDebugging` and its child `debug`): an
 * operator with `device:debug:use` opens a session on a gateway and sends raw frames through it
 * to a serial port of the EMS (a Modbus RTU request built from address, register and
 * count/value, or a raw hex frame). The EMS relays the bytes and answers the raw response
 * (command `debug_frame`, docs/device-protocol.md "Transparent debugging"); the server decodes
 * it (`device/modbus.ts`) and records every frame in the operation log.
 *
 * Rules (server-enforced, the console shows them):
 * - one session per gateway at a time, across server instances (3043 names who holds it);
 * - a session ends after {@link DEBUG_IDLE_TIMEOUT_S} without a frame, or when closed (3044
 *   afterwards);
 * - at most {@link DEBUG_MAX_FRAMES_PER_MINUTE} frames per session per minute (3045);
 * - a write (function 06/16, or a raw frame whose function code writes) needs `confirmWrite:
 *   true` — the console asks a second time (3046 without it);
 * - a frame is at most 256 bytes (`MODBUS_MAX_FRAME_BYTES`); malformed hex or a bad request
 *   answers -100 with the frame error's text at the field;
 * - no answer within `timeoutMs` is not an error: the frame is logged with `timeout: true`.
 */
import { z } from 'zod';
import { DEBUG_PORTS } from '../device/device-commands';
import { MODBUS_MAX_HEX_TEXT, modbusRequestSchema } from '../device/modbus';
import { userInfoEcho } from './envelope';
import { idSchema as id, pageRequestShape, pageResponse } from './primitives';

/** Seconds without a frame after which a session ends. */
export const DEBUG_IDLE_TIMEOUT_S = 600;
/** Frames one session may send per minute. */
export const DEBUG_MAX_FRAMES_PER_MINUTE = 60;
/** Reply timeout of one frame, ms: default and bounds. */
export const DEBUG_DEFAULT_TIMEOUT_MS = 2000;
export const DEBUG_MIN_TIMEOUT_MS = 100;
export const DEBUG_MAX_TIMEOUT_MS = 10_000;

export const debugOpenRequest = z.object({ userInfo: userInfoEcho, gatewayId: id });

export const debugSessionSchema = z.object({
  sessionId: z.string(),
  gatewayId: id,
  gatewaySn: z.string(),
  siteName: z.string(),
  timezone: z.string(),
  openedBy: z.string(),
  openedAt: z.string(),
  /** When it ends unless a frame is sent before (ISO). */
  expiresAt: z.string(),
  idleTimeoutS: z.number().int(),
  maxFramesPerMinute: z.number().int(),
  maxFrameBytes: z.number().int(),
});
export type DebugSession = z.infer<typeof debugSessionSchema>;

/**
 * One frame: `modbus` (the console builds it; the server builds the same bytes with its CRC) or
 * `hex` (sent as typed, spaces allowed; a CRC is not added). `confirmWrite` for writes (above).
 */
export const debugSendRequest = z.object({
  userInfo: userInfoEcho,
  sessionId: z.string().max(64),
  port: z.enum(DEBUG_PORTS),
  frame: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('modbus'), request: modbusRequestSchema }),
    z.object({ kind: z.literal('hex'), hex: z.string().max(MODBUS_MAX_HEX_TEXT) }),
  ]),
  timeoutMs: z
    .number()
    .int()
    .min(DEBUG_MIN_TIMEOUT_MS)
    .max(DEBUG_MAX_TIMEOUT_MS)
    .default(DEBUG_DEFAULT_TIMEOUT_MS),
  confirmWrite: z.boolean().default(false),
});

/** A frame and its answer as the log shows it. */
export const debugFrameSchema = z.object({
  id: id,
  at: z.string(),
  by: z.string(),
  port: z.enum(DEBUG_PORTS),
  requestHex: z.string(),
  responseHex: z.string().nullable(),
  /** Round trip through server, broker, EMS and bus, ms (null on timeout). */
  rttMs: z.number().int().nullable(),
  timeout: z.boolean(),
  write: z.boolean(),
  /** Decoded answer: registers read (from `register`), a write's echo, or an exception. */
  decoded: z
    .union([
      z.object({ kind: z.literal('read'), register: z.number().int(), registers: z.array(z.number().int()) }),
      z.object({ kind: z.literal('write'), register: z.number().int() }),
      z.object({ kind: z.literal('exception'), exceptionCode: z.number().int() }),
    ])
    .nullable(),
  /** Why the answer could not be decoded (CRC, length…) or the EMS's error, in the caller's language. */
  error: z.string().nullable(),
});
export type DebugFrame = z.infer<typeof debugFrameSchema>;

export const debugSendResponse = z.object({ frame: debugFrameSchema, expiresAt: z.string() });

export const debugSessionRequest = z.object({ userInfo: userInfoEcho, sessionId: z.string().max(64) });

/** The gateway's frames (newest first), of every session. */
export const debugFramesRequest = z.object({ ...pageRequestShape, gatewayId: id });
export const debugFramesResponse = pageResponse(debugFrameSchema);
