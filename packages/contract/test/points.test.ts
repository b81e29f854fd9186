/**
 * The point table (device/points.ts) is the one place point labels live: every standard point of
 * every device type has a zh and an en label and the unit its name's suffix says, names are unique
 * per type; and every source of the site-figure rule (device/site-figures.ts) is a standard point
 * of its type, each (type, point) pair serving one figure only (the server's SQL joins on it);
 * a project's declared storage meter provides no figure (the grid falls to the other meters, else
 * the gateway's `grid_kw`).
 */
import { describe, expect, it } from 'vitest';
import {
  DEVICE_TYPES,
  POINTS,
  pointDef,
  pointUnit,
  SITE_FIGURE_SOURCES,
  siteFigureSource,
  siteFigures,
  siteLoadKw,
  siteRatings,
} from '../src';

describe('standard points', () => {
  for (const type of DEVICE_TYPES) {
    it(`${type}: labelled in zh and en, unit as the name says, unique names`, () => {
      const names = POINTS[type].map((p) => p.name);
      expect(new Set(names).size).toBe(names.length);
      for (const p of POINTS[type]) {
        expect(p.zh.trim(), `${type}.${p.name} zh`).not.toBe('');
        expect(p.en.trim(), `${type}.${p.name} en`).not.toBe('');
        expect(p.zh, `${type}.${p.name}`).not.toBe(p.name);
        expect(p.en, `${type}.${p.name}`).not.toBe(p.name);
        expect(p.unit, `${type}.${p.name}`).toBe(pointUnit(p.name));
      }
    });
  }

  it('the EMS reports the site load and PV power under labelled names', () => {
    expect(pointDef('ems', 'load_kw')).toMatchObject({ unit: 'kW', zh: '负荷功率', en: 'Load power' });
    expect(pointDef('ems', 'pv_kw')).toMatchObject({ unit: 'kW', zh: '光伏功率', en: 'PV power' });
  });
});

describe('site-figure rule', () => {
  it('every source is a standard point of its type, each pair serving one figure', () => {
    const pairs = Object.values(SITE_FIGURE_SOURCES).flatMap((sources) =>
      sources.map((s) => `${s.type}.${s.point}`),
    );
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const sources of Object.values(SITE_FIGURE_SOURCES)) {
      for (const s of sources) expect(pointDef(s.type, s.point), `${s.type}.${s.point}`).toBeDefined();
    }
  });

  const dev = (type: string, points: Record<string, number>, capacityKwh: number | null = null) => ({
    type,
    points,
    capacityKwh,
  });

  it('a gateway-only site: its own SOC, power, grid, PV and load', () => {
    expect(siteFigures([dev('ems', { soc_pct: 57 })])).toEqual({
      socPct: 57,
      batteryKw: null,
      gridKw: null,
      pvKw: null,
      loadKw: null,
    });
    expect(siteFigures([dev('ems', { soc_pct: 50, p_kw: -10, pv_kw: 4, load_kw: 7.5 })])).toMatchObject({
      batteryKw: -10,
      pvKw: 4,
      gridKw: null,
      loadKw: 7.5,
    });
    expect(siteFigures([dev('ems', { p_kw: 5, grid_kw: 2, pv_kw: 1, load_kw: 99 })]).loadKw).toBe(8);
  });

  it('a site with BMS, PCS, meter and PV devices takes the figures from them, not from its gateway', () => {
    const figures = siteFigures([
      dev('ems', { soc_pct: 10, p_kw: 1, grid_kw: 1, pv_kw: 1, load_kw: 1 }),
      dev('bms', { soc_pct: 60 }, 300),
      dev('bms', { soc_pct: 40 }, 100),
      dev('pcs', { p_kw: -40 }),
      dev('meter', { p_kw: 30 }),
      dev('pv', { p_kw: 20 }),
    ]);
    expect(figures).toEqual({ socPct: 55, batteryKw: -40, gridKw: 30, pvKw: 20, loadKw: 10 });
    // A registered BMS that has not reported yet: no SOC (not the gateway's), until it does.
    expect(siteFigures([dev('ems', { soc_pct: 10 }), dev('bms', {})]).socPct).toBeNull();
  });

  it("a project's declared storage meter is no grid source: the other meters, else the gateway's grid_kw", () => {
    const storage = { type: 'meter', points: { p_kw: 80 }, storageMeter: true };
    const gateway = dev('ems', { grid_kw: 40 });
    // grid meter 120 + storage meter 80: the grid is 120 (not 200); load 120 + PV 0 + battery −80 = 40
    const pcs = dev('pcs', { p_kw: -80 });
    expect(siteFigures([gateway, pcs, dev('meter', { p_kw: 120 }), storage])).toMatchObject({
      gridKw: 120,
      batteryKw: -80,
      loadKw: 40,
    });
    expect(siteFigureSource([gateway, storage, dev('meter', { p_kw: 120 })], 'gridKw')?.devices).toEqual([
      dev('meter', { p_kw: 120 }),
    ]);
    // the storage meter the site's only meter: the gateway's grid_kw (not the storage meter's 80, not null)
    expect(siteFigures([gateway, pcs, storage]).gridKw).toBe(40);
    expect(siteFigureSource([gateway, storage], 'gridKw')?.source).toEqual({ type: 'ems', point: 'grid_kw' });
    // nor any other figure: no gateway either → no grid figure at all
    expect(siteFigures([pcs, storage]).gridKw).toBeNull();
    expect(siteFigureSource([storage], 'gridKw')).toBeNull();
    // a meter not declared (flag absent or false) is the grid meter
    expect(siteFigures([gateway, { ...storage, storageMeter: false }]).gridKw).toBe(80);
  });

  it('load: grid + PV + battery when the grid is known, else the reported load, else PV + battery', () => {
    expect(siteLoadKw(10, 5, -3, 99)).toBe(12);
    expect(siteLoadKw(null, 5, -3, 7)).toBe(7);
    expect(siteLoadKw(null, 5, -3, null)).toBe(2);
    expect(siteLoadKw(null, 5, null, null)).toBeNull();
  });

  it('capacity and rated power: BMS and PCS, else the gateway', () => {
    const ems = { type: 'ems', points: {}, capacityKwh: 10, ratedPowerKw: 5 };
    expect(siteRatings([ems])).toEqual({ capacityKwh: 10, ratedPowerKw: 5 });
    expect(
      siteRatings([
        ems,
        { type: 'bms', points: {}, capacityKwh: 215 },
        { type: 'pcs', points: {}, ratedPowerKw: 100 },
      ]),
    ).toEqual({ capacityKwh: 215, ratedPowerKw: 100 });
    expect(siteRatings([{ type: 'ems', points: {} }])).toEqual({ capacityKwh: 0, ratedPowerKw: 0 });
  });
});
