/**
 * Expected daily peak-valley arbitrage of a battery under one daily plan (the charge-strategy preview).
 *
 * Revenue maths (shared/data README "Revenue maths"): daily revenue = Σ discharged kWh × the
 * period's price − Σ charged kWh × the period's price, energies at the grid connection.
 *
 * Model: one-minute steps over the plan's periods. Charging draws min(setpoint, rated power) from
 * the grid until the SOC reaches the period's ceiling; discharging delivers min(setpoint, rated
 * power) until the SOC reaches the floor; idle does nothing. The round-trip efficiency is split
 * evenly (√η on the way in and on the way out). The day starts at the SOC it ends at (the plan
 * is run twice and the second day reported), so a day's figures repeat day after day.
 */
import type { DailyPlan, TouTier } from './scheme';
import { minutesOfDay } from './scheme';

export interface BatteryForPreview {
  /** Usable energy capacity, kWh. */
  capacityKwh: number;
  /** PCS rated power, kW. */
  ratedPowerKw: number;
  /** Round-trip efficiency, % (e.g. 90). */
  roundTripEfficiencyPct: number;
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
  /** Discharged × price − charged × price, CNY. */
  netCny: number;
}

export interface ArbitragePreview {
  chargedKwh: number;
  dischargedKwh: number;
  /** Σ charged × price, CNY. */
  costCny: number;
  /** Σ discharged × price, CNY. */
  revenueCny: number;
  /** revenue − cost, CNY per day. */
  netCny: number;
  /** Equivalent full cycles per day (discharged ÷ capacity). */
  cycles: number;
  perPeriod: ArbitragePeriod[];
  /** SOC at the end of each quarter hour (96 values), %. */
  socPct: number[];
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The expected day under `plan` for `battery` (see the module note for the model). */
export function previewArbitrage(plan: DailyPlan, battery: BatteryForPreview): ArbitragePreview {
  const eta = Math.sqrt(Math.min(Math.max(battery.roundTripEfficiencyPct, 1), 100) / 100);
  const capacity = Math.max(battery.capacityKwh, 0);
  let soc = 50;
  let result: ArbitragePreview | null = null;
  for (let day = 0; day < 2; day++) {
    const perPeriod: ArbitragePeriod[] = [];
    const socPct: number[] = [];
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
          soc += (stored / capacity) * 100;
        } else if (capacity > 0 && powerKw > 0 && p.action === 'discharge' && soc > p.socMinPct) {
          const available = ((soc - p.socMinPct) / 100) * capacity;
          const taken = Math.min(powerKw / 60 / eta, available);
          discharged += taken * eta;
          soc -= (taken / capacity) * 100;
        }
        if ((m + 1) % 15 === 0) socPct.push(round(soc, 1));
      }
      perPeriod.push({
        start: p.start,
        end: p.end,
        tier: p.tier,
        priceCnyPerKwh: price,
        chargedKwh: round(charged),
        dischargedKwh: round(discharged),
        netCny: round(discharged * price - charged * price),
      });
    }
    const chargedKwh = perPeriod.reduce((s, p) => s + p.chargedKwh, 0);
    const dischargedKwh = perPeriod.reduce((s, p) => s + p.dischargedKwh, 0);
    const costCny = perPeriod.reduce((s, p) => s + p.chargedKwh * p.priceCnyPerKwh, 0);
    const revenueCny = perPeriod.reduce((s, p) => s + p.dischargedKwh * p.priceCnyPerKwh, 0);
    result = {
      chargedKwh: round(chargedKwh),
      dischargedKwh: round(dischargedKwh),
      costCny: round(costCny),
      revenueCny: round(revenueCny),
      netCny: round(revenueCny - costCny),
      cycles: capacity > 0 ? round(dischargedKwh / capacity, 3) : 0,
      perPeriod,
      socPct,
    };
  }
  return result!;
}
