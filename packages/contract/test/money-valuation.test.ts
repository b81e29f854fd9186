/**
 * The one money rule (money/valuation.ts) against hand-computed figures.
 */
import { describe, expect, it } from 'vitest';
import {
  equivalentFullCycles,
  NO_TWO_PART,
  registerEnergyKwh,
  roundCny,
  storageEfficiencyPct,
  twoPartChargesCny,
  twoPartTariffMissingField,
  valueEnergy,
  valueLine,
} from '../src/money/valuation';

describe('valueEnergy', () => {
  it('the README worked example: 1000 kWh charged at 0.3, 900 kWh discharged at 1.2 → 780 CNY', () => {
    const v = valueEnergy([
      { tier: 'off_peak', priceCnyPerKwh: 0.3, chargedKwh: 1000, dischargedKwh: 0 },
      { tier: 'peak', priceCnyPerKwh: 1.2, chargedKwh: 0, dischargedKwh: 900 },
    ]);
    // cost 1000 × 0.3 = 300; value 900 × 1.2 = 1080; net 1080 − 300 = 780
    expect(v).toMatchObject({
      chargedKwh: 1000,
      dischargedKwh: 900,
      costCny: 300,
      valueCny: 1080,
      netCny: 780,
    });
    expect(v.perTier.map((t) => t.tier)).toEqual(['sharp', 'peak', 'shoulder', 'off_peak']);
    expect(v.perTier[1]).toMatchObject({ dischargedKwh: 900, valueCny: 1080, costCny: 0 });
    expect(v.perTier[3]).toMatchObject({ chargedKwh: 1000, costCny: 300, netCny: -300 });
  });

  it('prices each period at its own price (sharp and peak apart, not all at the day high)', () => {
    // Shanghai 2025-07 10 kV prices: sharp 1.4352, peak 1.1637, valley 0.3191.
    // 200 kWh charged in the valley: 200 × 0.3191 = 63.82
    // 100 kWh discharged in peak: 100 × 1.1637 = 116.37; 80 kWh in sharp: 80 × 1.4352 = 114.816 → 114.82
    // value 116.37 + 114.82 = 231.19; net 231.19 − 63.82 = 167.37
    const v = valueEnergy([
      { tier: 'off_peak', priceCnyPerKwh: 0.3191, chargedKwh: 200, dischargedKwh: 0 },
      { tier: 'peak', priceCnyPerKwh: 1.1637, chargedKwh: 0, dischargedKwh: 100 },
      { tier: 'sharp', priceCnyPerKwh: 1.4352, chargedKwh: 0, dischargedKwh: 80 },
    ]);
    expect(v).toMatchObject({ costCny: 63.82, valueCny: 231.19, netCny: 167.37 });
    // the old estimate (all discharge at the day's highest price): 180 × 1.4352 − 63.82 = 194.52
    expect(v.netCny).not.toBe(194.52);
  });

  it('rounds each line to the fen and sums the rounded lines (net = value − cost exactly)', () => {
    // 0.005 kWh × 1 = 0.005 → 0.01 per line; three lines → 0.03 (not round(0.015) = 0.02)
    const line = { tier: 'peak' as const, priceCnyPerKwh: 1, chargedKwh: 0, dischargedKwh: 0.005 };
    expect(valueLine(line)).toEqual({ costCny: 0, valueCny: 0.01, netCny: 0.01 });
    expect(valueEnergy([line, line, line]).valueCny).toBe(0.03);
    expect(roundCny(-1.005)).toBe(-1.01);
  });
});

describe('registers, efficiency, cycles', () => {
  it('energy = reading difference × CT × PT; backwards gives null', () => {
    // (1012.5 − 1000) × 40 (CT 200/5) × 100 (PT 10000/100) = 12.5 × 4000 = 50 000 kWh
    expect(registerEnergyKwh(1000, 1012.5, 40, 100)).toBe(50_000);
    expect(registerEnergyKwh(1000, 1012.5)).toBe(12.5);
    expect(registerEnergyKwh(1000, 999)).toBeNull();
  });
  it('efficiency = discharged ÷ charged; cycles = discharged ÷ capacity', () => {
    expect(storageEfficiencyPct(1000, 900)).toBe(90);
    expect(storageEfficiencyPct(0, 10)).toBeNull();
    // 430 kWh out of a 215 kWh cabinet = 2 cycles
    expect(equivalentFullCycles(430, 215)).toBe(2);
    expect(equivalentFullCycles(10, 0)).toBeNull();
  });
});

describe('two-part tariff', () => {
  it('demand charge on max demand or on contracted demand, capacity charge on kVA', () => {
    const t = { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 38, demandBasis: 'max_demand' as const };
    // 38 CNY/kW·month × 412.5 kW = 15 675
    expect(twoPartChargesCny(t, { maxDemandKw: 412.5 })).toEqual({
      demandKw: 412.5,
      demandCny: 15675,
      capacityCny: 0,
      totalCny: 15675,
    });
    const c = { ...t, demandBasis: 'contracted' as const, contractedDemandKw: 500 };
    // contracted: 38 × 500 = 19 000 whatever the max demand
    expect(twoPartChargesCny(c, { maxDemandKw: 412.5 }).demandCny).toBe(19000);
    const k = { ...NO_TWO_PART, capacityChargeCnyPerKvaMonth: 25, transformerKva: 630 };
    // 25 × 630 = 15 750; half a month (15 of 30 days) → 7 875
    expect(twoPartChargesCny(k, { maxDemandKw: null })).toMatchObject({ demandKw: null, capacityCny: 15750 });
    expect(twoPartChargesCny(k, { maxDemandKw: null, monthFraction: 15 / 30 }).totalCny).toBe(7875);
  });
  it('names the missing field', () => {
    expect(twoPartTariffMissingField(NO_TWO_PART)).toBeNull();
    expect(twoPartTariffMissingField({ ...NO_TWO_PART, demandChargeCnyPerKwMonth: 30 })).toBe('demandBasis');
    expect(
      twoPartTariffMissingField({ ...NO_TWO_PART, demandChargeCnyPerKwMonth: 30, demandBasis: 'contracted' }),
    ).toBe('contractedDemandKw');
    expect(twoPartTariffMissingField({ ...NO_TWO_PART, capacityChargeCnyPerKvaMonth: 20 })).toBe(
      'transformerKva',
    );
  });
});
