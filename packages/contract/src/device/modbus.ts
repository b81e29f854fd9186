/**
 * Modbus RTU frames for transparent debugging (issue 15 item 5): the console builds a request
 * from unit address, register and count or values, the EMS relays the bytes to its serial port
 * and answers the raw response, which is decoded here. Pure functions, used by the console, the
 * server (checks before relaying) and the simulated EMS (answers from its register map).
 *
 * Frames (Modbus Application Protocol V1.1b3 §6; Modbus over Serial Line V1.02 §2.5.1):
 *
 *     request  03/04: addr fn  reg_hi reg_lo  cnt_hi cnt_lo  crc_lo crc_hi     count 1–125
 *     response 03/04: addr fn  bytes  (value_hi value_lo)×count  crc_lo crc_hi
 *     request/response 06: addr 06 reg_hi reg_lo val_hi val_lo crc            (response echoes)
 *     request  16: addr 10 reg_hi reg_lo cnt_hi cnt_lo bytes (values) crc      count 1–123
 *     response 16: addr 10 reg_hi reg_lo cnt_hi cnt_lo crc
 *     exception:   addr (fn|0x80) code crc
 *
 * The CRC is CRC-16/MODBUS (poly 0xA001 reflected, init 0xFFFF), sent low byte first, computed
 * by the `crc` package (alexgorbatchev/crc, MIT). An RTU frame is at most 256 bytes (serial line
 * §2.5.1.1). Registers are unsigned 16-bit; {@link toInt16} reads one as signed.
 *
 * Errors are {@link ModbusFrameError}s whose `messageKey` has a zh/en text in
 * {@link modbusMessages} ({@link modbusErrorText}).
 */
import crc16modbus from 'crc/calculators/crc16modbus';
import { z } from 'zod';
import type { Lang } from '../lang';
import { MODBUS_ADDRESS_MAX, MODBUS_ADDRESS_MIN } from '../params/schema';
import { fillTemplate } from '../validation';

/** Largest RTU frame (address + PDU + CRC), bytes. */
export const MODBUS_MAX_FRAME_BYTES = 256;
/** Registers one read (03/04) may ask for. */
export const MODBUS_MAX_READ_COUNT = 125;
/** Registers one write (16) may carry. */
export const MODBUS_MAX_WRITE_COUNT = 123;
/** Longest hex text accepted before parsing (two digits and a separator per byte, and some). */
export const MODBUS_MAX_HEX_TEXT = 4 * MODBUS_MAX_FRAME_BYTES;

/** Function codes we build and decode: read holding / input registers, write single / multiple. */
export const MODBUS_FUNCTIONS = [3, 4, 6, 16] as const;
export type ModbusFunction = (typeof MODBUS_FUNCTIONS)[number];

/** zh/en texts of frame errors (`{placeholders}` from the error's params). */
export const modbusMessages = {
  hexEmpty: { zh: '请输入要发送的十六进制帧', en: 'Enter the frame to send in hex' },
  hexMalformed: {
    zh: '十六进制格式错误：第{position}个字符“{char}”不是十六进制数字',
    en: 'Malformed hex: character {position} ("{char}") is not a hex digit',
  },
  hexOddLength: {
    zh: '十六进制每个字节须为两位数字',
    en: 'Hex needs two digits per byte (an even number of digits in each group)',
  },
  frameTooLong: {
    zh: '帧长度超过{max}字节上限',
    en: 'The frame is longer than the {max}-byte limit',
  },
  frameTooShort: { zh: '响应帧过短（{length}字节）', en: 'The response is too short ({length} bytes)' },
  crcMismatch: {
    zh: 'CRC校验错误：应为{expected}，实际为{actual}',
    en: 'CRC error: expected {expected}, got {actual}',
  },
  addressMismatch: {
    zh: '响应来自从站{actual}，请求发往从站{expected}',
    en: 'The response comes from unit {actual}, the request went to unit {expected}',
  },
  functionMismatch: {
    zh: '响应功能码{actual}与请求功能码{expected}不符',
    en: 'The response has function {actual}, the request {expected}',
  },
  lengthMismatch: {
    zh: '响应长度{actual}字节，应为{expected}字节',
    en: 'The response is {actual} bytes long, {expected} expected',
  },
  echoMismatch: {
    zh: '写入响应与请求不一致',
    en: 'The write response does not echo the request',
  },
  addressInvalid: {
    zh: '从站地址应为{min}–{max}',
    en: 'The unit address must be {min}–{max}',
  },
  registerInvalid: { zh: '寄存器地址应为0–65535', en: 'The register must be 0–65535' },
  countInvalid: { zh: '寄存器数量应为1–{max}', en: 'The register count must be 1–{max}' },
  rangeInvalid: {
    zh: '寄存器范围超出65535',
    en: 'The registers run past 65535',
  },
  valueInvalid: {
    zh: '寄存器值应为-32768–65535的整数',
    en: 'Register values must be whole numbers from -32768 to 65535',
  },
} as const satisfies Record<string, Record<Lang, string>>;
export type ModbusMessageKey = keyof typeof modbusMessages;

/** A frame that cannot be built, parsed or decoded; `message` is the English text. */
export class ModbusFrameError extends Error {
  constructor(
    readonly messageKey: ModbusMessageKey,
    readonly params: Record<string, string | number> = {},
  ) {
    super(fillTemplate(modbusMessages[messageKey].en, params));
    this.name = 'ModbusFrameError';
  }
}

/** The text of a frame error in `lang`. */
export function modbusErrorText(error: ModbusFrameError, lang: Lang): string {
  return fillTemplate(modbusMessages[error.messageKey][lang], error.params);
}

/** Exception codes (Application Protocol §7) with their names. */
export const MODBUS_EXCEPTIONS: Readonly<Record<number, Readonly<Record<Lang, string>>>> = {
  1: { zh: '非法功能', en: 'Illegal function' },
  2: { zh: '非法数据地址', en: 'Illegal data address' },
  3: { zh: '非法数据值', en: 'Illegal data value' },
  4: { zh: '从站设备故障', en: 'Server device failure' },
  5: { zh: '确认（处理中）', en: 'Acknowledge (processing)' },
  6: { zh: '从站设备忙', en: 'Server device busy' },
  8: { zh: '存储奇偶校验错误', en: 'Memory parity error' },
  10: { zh: '网关路径不可用', en: 'Gateway path unavailable' },
  11: { zh: '网关目标设备无响应', en: 'Gateway target device failed to respond' },
};

/**
 * The one check of a request's numbers: unit 1–247, register 0–65535, count 1–125 (read) or
 * 1–123 (write multiple) not running past register 65535, values whole -32768–65535. The error of
 * the first broken one with the field it concerns, or null.
 */
export function modbusRequestIssue(
  r: ModbusRequest,
): { field: 'address' | 'register' | 'count' | 'value' | 'values'; error: ModbusFrameError } | null {
  const isInt = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!isInt(r.address, MODBUS_ADDRESS_MIN, MODBUS_ADDRESS_MAX)) {
    const params = { min: MODBUS_ADDRESS_MIN, max: MODBUS_ADDRESS_MAX };
    return { field: 'address', error: new ModbusFrameError('addressInvalid', params) };
  }
  if (!isInt(r.register, 0, 0xffff))
    return { field: 'register', error: new ModbusFrameError('registerInvalid') };
  const isValue = (v: number) => isInt(v, -32768, 0xffff);
  if (r.fn === 6)
    return isValue(r.value) ? null : { field: 'value', error: new ModbusFrameError('valueInvalid') };
  const [count, max, field] =
    r.fn === 16
      ? [r.values.length, MODBUS_MAX_WRITE_COUNT, 'values' as const]
      : [r.count, MODBUS_MAX_READ_COUNT, 'count' as const];
  if (!isInt(count, 1, max)) return { field, error: new ModbusFrameError('countInvalid', { max }) };
  if (r.register + count - 1 > 0xffff) return { field, error: new ModbusFrameError('rangeInvalid') };
  if (r.fn === 16 && !r.values.every(isValue)) return { field, error: new ModbusFrameError('valueInvalid') };
  return null;
}

/** Plain numbers: whole-number and range checks are {@link modbusRequestIssue}'s, with its texts. */
const int = z.number();

/**
 * A request as the console composes it: `fn` 3/4 read `count` registers from `register`; 6
 * writes `value`; 16 writes `values` from `register`. `address`: the unit. Values are 16-bit,
 * -32768–65535 (negative ones go out as two's complement). Limits: {@link modbusRequestIssue},
 * whose English text is the schema's message, at the field it names.
 */
export const modbusRequestSchema = z
  .discriminatedUnion('fn', [
    z.object({ fn: z.literal(3), address: int, register: int, count: int }),
    z.object({ fn: z.literal(4), address: int, register: int, count: int }),
    z.object({ fn: z.literal(6), address: int, register: int, value: int }),
    z.object({
      fn: z.literal(16),
      address: int,
      register: int,
      values: z.array(int).max(MODBUS_MAX_FRAME_BYTES),
    }),
  ])
  .superRefine((r, ctx) => {
    const issue = modbusRequestIssue(r);
    if (issue) ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.error.message });
  });
export type ModbusRequest =
  | { fn: 3 | 4; address: number; register: number; count: number }
  | { fn: 6; address: number; register: number; value: number }
  | { fn: 16; address: number; register: number; values: number[] };

/**
 * Function codes that change a device (Modbus Application Protocol V1.1b3 §6): 05 write single
 * coil, 06 write single register, 15 write multiple coils, 16 write multiple registers, 21 write
 * file record, 22 mask write register, 23 read/write multiple registers. Transparent debugging
 * asks a second confirmation for a frame with one of them (api/debug.ts), whatever its CRC: the
 * console builds only 06 and 16, but a typed frame may be any of these.
 */
export const MODBUS_WRITE_FUNCTIONS: ReadonlySet<number> = new Set([5, 6, 15, 16, 21, 22, 23]);

/** True when `frame` (address, function, …) carries a function code that writes. */
export function isModbusWriteFrame(frame: Uint8Array): boolean {
  return frame.length >= 2 && MODBUS_WRITE_FUNCTIONS.has(frame[1]!);
}

/** CRC-16/MODBUS of `bytes`. */
export function crc16Modbus(bytes: Uint8Array): number {
  return crc16modbus(bytes);
}

/** `body` followed by its CRC, low byte first. */
export function appendCrc(body: Uint8Array): Uint8Array {
  const crc = crc16Modbus(body);
  const out = new Uint8Array(body.length + 2);
  out.set(body);
  out[body.length] = crc & 0xff;
  out[body.length + 1] = crc >> 8;
  return out;
}

/** The CRC a frame carries (its last two bytes, low first). */
function carriedCrc(frame: Uint8Array): number {
  return frame[frame.length - 2]! | (frame[frame.length - 1]! << 8);
}

/** True when the last two bytes of `frame` are the CRC of the bytes before them. */
export function hasValidCrc(frame: Uint8Array): boolean {
  return frame.length >= 3 && crc16Modbus(frame.subarray(0, -2)) === carriedCrc(frame);
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');

function u16(n: number): [number, number] {
  const v = n < 0 ? n + 0x10000 : n;
  return [v >> 8, v & 0xff];
}

const readU16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

/** A register read as a signed 16-bit number. */
export function toInt16(value: number): number {
  return value >= 0x8000 ? value - 0x10000 : value;
}

/** The RTU frame of `request`; throws the {@link ModbusFrameError} of {@link modbusRequestIssue}. */
export function buildModbusRequest(request: ModbusRequest): Uint8Array {
  const issue = modbusRequestIssue(request);
  if (issue) throw issue.error;
  const r = request;
  switch (r.fn) {
    case 3:
    case 4:
      return appendCrc(Uint8Array.of(r.address, r.fn, ...u16(r.register), ...u16(r.count)));
    case 6:
      return appendCrc(Uint8Array.of(r.address, 6, ...u16(r.register), ...u16(r.value)));
    case 16:
      return appendCrc(
        Uint8Array.of(
          r.address,
          16,
          ...u16(r.register),
          ...u16(r.values.length),
          r.values.length * 2,
          ...r.values.flatMap((v) => u16(v)),
        ),
      );
  }
}

/**
 * Bytes of a hex text as an operator types it: `01 03 00 00 00 0A C5 CD`, `01030000000AC5CD`,
 * `0x01,0x03,…`; groups separated by white space, `,`, `:` or `-`, each an even number of digits.
 * Throws {@link ModbusFrameError}: `hexEmpty`, `hexMalformed` (the first bad character, 1-based),
 * `hexOddLength`, `frameTooLong` (more than 256 bytes).
 */
export function parseHexFrame(text: string): Uint8Array {
  if (text.length > MODBUS_MAX_HEX_TEXT)
    throw new ModbusFrameError('frameTooLong', { max: MODBUS_MAX_FRAME_BYTES });
  const groups: string[] = [];
  const re = /[^\s,:-]+/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const raw = m[0];
    const prefixed = /^0x/i.test(raw);
    const digits = prefixed ? raw.slice(2) : raw;
    const bad = digits.search(/[^0-9a-fA-F]/);
    if (digits.length === 0) throw new ModbusFrameError('hexMalformed', { position: m.index + 1, char: raw });
    if (bad !== -1) {
      throw new ModbusFrameError('hexMalformed', {
        position: m.index + (prefixed ? 2 : 0) + bad + 1,
        char: digits[bad]!,
      });
    }
    if (digits.length % 2 !== 0) throw new ModbusFrameError('hexOddLength');
    groups.push(digits);
  }
  const hex = groups.join('');
  if (hex.length === 0) throw new ModbusFrameError('hexEmpty');
  if (hex.length / 2 > MODBUS_MAX_FRAME_BYTES)
    throw new ModbusFrameError('frameTooLong', { max: MODBUS_MAX_FRAME_BYTES });
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** `bytes` as upper-case hex pairs separated by spaces: `01 03 00 00 00 0A C5 CD`. */
export function formatHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/**
 * The request a raw frame holds, when it is a well-formed 03/04/06/16 request with a valid CRC
 * (so that its response can be decoded too); null for anything else.
 */
export function parseModbusRequest(frame: Uint8Array): ModbusRequest | null {
  if (frame.length < 8 || !hasValidCrc(frame)) return null;
  const address = frame[0]!;
  const fn = frame[1]!;
  const reg = readU16(frame, 2);
  let request: ModbusRequest;
  if ((fn === 3 || fn === 4) && frame.length === 8) {
    request = { fn, address, register: reg, count: readU16(frame, 4) };
  } else if (fn === 6 && frame.length === 8) {
    request = { fn, address, register: reg, value: readU16(frame, 4) };
  } else if (fn === 16 && frame.length >= 11) {
    const count = readU16(frame, 4);
    if (frame[6] !== count * 2 || frame.length !== 9 + count * 2) return null;
    request = {
      fn,
      address,
      register: reg,
      values: Array.from({ length: count }, (_, i) => readU16(frame, 7 + 2 * i)),
    };
  } else {
    return null;
  }
  return modbusRequestIssue(request) === null ? request : null;
}

/** Length of the normal response to `request`, bytes (an exception response is 5). */
export function expectedResponseLength(request: ModbusRequest): number {
  return request.fn === 3 || request.fn === 4 ? 5 + 2 * request.count : 8;
}

/** A decoded response. `registers`: the values read, from `register` on (unsigned). */
export type ModbusResponse =
  | { kind: 'read'; address: number; fn: 3 | 4; register: number; registers: number[] }
  | { kind: 'write'; address: number; fn: 6; register: number; value: number }
  | { kind: 'write'; address: number; fn: 16; register: number; count: number }
  | { kind: 'exception'; address: number; fn: ModbusFunction; exceptionCode: number };

/**
 * Decodes the response `frame` to `request`: CRC, unit, function, length and (writes) the echo
 * are checked; an exception response decodes to `kind: 'exception'` with its code
 * ({@link MODBUS_EXCEPTIONS} names it). Throws {@link ModbusFrameError} otherwise.
 */
export function decodeModbusResponse(request: ModbusRequest, frame: Uint8Array): ModbusResponse {
  if (frame.length > MODBUS_MAX_FRAME_BYTES)
    throw new ModbusFrameError('frameTooLong', { max: MODBUS_MAX_FRAME_BYTES });
  if (frame.length < 5) throw new ModbusFrameError('frameTooShort', { length: frame.length });
  if (!hasValidCrc(frame)) {
    throw new ModbusFrameError('crcMismatch', {
      expected: hex4(crc16Modbus(frame.subarray(0, -2))),
      actual: hex4(carriedCrc(frame)),
    });
  }
  const address = frame[0]!;
  const fn = frame[1]!;
  if (address !== request.address) {
    throw new ModbusFrameError('addressMismatch', { expected: request.address, actual: address });
  }
  if (fn === (request.fn | 0x80)) {
    if (frame.length !== 5)
      throw new ModbusFrameError('lengthMismatch', { expected: 5, actual: frame.length });
    return { kind: 'exception', address, fn: request.fn, exceptionCode: frame[2]! };
  }
  if (fn !== request.fn) throw new ModbusFrameError('functionMismatch', { expected: request.fn, actual: fn });
  const expected = expectedResponseLength(request);
  if (frame.length !== expected)
    throw new ModbusFrameError('lengthMismatch', { expected, actual: frame.length });
  switch (request.fn) {
    case 3:
    case 4: {
      if (frame[2] !== request.count * 2)
        throw new ModbusFrameError('lengthMismatch', { expected, actual: frame.length });
      const registers = Array.from({ length: request.count }, (_, i) => readU16(frame, 3 + 2 * i));
      return { kind: 'read', address, fn: request.fn, register: request.register, registers };
    }
    case 6: {
      const [hi, lo] = u16(request.value);
      if (readU16(frame, 2) !== request.register || frame[4] !== hi || frame[5] !== lo) {
        throw new ModbusFrameError('echoMismatch');
      }
      return { kind: 'write', address, fn: 6, register: request.register, value: readU16(frame, 4) };
    }
    case 16: {
      if (readU16(frame, 2) !== request.register || readU16(frame, 4) !== request.values.length) {
        throw new ModbusFrameError('echoMismatch');
      }
      return { kind: 'write', address, fn: 16, register: request.register, count: request.values.length };
    }
  }
}

/**
 * The response a device sends to `request`: the registers read (03/04, `count` values, unsigned
 * or signed 16-bit), the echo of a write (06/16), or an exception with its code.
 */
export function buildModbusResponse(
  request: ModbusRequest,
  answer: { registers: readonly number[] } | { written: true } | { exceptionCode: number },
): Uint8Array {
  if ('exceptionCode' in answer) {
    return appendCrc(Uint8Array.of(request.address, request.fn | 0x80, answer.exceptionCode & 0xff));
  }
  switch (request.fn) {
    case 3:
    case 4: {
      if (!('registers' in answer) || answer.registers.length !== request.count) {
        throw new ModbusFrameError('lengthMismatch', {
          expected: request.count,
          actual: 'registers' in answer ? answer.registers.length : 0,
        });
      }
      return appendCrc(
        Uint8Array.of(
          request.address,
          request.fn,
          request.count * 2,
          ...answer.registers.flatMap((v) => u16(v)),
        ),
      );
    }
    case 6:
      return appendCrc(Uint8Array.of(request.address, 6, ...u16(request.register), ...u16(request.value)));
    case 16:
      return appendCrc(
        Uint8Array.of(request.address, 16, ...u16(request.register), ...u16(request.values.length)),
      );
  }
}
