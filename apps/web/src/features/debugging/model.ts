/**
 * The composer's and the log's pure logic (issue 15 item 5): a Modbus request or a raw hex
 * frame as typed → the bytes that go out (with CRC), whether they write, and the first fault at
 * the field it concerns; a decoded answer → register rows. The frame rules and their zh/en texts
 * are the contract's (device/modbus.ts: `modbusRequestIssue`, `buildModbusRequest`,
 * `parseHexFrame`, `parseModbusRequest`, `modbusErrorText`); nothing is checked twice here.
 */
import {
  buildModbusRequest,
  type DebugFrame,
  formatHex,
  isModbusWriteFrame,
  type Lang,
  ModbusFrameError,
  type ModbusFunction,
  type ModbusRequest,
  modbusErrorText,
  modbusRequestIssue,
  parseHexFrame,
  parseModbusRequest,
  toInt16,
} from '@ess/contract';
import type { OutgoingFrame } from './api';

/** How the frame is given: built from fields, or typed as hex. */
export type FrameMode = 'modbus' | 'hex';

/** The Modbus fields as the form holds them (null: empty). */
export interface ModbusDraft {
  address: number | null;
  fn: ModbusFunction;
  register: number | null;
  /** Registers to read (03/04). */
  count: number | null;
  /** Value to write (06), -32768–65535. */
  value: number | null;
  /** Values to write (16): numbers separated by spaces, commas or semicolons; `0x` hex allowed. */
  valuesText: string;
}

export const DEFAULT_DRAFT: ModbusDraft = {
  address: 1,
  fn: 4,
  register: 0,
  count: 1,
  value: 0,
  valuesText: '',
};

/** A field of the composer a fault is shown at. */
export type ComposerField = 'address' | 'register' | 'count' | 'value' | 'values' | 'hex';

/** What the composer would send, or why it cannot. */
export type Composed =
  | {
      ok: true;
      frame: OutgoingFrame;
      /** The bytes on the wire (a built request carries its CRC; hex goes as typed). */
      bytes: Uint8Array;
      /** The request the bytes hold, when they are a well-formed 03/04/06/16 request. */
      request: ModbusRequest | null;
      write: boolean;
    }
  | { ok: false; field: ComposerField; error: ModbusFrameError };

/** `'1, 0x10 -3'` → [1, 16, -3]; NaN for a token that is not a number (caught by the rule). */
export function parseValues(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter((s) => s !== '')
    .map((s) => (/^[+-]?(\d+|0x[0-9a-f]+)$/i.test(s) ? Number(s) : Number.NaN));
}

/** The request of the fields (an empty field is NaN, which the contract's rule refuses). */
export function requestOfDraft(d: ModbusDraft): ModbusRequest {
  const n = (v: number | null) => (v === null ? Number.NaN : v);
  const base = { address: n(d.address), register: n(d.register) };
  switch (d.fn) {
    case 3:
    case 4:
      return { ...base, fn: d.fn, count: n(d.count) };
    case 6:
      return { ...base, fn: 6, value: n(d.value) };
    case 16:
      return { ...base, fn: 16, values: parseValues(d.valuesText) };
  }
}

/** The Modbus fields → the frame (built with its CRC) or the first fault and its field. */
export function composeModbus(d: ModbusDraft): Composed {
  const request = requestOfDraft(d);
  const issue = modbusRequestIssue(request);
  if (issue) return { ok: false, field: issue.field, error: issue.error };
  const bytes = buildModbusRequest(request);
  return {
    ok: true,
    frame: { kind: 'modbus', request },
    bytes,
    request,
    write: request.fn === 6 || request.fn === 16,
  };
}

/** A hex text → the frame as typed, or the parse fault (at the `hex` field). */
export function composeHex(text: string): Composed {
  try {
    const bytes = parseHexFrame(text);
    const request = parseModbusRequest(bytes);
    return { ok: true, frame: { kind: 'hex', hex: text }, bytes, request, write: isModbusWriteFrame(bytes) };
  } catch (err) {
    if (err instanceof ModbusFrameError) return { ok: false, field: 'hex', error: err };
    throw err;
  }
}

/** The fault of a composition in `lang`, or null. */
export function composedErrorText(c: Composed, lang: Lang): string | null {
  return c.ok ? null : modbusErrorText(c.error, lang);
}

/** Bytes as hex pairs with the last two (a CRC) apart: `['01 04 00 00 00 01', '31 CA']`. */
export function splitCrc(bytes: Uint8Array): [string, string] {
  if (bytes.length < 3) return [formatHex(bytes), ''];
  return [formatHex(bytes.subarray(0, -2)), formatHex(bytes.subarray(-2))];
}

/** One register of a read answer as the log's table shows it. */
export interface RegisterRow {
  register: number;
  /** '0x021C' */
  hex: string;
  unsigned: number;
  signed: number;
}

/** 0x0000-style text of a 16-bit number. */
export function hex16(n: number): string {
  return `0x${n.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The rows of a read answer (register numbers from the first one asked for); [] otherwise. */
export function registerRows(decoded: DebugFrame['decoded']): RegisterRow[] {
  if (decoded?.kind !== 'read') return [];
  return decoded.registers.map((value, i) => ({
    register: decoded.register + i,
    hex: hex16(value),
    unsigned: value,
    signed: toInt16(value),
  }));
}

/** Milliseconds left → 'm:ss' (never below 0:00). */
export function formatCountdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The log's frames: `fresh` (just sent, newest first) before `loaded` (newest first), once each. */
export function mergeFrames(fresh: readonly DebugFrame[], loaded: readonly DebugFrame[]): DebugFrame[] {
  const seen = new Set<number>();
  const out: DebugFrame[] = [];
  for (const f of [...fresh, ...loaded]) {
    if (seen.has(f.id)) continue;
    seen.add(f.id);
    out.push(f);
  }
  return out.sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || b.id - a.id);
}
