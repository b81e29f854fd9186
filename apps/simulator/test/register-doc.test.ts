/**
 * docs/device-protocol.md "Simulator register map" shows the register map the simulated EMS
 * answers from (registers.ts), table by table: this test fails when the two drift apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type BusDevice, REGISTER_MAP } from '../src/registers';

const DEVICE_NAMES: Record<string, string> = {
  ems: 'EMS',
  pcs: 'PCS',
  bms: 'BMS',
  meter: 'Grid meter',
  air_conditioner: 'Air conditioner',
  env_sensor: 'Environment sensor',
  pv: 'PV inverter',
};

/** The markdown of one device's registers, as the doc has it. */
function deviceTable(d: BusDevice): string {
  const unit = d.unit === 'modbus_address' ? 'its `modbus_address` (default 1)' : String(d.unit);
  const rows = d.registers.map((r) => {
    const end = r.kind.endsWith('32') ? `–${r.address + 1}` : '';
    const access = r.table === 'input' ? '04 (read-only)' : '03 / 06, 16 (writable)';
    const scale = r.codes
      ? r.codes
          .map((c, i) => (c === null ? null : `${i} ${c}`))
          .filter(Boolean)
          .join(', ')
      : r.scale === 1
        ? '1'
        : `× ${r.scale}`;
    return `| ${access} | ${r.address}${end} | \`${r.key}\` | ${r.kind} | ${scale} | ${r.unit || '–'} |`;
  });
  if (d.cells) {
    rows.push(
      `| 04 (read-only) | ${d.cells.voltages}… | cell voltages, cell 1 first | u16 | × 1000 | V (mV) |`,
    );
    rows.push(
      `| 04 (read-only) | ${d.cells.temperatures}… | cell temperatures, cell 1 first | i16 | × 10 | °C |`,
    );
  }
  return [
    `#### ${DEVICE_NAMES[d.type]}: port \`${d.port}\`, unit ${unit}`,
    '',
    '| Function | Register | Point / parameter | Type | Scale / codes | Unit |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

describe('docs/device-protocol.md "Simulator register map"', () => {
  it('shows every device’s registers as registers.ts has them', () => {
    const doc = readFileSync(new URL('../../../docs/device-protocol.md', import.meta.url), 'utf8');
    for (const d of REGISTER_MAP) expect(doc).toContain(deviceTable(d));
  });
});
