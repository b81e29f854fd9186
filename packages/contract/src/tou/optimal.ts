/**
 * The optimal charge schedule of one day's tariff as a linear programme (issue 17 item 6), and
 * the daily plan made from its solution. Pure: the server hands the LP text to HiGHS (the `highs`
 * package, apps/server/src/modules/tou/optimal-service.ts) and gives the solution back here.
 *
 * Model (steps t = 0…95 of 15 minutes, Δ = 0.25 h; √η each way as the arbitrage preview):
 *
 *   variables   c_t  grid power charging, kW        0 ≤ c_t ≤ P (PCS rating)
 *               d_t  power discharged to grid, kW   0 ≤ d_t ≤ P
 *               e_t  energy stored at the start of step t, kWh,
 *                    capacity × SOC floor ≤ e_t ≤ capacity × SOC ceiling
 *               x    rise of the month's maximum demand, kW, x ≥ 0
 *   balance     e_{t+1} = e_t + Δ·√η·c_t − Δ·d_t ÷ √η, with e_96 = e_0 (the day ends where it
 *               starts, so days repeat)
 *   maximise    Σ_t Δ·(p_t·d_t − p_t·c_t − w·d_t) − D·x
 *               p_t the step's price (time-weighted when a period bound falls inside the step),
 *               w the degradation cost per kWh cycled (a kWh cycled = a kWh discharged),
 *               D the demand charge, CNY/kW·month.
 *   demand      with a site load profile L_t (kW, 96 values): grid demand g_t = L_t + c_t − d_t,
 *               x ≥ g_t − M for every t, M the month's peak demand so far; and no export to the
 *               grid (g_t ≥ 0, the usual C&I connection condition). Without a load profile the
 *               demand term applies to the battery's grid charging power: x ≥ c_t − M.
 *               The whole monthly charge on a rise is counted against this one day: a day that
 *               raises the month's peak pays for the rise once, whatever the other days do.
 *
 * The plan ({@link planFromSchedule}): one period per tariff period (same times, tier and
 * price), charging or discharging when the schedule does, at the highest power the schedule uses
 * in it (rounded up to 0.1 kW, never above the rating), with its SOC ceiling (charging) or floor
 * (discharging) at the level the schedule reaches at the end of that activity (rounded to 0.1 %);
 * the price is the same throughout a tariff period, so reaching the limit sooner changes no money.
 * A tariff period in which the schedule both charges and discharges is split at the quarter hour
 * where it turns. The plan keeps to spec §9 (≤ 24 periods) and every rule of rules.ts.
 */
import { z } from 'zod';
import { idSchema } from '../api/primitives';
import { type ArbitragePreview, previewArbitrage } from './arbitrage';
import { hhmmOf, minutesOfDay, TOU_LIMITS, type TouPeriod, type TouTier, touPeriodSchema } from './scheme';
import { oneWayEfficiency, type StrategyBattery, strategyPowerKw } from './strategy';

/** Steps of the day. */
export const OPTIMAL_STEPS = 96;
/** Length of a step, hours. */
export const STEP_HOURS = 0.25;

/** The day's demand charge situation (two-part tariff). */
export interface DemandInput {
  /** Demand charge, CNY per kW·month (0: none). */
  chargeCnyPerKwMonth: number;
  /** The month's maximum demand so far, kW. */
  monthPeakKw: number;
  /** Site load per quarter hour, kW (96 values); absent: the demand term applies to charging power. */
  loadKw?: readonly number[];
}

export interface OptimalInput {
  /** The day's tariff: periods with valid times, tier and price (actions are ignored). */
  periods: readonly TouPeriod[];
  battery: StrategyBattery;
  demand?: DemandInput;
}

/** Price of each quarter hour, CNY/kWh, time-weighted over the periods it overlaps; and its tier. */
export function stepTariff(periods: readonly TouPeriod[]): Array<{ price: number; tier: TouTier | null }> {
  return Array.from({ length: OPTIMAL_STEPS }, (_, t) => {
    const from = t * 15;
    const to = from + 15;
    let weighted = 0;
    let tier: TouTier | null = null;
    let longest = 0;
    for (const p of periods) {
      const overlap = Math.min(to, minutesOfDay(p.end, true)) - Math.max(from, minutesOfDay(p.start));
      if (overlap <= 0) continue;
      weighted += overlap * (p.priceCnyPerKwh ?? 0);
      if (overlap > longest) {
        longest = overlap;
        tier = p.tier;
      }
    }
    return { price: weighted / 15, tier };
  });
}

/** A number for LP text: finite, no exponent surprises. */
const num = (x: number) => {
  const v = Math.abs(x) < 1e-12 ? 0 : x;
  return Number(v.toPrecision(12)).toString();
};
const term = (coefficient: number, name: string) =>
  `${coefficient < 0 ? '-' : '+'} ${num(Math.abs(coefficient))} ${name}`;

/**
 * The LP of the module note in CPLEX LP format (one term per line), columns `c0…c95`, `d0…d95`,
 * `e0…e95` and `x`. The objective is CNY per day.
 */
export function buildOptimalLp(input: OptimalInput): string {
  const { battery } = input;
  const steps = stepTariff(input.periods);
  const eta1 = oneWayEfficiency(battery.roundTripEfficiencyPct);
  const power = strategyPowerKw(battery);
  const capacity = Math.max(battery.capacityKwh, 0);
  const wear = Math.max(battery.degradationCostCnyPerKwh ?? 0, 0);
  const demandCharge = Math.max(input.demand?.chargeCnyPerKwMonth ?? 0, 0);
  const monthPeak = Math.max(input.demand?.monthPeakKw ?? 0, 0);
  const load = input.demand?.loadKw;
  const lines: string[] = ['Maximize', ' net:'];
  steps.forEach(({ price }, t) => {
    lines.push(`  ${term(STEP_HOURS * (price - wear), `d${t}`)}`);
    lines.push(`  ${term(-STEP_HOURS * price, `c${t}`)}`);
  });
  lines.push(`  ${term(-demandCharge, 'x')}`);
  lines.push('Subject To');
  for (let t = 0; t < OPTIMAL_STEPS; t++) {
    const next = (t + 1) % OPTIMAL_STEPS;
    lines.push(
      ` b${t}: ${term(1, `e${next}`)} ${term(-1, `e${t}`)} ${term(-STEP_HOURS * eta1, `c${t}`)} ${term(STEP_HOURS / eta1, `d${t}`)} = 0`,
    );
  }
  for (let t = 0; t < OPTIMAL_STEPS; t++) {
    if (load) {
      const l = Math.max(load[t] ?? 0, 0);
      lines.push(` m${t}: ${term(1, 'x')} ${term(-1, `c${t}`)} ${term(1, `d${t}`)} >= ${num(l - monthPeak)}`);
      lines.push(` g${t}: ${term(1, `c${t}`)} ${term(-1, `d${t}`)} >= ${num(-l)}`);
    } else if (demandCharge > 0) {
      lines.push(` m${t}: ${term(1, 'x')} ${term(-1, `c${t}`)} >= ${num(-monthPeak)}`);
    }
  }
  lines.push('Bounds');
  for (let t = 0; t < OPTIMAL_STEPS; t++) {
    lines.push(` 0 <= c${t} <= ${num(power)}`);
    lines.push(` 0 <= d${t} <= ${num(power)}`);
    lines.push(
      ` ${num((capacity * battery.socMinPct) / 100)} <= e${t} <= ${num((capacity * battery.socMaxPct) / 100)}`,
    );
  }
  lines.push(' x >= 0');
  lines.push('End');
  return lines.join('\n');
}

/** The solved day. */
export interface OptimalSchedule {
  /** Grid power charging per quarter hour, kW. */
  chargeKw: number[];
  /** Power discharged per quarter hour, kW. */
  dischargeKw: number[];
  /** SOC at 00:00 and at the end of each quarter hour (97 values), %. */
  socPct: number[];
  /** The LP's objective: value − cost − wear − demand charge on the rise, CNY per day. */
  objectiveCny: number;
}

const clean = (v: number | undefined) => (v !== undefined && Math.abs(v) > 1e-7 ? v : 0);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The schedule from the solver's primal values by column name (`c3`, `e40`, …) and objective. */
export function scheduleFromSolution(
  input: OptimalInput,
  primal: (name: string) => number | undefined,
  objectiveCny: number,
): OptimalSchedule {
  const capacity = Math.max(input.battery.capacityKwh, 0);
  const chargeKw: number[] = [];
  const dischargeKw: number[] = [];
  const socPct: number[] = [];
  for (let t = 0; t < OPTIMAL_STEPS; t++) {
    chargeKw.push(round(clean(primal(`c${t}`)), 3));
    dischargeKw.push(round(clean(primal(`d${t}`)), 3));
    socPct.push(capacity > 0 ? round((clean(primal(`e${t}`)) / capacity) * 100, 3) : 0);
  }
  socPct.push(socPct[0]!);
  return { chargeKw, dischargeKw, socPct, objectiveCny: round(objectiveCny, 2) };
}

/**
 * Demand charge a day's grid power costs (module note): D × max(0, max_t g_t − M), where g_t is
 * the site load plus the battery's grid power (`gridKw`, + charging, − discharging), or without a
 * load profile the battery's charging power alone. CNY.
 */
export function demandCostCny(gridKw: readonly number[], demand: DemandInput | undefined): number {
  if (!demand || !(demand.chargeCnyPerKwMonth > 0)) return 0;
  let peak = 0;
  gridKw.forEach((g, t) => {
    const grid = demand.loadKw ? Math.max(demand.loadKw[t] ?? 0, 0) + g : Math.max(g, 0);
    peak = Math.max(peak, grid);
  });
  return round(Math.max(0, peak - Math.max(demand.monthPeakKw, 0)) * demand.chargeCnyPerKwMonth, 2);
}

const ceil1 = (x: number) => Math.ceil(x * 10 - 1e-6) / 10;
const floor1 = (x: number) => Math.floor(x * 10 + 1e-6) / 10;
const ACTIVE_KW = 0.05;

/** A run of steps inside one tariff period doing one thing. */
interface Run {
  from: number;
  to: number;
  action: 'charge' | 'discharge' | 'idle';
}

/** The daily plan of a schedule (module note). */
export function planFromSchedule(input: OptimalInput, schedule: OptimalSchedule): TouPeriod[] {
  const { battery } = input;
  const power = strategyPowerKw(battery);
  const out: TouPeriod[] = [];
  const actionOf = (t: number): Run['action'] =>
    schedule.chargeKw[t]! > ACTIVE_KW
      ? 'charge'
      : schedule.dischargeKw[t]! > ACTIVE_KW
        ? 'discharge'
        : 'idle';
  const splits: Array<{ period: TouPeriod; runs: Run[] }> = input.periods.map((period) => {
    const start = minutesOfDay(period.start);
    const end = minutesOfDay(period.end, true);
    const runs: Run[] = [];
    // Steps whose start lies in the period.
    for (let t = Math.ceil(start / 15); t * 15 < end; t++) {
      const action = actionOf(t);
      const last = runs[runs.length - 1];
      if (!last) runs.push({ from: t, to: t + 1, action });
      else if (action === 'idle' || action === last.action) last.to = t + 1;
      else if (last.action === 'idle') {
        last.to = t + 1;
        last.action = action;
      } else runs.push({ from: t, to: t + 1, action });
    }
    return { period, runs };
  });
  // Spec §9: at most 24 periods. A tariff period split in two runs collapses to its larger one
  // (by energy) while there are too many.
  let count = splits.reduce((n, s) => n + Math.max(s.runs.length, 1), 0);
  for (const s of splits) {
    if (count <= TOU_LIMITS.dailyPlanItems) break;
    if (s.runs.length > 1) {
      const energy = (r: Run) =>
        Array.from(
          { length: r.to - r.from },
          (_, k) => schedule.chargeKw[r.from + k]! + schedule.dischargeKw[r.from + k]!,
        ).reduce((a, b) => a + b, 0);
      const main = s.runs.reduce((a, b) => (energy(b) > energy(a) ? b : a));
      count -= s.runs.length - 1;
      s.runs = [{ from: s.runs[0]!.from, to: s.runs[s.runs.length - 1]!.to, action: main.action }];
    }
  }
  for (const { period, runs } of splits) {
    const base = { tier: period.tier, priceCnyPerKwh: period.priceCnyPerKwh };
    if (runs.length === 0) {
      out.push({
        ...period,
        action: 'idle',
        powerKw: power,
        socMinPct: battery.socMinPct,
        socMaxPct: battery.socMaxPct,
      });
      continue;
    }
    runs.forEach((run, i) => {
      const start = i === 0 ? period.start : hhmmOf(run.from * 15);
      const end = i === runs.length - 1 ? period.end : hhmmOf(run.to * 15);
      const kws = Array.from({ length: run.to - run.from }, (_, k) =>
        run.action === 'charge' ? schedule.chargeKw[run.from + k]! : schedule.dischargeKw[run.from + k]!,
      );
      const kw = Math.min(ceil1(Math.max(...kws)), power);
      // SOC at the end of the run's last active step.
      let lastActive = run.from;
      for (let t = run.from; t < run.to; t++) if (actionOf(t) === run.action) lastActive = t;
      const socEnd = schedule.socPct[lastActive + 1]!;
      if (run.action === 'charge' && kw > 0) {
        const ceiling = Math.min(ceil1(socEnd), battery.socMaxPct);
        if (ceiling > battery.socMinPct) {
          out.push({
            start,
            end,
            ...base,
            action: 'charge',
            powerKw: kw,
            socMinPct: battery.socMinPct,
            socMaxPct: ceiling,
          });
          return;
        }
      }
      if (run.action === 'discharge' && kw > 0) {
        const floor = Math.max(floor1(socEnd), battery.socMinPct);
        if (floor < battery.socMaxPct) {
          out.push({
            start,
            end,
            ...base,
            action: 'discharge',
            powerKw: kw,
            socMinPct: floor,
            socMaxPct: battery.socMaxPct,
          });
          return;
        }
      }
      out.push({
        start,
        end,
        ...base,
        action: 'idle',
        powerKw: power,
        socMinPct: battery.socMinPct,
        socMaxPct: battery.socMaxPct,
      });
    });
  }
  return out;
}

/** What the plan of a schedule gives when run (arbitrage.ts), with its demand charge. */
export function previewOptimalPlan(
  input: OptimalInput,
  periods: TouPeriod[],
): ArbitragePreview & { demandCostCny: number } {
  const preview = previewArbitrage(
    { key: 1, name: 'optimal', periods },
    {
      capacityKwh: input.battery.capacityKwh,
      ratedPowerKw: input.battery.ratedPowerKw,
      roundTripEfficiencyPct: input.battery.roundTripEfficiencyPct,
      degradationCostCnyPerKwh: input.battery.degradationCostCnyPerKwh ?? 0,
    },
  );
  return { ...preview, demandCostCny: demandCostCny(preview.gridKw, input.demand) };
}

// ---- The call `tou/optimalPlan` ------------------------------------------------------------

const pct = z.number().finite().min(0).max(100);
const nonNegative = z.number().finite().min(0);

/**
 * `/api-bms/tou/optimalPlan` request: a site in the caller's scope (its storage capacity and PCS
 * rating are the battery), the day's tariff (a daily plan's periods: times, tiers, prices; the
 * plan being edited, saved or not), and the operator's assumptions.
 */
export const touOptimalPlanRequest = z
  .object({
    siteId: idSchema,
    periods: z.array(touPeriodSchema).min(1).max(TOU_LIMITS.dailyPlanItems),
    /** Round-trip efficiency, %. */
    roundTripEfficiencyPct: z.number().finite().min(1).max(100),
    socMinPct: pct,
    socMaxPct: pct,
    /** CNY per kWh cycled (discharged). */
    degradationCostCnyPerKwh: nonNegative.max(10).default(0),
    /** CNY per kW·month; 0 without a demand charge. */
    demandChargeCnyPerKwMonth: nonNegative.max(1000).default(0),
    /** The month's maximum demand so far, kW. */
    monthPeakKw: nonNegative.max(1_000_000).default(0),
    /** Site load per quarter hour, kW (96 values), optional. */
    loadKw: z.array(nonNegative.max(1_000_000)).length(OPTIMAL_STEPS).optional(),
  })
  .refine((r) => r.socMinPct < r.socMaxPct, {
    path: ['socMaxPct'],
    message: 'socMaxPct must exceed socMinPct',
  });
export type TouOptimalPlanRequest = z.infer<typeof touOptimalPlanRequest>;

const figures = z.object({
  chargedKwh: z.number(),
  dischargedKwh: z.number(),
  costCny: z.number(),
  revenueCny: z.number(),
  degradationCny: z.number(),
  demandCostCny: z.number(),
  /** revenue − cost − degradation − demand charge, CNY per day. */
  netCny: z.number(),
  cycles: z.number(),
});

export const touOptimalPlanResponse = z.object({
  siteId: z.number().int(),
  capacityKwh: z.number(),
  ratedPowerKw: z.number(),
  /** The LP optimum, CNY per day (module note). */
  objectiveCny: z.number(),
  chargeKw: z.array(z.number()),
  dischargeKw: z.array(z.number()),
  socPct: z.array(z.number()),
  /** The daily plan made of the schedule (valid under rules.ts). */
  periods: z.array(touPeriodSchema),
  /** The plan run through the arbitrage preview. */
  plan: figures,
  /** SOC at the end of each quarter hour when the plan runs (96 values), %. */
  planSocPct: z.array(z.number()),
});
export type TouOptimalPlanResponse = z.infer<typeof touOptimalPlanResponse>;
