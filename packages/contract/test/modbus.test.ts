/**
 * Modbus RTU frames (device/modbus.ts): CRC-16/MODBUS against its catalogue check value and a
 * bit-by-bit reference, requests and responses against the published example frames (Modbus
 * Application Protocol V1.1b3 §6 examples in RTU form, as Simply Modbus lists them), exception
 * responses, hex parsing and every refusal with its text.
 */
import { describe, expect, it } from 'vitest';
import {
  appendCrc,
  buildModbusRequest,
  buildModbusResponse,
  crc16Modbus,
  decodeModbusResponse,
  expectedResponseLength,
  formatHex,
  hasValidCrc,
  MODBUS_EXCEPTIONS,
  MODBUS_MAX_FRAME_BYTES,
  ModbusFrameError,
  type ModbusRequest,
  modbusErrorText,
  modbusRequestSchema,
  parseHexFrame,
  parseModbusRequest,
  toInt16,
} from '../src/device/modbus';

/** CRC-16/MODBUS bit by bit (reflected poly 0xA001, init 0xFFFF): the reference for the library. */
function referenceCrc(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

const hex = (s: string) => parseHexFrame(s);

/** The error a call throws (fails the test when it does not). */
function errorOf(fn: () => unknown): ModbusFrameError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ModbusFrameError) return e;
    throw e;
  }
  throw new Error('no error thrown');
}

describe('CRC-16/MODBUS', () => {
  it('has the catalogue check value 0x4B37 for "123456789"', () => {
    expect(crc16Modbus(new TextEncoder().encode('123456789'))).toBe(0x4b37);
  });

  it('agrees with a bit-by-bit reference on frames of every length', () => {
    let seed = 7;
    for (let len = 1; len <= MODBUS_MAX_FRAME_BYTES; len += 5) {
      const bytes = Uint8Array.from({ length: len }, () => {
        seed = (seed * 1103515245 + 12345) >>> 0;
        return seed >>> 24;
      });
      expect(crc16Modbus(bytes), `length ${len}`).toBe(referenceCrc(bytes));
    }
  });

  it('is appended low byte first, and checked', () => {
    const frame = appendCrc(Uint8Array.of(0x01, 0x03, 0x00, 0x00, 0x00, 0x0a));
    expect(formatHex(frame)).toBe('01 03 00 00 00 0A C5 CD');
    expect(hasValidCrc(frame)).toBe(true);
    frame[7] = 0xce;
    expect(hasValidCrc(frame)).toBe(false);
  });
});

describe('requests match the published frames', () => {
  it.each([
    [{ fn: 3, address: 1, register: 0, count: 10 }, '01 03 00 00 00 0A C5 CD'],
    [{ fn: 3, address: 0x11, register: 0x6b, count: 3 }, '11 03 00 6B 00 03 76 87'],
    [{ fn: 4, address: 0x11, register: 0x08, count: 1 }, '11 04 00 08 00 01 B2 98'],
    [{ fn: 6, address: 0x11, register: 0x01, value: 0x03 }, '11 06 00 01 00 03 9A 9B'],
    [
      { fn: 16, address: 0x11, register: 0x01, values: [0x000a, 0x0102] },
      '11 10 00 01 00 02 04 00 0A 01 02 C6 F0',
    ],
  ] as Array<[ModbusRequest, string]>)('%j → %s', (request, frame) => {
    expect(formatHex(buildModbusRequest(request))).toBe(frame);
    expect(parseModbusRequest(hex(frame))).toEqual(request);
  });

  it('writes negative values as two’s complement', () => {
    const frame = buildModbusRequest({ fn: 6, address: 1, register: 0x10, value: -1 });
    expect(formatHex(frame).slice(0, 17)).toBe('01 06 00 10 FF FF');
  });
});

describe('responses decode', () => {
  it('read holding registers (11 03 06 AE41 5652 4340 49AD)', () => {
    const request: ModbusRequest = { fn: 3, address: 0x11, register: 0x6b, count: 3 };
    expect(expectedResponseLength(request)).toBe(11);
    expect(decodeModbusResponse(request, hex('11 03 06 AE41 5652 4340 49AD'))).toEqual({
      kind: 'read',
      address: 0x11,
      fn: 3,
      register: 0x6b,
      registers: [0xae41, 0x5652, 0x4340],
    });
    expect(toInt16(0xae41)).toBe(-20927);
    expect(toInt16(0x5652)).toBe(0x5652);
  });

  it('read input registers (11 04 02 000A F8F4)', () => {
    const request: ModbusRequest = { fn: 4, address: 0x11, register: 8, count: 1 };
    expect(decodeModbusResponse(request, hex('11 04 02 000A F8F4'))).toMatchObject({ registers: [10] });
  });

  it('writes answer with their echo', () => {
    expect(
      decodeModbusResponse({ fn: 6, address: 0x11, register: 1, value: 3 }, hex('11 06 0001 0003 9A9B')),
    ).toEqual({ kind: 'write', address: 0x11, fn: 6, register: 1, value: 3 });
    expect(
      decodeModbusResponse(
        { fn: 16, address: 0x11, register: 1, values: [10, 258] },
        hex('11 10 0001 0002 1298'),
      ),
    ).toEqual({ kind: 'write', address: 0x11, fn: 16, register: 1, count: 2 });
  });

  it('an exception response (01 83 02 C0 F1: illegal data address)', () => {
    const request: ModbusRequest = { fn: 3, address: 1, register: 0x9999, count: 1 };
    const decoded = decodeModbusResponse(request, hex('01 83 02 C0 F1'));
    expect(decoded).toEqual({ kind: 'exception', address: 1, fn: 3, exceptionCode: 2 });
    expect(MODBUS_EXCEPTIONS[2]).toEqual({ zh: '非法数据地址', en: 'Illegal data address' });
  });

  it('a device builds what the console decodes (read, write, exception)', () => {
    const read: ModbusRequest = { fn: 3, address: 3, register: 100, count: 4 };
    const frame = buildModbusResponse(read, { registers: [612, 3342, -5, 65535] });
    expect(decodeModbusResponse(read, frame)).toMatchObject({ registers: [612, 3342, 65531, 65535] });
    const write: ModbusRequest = { fn: 16, address: 3, register: 200, values: [1, 2, 3] };
    expect(decodeModbusResponse(write, buildModbusResponse(write, { written: true }))).toMatchObject({
      count: 3,
    });
    const single: ModbusRequest = { fn: 6, address: 1, register: 0x10, value: -1 };
    expect(decodeModbusResponse(single, buildModbusResponse(single, { written: true }))).toMatchObject({
      value: 0xffff,
    });
    expect(formatHex(buildModbusResponse(read, { exceptionCode: 2 })).slice(0, 8)).toBe('03 83 02');
  });

  it.each([
    ['the CRC is wrong', '11 03 06 AE41 5652 4340 49AE', 'crcMismatch', 'CRC error: expected AD49, got AE49'],
    ['it is too short', '11 03 06 AE', 'frameTooShort', 'The response is too short (4 bytes)'],
    [
      'another unit answers',
      formatHex(appendCrc(hex('12 03 06 AE41 5652 4340'))),
      'addressMismatch',
      'The response comes from unit 18, the request went to unit 17',
    ],
    [
      'another function answers',
      formatHex(appendCrc(hex('11 04 06 AE41 5652 4340'))),
      'functionMismatch',
      'The response has function 4, the request 3',
    ],
    [
      'registers are missing',
      formatHex(appendCrc(hex('11 03 04 AE41 5652'))),
      'lengthMismatch',
      'The response is 9 bytes long, 11 expected',
    ],
  ])('refuses a response when %s', (_, frame, key, text) => {
    const error = errorOf(() =>
      decodeModbusResponse({ fn: 3, address: 0x11, register: 0x6b, count: 3 }, hex(frame)),
    );
    expect(error.messageKey).toBe(key);
    expect(error.message).toBe(text);
  });

  it('refuses a write response that does not echo the request', () => {
    const error = errorOf(() =>
      decodeModbusResponse({ fn: 6, address: 0x11, register: 1, value: 4 }, hex('11 06 0001 0003 9A9B')),
    );
    expect(modbusErrorText(error, 'zh')).toBe('写入响应与请求不一致');
  });
});

describe('hex text', () => {
  it.each([
    '01 03 00 00 00 0A C5 CD',
    '01030000000AC5CD',
    '0103 0000 000a c5cd',
    '0x01,0x03,0x00,0x00,0x00,0x0A,0xC5,0xCD',
    '01:03:00:00:00:0A:C5:CD',
    ' 01-03-00-00-00-0A-C5-CD\n',
  ])('reads %j', (text) => {
    expect(formatHex(parseHexFrame(text))).toBe('01 03 00 00 00 0A C5 CD');
  });

  it.each([
    ['01 03 0G', 'hexMalformed', 'Malformed hex: character 8 ("G") is not a hex digit'],
    ['01 03 00 zz', 'hexMalformed', 'Malformed hex: character 10 ("z") is not a hex digit'],
    ['0x', 'hexMalformed', 'Malformed hex: character 1 ("0x") is not a hex digit'],
    ['01 3', 'hexOddLength', 'Hex needs two digits per byte (an even number of digits in each group)'],
    ['010', 'hexOddLength', 'Hex needs two digits per byte (an even number of digits in each group)'],
    ['', 'hexEmpty', 'Enter the frame to send in hex'],
    [' ,: ', 'hexEmpty', 'Enter the frame to send in hex'],
    ['00'.repeat(MODBUS_MAX_FRAME_BYTES + 1), 'frameTooLong', 'The frame is longer than the 256-byte limit'],
    ['00 '.repeat(2000), 'frameTooLong', 'The frame is longer than the 256-byte limit'],
  ])('refuses %j', (text, key, message) => {
    const error = errorOf(() => parseHexFrame(text));
    expect(error.messageKey).toBe(key);
    expect(error.message).toBe(message);
  });

  it('takes a frame of exactly 256 bytes', () => {
    expect(parseHexFrame('ab'.repeat(MODBUS_MAX_FRAME_BYTES))).toHaveLength(MODBUS_MAX_FRAME_BYTES);
  });

  it('has the errors in Chinese too', () => {
    expect(
      modbusErrorText(
        errorOf(() => parseHexFrame('01 3')),
        'zh',
      ),
    ).toBe('十六进制每个字节须为两位数字');
    expect(
      modbusErrorText(
        errorOf(() => parseHexFrame('0'.repeat(600))),
        'zh',
      ),
    ).toBe('帧长度超过256字节上限');
  });
});

describe('request limits', () => {
  it.each([
    [{ fn: 3, address: 0, register: 0, count: 1 }, 'address', 'The unit address must be 1–247'],
    [{ fn: 3, address: 248, register: 0, count: 1 }, 'address', 'The unit address must be 1–247'],
    [{ fn: 3, address: 1, register: 65536, count: 1 }, 'register', 'The register must be 0–65535'],
    [{ fn: 3, address: 1, register: -1, count: 1 }, 'register', 'The register must be 0–65535'],
    [{ fn: 3, address: 1, register: 0, count: 0 }, 'count', 'The register count must be 1–125'],
    [{ fn: 4, address: 1, register: 0, count: 126 }, 'count', 'The register count must be 1–125'],
    [{ fn: 3, address: 1, register: 65535, count: 2 }, 'count', 'The registers run past 65535'],
    [
      { fn: 6, address: 1, register: 0, value: 65536 },
      'value',
      'Register values must be whole numbers from -32768 to 65535',
    ],
    [
      { fn: 6, address: 1, register: 0, value: -32769 },
      'value',
      'Register values must be whole numbers from -32768 to 65535',
    ],
    [{ fn: 16, address: 1, register: 0, values: [] }, 'values', 'The register count must be 1–123'],
    [
      { fn: 16, address: 1, register: 0, values: Array(124).fill(0) },
      'values',
      'The register count must be 1–123',
    ],
    [
      { fn: 16, address: 1, register: 0, values: [1, 2.5] },
      'values',
      'Register values must be whole numbers from -32768 to 65535',
    ],
  ] as Array<[ModbusRequest, string, string]>)('refuses %j', (request, field, text) => {
    expect(errorOf(() => buildModbusRequest(request)).message).toBe(text);
    const parsed = modbusRequestSchema.safeParse(request);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual([field]);
    expect(parsed.error?.issues[0]?.message).toBe(text);
  });

  it.each([
    { fn: 3, address: 1, register: 0, count: 125 },
    { fn: 3, address: 247, register: 65535, count: 1 },
    { fn: 6, address: 1, register: 0, value: -32768 },
    { fn: 16, address: 1, register: 65413, values: Array(123).fill(65535) },
  ] as ModbusRequest[])('accepts the edge %j', (request) => {
    expect(modbusRequestSchema.safeParse(request).success).toBe(true);
    expect(buildModbusRequest(request).length).toBeLessThanOrEqual(MODBUS_MAX_FRAME_BYTES);
  });

  it('a raw frame that is no request decodes to nothing', () => {
    expect(parseModbusRequest(hex('01 03 00 00 00 0A C5 CE'))).toBeNull(); // CRC
    expect(parseModbusRequest(hex('01 05 00 00 FF 00 8C 3A'))).toBeNull(); // function 5
    expect(parseModbusRequest(appendCrc(hex('00 03 00 00 00 01')))).toBeNull(); // broadcast read
    expect(parseModbusRequest(hex('01 03'))).toBeNull();
  });
});
