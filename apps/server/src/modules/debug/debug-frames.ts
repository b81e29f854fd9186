/**
 * The frame side of transparent debugging, pure (no database, no device): the bytes a
 * `debug/send` body stands for, whether they write, and a stored frame as the API shows it
 * (decoded again from its hex on every read, texts in the reader's language).
 *
 * Framing, CRC and decoding are the contract's (packages/contract device/modbus.ts, CRC from the
 * `crc` package); this file only chooses which of its functions applies.
 */
import {
  buildModbusRequest,
  type DebugFrame,
  type DebugPort,
  decodeModbusResponse,
  ErrorCode,
  formatHex,
  isModbusWriteFrame,
  type Lang,
  ModbusFrameError,
  type ModbusRequest,
  modbusErrorText,
  modbusRequestIssue,
  parseHexFrame,
  parseModbusRequest,
} from '@ess/contract';
import type { DebugFrameErrorRecord } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

/** A frame of a `debug/send` body, as the request schema has it. */
export type DebugFrameInput = { kind: 'modbus'; request: ModbusRequest } | { kind: 'hex'; hex: string };

/** The bytes to relay, whether they write, and the request they hold (null: not a Modbus request we decode). */
export interface OutgoingFrame {
  bytes: Uint8Array;
  write: boolean;
  request: ModbusRequest | null;
}

/** -100 naming `field`, with the frame error's text in `lang` (the answer of bad input). */
export function frameInputError(field: string, error: ModbusFrameError, lang: Lang): ApiError {
  return new ApiError(ErrorCode.PARAM_ERROR, {}, `${field}: ${modbusErrorText(error, lang)}`);
}

/**
 * The bytes of `frame`: a Modbus request built with its CRC, or a hex text parsed as typed (no
 * CRC added). Throws -100 at `frame.request.<field>` or `frame.hex` with the contract's text in
 * `lang` (malformed hex, odd digits, more than 256 bytes, numbers out of range).
 */
export function outgoingFrame(frame: DebugFrameInput, lang: Lang): OutgoingFrame {
  if (frame.kind === 'modbus') {
    const issue = modbusRequestIssue(frame.request);
    if (issue) throw frameInputError(`frame.request.${issue.field}`, issue.error, lang);
    const bytes = buildModbusRequest(frame.request);
    return { bytes, write: frame.request.fn === 6 || frame.request.fn === 16, request: frame.request };
  }
  let bytes: Uint8Array;
  try {
    bytes = parseHexFrame(frame.hex);
  } catch (err) {
    if (err instanceof ModbusFrameError) throw frameInputError('frame.hex', err, lang);
    throw err;
  }
  const request = parseModbusRequest(bytes);
  const write = isModbusWriteFrame(bytes);
  return { bytes, write, request };
}

/**
 * The same checks on a body not yet through its schema (a `preValidation` hook): so that the
 * numbers of a Modbus request and a hex text are refused with the contract's texts in the
 * caller's language rather than the schema's English or generic text. Anything of another
 * shape is left to the schema.
 */
export function checkRawFrame(body: unknown, lang: Lang): void {
  const frame = (body as { frame?: unknown } | null)?.frame as Record<string, unknown> | undefined;
  if (!frame || typeof frame !== 'object') return;
  if (frame.kind === 'hex' && typeof frame.hex === 'string') {
    outgoingFrame({ kind: 'hex', hex: frame.hex }, lang);
    return;
  }
  const r = frame.request as Record<string, unknown> | undefined;
  if (frame.kind !== 'modbus' || !r || typeof r !== 'object') return;
  const numbers = (...keys: string[]) => keys.every((k) => typeof r[k] === 'number');
  if (!numbers('fn', 'address', 'register')) return;
  const fn = r.fn;
  const shaped =
    ((fn === 3 || fn === 4) && numbers('count')) ||
    (fn === 6 && numbers('value')) ||
    (fn === 16 && Array.isArray(r.values) && r.values.every((v) => typeof v === 'number'));
  if (shaped) outgoingFrame({ kind: 'modbus', request: r as unknown as ModbusRequest }, lang);
}

/** Texts of {@link DebugFrameErrorRecord} kinds. */
const errorTexts = {
  ems: { zh: 'EMS拒绝发送：{text}', en: 'The EMS refused the frame: {text}' },
  noReply: { zh: 'EMS未应答', en: 'The EMS did not answer' },
  offline: { zh: '网关已离线', en: 'The gateway went offline' },
  sendFailed: { zh: '发送失败：{detail}', en: 'Sending failed: {detail}' },
  badReply: { zh: 'EMS的应答格式无效', en: 'The EMS answered in an invalid form' },
} as const satisfies Record<DebugFrameErrorRecord['kind'], Record<Lang, string>>;

/** The stored error of a frame in `lang`. */
export function frameErrorText(error: DebugFrameErrorRecord, lang: Lang): string {
  const params: Record<string, string> =
    error.kind === 'ems' ? { text: error.text } : error.kind === 'sendFailed' ? { detail: error.detail } : {};
  return errorTexts[error.kind][lang].replace(/\{(\w+)\}/g, (whole, k: string) => params[k] ?? whole);
}

/** A stored frame row (the columns {@link frameView} reads). */
export interface FrameRecord {
  id: number;
  at: Date;
  by: string;
  port: string;
  requestHex: string;
  responseHex: string | null;
  rttMs: number | null;
  timeout: boolean;
  write: boolean;
  error: DebugFrameErrorRecord | null;
}

/** Bytes of stored hex (`01 03 …`, written by {@link formatHex}). */
function bytesOf(hex: string): Uint8Array {
  return hex.trim() === '' ? new Uint8Array(0) : parseHexFrame(hex);
}

/**
 * A stored frame as the API shows it: the answer decoded when the request is a Modbus request
 * (03/04 registers read from `register`, 06/16 the echoed register, an exception's code); a
 * response that does not decode (CRC, unit, function, length, echo) gives its reason in `lang`;
 * a frame that is not a Modbus request shows its raw answer only.
 */
export function frameView(row: FrameRecord, lang: Lang): DebugFrame {
  let decoded: DebugFrame['decoded'] = null;
  let error: string | null = row.error ? frameErrorText(row.error, lang) : null;
  if (row.responseHex !== null && error === null) {
    const request = parseModbusRequest(bytesOf(row.requestHex));
    if (request) {
      try {
        const answer = decodeModbusResponse(request, bytesOf(row.responseHex));
        decoded =
          answer.kind === 'read'
            ? { kind: 'read', register: answer.register, registers: answer.registers }
            : answer.kind === 'write'
              ? { kind: 'write', register: answer.register }
              : { kind: 'exception', exceptionCode: answer.exceptionCode };
      } catch (err) {
        if (!(err instanceof ModbusFrameError)) throw err;
        error = modbusErrorText(err, lang);
      }
    }
  }
  return {
    id: row.id,
    at: row.at.toISOString(),
    by: row.by,
    port: row.port as DebugPort,
    requestHex: row.requestHex,
    responseHex: row.responseHex,
    rttMs: row.rttMs,
    timeout: row.timeout,
    write: row.write,
    decoded,
    error,
  };
}

/** Stored form of bytes: upper-case hex pairs separated by spaces. */
export const storedHex = formatHex;
