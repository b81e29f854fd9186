/**
 * Expected daily peak-valley arbitrage of a battery under one daily plan (the charge-strategy preview).
 *
 * Revenue maths (shared/data README "Revenue maths"): daily revenue = Σ discharged kWh × the
 * period's price − Σ charged kWh × the period's price, energies at the grid connection, priced by
 * the one money rule (money/valuation.ts `valueEnergy`, each period rounded to the fen). When a
 * degradation cost per kWh cycled is given, the net also pays it on every kWh discharged
 * (issue 17 item 6: the operator sees whether a second cycle pays).
 *
 * Model: one-minute steps over the plan's periods. Charging draws min(setpoint, rated power) from
 * the grid until the SOC reaches the period's ceiling; discharging delivers min(setpoint, rated
 * power) until the SOC reaches the floor; idle does nothing. The round-trip efficiency is split
 * evenly (√η on the way in and on the way out). The day starts at the SOC it ends at (the plan
 * is run twice and the second day reported), so a day's figures repeat day after day.
 */
import { type PricedEnergy, roundCny, valueEnergy, valueLine } from '../money/valuation';
import type { DailyPlan, TouPeriod, TouTier } from './scheme';
import { minutesOfDay } from './scheme';
import { priceAwareStrategy, type StrategyBattery, timeOrderStrategy } from './strategy';

export interface BatteryForPreview {
  /** Usable energy capacity, kWh. */
  capacityKwh: number;
  /** PCS rated power, kW. */
  ratedPowerKw: number;
  /** Round-trip efficiency, % (e.g. 90). */
  roundTripEfficiencyPct: number;
  /** Cost of wear per kWh discharged, CNY/kWh (default 0). */
  degradationCostCnyPerKwh?: number;
}

export interface ArbitragePeriod {
  start: string;
  end: string;
  tier: TouTier | null;
  priceCnyPerKwh: number;
  /** Energy drawn from the grid, kWh. */
  chargedKwh: number;
  /** Energy delivered to the grid or load, kWh. */
  dischargedKwh: number;
  /** Discharged × price − charged × price, CNY (money/valuation.ts `valueLine`). */
  netCny: number;
}

export interface ArbitragePreview {
  chargedKwh: number;
  dischargedKwh: number;
  /** Σ charged × price, CNY. */
  costCny: number;
  /** Σ discharged × price, CNY. */
  revenueCny: number;
  /** Degradation cost: discharged kWh × cost per kWh cycled, CNY (0 by default). */
  degradationCny: number;
  /** revenue − cost − degradation, CNY per day. */
  netCny: number;
  /** Equivalent full cycles per day (discharged ÷ capacity). */
  cycles: number;
  perPeriod: ArbitragePeriod[];
  /** SOC at the end of each quarter hour (96 values), %. */
  socPct: number[];
  /**
   * Mean power at the grid connection in each quarter hour (96 values), kW: positive while
   * charging (drawn), negative while discharging (delivered). For the demand charge (optimal.ts).
   */
  gridKw: number[];
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The expected day under `plan` for `battery` (see the module note for the model). */
export function previewArbitrage(plan: DailyPlan, battery: BatteryForPreview): ArbitragePreview {
  const eta = Math.sqrt(Math.min(Math.max(battery.roundTripEfficiencyPct, 1), 100) / 100);
  const capacity = Math.max(battery.capacityKwh, 0);
  const degradation = Math.max(battery.degradationCostCnyPerKwh ?? 0, 0);
  let soc = 50;
  let result: ArbitragePreview | null = null;
  for (let day = 0; day < 2; day++) {
    const perPeriod: ArbitragePeriod[] = [];
    const socPct: number[] = [];
    const gridKw: number[] = [];
    const lines: PricedEnergy[] = [];
    let quarterKwh = 0;
    for (const p of plan.periods) {
      const from = minutesOfDay(p.start);
      const to = minutesOfDay(p.end, true);
      const price = p.priceCnyPerKwh ?? 0;
      let charged = 0;
      let discharged = 0;
      for (let m = from; m < to; m++) {
        const powerKw = Math.min(p.powerKw, battery.ratedPowerKw);
        if (capacity > 0 && powerKw > 0 && p.action === 'charge' && soc < p.socMaxPct) {
          const room = ((p.socMaxPct - soc) / 100) * capacity; // kWh stored until the ceiling
          const stored = Math.min((powerKw / 60) * eta, room);
          charged += stored / eta;
          quarterKwh += stored / eta;
          soc += (stored / capacity) * 100;
        } else if (capacity > 0 && powerKw > 0 && p.action === 'discharge' && soc > p.socMinPct) {
          const available = ((soc - p.socMinPct) / 100) * capacity;
          const taken = Math.min(powerKw / 60 / eta, available);
          discharged += taken * eta;
          quarterKwh -= taken * eta;
          soc -= (taken / capacity) * 100;
        }
        if ((m + 1) % 15 === 0) {
          socPct.push(round(soc, 1));
          gridKw.push(round(quarterKwh * 4, 3));
          quarterKwh = 0;
        }
      }
      // Energies to the Wh, as the money rule keeps them.
      const line = {
        tier: p.tier,
        priceCnyPerKwh: price,
        chargedKwh: round(charged, 3),
        dischargedKwh: round(discharged, 3),
      };
      lines.push(line);
      perPeriod.push({
        start: p.start,
        end: p.end,
        tier: p.tier,
        priceCnyPerKwh: price,
        chargedKwh: round(charged),
        dischargedKwh: round(discharged),
        netCny: valueLine(line).netCny,
      });
    }
    const valuation = valueEnergy(lines);
    const degradationCny = roundCny(valuation.dischargedKwh * degradation);
    result = {
      chargedKwh: round(valuation.chargedKwh),
      dischargedKwh: round(valuation.dischargedKwh),
      costCny: valuation.costCny,
      revenueCny: valuation.valueCny,
      degradationCny,
      netCny: roundCny(valuation.netCny - degradationCny),
      cycles: capacity > 0 ? round(valuation.dischargedKwh / capacity, 3) : 0,
      perPeriod,
      socPct,
      gridKw,
    };
  }
  return result!;
}

/** One strategy of the comparison: the periods it runs and the day they give. */
export interface StrategyOutcome {
  periods: TouPeriod[];
  preview: ArbitragePreview;
}

/** The time-order and price-aware strategies on one day's tariff, and what waiting for price gains. */
export interface StrategyComparison {
  /** Off-peak charge, peak and sharp discharge in time order (the first standard strategy). */
  timeOrder: StrategyOutcome;
  /** The price-aware standard strategy (strategy.ts). */
  priceAware: StrategyOutcome;
  /** priceAware.net − timeOrder.net, CNY per day. */
  gainCny: number;
  /** gainCny ÷ |timeOrder.net| × 100, %; null when the time-order net is 0. */
  gainPct: number | null;
}

/**
 * Both standard strategies on the tariff of `plan` (its periods' times, tiers and prices; its own
 * actions are ignored) for `battery`, at the battery's setpoint and SOC window, run through
 * {@link previewArbitrage} with the battery's efficiency and degradation cost.
 */
export function compareStrategies(plan: DailyPlan, battery: StrategyBattery): StrategyComparison {
  const forPreview: BatteryForPreview = {
    capacityKwh: battery.capacityKwh,
    ratedPowerKw: battery.ratedPowerKw,
    roundTripEfficiencyPct: battery.roundTripEfficiencyPct,
    degradationCostCnyPerKwh: battery.degradationCostCnyPerKwh ?? 0,
  };
  const run = (periods: TouPeriod[]): StrategyOutcome => ({
    periods,
    preview: previewArbitrage({ ...plan, periods }, forPreview),
  });
  const powerKw = Math.min(battery.powerKw ?? battery.ratedPowerKw, battery.ratedPowerKw);
  const timeOrder = run(
    timeOrderStrategy(plan.periods, { powerKw, socMinPct: battery.socMinPct, socMaxPct: battery.socMaxPct }),
  );
  const priceAware = run(priceAwareStrategy(plan.periods, battery));
  const gainCny = roundCny(priceAware.preview.netCny - timeOrder.preview.netCny);
  const base = Math.abs(timeOrder.preview.netCny);
  return { timeOrder, priceAware, gainCny, gainPct: base > 0 ? round((gainCny / base) * 100, 1) : null };
}
