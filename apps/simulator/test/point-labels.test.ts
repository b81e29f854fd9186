/**
 * Every point the simulated fleet sends has a label in both languages and a unit (issue 14, item
 * 6: `load_kw` and `pv_kw` of the EMS showed their raw key). The labels live in one place, the
 * contract's point table (device/points.ts); the console shows `pointLabel`/`pointUnit` of it on
 * real-time data, history, export and the EMS panel of site monitoring. A point the simulator
 * starts sending without a row there fails this test.
 */
import { DEVICE_TYPES, type DeviceType, pointDef, pointLabel, pointUnit } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { buildFleet } from '../src/fleet';
import { buildTelemetry } from '../src/payloads';
import { createSimSite } from '../src/sim-site';
import { JULY_MIDNIGHT_CN, run } from './support';

/** Every point name each device type sends, over a fleet holding every site kind and profile. */
function sentPoints(): Map<DeviceType, Set<string>> {
  const sent = new Map<DeviceType, Set<string>>();
  // 40 sites: C&I cabinets with and without PV, households and the large station.
  for (const site of buildFleet({ seed: 1, sites: 40 })) {
    // Noon in China (PV producing), each message with the BMS cells.
    run(createSimSite(site, 1, JULY_MIDNIGHT_CN + 12 * 3600_000), 3, 60, (r, k) => {
      const payload = buildTelemetry(site, r.readings, {
        id: String(k),
        ts: r.state.timeMs,
        withCells: true,
      });
      for (const d of payload.devices) {
        const names = sent.get(d.type) ?? new Set<string>();
        for (const name of Object.keys(d.points)) names.add(name);
        sent.set(d.type, names);
      }
    });
  }
  return sent;
}

describe('point labels of the simulated fleet', () => {
  const sent = sentPoints();

  it('the fleet sends every device type', () => {
    expect([...sent.keys()].sort()).toEqual([...DEVICE_TYPES].sort());
  });

  for (const type of DEVICE_TYPES) {
    it(`every ${type} point has a zh and an en label and the unit its name says`, () => {
      const names = [...(sent.get(type) ?? [])];
      expect(names.length).toBeGreaterThan(0);
      const unlabelled = names.filter((name) => {
        const def = pointDef(type, name);
        return (
          !def ||
          def.zh.trim() === '' ||
          def.en.trim() === '' ||
          pointLabel(name, type, 'zh') === name ||
          pointLabel(name, type, 'en') === name
        );
      });
      expect(unlabelled, `${type} points without a zh/en label in contract device/points.ts`).toEqual([]);
      for (const name of names) {
        // The unit of the table agrees with the name's suffix (`_kw` → kW, a flag → '').
        expect(pointDef(type, name)!.unit, `${type}.${name}`).toBe(pointUnit(name));
      }
    });
  }
});
