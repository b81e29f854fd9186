/**
 * The standard strategies of a daily plan (tou/strategy.ts) and their comparison in the arbitrage
 * preview (tou/arbitrage.ts `compareStrategies`), against figures worked out by hand.
 *
 * The issue speaks of a Hubei C&I tariff; the shipped tariff data (packages/contract/data,
 * ../shared/data) holds none, so the hand figures use the real tariff with sharp after peak that
 * it does hold: Shanghai, July 2025, general C&I two-part 10 kV, Jul–Aug table —
 *   00–06 off-peak 0.3191 · 06–08 shoulder 0.6811 · 08–12 peak 1.1637 · 12–14 sharp 1.4352 ·
 *   14–15 peak · 15–18 shoulder · 18–21 peak · 21–22 shoulder · 22–24 off-peak.
 * Battery: 1000 kWh usable, 500 kW PCS, SOC window 0–100 %, round-trip efficiency 81 % (0.9 each
 * way, round numbers): a full battery holds 1000 kWh, bought as 1000 ÷ 0.9 = 1111.111 kWh from the
 * grid and sold as 1000 × 0.9 = 900 kWh.
 */
import { describe, expect, it } from 'vitest';
import { compareStrategies, previewArbitrage } from '../src/tou/arbitrage';
import type { DailyPlan } from '../src/tou/scheme';
import { priceAwareStrategy, type StrategyBattery, timeOrderStrategy } from '../src/tou/strategy';
import { TOU_TEMPLATES } from '../src/tou/templates';

const shanghai = TOU_TEMPLATES.find((t) => t.id === 'CN-SH-2025-07-10kV-2part-general')!;
/** The Jul–Aug tariff as a daily plan (all idle: only times, tiers and prices matter). */
function julyTariff(): DailyPlan {
  const season = shanghai.seasons.find((s) => s.months.includes(7))!;
  return {
    key: 1,
    name: 'Jul–Aug',
    periods: season.periods.map(({ start, end, tier }) => ({
      start,
      end,
      tier,
      priceCnyPerKwh: shanghai.prices[tier]!,
      action: 'idle' as const,
      powerKw: 0,
      socMinPct: 0,
      socMaxPct: 100,
    })),
  };
}
const battery: StrategyBattery = {
  capacityKwh: 1000,
  ratedPowerKw: 500,
  roundTripEfficiencyPct: 81,
  socMinPct: 0,
  socMaxPct: 100,
};
const actionAt = (periods: DailyPlan['periods'], start: string) => periods.find((p) => p.start === start)!;

describe('time-order strategy (the first standard strategy)', () => {
  it('spends the battery on the morning peak before the sharp hours: 692.77 CNY a day', () => {
    const plan = julyTariff();
    const periods = timeOrderStrategy(plan.periods, { powerKw: 500, socMinPct: 0, socMaxPct: 100 });
    const r = previewArbitrage({ ...plan, periods }, battery);
    // 08:00–09:48 at 500 kW empties it: 1000 kWh stored × 0.9 = 900 kWh sold at the peak price.
    expect(r.perPeriod.find((p) => p.start === '08:00')!.dischargedKwh).toBeCloseTo(900, 2);
    expect(r.perPeriod.find((p) => p.start === '12:00')!.dischargedKwh).toBe(0);
    // Bought back overnight: 22–24 h 1000 kWh (2 h × 500 kW), 00–06 h the other 111.111 kWh.
    expect(r.chargedKwh).toBeCloseTo(1111.11, 2);
    // value 900 × 1.1637 = 1047.33; cost 1000 × 0.3191 = 319.10 + 111.111 × 0.3191 = 35.46
    // → 354.56; net 1047.33 − 354.56 = 692.77.
    expect(r.revenueCny).toBe(1047.33);
    expect(r.costCny).toBe(354.56);
    expect(r.netCny).toBe(692.77);
  });
});

describe('price-aware strategy', () => {
  it('keeps the energy for the sharp hours and uses the mid-afternoon shoulder for a second cycle', () => {
    const plan = julyTariff();
    const periods = priceAwareStrategy(plan.periods, battery);
    // Cycle 1: bought 00–06 (the cheapest), sold 12–14 (sharp); the morning peak waits.
    expect(actionAt(periods, '00:00')).toMatchObject({ action: 'charge', powerKw: 500, socMaxPct: 100 });
    expect(actionAt(periods, '22:00').action).toBe('idle');
    expect(actionAt(periods, '08:00').action).toBe('idle');
    expect(actionAt(periods, '12:00')).toMatchObject({ action: 'discharge', powerKw: 500, socMinPct: 0 });
    // Cycle 2 pays: 1.1637 − 0.6811 ÷ 0.81 = 0.3228 CNY per kWh sold > 0.
    expect(actionAt(periods, '15:00')).toMatchObject({ action: 'charge', socMaxPct: 100 });
    expect(actionAt(periods, '18:00')).toMatchObject({ action: 'discharge', socMinPct: 0 });

    const r = previewArbitrage({ ...plan, periods }, battery);
    // Cycle 1: 900 × 1.4352 = 1291.68 − 1111.111 × 0.3191 = 354.56 → 937.12
    // Cycle 2: 900 × 1.1637 = 1047.33 − 1111.111 × 0.6811 = 756.78 → 290.55
    expect(r.revenueCny).toBe(1291.68 + 1047.33);
    expect(r.costCny).toBe(354.56 + 756.78);
    expect(r.netCny).toBe(1227.67);
    expect(r.cycles).toBeCloseTo(1.8, 3);
  });

  it('waiting for sharp alone earns 35.3 % more than time order (one cycle: 937.12 against 692.77)', () => {
    // A degradation cost of 0.35 CNY/kWh makes the second cycle lose (0.3228 < 0.35) but not the
    // first (1.4352 − 0.3191 ÷ 0.81 = 1.0412 > 0.35).
    const withWear = { ...battery, degradationCostCnyPerKwh: 0.35 };
    const c = compareStrategies(julyTariff(), withWear);
    expect(actionAt(c.priceAware.periods, '15:00').action).toBe('idle');
    // No second cycle: the evening peak only sells what the battery holds beyond the plan (its
    // floor is the empty battery the sharp hours leave), which in the preview is nothing.
    expect(actionAt(c.priceAware.periods, '18:00')).toMatchObject({ action: 'discharge', socMinPct: 0 });
    expect(c.priceAware.preview.perPeriod.find((p) => p.start === '18:00')!.dischargedKwh).toBeCloseTo(0, 6);
    // Wear 900 × 0.35 = 315.00 on both: price-aware 937.12 − 315 = 622.12, time order 692.77 − 315 = 377.77.
    expect(c.priceAware.preview.degradationCny).toBe(315);
    expect(c.priceAware.preview.netCny).toBe(622.12);
    expect(c.timeOrder.preview.netCny).toBe(377.77);
    expect(c.gainCny).toBe(244.35);
    // Without wear the one-cycle gain is 937.12 − 692.77 = 244.35 on 692.77: +35.3 %.
    expect(Math.round((244.35 / 692.77) * 1000) / 10).toBe(35.3);
  });

  it('uses the second cycle again once wear costs less than it earns (0.30 < 0.3228)', () => {
    const c = compareStrategies(julyTariff(), { ...battery, degradationCostCnyPerKwh: 0.3 });
    expect(actionAt(c.priceAware.periods, '15:00').action).toBe('charge');
    // 1227.67 − 1800 kWh × 0.30 = 687.67
    expect(c.priceAware.preview.netCny).toBe(687.67);
  });

  it('respects the SOC window and the PCS rating', () => {
    const plan = julyTariff();
    const narrow = { ...battery, socMinPct: 10, socMaxPct: 90, powerKw: 800 };
    const periods = priceAwareStrategy(plan.periods, narrow);
    for (const p of periods) {
      expect(p.powerKw).toBeLessThanOrEqual(500);
      if (p.action !== 'idle') {
        expect(p.socMinPct).toBeGreaterThanOrEqual(10);
        expect(p.socMaxPct).toBeLessThanOrEqual(90);
      }
    }
    const r = previewArbitrage({ ...plan, periods }, narrow);
    for (const soc of r.socPct) {
      expect(soc).toBeGreaterThanOrEqual(10 - 1e-9);
      expect(soc).toBeLessThanOrEqual(90 + 1e-9);
    }
    // 800 kWh of the window per cycle: 800 × 0.9 = 720 kWh sold in each, never more than 500 kW.
    expect(r.perPeriod.find((p) => p.start === '12:00')!.dischargedKwh).toBeCloseTo(720, 1);
    for (const kw of r.gridKw) expect(Math.abs(kw)).toBeLessThanOrEqual(500 + 1e-6);
  });

  it('holds back the morning peak with an SOC floor when the sharp hours cannot take it all', () => {
    // 250 kW PCS: the sharp 2 h take 500 kWh sold = 555.6 kWh stored; the rest of the 1000 kWh
    // goes to the dearest peak hours, and the 08–12 peak must leave 555.6 kWh (55.6 %) for sharp.
    const plan = julyTariff();
    const slow = { ...battery, ratedPowerKw: 250, degradationCostCnyPerKwh: 0.35 };
    const periods = priceAwareStrategy(plan.periods, slow);
    expect(actionAt(periods, '08:00')).toMatchObject({ action: 'discharge', socMinPct: 55.6 });
    const r = previewArbitrage({ ...plan, periods }, slow);
    expect(r.perPeriod.find((p) => p.start === '12:00')!.dischargedKwh).toBeCloseTo(500, 1);
    // The floor is rounded up to 0.1 % (55.56 → 55.6): at most 1 kWh stored stays back.
    expect(r.dischargedKwh).toBeGreaterThan(899);
    expect(r.dischargedKwh).toBeLessThanOrEqual(900);
  });

  it('gives every template a valid plan whose net is at least the time-order one', () => {
    for (const t of TOU_TEMPLATES) {
      for (const season of t.seasons) {
        const plan: DailyPlan = {
          key: 1,
          name: 'x',
          periods: season.periods.map(({ start, end, tier }) => ({
            start,
            end,
            tier,
            priceCnyPerKwh: t.prices[tier]!,
            action: 'idle' as const,
            powerKw: 0,
            socMinPct: 5,
            socMaxPct: 95,
          })),
        };
        const c = compareStrategies(plan, {
          ...battery,
          roundTripEfficiencyPct: 88,
          socMinPct: 5,
          socMaxPct: 95,
        });
        expect(c.gainCny, `${t.id} ${season.name.en}`).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('sells in the later peak hours what the battery holds beyond the plan, down to what sharp still needs', () => {
    // Shenzhen Jul–Sep: 00–08 off-peak, 10–11 peak, 11–12 sharp, 12–14 shoulder, 14–15 peak,
    // 15–17 sharp, 17–19 peak. Sharp first: the 14–15 and 17–19 peaks get no planned energy, but
    // a discharge the site could not make in 15–17 (anti-backflow under PV, a demand limit) must
    // still find a buyer before the next window, else the battery stays full and never cycles.
    const shenzhen = TOU_TEMPLATES.find((t) => t.id === 'CN-SZ-2025-02-10kV-101-3000kVA')!;
    const season = shenzhen.seasons.find((x) => x.months.includes(8))!;
    const periods = season.periods.map(({ start, end, tier }) => ({
      start,
      end,
      tier,
      priceCnyPerKwh: shenzhen.prices[tier]!,
      action: 'idle' as const,
      powerKw: 0,
      socMinPct: 15,
      socMaxPct: 100,
    }));
    const szx = {
      capacityKwh: 430,
      ratedPowerKw: 160,
      roundTripEfficiencyPct: 90,
      socMinPct: 15,
      socMaxPct: 100,
    };
    const plan = priceAwareStrategy(periods, szx);
    const ceiling = actionAt(plan, '12:00');
    expect(ceiling.action).toBe('charge');
    // 14–15 keeps what 15–17 needs: its floor is the window's ceiling, so as planned it sells nothing.
    expect(actionAt(plan, '14:00')).toMatchObject({ action: 'discharge', socMinPct: ceiling.socMaxPct });
    expect(actionAt(plan, '17:00')).toMatchObject({ action: 'discharge', socMinPct: 15 });
    expect(actionAt(plan, '19:00').action).toBe('idle');
    const r = previewArbitrage({ key: 1, name: 'x', periods: plan }, szx);
    for (const start of ['14:00', '17:00']) {
      expect(r.perPeriod.find((p) => p.start === start)!.dischargedKwh).toBeCloseTo(0, 1);
    }
  });

  it('leaves energy in the battery rather than sell it where wear eats the spread', () => {
    // One valley, a 1 h sharp and a 4 h peak; 1000 kWh battery, 500 kW, η 0.81, wear 0.5 CNY/kWh.
    // Sharp: 1.4 − 0.3 ÷ 0.81 = 1.0296 > 0.5 pays; peak: 0.8 − 0.3704 = 0.4296 < 0.5 does not.
    const p = (
      start: string,
      end: string,
      tier: 'off_peak' | 'peak' | 'sharp' | 'shoulder',
      price: number,
    ) => ({
      start,
      end,
      tier,
      priceCnyPerKwh: price,
      action: 'idle' as const,
      powerKw: 0,
      socMinPct: 0,
      socMaxPct: 100,
    });
    const periods = [
      p('00:00', '08:00', 'off_peak', 0.3),
      p('08:00', '12:00', 'peak', 0.8),
      p('12:00', '13:00', 'sharp', 1.4),
      p('13:00', '00:00', 'shoulder', 0.6),
    ];
    const plan = priceAwareStrategy(periods, { ...battery, degradationCostCnyPerKwh: 0.5 });
    expect(plan.map((x) => x.action)).toEqual(['charge', 'idle', 'discharge', 'idle']);
    const r = previewArbitrage(
      { key: 1, name: 'x', periods: plan },
      { ...battery, degradationCostCnyPerKwh: 0.5 },
    );
    // Only what sharp takes is bought: 500 kWh sold = 555.556 stored = 617.284 kWh bought.
    // 500 × 1.4 = 700.00 − 617.284 × 0.3 = 185.19 − 500 × 0.5 = 250.00 → 264.81.
    expect(r.dischargedKwh).toBeCloseTo(500, 1);
    expect(r.netCny).toBe(264.81);
  });
});
