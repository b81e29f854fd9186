/**
 * The Modbus register map of a simulated site (docs/device-protocol.md "Simulator register
 * map"): which device answers at which port and unit address, and its registers. One table,
 * used by the `debug_frame` handler ({@link answerFrame}) and copied into the doc.
 *
 * - Input registers (function 04) are measured values: the telemetry points of the last model
 *   step (and the BMS's cell voltages and temperatures), read-only.
 * - Holding registers (03 read, 06/16 write) are the device's parameters (params/schema.ts);
 *   a write goes through the contract's validator like a `set_params` and, once applied,
 *   changes what the model does; the gateway reports it as a local change.
 *
 * Registers are 16-bit; `u32`/`i32` values take two registers, high word first. A value is
 * stored as round(value × scale) (`scale` 10: 0.1 units). An enumeration is stored as its code
 * ({@link RegisterDef.codes}). A parameter without a value (a limit left empty: the rating)
 * reads as all ones (0xFFFF per register).
 *
 * Answers as a serial device does: a read of an address (or a range with an address) that has
 * no register → exception 02 (illegal data address), also a write to part of a two-register
 * value; a function other than 03/04/06/16 → 01 (illegal function); a request of a malformed
 * length or count → 03; a written value the validator refuses (or no code of the enumeration)
 * → 03 (illegal data value), nothing written. A frame with a bad CRC, to a unit nobody has, or
 * broadcast (unit 0) gets no answer at all.
 */
import {
  appendCrc,
  buildModbusResponse,
  type DebugPort,
  type DeviceType,
  hasValidCrc,
  type ParamValue,
  parseModbusRequest,
  toInt16,
} from '@ess/contract';
import type { FleetSite } from './fleet';
import type { SiteReadings } from './model/site';
import type { GatewayParams } from './params';

export type RegisterKind = 'u16' | 'i16' | 'u32' | 'i32';

/** One value in the map. */
export interface RegisterDef {
  /** First register. */
  address: number;
  /** `input`: a telemetry point (read-only, function 04); `holding`: a parameter (03/06/16). */
  table: 'input' | 'holding';
  /** Point name (input) or parameter key (holding). */
  key: string;
  kind: RegisterKind;
  /** register = round(value × scale). */
  scale: number;
  unit: string;
  /** Enumeration: register value → parameter value (null: no such code). */
  codes?: readonly (ParamValue | null)[];
}

/** A device on a port of the EMS. */
export interface BusDevice {
  type: DeviceType;
  port: DebugPort;
  /** Its unit address: fixed, or the value of its `modbus_address` parameter (the meter). */
  unit: number | 'modbus_address';
  registers: readonly RegisterDef[];
  /** BMS: cell voltages (mV) from register `voltages`, cell temperatures (0.1 °C, signed) from `temperatures`. */
  cells?: { voltages: number; temperatures: number };
}

const r = (
  address: number,
  table: RegisterDef['table'],
  key: string,
  kind: RegisterKind,
  scale: number,
  unit: string,
  codes?: readonly (ParamValue | null)[],
): RegisterDef => ({ address, table, key, kind, scale, unit, ...(codes ? { codes } : {}) });

const inp = (address: number, key: string, kind: RegisterKind, scale: number, unit: string) =>
  r(address, 'input', key, kind, scale, unit);
const hold = (
  address: number,
  key: string,
  kind: RegisterKind,
  scale: number,
  unit: string,
  codes?: readonly (ParamValue | null)[],
) => r(address, 'holding', key, kind, scale, unit, codes);

/** The devices of a simulated site on the ports of its EMS, with their registers. */
export const REGISTER_MAP: readonly BusDevice[] = [
  {
    type: 'ems',
    port: 'internal',
    unit: 1,
    registers: [
      inp(0, 'soc_pct', 'u16', 10, '%'),
      inp(1, 'p_setpoint_kw', 'i32', 10, 'kW'),
      inp(3, 'load_kw', 'i32', 10, 'kW'),
      inp(5, 'pv_kw', 'i32', 10, 'kW'),
      inp(7, 'run_mode', 'u16', 1, ''),
      hold(0, 'operating_mode', 'u16', 1, '', ['tou', 'manual', 'backup', 'standby']),
      hold(1, 'manual_power_kw', 'i32', 10, 'kW'),
      hold(3, 'export_limit_kw', 'u32', 10, 'kW'),
      hold(5, 'demand_limit_kw', 'u32', 10, 'kW'),
      hold(7, 'soc_min_pct', 'u16', 1, '%'),
      hold(8, 'soc_max_pct', 'u16', 1, '%'),
      hold(9, 'backup_reserve_pct', 'u16', 1, '%'),
      hold(10, 'grid_freq_high_hz', 'u16', 100, 'Hz'),
      hold(11, 'grid_freq_low_hz', 'u16', 100, 'Hz'),
      hold(12, 'grid_voltage_high_pct', 'u16', 1, '%Un'),
      hold(13, 'grid_voltage_low_pct', 'u16', 1, '%Un'),
      hold(20, 'ip_mode', 'u16', 1, '', ['dhcp', 'static']),
      hold(21, 'mqtt_port', 'u16', 1, ''),
    ],
  },
  {
    type: 'pcs',
    port: 'rs485_1',
    unit: 1,
    registers: [
      inp(0, 'p_kw', 'i32', 10, 'kW'),
      inp(2, 'q_kvar', 'i32', 10, 'kvar'),
      inp(4, 'pf', 'u16', 1000, ''),
      inp(5, 'freq_hz', 'u16', 100, 'Hz'),
      inp(6, 'u_a_v', 'u16', 10, 'V'),
      inp(7, 'u_b_v', 'u16', 10, 'V'),
      inp(8, 'u_c_v', 'u16', 10, 'V'),
      inp(9, 'i_a_a', 'u16', 10, 'A'),
      inp(10, 'i_b_a', 'u16', 10, 'A'),
      inp(11, 'i_c_a', 'u16', 10, 'A'),
      inp(12, 'dc_u_v', 'u16', 10, 'V'),
      inp(13, 'dc_i_a', 'i16', 10, 'A'),
      inp(14, 't_igbt_c', 'i16', 10, '°C'),
      inp(15, 'state', 'u16', 1, ''),
      inp(16, 'e_charge_total_kwh', 'u32', 10, 'kWh'),
      inp(18, 'e_discharge_total_kwh', 'u32', 10, 'kWh'),
      hold(0, 'active_power_limit_kw', 'u32', 10, 'kW'),
      hold(2, 'ramp_rate_kw_s', 'u32', 10, 'kW/s'),
      hold(4, 'reactive_mode', 'u16', 1, '', ['pf', 'q']),
      hold(5, 'power_factor', 'u16', 100, ''),
      hold(6, 'pf_direction', 'u16', 1, '', ['inject', 'absorb']),
      hold(7, 'reactive_power_kvar', 'i32', 10, 'kvar'),
      hold(9, 'grid_mode', 'u16', 1, '', ['on_grid', 'off_grid']),
    ],
  },
  {
    type: 'bms',
    port: 'rs485_1',
    unit: 2,
    registers: [
      inp(0, 'soc_pct', 'u16', 10, '%'),
      inp(1, 'soh_pct', 'u16', 10, '%'),
      inp(2, 'u_pack_v', 'u16', 10, 'V'),
      inp(3, 'i_pack_a', 'i16', 10, 'A'),
      inp(4, 'u_cell_max_v', 'u16', 1000, 'V'),
      inp(5, 'u_cell_min_v', 'u16', 1000, 'V'),
      inp(6, 'u_cell_max_no', 'u16', 1, ''),
      inp(7, 'u_cell_min_no', 'u16', 1, ''),
      inp(8, 'u_cell_diff_mv', 'u16', 1, 'mV'),
      inp(9, 't_cell_max_c', 'i16', 10, '°C'),
      inp(10, 't_cell_min_c', 'i16', 10, '°C'),
      inp(11, 't_cell_max_no', 'u16', 1, ''),
      inp(12, 't_cell_min_no', 'u16', 1, ''),
      inp(13, 'charge_limit_kw', 'u32', 10, 'kW'),
      inp(15, 'discharge_limit_kw', 'u32', 10, 'kW'),
      inp(17, 'insulation_kohm', 'u16', 1, 'kΩ'),
      inp(18, 'cell_count', 'u16', 1, ''),
      hold(0, 'charge_current_limit_a', 'u16', 10, 'A'),
      hold(1, 'discharge_current_limit_a', 'u16', 10, 'A'),
      hold(2, 'cell_ov_warning_v', 'u16', 1000, 'V'),
      hold(3, 'cell_ov_fault_v', 'u16', 1000, 'V'),
      hold(4, 'cell_uv_warning_v', 'u16', 1000, 'V'),
      hold(5, 'cell_uv_fault_v', 'u16', 1000, 'V'),
      hold(6, 'cell_ot_warning_c', 'i16', 10, '°C'),
      hold(7, 'cell_ot_fault_c', 'i16', 10, '°C'),
    ],
    cells: { voltages: 1000, temperatures: 3000 },
  },
  {
    type: 'meter',
    port: 'rs485_2',
    unit: 'modbus_address',
    registers: [
      inp(0, 'p_kw', 'i32', 10, 'kW'),
      inp(2, 'pf', 'u16', 1000, ''),
      inp(3, 'freq_hz', 'u16', 100, 'Hz'),
      inp(4, 'u_a_v', 'u16', 10, 'V'),
      inp(5, 'u_b_v', 'u16', 10, 'V'),
      inp(6, 'u_c_v', 'u16', 10, 'V'),
      inp(7, 'i_a_a', 'u16', 10, 'A'),
      inp(8, 'i_b_a', 'u16', 10, 'A'),
      inp(9, 'i_c_a', 'u16', 10, 'A'),
      inp(10, 'e_import_total_kwh', 'u32', 10, 'kWh'),
      inp(12, 'e_export_total_kwh', 'u32', 10, 'kWh'),
      hold(0, 'modbus_address', 'u16', 1, ''),
      hold(1, 'baud_rate', 'u16', 1, 'bps'),
      hold(2, 'stop_bits', 'u16', 1, ''),
      // Modbus serial line convention: 0 none, 1 odd, 2 even (odd is not one of spec §9's settings)
      hold(3, 'parity', 'u16', 1, '', ['none', null, 'even']),
      hold(4, 'ct_ratio', 'u32', 100, ''),
      hold(6, 'pt_ratio', 'u32', 100, ''),
      hold(8, 'meter_role', 'u16', 1, '', ['grid', 'storage', 'pv', 'load']),
    ],
  },
  {
    type: 'air_conditioner',
    port: 'rs485_2',
    unit: 20,
    registers: [
      inp(0, 'state', 'u16', 1, ''),
      inp(1, 't_supply_c', 'i16', 10, '°C'),
      inp(2, 't_return_c', 'i16', 10, '°C'),
      inp(3, 'fault', 'u16', 1, ''),
      hold(0, 'ac_type', 'u16', 1, '', ['cabinet', 'split', 'liquid_cooling']),
      hold(1, 'cooling_start_c', 'i16', 10, '°C'),
      hold(2, 'cooling_stop_c', 'i16', 10, '°C'),
      hold(3, 'heating_start_c', 'i16', 10, '°C'),
      hold(4, 'heating_stop_c', 'i16', 10, '°C'),
      hold(5, 'high_temp_alarm_c', 'i16', 10, '°C'),
      hold(6, 'low_temp_alarm_c', 'i16', 10, '°C'),
    ],
  },
  {
    type: 'env_sensor',
    port: 'rs485_2',
    unit: 21,
    registers: [
      inp(0, 't_c', 'i16', 10, '°C'),
      inp(1, 'rh_pct', 'u16', 10, '%'),
      inp(2, 'smoke', 'u16', 1, ''),
      inp(3, 'water', 'u16', 1, ''),
      inp(4, 'door', 'u16', 1, ''),
    ],
  },
  {
    type: 'pv',
    port: 'rs485_2',
    unit: 22,
    registers: [inp(0, 'p_kw', 'i32', 10, 'kW'), inp(2, 'e_total_kwh', 'u32', 10, 'kWh')],
  },
];

const words = (kind: RegisterKind) => (kind === 'u32' || kind === 'i32' ? 2 : 1);

const RANGE: Record<RegisterKind, [number, number]> = {
  u16: [0, 0xffff],
  i16: [-0x8000, 0x7fff],
  u32: [0, 0xffffffff],
  i32: [-0x80000000, 0x7fffffff],
};

/** The register words of `value` (clamped to the kind's range; null: all ones). */
export function encodeValue(def: RegisterDef, value: ParamValue | null | undefined): number[] {
  const n = words(def.kind);
  let raw: number | undefined;
  if (def.codes) {
    const i = value === null || value === undefined ? -1 : def.codes.indexOf(value);
    raw = i >= 0 ? i : undefined;
  } else if (typeof value === 'number' && Number.isFinite(value)) {
    const [lo, hi] = RANGE[def.kind];
    raw = Math.min(hi, Math.max(lo, Math.round(value * def.scale)));
  }
  if (raw === undefined) return Array.from({ length: n }, () => 0xffff);
  if (n === 1) return [raw < 0 ? raw + 0x10000 : raw];
  const u = raw < 0 ? raw + 0x100000000 : raw;
  return [Math.floor(u / 0x10000), u % 0x10000];
}

/** The value of register words `w` (unsigned 16-bit each); undefined: no code of the enumeration. */
export function decodeValue(def: RegisterDef, w: readonly number[]): ParamValue | undefined {
  let raw: number;
  switch (def.kind) {
    case 'u16':
      raw = w[0]!;
      break;
    case 'i16':
      raw = toInt16(w[0]!);
      break;
    case 'u32':
      raw = w[0]! * 0x10000 + w[1]!;
      break;
    case 'i32': {
      const u = w[0]! * 0x10000 + w[1]!;
      raw = u >= 0x80000000 ? u - 0x100000000 : u;
      break;
    }
  }
  if (def.codes) return def.codes[raw] ?? undefined;
  return def.scale === 1 ? raw : raw / def.scale;
}

/** The unit address of `device` at a site whose parameters are `params`. */
function unitOf(device: BusDevice, site: FleetSite, params: GatewayParams): number | undefined {
  if (device.unit !== 'modbus_address') return device.unit;
  const sn = site.devices.find((d) => d.type === device.type)?.sn;
  const v = sn ? params.devices[sn]?.values.modbus_address : undefined;
  return typeof v === 'number' ? v : 1;
}

/** The device of `site` answering at `port`/`unit` (the first one when two share an address). */
export function busDeviceAt(
  site: FleetSite,
  params: GatewayParams,
  port: DebugPort,
  unit: number,
): { device: BusDevice; sn: string } | undefined {
  for (const device of REGISTER_MAP) {
    if (device.port !== port) continue;
    const sn = site.devices.find((d) => d.type === device.type)?.sn;
    if (sn && unitOf(device, site, params) === unit) return { device, sn };
  }
  return undefined;
}

/** What a frame did: the response bytes (null: no answer) and a parameter change it made. */
export interface FrameAnswer {
  response: Uint8Array | null;
  /** A write that was applied: the device and its new values (the caller applies them). */
  write?: { sn: string; changes: Record<string, ParamValue> };
}

/**
 * Checks a write's values with the device's validator: returns undefined when it may be
 * applied, else a reason (the frame is answered with exception 03).
 */
export type WriteCheck = (sn: string, changes: Record<string, ParamValue>) => string | undefined;

/**
 * The answer of the device at `port` to the raw `frame` (module comment): reads from the
 * current `readings` (null before the first model step: exception 06, device busy) and the
 * devices' `params`; a write is checked with `check` and returned in `write` when it may be
 * applied.
 */
export function answerFrame(
  site: FleetSite,
  params: GatewayParams,
  readings: SiteReadings | undefined,
  port: DebugPort,
  frame: Uint8Array,
  check: WriteCheck,
): FrameAnswer {
  if (frame.length < 4 || !hasValidCrc(frame)) return { response: null };
  const unit = frame[0]!;
  const fn = frame[1]!;
  const found = unit === 0 ? undefined : busDeviceAt(site, params, port, unit);
  if (!found) return { response: null };
  const exception = (code: number) => ({
    response: appendCrc(Uint8Array.of(unit, (fn | 0x80) & 0xff, code)),
  });
  if (![3, 4, 6, 16].includes(fn)) return exception(1);
  const request = parseModbusRequest(frame);
  if (!request) return exception(3);
  const { device, sn } = found;
  const table = request.fn === 4 ? 'input' : 'holding';
  const defs = device.registers.filter((d) => d.table === table);
  const values = params.devices[sn]?.values ?? {};

  if (request.fn === 3 || request.fn === 4) {
    if (request.fn === 4 && !readings) return exception(6);
    const map = new Map<number, number>();
    const points = (readings?.[device.type] ?? {}) as Record<string, number | undefined>;
    for (const def of defs) {
      const v =
        def.table === 'holding'
          ? values[def.key]
          : def.key === 'cell_count'
            ? readings?.cells.u_v.length
            : points[def.key];
      // a point this device does not have (phase B on a single-phase meter) has no register
      if (def.table === 'input' && v === undefined) continue;
      const ws = encodeValue(def, v);
      for (let i = 0; i < ws.length; i++) map.set(def.address + i, ws[i]!);
    }
    if (request.fn === 4 && device.cells && readings) {
      const { voltages, temperatures } = device.cells;
      const { u_v, t_c } = readings.cells;
      for (let i = 0; i < u_v.length; i++) map.set(voltages + i, Math.round(u_v[i]! * 1000));
      for (let i = 0; i < t_c.length; i++) {
        const raw = Math.round(t_c[i]! * 10);
        map.set(temperatures + i, raw < 0 ? raw + 0x10000 : raw);
      }
    }
    const out: number[] = [];
    for (let a = request.register; a < request.register + request.count; a++) {
      const w = map.get(a);
      if (w === undefined) return exception(2);
      out.push(w);
    }
    return { response: buildModbusResponse(request, { registers: out }) };
  }

  // writes: the registers must cover whole values of holding registers
  const written = request.fn === 6 ? [request.value] : request.fn === 16 ? request.values : [];
  const changes: Record<string, ParamValue> = {};
  for (let i = 0; i < written.length; ) {
    const address = request.register + i;
    const def = defs.find((d) => d.address === address);
    if (!def || i + words(def.kind) > written.length) return exception(2);
    const v = decodeValue(
      def,
      written.slice(i, i + words(def.kind)).map((x) => (x < 0 ? x + 0x10000 : x)),
    );
    if (v === undefined) return exception(3);
    changes[def.key] = v;
    i += words(def.kind);
  }
  if (check(sn, changes) !== undefined) return exception(3);
  return { response: buildModbusResponse(request, { written: true }), write: { sn, changes } };
}

/**
 * Time the exchange of `requestBytes` and `responseBytes` takes on `port`, ms: 9600 baud with
 * 11 bits a character (Modbus over Serial Line §2.5.1) plus 5 ms for the device to answer; the
 * internal map answers in 1 ms.
 */
export function busTimeMs(port: DebugPort, requestBytes: number, responseBytes: number): number {
  if (port === 'internal') return 1;
  return Math.round(((requestBytes + responseBytes) * 11 * 1000) / 9600 + 5);
}
