/**
 * Monthly bill arithmetic (money/bill.ts, issue 17 item 5) against hand-computed bills: every
 * expected figure is worked out in the comment above it.
 */
import { describe, expect, it } from 'vitest';
import { localDateStart } from '../src/local-time';
import {
  type BillContract,
  BillInputError,
  type BillMeterInput,
  type BillSiteInput,
  billContractProblem,
  billMonthEndMs,
  computeBill,
  splitFen,
  type TierKwh,
} from '../src/money/bill';
import type { MonthDemand } from '../src/money/demand';
import { NO_TWO_PART, type TwoPartTariff } from '../src/money/valuation';

const SH = 'Asia/Shanghai';
const tiers = (t: Partial<TierKwh> = {}): TierKwh => ({ sharp: 0, peak: 0, shoulder: 0, off_peak: 0, ...t });
const at = (date: string, tz = SH) => localDateStart(date, tz);
const prices = (t: Partial<TierKwh>) => tiers(t);

const selfInvestment: BillContract = {
  contractStart: '2020-01-01',
  contractYears: 20,
  incomeMode: 'self_investment',
  ownerSharePct: 20,
  investors: [
    { companyId: 11, name: 'Investor A', ratioPct: 50 },
    { companyId: 12, name: 'Investor B', ratioPct: 30 },
  ],
  rentBasis: null,
  rentCny: null,
  capacityKwh: null,
  maintenanceCnyPerMonth: 1000,
  insuranceCnyPerMonth: 300,
  costBearer: 'investors',
};

function site(over: Partial<BillSiteInput> & { meters: BillMeterInput[] }): BillSiteInput {
  return {
    siteId: 1,
    siteName: 'Site 1',
    timeZone: SH,
    bound: [{ from: '2024-01-01', to: null }],
    tariffs: [
      {
        from: '2024-01-01',
        to: null,
        pricesCnyPerKwh: prices({ sharp: 1.4352, peak: 1.1637, shoulder: 0.7, off_peak: 0.3191 }),
        twoPart: NO_TWO_PART,
      },
    ],
    ...over,
  };
}

describe('self-investment, two investors, CT/PT', () => {
  const meter: BillMeterInput = {
    meterId: 101,
    sn: 'MTR-101',
    // CT 200/5 = 40, PT 10000/100 = 100, read on the secondary side → multiplier 4000
    ctRatio: 40,
    ptRatio: 100,
    readsSecondary: true,
    readings: [
      {
        atMs: at('2025-07-01'),
        importKwh: tiers({ shoulder: 10, off_peak: 100 }),
        exportKwh: tiers({ sharp: 50, peak: 80, shoulder: 5 }),
      },
      {
        atMs: at('2025-08-01'),
        importKwh: tiers({ shoulder: 12.5, off_peak: 130.25 }),
        exportKwh: tiers({ sharp: 61.5, peak: 105.75, shoulder: 5 }),
      },
    ],
  };
  const bill = computeBill({
    month: '2025-07',
    contract: selfInvestment,
    sites: [site({ meters: [meter] })],
  });

  it('prices each tier: readings × CT × PT × tier price', () => {
    // charged shoulder (12.5 − 10) × 4000 = 10,000 kWh × 0.7 = 7,000.00
    // charged off-peak (130.25 − 100) × 4000 = 121,000 kWh × 0.3191 = 38,611.10
    // discharged sharp (61.5 − 50) × 4000 = 46,000 kWh × 1.4352 = 66,019.20
    // discharged peak (105.75 − 80) × 4000 = 103,000 kWh × 1.1637 = 119,861.10
    const byTier = Object.fromEntries(bill.lines.map((l) => [l.tier, l]));
    expect(byTier.shoulder).toMatchObject({
      multiplier: 4000,
      importStartKwh: 10,
      importEndKwh: 12.5,
      chargedKwh: 10_000,
      costCny: 7000,
    });
    expect(byTier.off_peak).toMatchObject({ chargedKwh: 121_000, priceCnyPerKwh: 0.3191, costCny: 38_611.1 });
    expect(byTier.sharp).toMatchObject({
      exportStartKwh: 50,
      exportEndKwh: 61.5,
      dischargedKwh: 46_000,
      valueCny: 66_019.2,
    });
    expect(byTier.peak).toMatchObject({ dischargedKwh: 103_000, valueCny: 119_861.1 });
    expect(bill.lines.every((l) => l.chargedSource === 'register' && l.dischargedSource === 'register')).toBe(
      true,
    );
    // cost 7,000.00 + 38,611.10 = 45,611.10; value 66,019.20 + 119,861.10 = 185,880.30
    // net 185,880.30 − 45,611.10 = 140,269.20
    expect(bill.totals).toMatchObject({
      chargedKwh: 131_000,
      dischargedKwh: 149_000,
      costCny: 45_611.1,
      valueCny: 185_880.3,
      netBenefitCny: 140_269.2,
      maintenanceCny: 1000,
      insuranceCny: 300,
      distributedCny: 138_969.2,
    });
    expect(bill.sites[0]).toMatchObject({ monthHours: 744, billedHours: 744 });
  });

  it('splits by ratio and deducts maintenance and premium from the investors', () => {
    // owner 20 % × 140,269.20 = 28,053.84; A 50 % = 70,134.60; B 30 % = 42,080.76
    // maintenance 1,000 among investors 50:30 → A 625.00, B 375.00; premium 300 → A 187.50, B 112.50
    // A 70,134.60 − 625 − 187.50 = 69,322.10; B 42,080.76 − 375 − 112.50 = 41,593.26
    expect(bill.parties).toEqual([
      {
        role: 'owner',
        companyId: null,
        name: null,
        ratioPct: 20,
        benefitCny: 28_053.84,
        rentCny: 0,
        maintenanceCny: 0,
        insuranceCny: 0,
        payableCny: 28_053.84,
      },
      {
        role: 'investor',
        companyId: 11,
        name: 'Investor A',
        ratioPct: 50,
        benefitCny: 70_134.6,
        rentCny: 0,
        maintenanceCny: -625,
        insuranceCny: -187.5,
        payableCny: 69_322.1,
      },
      {
        role: 'investor',
        companyId: 12,
        name: 'Investor B',
        ratioPct: 30,
        benefitCny: 42_080.76,
        rentCny: 0,
        maintenanceCny: -375,
        insuranceCny: -112.5,
        payableCny: 41_593.26,
      },
    ]);
    // 28,053.84 + 69,322.10 + 41,593.26 = 138,969.20 = 140,269.20 − 1,000 − 300
    const sumFen = bill.parties.reduce((s, p) => s + Math.round(p.payableCny * 100), 0);
    expect(sumFen).toBe(13_896_920);
  });

  it('shared costs come out before the split, each party by its ratio', () => {
    const shared = computeBill({
      month: '2025-07',
      contract: { ...selfInvestment, costBearer: 'shared' },
      sites: [site({ meters: [meter] })],
    });
    // distributable 140,269.20 − 1,300 = 138,969.20: owner 20 % 27,793.84, A 50 % 69,484.60, B 30 % 41,690.76
    expect(shared.parties.map((p) => p.payableCny)).toEqual([27_793.84, 69_484.6, 41_690.76]);
    // maintenance shown 20:50:30 = −200, −500, −300; premium −60, −150, −90
    expect(shared.parties.map((p) => p.maintenanceCny)).toEqual([-200, -500, -300]);
    expect(shared.parties.map((p) => p.insuranceCny)).toEqual([-60, -150, -90]);
  });
});

describe('splitFen: parts add up exactly', () => {
  it('largest remainder, ties to the earlier party', () => {
    // 1.00 CNY in thirds 33.33 / 33.33 / 33.34 %: 33.33, 33.33, 33.34 fen → floors 33, 33, 33, one fen
    // left; remainders 3300, 3300, 3400 (of 10,000) → the third gets it
    expect(splitFen(100, [3333, 3333, 3334])).toEqual([33, 33, 34]);
    // 0.01 CNY half and half: the earlier party takes the odd fen; a loss the same, negated
    expect(splitFen(1, [1, 1])).toEqual([1, 0]);
    expect(splitFen(-1, [1, 1])).toEqual([-1, 0]);
    expect(splitFen(-1000, [1, 1, 1])).toEqual([-334, -333, -333]);
  });
});

describe('leasing', () => {
  const leasing: BillContract = {
    contractStart: '2020-01-01',
    contractYears: 20,
    incomeMode: 'leasing',
    ownerSharePct: null,
    investors: [
      { companyId: 21, name: 'Lessor 1', ratioPct: 60 },
      { companyId: 22, name: 'Lessor 2', ratioPct: 40 },
    ],
    rentBasis: 'monthly',
    rentCny: 20_000,
    capacityKwh: null,
    maintenanceCnyPerMonth: 800,
    insuranceCnyPerMonth: 200,
    costBearer: 'owner',
  };

  it('monthly rent, Europe/Berlin March (743 h): readings at local midnights', () => {
    const BER = 'Europe/Berlin';
    // 2026-03-01 00:00 CET = 2026-02-28T23:00Z; 2026-04-01 00:00 CEST = 2026-03-31T22:00Z → 743 h
    expect(at('2026-03-01', BER)).toBe(Date.UTC(2026, 1, 28, 23));
    expect(at('2026-04-01', BER)).toBe(Date.UTC(2026, 2, 31, 22));
    const bill = computeBill({
      month: '2026-03',
      contract: leasing,
      sites: [
        site({
          timeZone: BER,
          tariffs: [
            {
              from: '2026-01-01',
              to: null,
              pricesCnyPerKwh: prices({ peak: 0.45, off_peak: 0.2 }),
              twoPart: NO_TWO_PART,
            },
          ],
          meters: [
            {
              meterId: 7,
              sn: 'BER-7',
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
              readings: [
                { atMs: Date.UTC(2026, 1, 28, 23), importKwh: tiers(), exportKwh: tiers() },
                {
                  atMs: Date.UTC(2026, 2, 31, 22),
                  importKwh: tiers({ off_peak: 5000.5 }),
                  exportKwh: tiers({ peak: 60_000 }),
                },
              ],
            },
          ],
        }),
      ],
    });
    expect(bill.sites[0]).toMatchObject({ monthHours: 743, billedHours: 743 });
    expect(bill.segments[0]).toMatchObject({ days: 31, hours: 743 });
    // both readings found at the local midnights (not an hour off): register lines
    expect(bill.flags).toEqual({ rollupLines: 0, backwardsLines: 0, missingDates: 0 });
    // cost 5,000.5 × 0.20 = 1,000.10; value 60,000 × 0.45 = 27,000.00; net 25,999.90
    expect(bill.totals).toMatchObject({
      costCny: 1000.1,
      valueCny: 27_000,
      netBenefitCny: 25_999.9,
      rentCny: 20_000,
    });
    // owner 25,999.90 − rent 20,000 − maintenance 800 − premium 200 = 4,999.90
    // lessors: rent 20,000 by 60:40 → 12,000 and 8,000
    expect(bill.parties.map((p) => [p.role, p.rentCny, p.payableCny])).toEqual([
      ['owner', -20_000, 4999.9],
      ['investor', 12_000, 12_000],
      ['investor', 8000, 8000],
    ]);
    // October has the hour back: 745 h
    const oct = computeBill({
      month: '2026-10',
      contract: leasing,
      sites: [site({ timeZone: BER, meters: [] })],
    });
    expect(oct.sites[0]!.monthHours).toBe(745);
  });

  it('rent per kWh of capacity, a two-part tariff and shared costs', () => {
    const twoPart: TwoPartTariff = {
      demandChargeCnyPerKwMonth: 40,
      demandBasis: 'max_demand',
      contractedDemandKw: null,
      capacityChargeCnyPerKvaMonth: 20,
      transformerKva: 1000,
    };
    const bill = computeBill({
      month: '2025-06',
      contract: {
        ...leasing,
        investors: [{ companyId: 21, name: 'Lessor 1', ratioPct: 100 }],
        rentBasis: 'per_kwh_capacity',
        rentCny: 12.5,
        capacityKwh: 1720,
        maintenanceCnyPerMonth: 1000.01,
        insuranceCnyPerMonth: 0,
        costBearer: 'shared',
      },
      sites: [
        site({
          tariffs: [
            { from: '2025-01-01', to: null, pricesCnyPerKwh: prices({ peak: 1, off_peak: 0.3 }), twoPart },
          ],
          demand: { maxDemandKw: 950, baselineMaxDemandKw: 1200 },
          meters: [
            {
              meterId: 8,
              sn: 'M-8',
              ctRatio: 40,
              ptRatio: 1,
              readsSecondary: false, // reads the primary side: ratios recorded only, multiplier 1
              readings: [
                {
                  atMs: at('2025-06-01'),
                  importKwh: tiers({ off_peak: 1000 }),
                  exportKwh: tiers({ peak: 200 }),
                },
                {
                  atMs: at('2025-07-01'),
                  importKwh: tiers({ off_peak: 3000 }),
                  exportKwh: tiers({ peak: 2000 }),
                },
              ],
            },
          ],
        }),
      ],
    });
    // charged 3000 − 1000 = 2,000 kWh × 0.3 = 600.00; discharged 2000 − 200 = 1,800 kWh × 1 = 1,800.00
    expect(bill.lines.find((l) => l.tier === 'off_peak')).toMatchObject({
      multiplier: 1,
      chargedKwh: 2000,
      costCny: 600,
    });
    // without storage: demand 40 × 1,200 = 48,000 + capacity 20 × 1,000 = 20,000 → 68,000
    // with storage:    demand 40 × 950 = 38,000 + capacity 20,000 → 58,000; change +10,000.00
    expect(bill.demand).toEqual([
      {
        siteId: 1,
        from: '2025-06-01',
        to: '2025-07-01',
        monthFraction: 1,
        baselineKw: 1200,
        measuredKw: 950,
        baselineCny: 68_000,
        measuredCny: 58_000,
        changeCny: 10_000,
      },
    ]);
    // net 1,800 − 600 + 10,000 = 11,200.00; rent 12.5 × 1,720 = 21,500.00
    expect(bill.totals).toMatchObject({
      energyNetCny: 1200,
      demandChangeCny: 10_000,
      netBenefitCny: 11_200,
      rentCny: 21_500,
    });
    // shared maintenance in leasing: half each, 1,000.01 → owner 500.01 (the odd fen to the earlier), lessor 500.00
    // owner 11,200 − 21,500 − 500.01 = −10,800.01; lessor 21,500 − 500 = 21,000.00
    expect(bill.parties.map((p) => [p.maintenanceCny, p.payableCny])).toEqual([
      [-500.01, -10_800.01],
      [-500, 21_000],
    ]);
    // Σ −10,800.01 + 21,000 = 10,199.99 = 11,200 − 1,000.01
    expect(bill.totals.distributedCny).toBe(10_199.99);
  });

  /**
   * June 2025 of the lease over one site without meters (no energy; peak at 1 CNY/kWh) on
   * `twoPart`, whose month's maximum demand with and without storage is `demand`.
   */
  const demandOnly = (twoPart: TwoPartTariff, demand: MonthDemand) =>
    computeBill({
      month: '2025-06',
      contract: leasing,
      sites: [
        site({
          tariffs: [{ from: '2025-01-01', to: null, pricesCnyPerKwh: prices({ peak: 1 }), twoPart }],
          demand,
          meters: [],
        }),
      ],
    });

  it('a contracted-demand basis is not moved by storage: change 0', () => {
    const bill = demandOnly(
      { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40, demandBasis: 'contracted', contractedDemandKw: 800 },
      { maxDemandKw: 950, baselineMaxDemandKw: 1200 },
    );
    // 40 × 800 = 32,000 either way
    expect(bill.demand[0]).toMatchObject({ baselineCny: 32_000, measuredCny: 32_000, changeCny: 0 });
  });

  it('a max-demand basis without a measured demand: the line is there, kW null, 0 CNY, change 0', () => {
    const bill = demandOnly(
      { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40, demandBasis: 'max_demand' },
      { maxDemandKw: null, baselineMaxDemandKw: null },
    );
    expect(bill.demand).toEqual([
      expect.objectContaining({
        baselineKw: null,
        measuredKw: null,
        baselineCny: 0,
        measuredCny: 0,
        changeCny: 0,
      }),
    ]);
    expect(bill.totals.demandChangeCny).toBe(0);
  });
});

describe('price change mid-month, meter swap, site moved, faults', () => {
  const reading = (date: string, imp: number, exp: number) => ({
    atMs: at(date),
    importKwh: tiers({ off_peak: imp }),
    exportKwh: tiers({ peak: exp }),
  });

  it('a price change on the 16th splits the month in two segments', () => {
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          tariffs: [
            // the older tariff is open-ended: the newer one's start ends it
            {
              from: '2025-01-01',
              to: null,
              pricesCnyPerKwh: prices({ peak: 1, off_peak: 0.3 }),
              twoPart: NO_TWO_PART,
            },
            {
              from: '2025-07-16',
              to: null,
              pricesCnyPerKwh: prices({ peak: 1.1, off_peak: 0.32 }),
              twoPart: NO_TWO_PART,
            },
          ],
          meters: [
            {
              meterId: 9,
              sn: 'M-9',
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
              readings: [
                reading('2025-07-01', 0, 0),
                reading('2025-07-16', 1000, 900),
                reading('2025-08-01', 2500, 2250),
              ],
            },
          ],
        }),
      ],
    });
    expect(bill.segments.map((s) => [s.from, s.to, s.days])).toEqual([
      ['2025-07-01', '2025-07-16', 15],
      ['2025-07-16', '2025-08-01', 16],
    ]);
    const offPeak = bill.lines.filter((l) => l.tier === 'off_peak');
    const peak = bill.lines.filter((l) => l.tier === 'peak');
    // 1st–15th: charged 1,000 × 0.30 = 300.00, discharged 900 × 1.00 = 900.00
    // 16th–31st: charged 1,500 × 0.32 = 480.00, discharged 1,350 × 1.10 = 1,485.00
    expect(offPeak.map((l) => [l.chargedKwh, l.priceCnyPerKwh, l.costCny])).toEqual([
      [1000, 0.3, 300],
      [1500, 0.32, 480],
    ]);
    expect(peak.map((l) => [l.dischargedKwh, l.priceCnyPerKwh, l.valueCny])).toEqual([
      [900, 1, 900],
      [1350, 1.1, 1485],
    ]);
    // cost 780.00, value 2,385.00, net 1,605.00
    expect(bill.totals).toMatchObject({ costCny: 780, valueCny: 2385, netBenefitCny: 1605 });
  });

  it('a meter swap bills both parts: old meter to its final reading, new from its initial', () => {
    const swapAt = Date.UTC(2025, 6, 10, 6, 30); // 2025-07-10 14:30 Shanghai
    const common = { ctRatio: 40, ptRatio: 1, readsSecondary: true };
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          tariffs: [
            {
              from: '2025-01-01',
              to: null,
              pricesCnyPerKwh: prices({ peak: 1, off_peak: 0.3 }),
              twoPart: NO_TWO_PART,
            },
          ],
          meters: [
            {
              meterId: 30,
              sn: 'OLD',
              ...common,
              removedAtMs: swapAt,
              readings: [
                reading('2025-07-01', 500, 100),
                { ...reading('2025-07-01', 520, 118), atMs: swapAt },
              ],
            },
            {
              meterId: 31,
              sn: 'NEW',
              ...common,
              installedAtMs: swapAt,
              readings: [{ ...reading('2025-07-01', 0, 0), atMs: swapAt }, reading('2025-08-01', 30, 27)],
            },
          ],
        }),
      ],
    });
    const lines = bill.lines.filter((l) => l.tier === 'off_peak' || l.tier === 'peak');
    // old: charged (520 − 500) × 40 = 800 kWh × 0.3 = 240.00; discharged (118 − 100) × 40 = 720 kWh × 1 = 720.00
    // new: charged (30 − 0) × 40 = 1,200 kWh × 0.3 = 360.00; discharged (27 − 0) × 40 = 1,080 kWh × 1 = 1,080.00
    expect(lines.map((l) => [l.meterSn, l.tier, l.chargedKwh, l.dischargedKwh, l.netCny])).toEqual([
      ['OLD', 'peak', 0, 720, 720],
      ['OLD', 'off_peak', 800, 0, -240],
      ['NEW', 'peak', 0, 1080, 1080],
      ['NEW', 'off_peak', 1200, 0, -360],
    ]);
    expect(lines[0]).toMatchObject({ endMs: swapAt, exportStartKwh: 100, exportEndKwh: 118 });
    expect(lines[2]).toMatchObject({ startMs: swapAt, exportStartKwh: 0, exportEndKwh: 27 });
    // cost 600, value 1,800, net 1,200
    expect(bill.totals).toMatchObject({ costCny: 600, valueCny: 1800, netBenefitCny: 1200 });
    expect(bill.flags.backwardsLines).toBe(0);
  });

  it('a reading that goes backwards with no swap: never negative — the line comes from the rollups, flagged', () => {
    const fallbackDaily = Array.from({ length: 31 }, (_, i) => ({
      date: `2025-07-${String(i + 1).padStart(2, '0')}`,
      importKwh: tiers({ off_peak: 60 }),
      exportKwh: tiers({ peak: 50 }),
    })).filter((d) => d.date !== '2025-07-20'); // one day has no rollup either
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          tariffs: [
            {
              from: '2025-01-01',
              to: null,
              pricesCnyPerKwh: prices({ peak: 1, off_peak: 0.3 }),
              twoPart: NO_TWO_PART,
            },
          ],
          meters: [
            {
              meterId: 40,
              sn: 'M-40',
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
              readings: [reading('2025-07-01', 500, 100), reading('2025-08-01', 30, 1900)],
              fallbackDaily,
            },
          ],
        }),
      ],
    });
    const offPeak = bill.lines.find((l) => l.tier === 'off_peak')!;
    // import 500 → 30 goes backwards: 30 days of rollups × 60 = 1,800 kWh (the 20th missing)
    expect(offPeak).toMatchObject({
      importStartKwh: 500,
      importEndKwh: 30,
      chargedKwh: 1800,
      chargedSource: 'rollup',
      problem: 'reading_backwards',
      missingDates: ['2025-07-20'],
    });
    // export 100 → 1900 is fine: 1,800 kWh from the registers
    const peak = bill.lines.find((l) => l.tier === 'peak')!;
    expect(peak).toMatchObject({ dischargedKwh: 1800, dischargedSource: 'register', problem: null });
    expect(bill.flags).toEqual({ rollupLines: 1, backwardsLines: 1, missingDates: 1 });
  });

  it('a missing end reading bills the rollups and says so', () => {
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          meters: [
            {
              meterId: 41,
              sn: 'M-41',
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
              readings: [
                reading('2025-07-01', 0, 0),
                { ...reading('2025-08-01', 10, 10), atMs: at('2025-08-01') + 16 * 60_000 },
              ],
              fallbackDaily: Array.from({ length: 31 }, (_, i) => ({
                date: `2025-07-${String(i + 1).padStart(2, '0')}`,
                importKwh: tiers({ off_peak: 1 }),
                exportKwh: tiers(),
              })),
            },
          ],
        }),
      ],
    });
    // the end reading is 16 min after midnight (tolerance 15 min): 31 days × 1 kWh from the rollups
    const offPeak = bill.lines.find((l) => l.tier === 'off_peak')!;
    expect(offPeak).toMatchObject({
      importEndKwh: null,
      chargedKwh: 31,
      chargedSource: 'rollup',
      problem: null,
    });
  });

  it('a site moved to another project on the 12th is billed for the 1st–11th', () => {
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          bound: [{ from: '2025-06-01', to: '2025-07-12' }],
          tariffs: [
            {
              from: '2025-01-01',
              to: null,
              pricesCnyPerKwh: prices({ peak: 1, off_peak: 0.3 }),
              twoPart: { ...NO_TWO_PART, demandChargeCnyPerKwMonth: 40, demandBasis: 'max_demand' },
            },
          ],
          demand: { maxDemandKw: 800, baselineMaxDemandKw: 1000 },
          meters: [
            {
              meterId: 42,
              sn: 'M-42',
              ctRatio: 1,
              ptRatio: 1,
              readsSecondary: false,
              readings: [
                reading('2025-07-01', 0, 0),
                reading('2025-07-12', 100, 90),
                reading('2025-08-01', 999, 999),
              ],
            },
          ],
        }),
      ],
    });
    expect(bill.segments.map((s) => [s.from, s.to, s.days, s.hours])).toEqual([
      ['2025-07-01', '2025-07-12', 11, 264],
    ]);
    expect(bill.sites[0]).toMatchObject({ monthHours: 744, billedHours: 264 });
    // 100 kWh × 0.3 = 30.00; 90 kWh × 1 = 90.00 (the readings of the 12th, not the month end)
    expect(bill.totals).toMatchObject({ costCny: 30, valueCny: 90 });
    // demand prorated 11/31: 40 × 1,000 × 11/31 = 14,193.548… → 14,193.55; 40 × 800 × 11/31 = 11,354.838… → 11,354.84
    // change 2,838.71; net 90 − 30 + 2,838.71 = 2,898.71
    expect(bill.demand[0]).toMatchObject({
      baselineCny: 14_193.55,
      measuredCny: 11_354.84,
      changeCny: 2838.71,
    });
    expect(bill.totals.netBenefitCny).toBe(2898.71);
  });

  it('ratios that do not add up to 100 % and a CT of 0 are refused (api/project.ts projectContractProblem)', () => {
    const bad = { ...selfInvestment, ownerSharePct: 25 }; // 25 + 50 + 30 = 105
    expect(billContractProblem(bad)).toMatchObject({
      field: 'investors',
      zh: '业主与投资方比例之和须为 100%，当前为 105.00%',
      en: 'Owner and investor ratios must add up to 100 %; they add up to 105.00 %',
    });
    expect(() => computeBill({ month: '2025-07', contract: bad, sites: [] })).toThrow(BillInputError);
    // leasing: the investors alone share the rent: 50 + 30 = 80
    const leasingBad: BillContract = {
      ...selfInvestment,
      incomeMode: 'leasing',
      rentBasis: 'monthly',
      rentCny: 1,
    };
    expect(billContractProblem(leasingBad)?.zh).toContain('80.00%');
    expect(billContractProblem(selfInvestment)).toBeNull();
    const ct0: BillMeterInput = {
      meterId: 5,
      sn: 'M-5',
      ctRatio: 0,
      ptRatio: 1,
      readsSecondary: true,
      readings: [],
    };
    expect(() =>
      computeBill({ month: '2025-07', contract: selfInvestment, sites: [site({ meters: [ct0] })] }),
    ).toThrow('The CT ratio must be greater than 0');
  });

  it('a meter billed from stored ToU periods: summed per tier and price, each period kept', () => {
    const p = (
      day: string,
      h0: number,
      h1: number,
      tier: 'peak' | 'off_peak',
      price: number,
      kwh: number,
      source: 'registers' | 'power' = 'registers',
    ) => ({
      startMs: at(day) + h0 * 3_600_000,
      endMs: at(day) + h1 * 3_600_000,
      tier,
      priceCnyPerKwh: price,
      chargeStart: tier === 'off_peak' ? 100 : null,
      chargeEnd: tier === 'off_peak' ? 100 + kwh / 40 : null,
      dischargeStart: tier === 'peak' ? 50 : null,
      dischargeEnd: tier === 'peak' ? 50 + kwh / 40 : null,
      chargedKwh: tier === 'off_peak' ? kwh : 0,
      dischargedKwh: tier === 'peak' ? kwh : 0,
      source,
    });
    const bill = computeBill({
      month: '2025-07',
      contract: selfInvestment,
      sites: [
        site({
          meters: [
            {
              meterId: 50,
              sn: 'M-50',
              ctRatio: 40,
              ptRatio: 1,
              readsSecondary: true,
              readings: [],
              periods: [
                p('2025-07-01', 0, 8, 'off_peak', 0.3, 400),
                p('2025-07-01', 18, 22, 'peak', 1.2, 360),
                p('2025-07-02', 0, 8, 'off_peak', 0.3, 420, 'power'),
                p('2025-07-02', 18, 22, 'peak', 1.2, 380),
                p('2025-06-30', 0, 8, 'off_peak', 0.3, 999), // before the month: not billed
              ],
            },
          ],
        }),
      ],
    });
    // peak: 360 + 380 = 740 kWh × 1.2 = 888.00; off-peak: 400 + 420 = 820 kWh × 0.3 = 246.00
    expect(
      bill.lines.map((l) => [
        l.tier,
        l.chargedKwh,
        l.dischargedKwh,
        l.valueCny,
        l.costCny,
        l.chargedSource,
        l.periods?.length,
      ]),
    ).toEqual([
      ['peak', 0, 740, 888, 0, 'register', 2],
      ['off_peak', 820, 0, 0, 246, 'rollup', 2],
    ]);
    expect(bill.totals.netBenefitCny).toBe(642);
  });

  it('a bound date without a tariff is refused', () => {
    expect(() =>
      computeBill({
        month: '2025-07',
        contract: selfInvestment,
        sites: [
          site({
            tariffs: [{ from: '2025-07-05', to: null, pricesCnyPerKwh: tiers(), twoPart: NO_TWO_PART }],
            meters: [],
          }),
        ],
      }),
    ).toThrow(/no tariff on 2025-07-01/);
  });
});

describe('billMonthEndMs: when a month may be settled', () => {
  it('is the latest next-month local midnight of the zones (Shanghai alone, with Berlin, none)', () => {
    // July 2025 ends 2025-08-01 00:00 +08:00 = 07-31 16:00 UTC; in Berlin (CEST) 07-31 22:00 UTC
    expect(billMonthEndMs('2025-07', [SH])).toBe(Date.UTC(2025, 6, 31, 16));
    expect(billMonthEndMs('2025-07', [SH, 'Europe/Berlin'])).toBe(Date.UTC(2025, 6, 31, 22));
    expect(billMonthEndMs('2025-07', [])).toBe(Date.UTC(2025, 6, 31, 16));
    // December rolls over the year; Berlin in winter is +01:00: 2026-01-01 00:00 = 2025-12-31 23:00 UTC
    expect(billMonthEndMs('2025-12', ['Europe/Berlin'])).toBe(Date.UTC(2025, 11, 31, 23));
  });
});
