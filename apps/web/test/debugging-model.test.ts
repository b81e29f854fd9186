/**
 * The debugging composer's logic (features/debugging/model.ts): what goes out for the fields an
 * operator fills in (bytes with CRC, the contract's fault at the right field in zh and en),
 * which frames ask the second confirmation, and the register rows of a read answer.
 */
import { type DebugFrame, formatHex } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  composedErrorText,
  composeHex,
  composeModbus,
  DEFAULT_DRAFT,
  formatCountdown,
  mergeFrames,
  parseValues,
  registerRows,
  splitCrc,
} from '../src/features/debugging/model';

describe('Modbus fields → frame', () => {
  it('reads SOC (unit 1, fn 04, register 0, count 1) as the reference frame with its CRC', () => {
    const c = composeModbus({ ...DEFAULT_DRAFT, address: 1, fn: 4, register: 0, count: 1 });
    expect(c.ok && formatHex(c.bytes)).toBe('01 04 00 00 00 01 31 CA');
    expect(c.ok && c.write).toBe(false);
    expect(c.ok && splitCrc(c.bytes)).toEqual(['01 04 00 00 00 01', '31 CA']);
  });

  it('03 read of 10 registers matches the Modbus spec example CRC', () => {
    const c = composeModbus({ ...DEFAULT_DRAFT, address: 1, fn: 3, register: 0, count: 10 });
    expect(c.ok && formatHex(c.bytes)).toBe('01 03 00 00 00 0A C5 CD');
  });

  it('06 and 16 are writes; negative values go out as two’s complement', () => {
    const single = composeModbus({ ...DEFAULT_DRAFT, fn: 6, register: 100, value: -1 });
    expect(single.ok && single.write).toBe(true);
    expect(single.ok && formatHex(single.bytes).slice(0, 17)).toBe('01 06 00 64 FF FF');
    const multiple = composeModbus({ ...DEFAULT_DRAFT, fn: 16, register: 5, valuesText: '1, 0x10 -2' });
    expect(multiple.ok && multiple.write).toBe(true);
    expect(multiple.ok && multiple.frame).toEqual({
      kind: 'modbus',
      request: { fn: 16, address: 1, register: 5, values: [1, 16, -2] },
    });
  });

  it('a broken field answers the contract’s text at that field, in both languages', () => {
    const unit = composeModbus({ ...DEFAULT_DRAFT, address: 248 });
    expect(unit.ok).toBe(false);
    expect(!unit.ok && unit.field).toBe('address');
    expect(composedErrorText(unit, 'en')).toBe('The unit address must be 1–247');
    expect(composedErrorText(unit, 'zh')).toBe('从站地址应为1–247');
    const empty = composeModbus({ ...DEFAULT_DRAFT, register: null });
    expect(!empty.ok && empty.field).toBe('register');
    const count = composeModbus({ ...DEFAULT_DRAFT, fn: 3, count: 126 });
    expect(!count.ok && count.field).toBe('count');
    expect(composedErrorText(count, 'en')).toBe('The register count must be 1–125');
    const values = composeModbus({ ...DEFAULT_DRAFT, fn: 16, valuesText: '1, x2' });
    expect(!values.ok && values.field).toBe('values');
    expect(composedErrorText(values, 'en')).toBe(
      'Register values must be whole numbers from -32768 to 65535',
    );
  });

  it('parses values separated by spaces, commas and semicolons', () => {
    expect(parseValues(' 1,2;3  0xff ')).toEqual([1, 2, 3, 255]);
    expect(parseValues('1.5')).toEqual([Number.NaN]);
    expect(parseValues('')).toEqual([]);
  });
});

describe('raw hex → frame', () => {
  it('a malformed frame names the bad character (1-based) at the hex field', () => {
    const c = composeHex('01 0G 00');
    expect(!c.ok && c.field).toBe('hex');
    expect(composedErrorText(c, 'en')).toBe('Malformed hex: character 5 ("G") is not a hex digit');
    expect(composedErrorText(composeHex('01 0'), 'en')).toMatch(/two digits per byte/);
    expect(composedErrorText(composeHex('  '), 'zh')).toBe('请输入要发送的十六进制帧');
  });

  it('is sent as typed; a well-formed request is recognised, a write asks confirmation', () => {
    const read = composeHex('01 04 00 00 00 01 31 CA');
    expect(read.ok && read.frame).toEqual({ kind: 'hex', hex: '01 04 00 00 00 01 31 CA' });
    expect(read.ok && read.request).toEqual({ fn: 4, address: 1, register: 0, count: 1 });
    expect(read.ok && read.write).toBe(false);
    const write = composeHex('01 06 00 64 00 01');
    expect(write.ok && write.request).toBe(null);
    expect(write.ok && write.write).toBe(true);
    // Write single coil (05) is a write too, though we do not build it.
    expect(composeHex('01 05 00 01 FF 00').ok && composeHex('01 05 00 01 FF 00')).toMatchObject({
      write: true,
    });
  });
});

describe('the log', () => {
  it('shows each register read as hex, unsigned and signed, numbered from the first asked', () => {
    expect(registerRows({ kind: 'read', register: 10, registers: [540, 0xffff] })).toEqual([
      { register: 10, hex: '0x021C', unsigned: 540, signed: 540 },
      { register: 11, hex: '0xFFFF', unsigned: 65535, signed: -1 },
    ]);
    expect(registerRows({ kind: 'exception', exceptionCode: 2 })).toEqual([]);
    expect(registerRows(null)).toEqual([]);
  });

  it('merges just-sent frames with loaded ones, newest first, each once', () => {
    const frame = (id: number, at: string): DebugFrame => ({
      id,
      at,
      by: 'admin',
      port: 'internal',
      requestHex: '',
      responseHex: null,
      rttMs: null,
      timeout: true,
      write: false,
      decoded: null,
      error: null,
    });
    const merged = mergeFrames(
      [frame(3, '2026-01-01T00:00:03Z')],
      [frame(3, '2026-01-01T00:00:03Z'), frame(2, '2026-01-01T00:00:02Z'), frame(1, '2026-01-01T00:00:01Z')],
    );
    expect(merged.map((f) => f.id)).toEqual([3, 2, 1]);
  });

  it('counts down in m:ss and stops at 0:00', () => {
    expect(formatCountdown(600_000)).toBe('10:00');
    expect(formatCountdown(59_001)).toBe('1:00');
    expect(formatCountdown(-5)).toBe('0:00');
  });
});
