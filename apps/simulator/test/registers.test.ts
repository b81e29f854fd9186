/**
 * Transparent debugging against the simulated EMS: `debug_frame` answered from the register map
 * (reads of measured values and parameters, writes through the validator that change what the
 * site does), with Modbus exceptions, and silence where a real bus stays silent.
 */
import {
  appendCrc,
  buildModbusRequest,
  debugFrameResult,
  decodeModbusResponse,
  type ModbusRequest,
  type ModbusResponse,
  toInt16,
} from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { buildFleet } from '../src/fleet';
import { type SiteReadings, type SiteState, step } from '../src/model/site';
import { type GatewayParams, initialGatewayParams } from '../src/params';
import { type CommandOutcome, handleCommand } from '../src/payloads';
import { REGISTER_MAP } from '../src/registers';
import { createSimSite } from '../src/sim-site';

const START = Date.UTC(2025, 6, 15, 2, 0);
const site = buildFleet({ seed: 1, sites: 5 })[0]!;
const AC = site.devices.find((d) => d.type === 'air_conditioner')!.sn;

class Ems {
  state: SiteState = createSimSite(site, 1, START);
  params: GatewayParams = initialGatewayParams(site);
  readings: SiteReadings;
  constructor() {
    const r = step(this.state, 10, START + 10_000);
    this.state = r.state;
    this.readings = r.readings;
  }

  frame(port: string, bytes: Uint8Array, timeoutMs = 1000): CommandOutcome {
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    const out = handleCommand(
      {
        state: this.state,
        clockOffsetMs: 0,
        simNowMs: this.state.timeMs,
        devices: { site, params: this.params, readings: this.readings },
      },
      JSON.stringify({ v: 1, id: 'c-dbg', ts: START, name: 'debug_frame', params: { port, hex, timeoutMs } }),
    );
    this.state = out.state;
    if (out.params) this.params = out.params;
    return out;
  }

  /** Sends `request` to `port`; the decoded response (throws when none came). */
  modbus(port: string, request: ModbusRequest): ModbusResponse {
    const out = this.frame(port, buildModbusRequest(request));
    expect(out.reply?.ok).toBe(true);
    const result = debugFrameResult.parse(out.reply?.result);
    if (result.hex === null) throw new Error('no response');
    return decodeModbusResponse(request, Uint8Array.from(Buffer.from(result.hex, 'hex')));
  }
}

const registers = (r: ModbusResponse) => (r.kind === 'read' ? r.registers : []);
const exceptionOf = (r: ModbusResponse) => (r.kind === 'exception' ? r.exceptionCode : undefined);

describe('reads', () => {
  it('unit 1 on the internal port, input register 0: the SOC in 0.1 %', () => {
    const ems = new Ems();
    const soc = ems.readings.ems.soc_pct!;
    expect(registers(ems.modbus('internal', { fn: 4, address: 1, register: 0, count: 1 }))).toEqual([
      Math.round(soc * 10),
    ]);
  });

  it('the BMS’s cell voltages in mV and temperatures in 0.1 °C; the PCS’s power as a signed 32-bit value', () => {
    const ems = new Ems();
    const cells = registers(ems.modbus('rs485_1', { fn: 4, address: 2, register: 1000, count: 10 }));
    expect(cells).toEqual(ems.readings.cells.u_v.slice(0, 10).map((v) => Math.round(v * 1000)));
    const n = ems.readings.cells.u_v.length;
    const last = registers(ems.modbus('rs485_1', { fn: 4, address: 2, register: 3000 + n - 1, count: 1 }));
    expect(toInt16(last[0]!) / 10).toBeCloseTo(ems.readings.cells.t_c[n - 1]!, 5);
    expect(registers(ems.modbus('rs485_1', { fn: 4, address: 2, register: 18, count: 1 }))).toEqual([n]);
    const [hi, lo] = registers(ems.modbus('rs485_1', { fn: 4, address: 1, register: 0, count: 2 }));
    const raw = hi! * 0x10000 + lo!;
    expect((raw >= 0x80000000 ? raw - 0x100000000 : raw) / 10).toBeCloseTo(ems.readings.pcs.p_kw!, 1);
  });

  it('holding registers hold the parameters: the AC’s cooling start in 0.1 °C, empty limits as all ones', () => {
    const ems = new Ems();
    expect(registers(ems.modbus('rs485_2', { fn: 3, address: 20, register: 1, count: 4 }))).toEqual([
      280, 250, 100, 130,
    ]);
    expect(registers(ems.modbus('rs485_1', { fn: 3, address: 1, register: 0, count: 2 }))).toEqual([
      0xffff, 0xffff,
    ]);
  });

  it('every register of the map can be read (the documented table is whole)', () => {
    const ems = new Ems();
    for (const device of REGISTER_MAP) {
      const unit = device.unit === 'modbus_address' ? 1 : device.unit;
      for (const def of device.registers) {
        if (device.type === 'pv' && site.pvKwp === 0) continue;
        const r = ems.modbus(device.port, {
          fn: def.table === 'input' ? 4 : 3,
          address: unit,
          register: def.address,
          count: 1,
        });
        expect(r.kind, `${device.type} ${def.table} ${def.address} ${def.key}`).toBe('read');
      }
    }
  });
});

describe('writes', () => {
  it('a write of the cooling start changes the parameter, the model and is reported as a local change', () => {
    const ems = new Ems();
    const out = ems.frame('rs485_2', buildModbusRequest({ fn: 6, address: 20, register: 1, value: 260 }));
    expect(out.localChanges).toEqual([{ deviceSn: AC, changed: ['cooling_start_c'] }]);
    expect(ems.params.devices[AC]!.values.cooling_start_c).toBe(26);
    expect(ems.state.settings.coolingStartC).toBe(26);
    expect(registers(ems.modbus('rs485_2', { fn: 3, address: 20, register: 1, count: 1 }))).toEqual([260]);
    // two values at once with function 16
    const both = ems.modbus('rs485_2', { fn: 16, address: 20, register: 1, values: [300, 270] });
    expect(both).toMatchObject({ kind: 'write', count: 2 });
    expect(ems.state.settings).toMatchObject({ coolingStartC: 30, coolingStopC: 27 });
  });

  it('a value the validator refuses is exception 03 and changes nothing', () => {
    const ems = new Ems();
    // 45.0 °C: outside 25.0–40.0
    expect(exceptionOf(ems.modbus('rs485_2', { fn: 6, address: 20, register: 1, value: 450 }))).toBe(3);
    // a cooling stop above the cooling start (a rule between parameters)
    expect(exceptionOf(ems.modbus('rs485_2', { fn: 6, address: 20, register: 2, value: 290 }))).toBe(3);
    // no code of the enumeration
    expect(exceptionOf(ems.modbus('internal', { fn: 6, address: 1, register: 0, value: 9 }))).toBe(3);
    expect(ems.params).toEqual(initialGatewayParams(site));
  });

  it('the meter answers at its new Modbus address once it is written', () => {
    const ems = new Ems();
    ems.modbus('rs485_2', { fn: 6, address: 1, register: 0, value: 5 });
    expect(
      ems.frame('rs485_2', buildModbusRequest({ fn: 4, address: 1, register: 0, count: 2 })).reply?.result,
    ).toMatchObject({ hex: null });
    expect(ems.modbus('rs485_2', { fn: 4, address: 5, register: 0, count: 2 }).kind).toBe('read');
  });
});

describe('exceptions and silence', () => {
  it('an address without a register is exception 02, as is a write to half of a 32-bit value', () => {
    const ems = new Ems();
    expect(exceptionOf(ems.modbus('internal', { fn: 4, address: 1, register: 500, count: 1 }))).toBe(2);
    expect(exceptionOf(ems.modbus('internal', { fn: 4, address: 1, register: 6, count: 3 }))).toBe(2);
    expect(exceptionOf(ems.modbus('internal', { fn: 6, address: 1, register: 4, value: 0 }))).toBe(2);
    expect(exceptionOf(ems.modbus('rs485_1', { fn: 6, address: 2, register: 100, value: 1 }))).toBe(2);
  });

  it('an unsupported function is exception 01', () => {
    const ems = new Ems();
    const out = ems.frame('internal', appendCrc(Uint8Array.of(1, 0x2b, 0x0e, 0x01, 0x00)));
    expect(out.reply?.result).toMatchObject({
      hex: Buffer.from(appendCrc(Uint8Array.of(1, 0xab, 1))).toString('hex'),
    });
  });

  it('a bad CRC or a unit nobody has gets no answer: hex null after the timeout', () => {
    const ems = new Ems();
    const good = buildModbusRequest({ fn: 4, address: 1, register: 0, count: 1 });
    const bad = Uint8Array.from(good);
    bad[bad.length - 1]! ^= 0xff;
    for (const [port, frame] of [
      ['internal', bad],
      ['internal', buildModbusRequest({ fn: 4, address: 7, register: 0, count: 1 })],
      ['rs485_1', buildModbusRequest({ fn: 4, address: 20, register: 0, count: 1 })],
    ] as const) {
      const out = ems.frame(port, frame, 700);
      expect(out.reply).toMatchObject({ ok: true, result: { hex: null, busMs: 700 } });
      expect(out.delayMs).toBe(700);
    }
    const answered = ems.frame(
      'rs485_1',
      buildModbusRequest({ fn: 4, address: 2, register: 0, count: 1 }),
      700,
    );
    expect(answered.delayMs).toBe(debugFrameResult.parse(answered.reply?.result).busMs);
    expect(answered.delayMs).toBeLessThan(700);
  });
});
