import { describe, expect, it } from 'vitest';
import { bdewProfile } from '../src/data';
import { profileLoadKw } from '../src/model/load';
import { lfpOcv } from '../src/model/ocv';
import { PROFILE_IDS } from '../src/model/profiles';
import { type SiteReadings, setTouPlan } from '../src/model/site';
import { clearSkyGhi, pvPowerKw, solarElevationDeg } from '../src/model/solar';
import { localTime } from '../src/model/time';
import { beijing, JANUARY_MIDNIGHT_CN, newSite, run, touPlan } from './support';

const DAY = 1440; // one-minute steps per day

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

describe('EMS plan', () => {
  it('follows a pushed plan: discharge 10:00–12:00 only', () => {
    const plan = touPlan([
      ['00:00', 'idle'],
      ['10:00', 'discharge', 50],
      ['12:00', 'idle'],
    ]);
    const state = setTouPlan(newSite('container_5mwh', { soc: 60 }), plan);
    run(state, DAY, 60, (r) => {
      const lt = localTime('Asia/Shanghai', r.state.timeMs - 60_000);
      const inPeriod = lt.minuteOfDay >= 600 && lt.minuteOfDay < 720;
      expect(r.readings.pcs.p_kw).toBe(inPeriod ? 50 : 0);
    });
  });

  it('runs the default plan until a scheme arrives: charge 00–06, discharge 18–22, idle otherwise', () => {
    const site = newSite('container_5mwh', { soc: 50 });
    expect(site.touPlan).toBeNull();
    const byHour = new Map<number, number>();
    run(site, DAY, 60, (r) => {
      const h = Math.floor(localTime('Asia/Shanghai', r.state.timeMs - 60_000).minuteOfDay / 60);
      if (!byHour.has(h)) byHour.set(h, r.readings.pcs.p_kw!);
    });
    // at rated power (2.5 MW) the half-full container is full within the first hour
    expect(byHour.get(0)).toBeLessThan(-2000);
    expect(byHour.get(10)).toBe(0);
    expect(byHour.get(18)).toBeGreaterThan(2000);
    expect(byHour.get(23)).toBe(0);
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
