import { describe, expect, it } from 'vitest';
import { bdewProfile } from '../src/data';
import type { AlarmEvent } from '../src/model/alarms';
import { profileLoadKw } from '../src/model/load';
import { lfpOcv } from '../src/model/ocv';
import { nominalEnergyKwh, PROFILE_IDS, PROFILES } from '../src/model/profiles';
import { scheduleSchema } from '../src/model/schedule';
import { clearFault, injectFault, type SiteReadings, setSchedule, socPct } from '../src/model/site';
import { clearSkyGhi, pvPowerKw, solarElevationDeg } from '../src/model/solar';
import { localTime } from '../src/model/time';
import { beijing, JANUARY_MIDNIGHT_CN, JULY_MIDNIGHT_CN, newSite, run } from './support';

const DAY = 1440; // one-minute steps per day

function capacityFrom(profile: keyof typeof PROFILES, r: SiteReadings): number {
  return (nominalEnergyKwh(PROFILES[profile]) * r.bms.soh_pct!) / 100;
}

describe('energy balance', () => {
  it('stored energy follows the PCS registers with the efficiency, charging and over a whole day (C&I)', () => {
    const profile = 'ci_cabinet_215kwh';
    const eta = PROFILES[profile].efficiency;
    const rs: SiteReadings[] = [];
    run(newSite(profile, { soc: 10 }), DAY, 60, (r) => rs.push(r.readings));
    const cap = capacityFrom(profile, rs[0]!);
    const delta = (a: SiteReadings, b: SiteReadings) => ({
      storedKwh: ((b.bms.soc_pct! - a.bms.soc_pct!) / 100) * cap,
      chargedKwh: b.pcs.e_charge_total_kwh! - a.pcs.e_charge_total_kwh!,
      dischargedKwh: b.pcs.e_discharge_total_kwh! - a.pcs.e_discharge_total_kwh!,
    });

    // 00:01 → 06:00: the night charge
    const night = delta(rs[0]!, rs[359]!);
    expect(night.chargedKwh).toBeGreaterThan(150);
    expect(night.dischargedKwh).toBe(0);
    expect(Math.abs(night.storedKwh - night.chargedKwh * eta)).toBeLessThan(0.01 * night.chargedKwh * eta);

    // 18:00 → 22:00: the evening discharge
    const evening = delta(rs[18 * 60 - 1]!, rs[22 * 60 - 1]!);
    expect(evening.dischargedKwh).toBeGreaterThan(100);
    expect(Math.abs(-evening.storedKwh - evening.dischargedKwh / eta)).toBeLessThan(
      (0.01 * evening.dischargedKwh) / eta,
    );

    // the whole day
    const day = delta(rs[0]!, rs.at(-1)!);
    const expected = day.chargedKwh * eta - day.dischargedKwh / eta;
    expect(Math.abs(day.storedKwh - expected)).toBeLessThan(0.01 * (day.chargedKwh + day.dischargedKwh));
    // round trip ≥ 90 % (vendor sheet)
    expect(eta * eta).toBeGreaterThanOrEqual(0.9);
  });

  it('grid meter energy = load − PV − battery, and the PV register integrates PV power', () => {
    for (const profile of PROFILE_IDS) {
      const rs: SiteReadings[] = [];
      run(newSite(profile, { seed: 3 }), DAY, 60, (r) => rs.push(r.readings));
      let netKwh = 0;
      let pvKwh = 0;
      for (const r of rs.slice(1)) {
        netKwh += ((r.ems.load_kw! - r.ems.pv_kw! - r.pcs.p_kw!) * 60) / 3600;
        pvKwh += (r.ems.pv_kw! * 60) / 3600;
      }
      const a = rs[0]!;
      const b = rs.at(-1)!;
      const meterNet =
        b.meter.e_import_total_kwh! -
        a.meter.e_import_total_kwh! -
        (b.meter.e_export_total_kwh! - a.meter.e_export_total_kwh!);
      const throughput = rs.reduce((s, r) => s + (Math.abs(r.meter.p_kw!) * 60) / 3600, 0);
      expect(throughput).toBeGreaterThan(0);
      expect(Math.abs(meterNet - netKwh)).toBeLessThan(0.001 * throughput + 0.01);
      // each step: meter power is load − PV − PCS power (rounding of three values)
      for (const r of rs) {
        expect(Math.abs(r.meter.p_kw! - (r.ems.load_kw! - r.ems.pv_kw! - r.pcs.p_kw!))).toBeLessThan(0.02);
      }
      if (b.pv)
        expect(Math.abs(b.pv.e_total_kwh! - a.pv!.e_total_kwh! - pvKwh)).toBeLessThan(0.01 + 0.001 * pvKwh);
    }
  });
});

describe('a week of normal operation', () => {
  for (const profile of PROFILE_IDS) {
    for (const [season, start, place] of [
      ['July, Shanghai', JULY_MIDNIGHT_CN, {}],
      ['January, Beijing', JANUARY_MIDNIGHT_CN, beijing],
    ] as const) {
      it(`${profile}, ${season}: SOC within the window, cells within limits, no alarms, registers only grow`, () => {
        const pr = PROFILES[profile];
        let minSoc = Number.POSITIVE_INFINITY;
        let maxSoc = Number.NEGATIVE_INFINITY;
        let minCell = Number.POSITIVE_INFINITY;
        let maxCell = Number.NEGATIVE_INFINITY;
        let prev: SiteReadings | undefined;
        const alarms: AlarmEvent[] = [];
        run(newSite(profile, { start, spec: place }), 7 * DAY, 60, (r) => {
          const s = socPct(r.state);
          minSoc = Math.min(minSoc, s);
          maxSoc = Math.max(maxSoc, s);
          const b = r.readings.bms;
          minCell = Math.min(minCell, b.u_cell_min_v!);
          maxCell = Math.max(maxCell, b.u_cell_max_v!);
          expect(Math.abs(r.readings.pcs.p_kw!)).toBeLessThanOrEqual(pr.ratedPowerKw + 1e-9);
          // pack voltage is the sum of the cell voltages (each rounded to 1 mV)
          const sum = r.readings.cells.u_v.reduce((a, v) => a + v, 0);
          expect(Math.abs(sum - b.u_pack_v!)).toBeLessThan(0.0005 * pr.seriesCells + 0.05);
          if (prev) {
            for (const [dev, name] of [
              ['pcs', 'e_charge_total_kwh'],
              ['pcs', 'e_discharge_total_kwh'],
              ['meter', 'e_import_total_kwh'],
              ['meter', 'e_export_total_kwh'],
            ] as const) {
              expect(r.readings[dev][name]!).toBeGreaterThanOrEqual(prev[dev][name]!);
            }
            if (r.readings.pv)
              expect(r.readings.pv.e_total_kwh!).toBeGreaterThanOrEqual(prev.pv!.e_total_kwh!);
          }
          prev = r.readings;
          alarms.push(...r.events.filter((e) => e.code !== 'env.door_open'));
        });
        expect(minSoc).toBeGreaterThanOrEqual(pr.socFloorPct - 1e-9);
        expect(maxSoc).toBeLessThanOrEqual(pr.socCeilingPct + 1e-9);
        expect(maxCell).toBeLessThan(pr.cellMaxV);
        expect(minCell).toBeGreaterThan(pr.cellMinV);
        expect(alarms).toEqual([]);
        // the battery really cycles (so the bounds above were tested)
        expect(maxSoc).toBeGreaterThan(90);
        if (profile !== 'household_10kwh') expect(minSoc).toBeLessThan(pr.socFloorPct + 1);
      });
    }
  }
});

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
    const state = setSchedule(
      newSite('ci_cabinet_215kwh', { soc: 97, start: JULY_MIDNIGHT_CN + 12 * 3600_000 }),
      [{ start: '00:00', end: '24:00', action: 'charge', powerKw: 110, socMinPct: 5, socMaxPct: 100 }],
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

describe('determinism', () => {
  const readings = (seed: number) => {
    const out: SiteReadings[] = [];
    run(newSite('ci_cabinet_215kwh', { seed }), 600, 60, (r) => out.push(r.readings));
    return out;
  };
  it('the same seed gives identical readings; another seed gives different ones', () => {
    const a = readings(7);
    expect(readings(7)).toEqual(a);
    const b = readings(8);
    expect(b).not.toEqual(a);
    // different cells are high or low
    expect(b.at(-1)!.cells.u_v).not.toEqual(a.at(-1)!.cells.u_v);
  });
  it('the same cells are highest and lowest whenever the pack is near full', () => {
    const maxNo = new Set<number>();
    run(newSite('ci_cabinet_215kwh', { seed: 5 }), 3 * DAY, 60, (r) => {
      if (r.readings.bms.soc_pct! > 97 && r.readings.pcs.p_kw === 0) maxNo.add(r.readings.bms.u_cell_max_no!);
    });
    expect(maxNo.size).toBe(1);
  });
});

describe('schedule', () => {
  it('follows a replaced schedule: discharge 10:00–12:00 only', () => {
    const periods = [
      {
        start: '10:00',
        end: '12:00',
        action: 'discharge' as const,
        powerKw: 50,
        socMinPct: 20,
        socMaxPct: 100,
      },
    ];
    const state = setSchedule(newSite('container_5mwh', { soc: 60 }), periods);
    run(state, DAY, 60, (r) => {
      const lt = localTime('Asia/Shanghai', r.state.timeMs - 60_000);
      const inPeriod = lt.minuteOfDay >= 600 && lt.minuteOfDay < 720;
      expect(r.readings.pcs.p_kw).toBe(inPeriod ? 50 : 0);
    });
  });

  it('validates plans: overlaps, too many periods, bad times and SOC windows are refused', () => {
    const p = { start: '00:00', end: '06:00', action: 'charge', powerKw: 100, socMinPct: 5, socMaxPct: 100 };
    expect(scheduleSchema.safeParse([p]).success).toBe(true);
    expect(scheduleSchema.safeParse([{ ...p, start: '22:00', end: '06:00' }]).success).toBe(true);
    expect(scheduleSchema.safeParse([p, { ...p, start: '05:00', end: '07:00' }]).success).toBe(false);
    expect(scheduleSchema.safeParse([p, { ...p, start: '23:00', end: '01:00' }]).success).toBe(false);
    expect(scheduleSchema.safeParse([{ ...p, end: '24:01' }]).success).toBe(false);
    expect(scheduleSchema.safeParse([{ ...p, socMinPct: 60, socMaxPct: 50 }]).success).toBe(false);
    expect(scheduleSchema.safeParse([{ ...p, powerKw: -1 }]).success).toBe(false);
    const many = Array.from({ length: 25 }, (_, i) => ({
      ...p,
      start: `${String(i % 24).padStart(2, '0')}:00`,
      end: `${String(i % 24).padStart(2, '0')}:30`,
    }));
    expect(scheduleSchema.safeParse(many).success).toBe(false);
  });
});

describe('component models', () => {
  it('LFP OCV: ~2.9 V empty, flat 3.26–3.34 V from 20 to 90 %, ≥ 3.45 V full, rising', () => {
    expect(lfpOcv(0)).toBeCloseTo(2.9, 3);
    for (let s = 20; s <= 90; s += 1) {
      expect(lfpOcv(s)).toBeGreaterThanOrEqual(3.26);
      expect(lfpOcv(s)).toBeLessThanOrEqual(3.34);
    }
    expect(lfpOcv(100)).toBeGreaterThanOrEqual(3.45);
    for (let s = -5; s < 105; s += 0.25) expect(lfpOcv(s + 0.25)).toBeGreaterThanOrEqual(lfpOcv(s));
  });

  it('PCS AC values: I = S/(3·U) per phase (three-phase), phase A only for a household, 50 Hz', () => {
    run(newSite('ci_cabinet_215kwh'), 120, 60, (r) => {
      const p = r.readings.pcs;
      const s = Math.abs(p.p_kw!) / p.pf!;
      expect(Math.abs(p.i_a_a! - (s * 1000) / (3 * p.u_a_v!))).toBeLessThan(0.2 + 0.005 * p.i_a_a!);
      expect(p.u_a_v!).toBeGreaterThan(230 * 0.95);
      expect(p.u_a_v!).toBeLessThan(230 * 1.05);
      expect(Math.abs(p.freq_hz! - 50)).toBeLessThan(0.2);
      expect(p.pf!).toBeGreaterThan(0.95);
    });
    run(newSite('household_10kwh'), 60, 60, (r) => {
      expect(r.readings.pcs.u_b_v).toBeUndefined();
      const p = r.readings.pcs;
      expect(Math.abs(p.i_a_a! - ((Math.abs(p.p_kw!) / p.pf!) * 1000) / p.u_a_v!)).toBeLessThan(0.1);
    });
  });

  it('pack voltages stay in the vendor ranges', () => {
    const ranges = {
      ci_cabinet_215kwh: [672, 876],
      household_10kwh: [350, 560],
      container_5mwh: [1123, 1498],
    };
    for (const profile of PROFILE_IDS) {
      run(newSite(profile), 2 * DAY, 60, (r) => {
        expect(r.readings.bms.u_pack_v!).toBeGreaterThanOrEqual(ranges[profile][0]!);
        expect(r.readings.bms.u_pack_v!).toBeLessThanOrEqual(ranges[profile][1]!);
      });
    }
  });

  it('the air conditioner cools above cooling_start_c and heats below heating_start_c', () => {
    const summer: number[] = [];
    run(newSite('ci_cabinet_215kwh'), DAY, 60, (r) => summer.push(r.readings.air_conditioner.state!));
    expect(summer).toContain(1);
    expect(summer).not.toContain(2);
    const winter: number[] = [];
    const cab: number[] = [];
    run(newSite('ci_cabinet_215kwh', { start: JANUARY_MIDNIGHT_CN, spec: beijing }), 3 * DAY, 60, (r) => {
      winter.push(r.readings.air_conditioner.state!);
      cab.push(r.readings.env_sensor.t_c!);
    });
    expect(winter).toContain(2);
    expect(winter).not.toContain(1);
    expect(Math.min(...cab)).toBeGreaterThan(5); // heating holds the cabinet although it is −5 °C outside
  });

  it('solar: the sun is high at noon in June and down at night; PV follows', () => {
    const noon = Date.UTC(2025, 5, 21, 4, 0); // 12:00 in Shanghai
    expect(solarElevationDeg(noon, 31.23, 121.47)).toBeGreaterThan(78);
    expect(solarElevationDeg(noon + 12 * 3600_000, 31.23, 121.47)).toBeLessThan(0);
    expect(clearSkyGhi(90)).toBeGreaterThan(1000);
    expect(clearSkyGhi(-5)).toBe(0);
    expect(pvPowerKw(100, noon, 31.23, 121.47)).toBeGreaterThan(75);
    expect(pvPowerKw(100, noon + 12 * 3600_000, 31.23, 121.47)).toBe(0);
  });

  it('BDEW profiles: a year of G25 and H25 at 1 GWh/a sums to about 1 GWh', () => {
    for (const name of ['G25', 'H25'] as const) {
      const p = bdewProfile(name);
      let kwh = 0;
      for (let t = Date.UTC(2024, 11, 31, 16); t < Date.UTC(2025, 11, 31, 16); t += 900_000) {
        kwh += profileLoadKw(p, 1e6, localTime('Asia/Shanghai', t)) * 0.25;
      }
      expect(kwh).toBeGreaterThan(0.97e6);
      expect(kwh).toBeLessThan(1.03e6);
    }
  });
});
