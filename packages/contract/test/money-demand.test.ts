/**
 * The month's maximum demand with and without storage (money/demand.ts) against hand figures.
 */
import { describe, expect, it } from 'vitest';
import { combineDemand, monthDemand } from '../src/money/demand';

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

describe('combineDemand', () => {
  it('the month from its days equals the month from all its quarter hours; a day not measured changes nothing', () => {
    const day1 = [
      { gridKw: 180, batteryKw: -100 }, // 180 / 80
      { gridKw: 270, batteryKw: 150 }, // 270 / 420
    ];
    const day2 = [{ gridKw: 300.004, batteryKw: null }]; // 300.00 / 300.00
    const day3 = [{ gridKw: 280, batteryKw: 250 }]; // 280 / 530
    const noGrid = [{ gridKw: null, batteryKw: 999 }]; // not measured
    const days = [day1, day2, day3, noGrid].map((d) => monthDemand(d));
    expect(days[3]).toEqual({ maxDemandKw: null, baselineMaxDemandKw: null });
    // month: with storage max(270, 300, 280) = 300; without max(420, 300, 530) = 530
    expect(combineDemand(days)).toEqual({ maxDemandKw: 300, baselineMaxDemandKw: 530 });
    expect(combineDemand(days)).toEqual(monthDemand([...day1, ...day2, ...day3, ...noGrid]));
    expect(combineDemand([])).toEqual({ maxDemandKw: null, baselineMaxDemandKw: null });
    expect(combineDemand([days[3]!])).toEqual({ maxDemandKw: null, baselineMaxDemandKw: null });
  });
});
