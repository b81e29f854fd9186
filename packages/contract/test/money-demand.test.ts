/**
 * The month's maximum demand with and without storage (money/demand.ts) against hand figures.
 */
import { describe, expect, it } from 'vitest';
import { monthDemand } from '../src/money/demand';

describe('monthDemand', () => {
  it('measured = highest import; baseline = highest grid + battery (discharge added back, charging taken out)', () => {
    const m = monthDemand([
      // night: the battery charges 100 kW; grid 180 = load 80 + charging 100 → without storage 80
      { gridKw: 180, batteryKw: -100 },
      // peak: load 420 kW, the battery discharges 150 → grid 270; without storage 420
      { gridKw: 270, batteryKw: 150 },
      // shoulder: load 300, battery idle → 300 both ways
      { gridKw: 300, batteryKw: 0 },
    ]);
    // measured max(180, 270, 300) = 300; baseline max(180 − 100, 270 + 150, 300 + 0) = max(80, 420, 300) = 420
    expect(m).toEqual({ maxDemandKw: 300, baselineMaxDemandKw: 420 });
  });

  it('export is not demand: a month of export only has 0 kW (not negative)', () => {
    // PV exports 50 kW while the battery charges 20 kW: grid −50; without storage −50 − 20 = −70 → 0
    expect(monthDemand([{ gridKw: -50, batteryKw: -20 }])).toEqual({
      maxDemandKw: 0,
      baselineMaxDemandKw: 0,
    });
    // discharging into export: grid −10 with 40 kW discharge → without storage −10 + 40 = 30 kW of import
    expect(monthDemand([{ gridKw: -10, batteryKw: 40 }])).toEqual({
      maxDemandKw: 0,
      baselineMaxDemandKw: 30,
    });
  });

  it('no grid figure in the month → null; a quarter without battery figure counts the battery idle', () => {
    expect(monthDemand([])).toEqual({ maxDemandKw: null, baselineMaxDemandKw: null });
    expect(monthDemand([{ gridKw: null, batteryKw: 100 }])).toEqual({
      maxDemandKw: null,
      baselineMaxDemandKw: null,
    });
    // quarter 1: grid 120, battery unknown → 120 / 120; quarter 2: no grid → skipped (its 500 kW battery too)
    expect(
      monthDemand([
        { gridKw: 120, batteryKw: null },
        { gridKw: null, batteryKw: 500 },
        { gridKw: Number.NaN, batteryKw: 0 },
      ]),
    ).toEqual({ maxDemandKw: 120, baselineMaxDemandKw: 120 });
  });

  it('kW to two decimals', () => {
    // 123.4567 → 123.46; 123.4567 + 10.001 = 133.4577 → 133.46
    expect(monthDemand([{ gridKw: 123.4567, batteryKw: 10.001 }])).toEqual({
      maxDemandKw: 123.46,
      baselineMaxDemandKw: 133.46,
    });
  });
});
