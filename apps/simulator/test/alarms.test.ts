import { describe, expect, it } from 'vitest';
import type { AlarmEvent } from '../src/model/alarms';
import { clearFault, injectFault, setTouPlan } from '../src/model/site';
import { JULY_MIDNIGHT_CN, newSite, run, touPlan } from './support';

describe('alarms', () => {
  it('a forced overcharge raises bms.cell_overvoltage warning, then fault, and charging stops', () => {
    // 01:00 local (charge period) at 92 % SOC
    let state = injectFault(
      newSite('ci_cabinet_215kwh', { soc: 92, start: JULY_MIDNIGHT_CN + 3600_000 }),
      'overcharge',
    );
    const seen: Array<{ k: number; e: AlarmEvent }> = [];
    const pKw: number[] = [];
    let faultAt = -1;
    state = run(state, 240, 10, (r, k) => {
      for (const e of r.events) seen.push({ k, e });
      pKw.push(r.readings.pcs.p_kw!);
      if (faultAt < 0 && r.events.some((e) => e.code === 'bms.cell_overvoltage' && e.level === 'fault'))
        faultAt = k;
    });
    const ov = seen.filter((s) => s.e.code === 'bms.cell_overvoltage');
    expect(ov.map((s) => [s.e.kind, s.e.level])).toEqual([
      ['produce', 'warning'],
      ['produce', 'fault'],
    ]);
    expect(ov[0]!.e.value).toBeGreaterThanOrEqual(3.6);
    expect(ov[0]!.e.device).toBe('bms');
    expect(ov[1]!.e.value).toBeGreaterThanOrEqual(3.65);
    expect(ov[0]!.k).toBeLessThan(ov[1]!.k);
    // charging before the fault, none after it
    expect(pKw[faultAt]).toBeLessThan(0);
    expect(pKw.slice(faultAt + 1).every((p) => p >= 0)).toBe(true);

    // fault removed: the BMS keeps charge blocked until the cell relaxes below the release
    // voltage; the evening discharge then clears the fault and the warning
    state = clearFault(state, 'overcharge');
    const later: AlarmEvent[] = [];
    run(state, 24 * 360, 10, (r) => later.push(...r.events.filter((e) => e.code === 'bms.cell_overvoltage')));
    expect(later.map((e) => [e.kind, e.level])).toEqual([
      ['disappear', 'fault'],
      ['disappear', 'warning'],
    ]);
  });

  it('charging at high SOC on the normal schedule tapers and raises no alarm', () => {
    const state = setTouPlan(
      newSite('ci_cabinet_215kwh', { soc: 97, start: JULY_MIDNIGHT_CN + 12 * 3600_000 }),
      touPlan([['00:00', 'charge', 110]]),
    );
    let maxCell = 0;
    const events: AlarmEvent[] = [];
    let charged = 0;
    run(state, 360, 10, (r) => {
      maxCell = Math.max(maxCell, r.readings.bms.u_cell_max_v!);
      events.push(...r.events.filter((e) => e.code !== 'env.door_open'));
      charged += Math.max(0, -r.readings.pcs.p_kw!);
    });
    expect(charged).toBeGreaterThan(0);
    expect(maxCell).toBeLessThan(3.6);
    expect(events).toEqual([]);
  });

  const cases: Array<{
    kind: Parameters<typeof injectFault>[1];
    code: string;
    levels: string[];
    soc?: number;
    startH?: number;
  }> = [
    {
      kind: 'overdischarge',
      code: 'bms.cell_undervoltage',
      levels: ['warning', 'fault'],
      soc: 8,
      startH: 19,
    },
    { kind: 'cell_overtemperature', code: 'bms.cell_overtemperature', levels: ['warning', 'fault'] },
    {
      kind: 'pcs_over_temperature',
      code: 'pcs.over_temperature',
      levels: ['warning', 'fault'],
      soc: 50,
      startH: 18,
    },
    { kind: 'grid_overvoltage', code: 'pcs.grid_overvoltage', levels: ['warning', 'fault'] },
    { kind: 'cell_imbalance', code: 'bms.cell_voltage_diff', levels: ['warning'], soc: 50, startH: 18 },
    { kind: 'smoke', code: 'env.smoke', levels: ['fault'] },
    { kind: 'water', code: 'env.water', levels: ['fault'] },
    { kind: 'door_open', code: 'env.door_open', levels: ['warning'] },
    { kind: 'ac_fault', code: 'ac.fault', levels: ['warning'] },
  ];
  for (const c of cases) {
    it(`injected ${c.kind} produces ${c.code} (${c.levels.join(', ')}) and clearing it makes it disappear`, () => {
      const start = JULY_MIDNIGHT_CN + (c.startH ?? 0) * 3600_000;
      let state = injectFault(newSite('ci_cabinet_215kwh', { soc: c.soc ?? 50, start }), c.kind);
      const produced: AlarmEvent[] = [];
      const tripped: number[] = [];
      state = run(state, 6 * 360, 10, (r) => {
        produced.push(...r.events.filter((e) => e.code === c.code));
        if (r.state.alarms.includes(`${c.code}/fault`)) tripped.push(r.readings.pcs.p_kw!);
      });
      expect(produced.filter((e) => e.kind === 'produce').map((e) => e.level)).toEqual(c.levels);
      // while a fault is active the system does not run in the faulted direction
      if (c.kind === 'overdischarge') expect(tripped.slice(1).every((p) => p <= 0)).toBe(true);
      if (c.kind === 'smoke' || c.kind === 'water' || c.kind === 'grid_overvoltage') {
        expect(tripped.slice(1).every((p) => p === 0)).toBe(true);
      }
      state = clearFault(state);
      const after: AlarmEvent[] = [];
      let clearedAt = -1;
      run(state, 24 * 360, 10, (r, k) => {
        if (clearedAt >= 0) return; // later events are new (e.g. a maintenance visit opens the door)
        after.push(...r.events.filter((e) => e.code === c.code));
        if (!r.state.alarms.some((a) => a.startsWith(`${c.code}/`))) clearedAt = k;
      });
      expect(clearedAt).toBeGreaterThanOrEqual(0);
      expect(after.filter((e) => e.kind === 'produce')).toEqual([]);
      // every level raised was also cleared, fault before warning
      const cleared = [...produced, ...after].filter((e) => e.kind === 'disappear').map((e) => e.level);
      expect(cleared).toEqual([...c.levels].reverse());
    });
  }
});
