/**
 * One simulated storage site: EMS, PCS, BMS with its cells, grid meter, optional PV,
 * environment sensor and air conditioner. Pure and clock-free:
 *
 *     step(state, dtS, simTimeMs) → { state, readings, events, flows }
 *
 * `simTimeMs` is the site's clock (UTC ms) at the end of the step and `dtS` the step length in
 * seconds; the input state is never modified. Randomness comes from the seeded generator whose
 * state travels in `state.rng`, so the same seed, spec and step sequence give the same readings.
 *
 * Models (units in names; sign convention of the protocol: PCS/battery power + = discharging,
 * − = charging; grid meter + = import):
 *
 * - Stored energy: E += −P_dc·Δt with P_dc = P_ac·η when charging (P_ac < 0) and P_ac/η when
 *   discharging; SOC = E / (nominal energy × SOH). η per profile (0.95 each way, ≥ 90 % round
 *   trip, vendor sheets).
 * - Cells: each series position i has a fixed capacity offset c_i, SOC offset q_i, resistance
 *   factor r_i and cooling factor g_i drawn from the seed (so the same cells are high or low on
 *   every run). Cell SOC_i = (SOC + q_i)/(1 + c_i); u_i = OCV(SOC_i) − I·R_i(T_i) (see ocv.ts);
 *   pack voltage = Σ u_i; pack current I = P_dc / U_pack.
 * - BMS limits: the largest current that keeps every cell between 2.90 V and 3.55 V at the end
 *   of the step (a CV-like taper well inside the 2.5/3.65 V hard limits), 0 outside the SOC
 *   window, derated below 10 °C and above 45 °C, and 0 in the direction of an active fault
 *   (cell over/under-voltage, SOC high/low, over-temperature, voltage difference).
 * - EMS: its operating mode (a device parameter, settings.ts) gives a setpoint — in ToU mode the
 *   period in force of the ToU scheme pushed by the server (`set_tou_plan`), else of the site's
 *   built-in strategy (the default plan, a regional tariff, night charging, or self-consumption;
 *   schedule.ts); in manual mode its power setpoint; in backup mode charging up to the backup
 *   reserve and holding it; in standby nothing. Demand control raises discharge so that grid
 *   import stays at its target. It respects the PCS rating and active power limit (derated when
 *   the IGBTs run hot), the ramp rate and the BMS limits, never steps the SOC past the window
 *   (the period's within the EMS's floor and ceiling; discharging stops at the backup reserve),
 *   and never discharges more than keeps the grid export below the export limit (anti-backflow:
 *   0 kW on C&I and household sites unless configured; within the same step).
 * - Thermal: cells heat by I²R and exchange heat with the cabinet air; the cabinet exchanges
 *   heat with the outside and with the air conditioner (cooling from above `cooling_start_c`
 *   down to `cooling_stop_c`, heating from below `heating_start_c` up to `heating_stop_c`: its
 *   parameters, by default 28/25 and 10/13 °C). Linear first-order parts are integrated
 *   exactly (exponential), so any step length is stable.
 * - PCS AC side: three-phase voltages around the nominal phase voltage with slow drift and a
 *   fixed unbalance, I = S/(3·U) per phase (single-phase: I = S/U), small reactive power,
 *   frequency 50 Hz with mean-reverting noise. The PCS compartment is cooled with outside air:
 *   IGBT temperature = outdoor air + 12 K + the rated rise × (P/P_rated)² (first order, τ = 5 min).
 *   Like an inverter, the PCS derates its power so that, with healthy cooling, its IGBTs settle at
 *   88 °C at most (between the 85 °C warning and the 95 °C trip): a full-power discharge on a hot
 *   afternoon raises the over-temperature warning once, cleared when the IGBTs cool below 80 °C.
 * - Site: load from the BDEW profile (load.ts), a share of it drawn evenly round the clock
 *   (`baseLoadShare`: process load of a data centre or cold store), plus the air conditioner's
 *   consumption; PV from the clear-sky model (solar.ts) times the day's cloudiness of the place
 *   (weather.ts `dayWeather`); grid P = load − PV − P_pcs.
 * - Cell drift: now and then one cell drifts away from the others, its capacity fading by
 *   1.2–2 % per 6 h of use below 60 % SOC (at most 15 %), until a service visit after 5–9 days
 *   (the cabinet door opens) replaces it. The weak cell's voltage runs ahead at the end of each charge: the BMS taper
 *   ends the charge early, and from a fade of about 7 % on the cell voltage difference passes
 *   the 200 mV warning there and falls back once the discharge begins.
 * - Registers (PCS charge/discharge, meter import/export, PV) integrate power and only grow.
 * - Alarms: alarms.ts, evaluated after each step on the new values.
 */
import { type DailyPlan, type PointValues, type SetTouPlanParams, TOU_TIERS } from '@ess/contract';
import {
  type AlarmEvent,
  type AlarmInputs,
  type AlarmRule,
  alarmKey,
  alarmRules,
  evaluateAlarms,
} from './alarms';
import { type BdewProfile, profileLoadKw } from './load';
import { lfpOcv, resistanceTempFactor } from './ocv';
import { type EquipmentProfile, nominalEnergyKwh, PROFILES, type ProfileId, scaledProfile } from './profiles';
import { deriveSeed, ouStep, Rng } from './random';
import {
  builtInPlans,
  periodInForce,
  periodSetpointKw,
  type SiteStrategy,
  selfConsumptionSetpointKw,
} from './schedule';
import { initialParamsOptionsOf, initialSettings, type SiteSettings } from './settings';
import { pvPowerKw } from './solar';
import { localTime } from './time';
import {
  type Climate,
  dailyCycleK,
  dayWeather,
  heatShape,
  indoorRhPct,
  outdoorRhPct,
  seasonalMeanC,
} from './weather';

/** What the model needs to know about a site (a subset of the fleet's site record). */
export interface SiteSpec {
  siteCode: string;
  /** IANA zone, e.g. `Asia/Shanghai`. */
  timezone: string;
  latitude: number;
  longitude: number;
  profile: ProfileId;
  /** Installed PV, kWp (0 = none). */
  pvKwp: number;
  /** Annual consumption of the site's load, kWh. */
  annualLoadKwh: number;
  climate: Climate;
  /** The EMS never discharges into the grid (anti-backflow). Default true except for containers. */
  antiBackflow?: boolean;
  /**
   * The EMS's demand-control target (`demand_limit_kw`) before anyone configures it, kW; default
   * 0: off. Set by the fleet for a site billed on its maximum demand (fleet.ts `demandLimitKwOf`).
   */
  demandLimitKw?: number;
  /** Identical systems side by side behind one EMS and meter (profiles.ts `scaledProfile`); default 1. */
  units?: number;
  /** Share (0–1) of the annual consumption drawn evenly round the clock, the rest by the BDEW profile; default 0. */
  baseLoadShare?: number;
  /** The place whose weather the site shares (a city code, weather.ts `dayWeather`); default the site code. */
  weatherKey?: string;
  /** What the EMS runs until a ToU scheme is pushed (schedule.ts); default the default plan. */
  strategy?: SiteStrategy;
}

/** Faults that `injectFault` can provoke (tests, demos). */
export const FAULT_KINDS = [
  /**
   * EMS forces charging at full power and the BMS loses its SOC calibration: no taper, no SOC
   * ceiling, no SOC-based blocking; only the cell over-voltage protection acts.
   */
  'overcharge',
  /** The same for discharging: only the cell under-voltage protection acts. */
  'overdischarge',
  /** One cell develops an internal heat source (≈ 40 K rise over the cabinet air). */
  'cell_overtemperature',
  /** One cell's connection degrades (15× resistance): cell voltage difference under current. */
  'cell_imbalance',
  /** The PCS cooling fan fails: the IGBTs run hot and the PCS trips. */
  'pcs_over_temperature',
  /** Grid voltage 16 % above nominal: the PCS trips. */
  'grid_overvoltage',
  'smoke',
  'water',
  'door_open',
  /** The air conditioner stops working. */
  'ac_fault',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Fixed per-site parameters (derived once from spec and seed; never changed by `step`). */
export interface SiteParams {
  spec: SiteSpec;
  profile: EquipmentProfile;
  load: BdewProfile;
  sohPct: number;
  /** Usable stored energy at 100 % SOC, kWh (nominal × SOH). */
  capacityKwh: number;
  /** Per cell (series position): relative capacity offset c_i. */
  cellCapOffset: Float64Array;
  /** SOC offset q_i, %. */
  cellSocOffsetPct: Float64Array;
  /** Resistance factor r_i. */
  cellResFactor: Float64Array;
  /** Cooling (conductance) factor g_i. */
  cellCondFactor: Float64Array;
  /** Fixed reading offset of each cell's temperature sensor, K. */
  cellSensorOffsetK: Float64Array;
  /** Cell (0-based) affected by the cell faults. */
  faultCell: number;
  /** Standard deviation of the relative load noise. */
  loadNoise: number;
  /** Probability per day of a maintenance visit that opens the door. */
  doorVisitChance: number;
  /** Probability per day that a cell starts drifting (while none does). */
  driftChance: number;
  /** Seed of the weather of the site's place (weather.ts `dayWeather`). */
  placeSeed: number;
  /** Seed of the site's own daily draws (door, drift), with the local day: the same whenever the run began. */
  daySeed: number;
  /** Fixed relative unbalance of the three phase voltages. */
  phaseUnbalance: [number, number, number];
  /**
   * The EMS's built-in daily plan of each local month (index 0 = January), run until a ToU
   * scheme arrives; null: self-consumption (schedule.ts).
   */
  builtInPlans: DailyPlan[] | null;
}

/** Energy registers, kWh; they only grow. */
export interface Registers {
  pcsChargeKwh: number;
  pcsDischargeKwh: number;
  importKwh: number;
  exportKwh: number;
  pvKwh: number;
  /**
   * The grid meter's per-tier registers like a DL/T 645 meter (正向/反向有功 尖、峰、平、谷): import
   * and export split by the ToU tier in force (TOU_TIERS order: sharp, peak, shoulder, off-peak),
   * following the site's tariff (the pushed scheme, else the built-in plan; flat without either).
   * Their sum is the total register.
   */
  importTierKwh: [number, number, number, number];
  exportTierKwh: [number, number, number, number];
}

/** How a total register is split over the tiers when a meter starts (or resumes without tiers). */
const TIER_START_SHARE = [0.05, 0.25, 0.3, 0.4] as const;

/** `total` split by {@link TIER_START_SHARE}, the last tier taking the rounding (sum = total). */
export function tierSplit(total: number): [number, number, number, number] {
  const a = round(total * TIER_START_SHARE[0], 3);
  const b = round(total * TIER_START_SHARE[1], 3);
  const c = round(total * TIER_START_SHARE[2], 3);
  return [a, b, c, round(total - a - b - c, 3)];
}

export interface SiteState {
  params: SiteParams;
  /** Site clock at the last step, UTC ms. */
  timeMs: number;
  rng: number[];
  /** Stored energy, kWh (SOC × capacity). */
  energyKwh: number;
  /** Cell (series position) temperatures, °C. */
  cellTempC: Float64Array;
  cabinetC: number;
  igbtC: number;
  /** 0 off, 1 cooling, 2 heating (point `state` of the air conditioner). */
  acState: 0 | 1 | 2;
  /**
   * What the devices' parameters make the model do (settings.ts): EMS mode and limits, PCS
   * limits, BMS limits and alarm thresholds, air-conditioner thresholds. Changed only through
   * {@link applySettings} (the gateway, after a `set_params` or a register write).
   */
  settings: SiteSettings;
  /** The ToU scheme pushed by the server and in force (`set_tou_plan`), or null: default plan. */
  touPlan: SetTouPlanParams | null;
  faults: FaultKind[];
  /** Active alarm keys (`code/level`). */
  alarms: string[];
  registers: Registers;
  /** Mean-reverting noise states. */
  noise: {
    weatherK: number;
    rh: number;
    load: number;
    cloud: number;
    freq: number;
    volt: number;
    q: number;
    ins: number;
  };
  /** Draws made once per local day: the place's weather, the door's opening (minutes of the day). */
  day: {
    index: number;
    clearness: number;
    anomalyK: number;
    heatK: number;
    doorFromMin: number;
    doorToMin: number;
  };
  /**
   * A cell (0-based) whose capacity has faded by `fadePct` % (at most 15) since local day
   * `fromDay`, growing by `pctPerDay` per 6 h the pack spends below 60 % SOC, until the service
   * visit on day `toDay`; null: none drifts.
   */
  drift: { cell: number; fromDay: number; toDay: number; pctPerDay: number; fadePct: number } | null;
  /** Last PCS power, kW (+ discharging). */
  pKw: number;
}

/** Readings of one step, per device type (standard point names, docs/device-protocol.md). */
export interface SiteReadings {
  ems: PointValues;
  pcs: PointValues;
  bms: PointValues;
  meter: PointValues;
  /** Present only when the site has PV. */
  pv?: PointValues;
  air_conditioner: PointValues;
  env_sensor: PointValues;
  /** Per-cell voltages (V) and temperatures (°C), cell order. */
  cells: { u_v: number[]; t_c: number[] };
}

/** Unrounded power flows of the step, kW (for checks). */
export interface StepFlows {
  loadKw: number;
  pvKw: number;
  /** PCS AC power, + discharging. */
  pcsKw: number;
  /** Battery (DC, stored-energy side) power, + discharging. */
  dcKw: number;
  /** Grid meter power, + import. */
  gridKw: number;
  setpointKw: number;
  chargeLimitKw: number;
  dischargeLimitKw: number;
  ambientC: number;
}

export interface StepResult {
  state: SiteState;
  readings: SiteReadings;
  events: AlarmEvent[];
  flows: StepFlows;
}

export interface CreateSiteOptions {
  seed: number;
  /** Site clock at creation, UTC ms. */
  startTimeMs: number;
  /** The BDEW profile table for the site's load (G25 for C&I and containers, H25 for households). */
  load: BdewProfile;
  initialSocPct?: number;
  /** Register readings to continue from, kWh (a restart: what the server last stored). */
  registers?: Partial<Registers>;
  /** Alarms still active (`code/level` keys, alarms.ts `alarmKey`): cleared once their condition is gone. */
  alarms?: readonly string[];
}

/** IGBT temperature over the outside air at no load, K (the PCS compartment's fans). */
const IGBT_OVER_AIR_K = 12;
/** The PCS limits its power so that its IGBTs settle at this temperature at most, °C. */
const PCS_DERATE_C = 88;

/** Cell taper targets of the BMS (V): well inside the 2.5 / 3.65 V hard limits. */
export const TAPER_CHARGE_V = 3.55;
export const TAPER_DISCHARGE_V = 2.9;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const decays = new WeakMap<SiteParams, { dtS: number; f: Float64Array }>();

/**
 * exp(−Δt·g_i/C) of each cell over a step of `dtS` (its thermal relaxation towards the cabinet
 * air), remembered per site for the last step length (a memo: the same for every step).
 */
function cellDecay(params: SiteParams, dtS: number, gCell: number, cellC: number): Float64Array {
  const memo = decays.get(params);
  if (memo?.dtS === dtS) return memo.f;
  const f = Float64Array.from(params.cellCondFactor, (c) => Math.exp((-dtS * gCell * c) / cellC));
  decays.set(params, { dtS, f });
  return f;
}

/** `values` rounded to `digits`, as a plain array (a loop: `Array.from` with a map is slow on typed arrays). */
function roundAll(values: Float64Array, digits: number): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = round(values[i]!, digits);
  return out;
}
/** A plan without periods: the EMS idles (only where a built-in plan is missing). */
const EMPTY_PLAN: DailyPlan = { key: 0, name: 'none', periods: [] };
const POW10 = [1, 10, 100, 1000, 10000];
const round = (x: number, digits: number) => {
  const f = POW10[digits]!;
  const r = Math.round(x * f) / f;
  return r === 0 ? 0 : r; // no -0 in JSON
};

/** Creates the state of a site at `startTimeMs`; deterministic in `seed` and `spec.siteCode`. */
export function createSite(spec: SiteSpec, opts: CreateSiteOptions): SiteState {
  const profile = scaledProfile(PROFILES[spec.profile], spec.units ?? 1);
  const r = Rng.fromSeed(deriveSeed(opts.seed, `${spec.siteCode}/params`));
  const n = profile.seriesCells;
  const sohPct = round(r.range(95.5, 99.5), 1);
  const capOff = new Float64Array(n);
  const socOff = new Float64Array(n);
  const resF = new Float64Array(n);
  const condF = new Float64Array(n);
  const sensor = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    capOff[i] = clamp(0.004 * r.normal(), -0.012, 0.012);
    socOff[i] = clamp(0.4 * r.normal(), -1.2, 1.2);
    resF[i] = clamp(1 + 0.04 * r.normal(), 0.88, 1.12);
    // cells in the middle of a module are cooled less than those at its ends
    condF[i] = clamp(1 + 0.1 * r.normal() + 0.08 * Math.cos((2 * Math.PI * i) / 24), 0.7, 1.3);
    sensor[i] = clamp(0.3 * r.normal(), -0.8, 0.8);
  }
  const household = spec.profile === 'household_10kwh';
  const capacityKwh = (nominalEnergyKwh(profile) * sohPct) / 100;
  const params: SiteParams = {
    spec,
    profile,
    load: opts.load,
    sohPct,
    capacityKwh,
    cellCapOffset: capOff,
    cellSocOffsetPct: socOff,
    cellResFactor: resF,
    cellCondFactor: condF,
    cellSensorOffsetK: sensor,
    faultCell: r.int(0, n - 1),
    loadNoise: household ? 0.25 : 0.05,
    doorVisitChance: household ? 0.05 : 0.15,
    driftChance: household ? 0.005 : 0.02,
    placeSeed: deriveSeed(opts.seed, `place/${spec.weatherKey ?? spec.siteCode}`),
    daySeed: deriveSeed(opts.seed, `${spec.siteCode}/days`),
    phaseUnbalance: [0.004 * r.normal(), 0.004 * r.normal(), 0.004 * r.normal()],
    builtInPlans: builtInPlans(spec.strategy, profile, capacityKwh),
  };

  const lt = localTime(spec.timezone, opts.startTimeMs);
  const ambient = seasonalMeanC(spec.climate, lt.dayOfYear) + dailyCycleK(spec.climate, lt.minuteOfDay);
  const cabinetC = clamp(ambient + 3, 12, 27);
  const socPct = opts.initialSocPct ?? round(r.range(30, 70), 1);
  const years = r.range(0.5, 2.5);
  const cycles = years * r.range(250, 330);
  const cap = params.capacityKwh;
  const eff = profile.efficiency;
  const discharged = cycles * cap * 0.9;
  const importKwh = opts.registers?.importKwh ?? round(spec.annualLoadKwh * years * 0.8, 1);
  const exportKwh = opts.registers?.exportKwh ?? round(spec.pvKwp * years * 60, 1);
  return {
    params,
    timeMs: opts.startTimeMs,
    rng: Rng.fromSeed(deriveSeed(opts.seed, `${spec.siteCode}/run`)).state(),
    energyKwh: (cap * socPct) / 100,
    cellTempC: Float64Array.from({ length: n }, () => cabinetC + r.range(0, 1)),
    cabinetC,
    igbtC: cabinetC + 5,
    acState: 0,
    settings: initialSettings(profile, initialParamsOptionsOf(spec)),
    touPlan: null,
    faults: [],
    alarms: [...(opts.alarms ?? [])].sort(),
    registers: {
      pcsChargeKwh: round(discharged / eff / eff, 1),
      pcsDischargeKwh: round(discharged, 1),
      pvKwh: round(spec.pvKwp * years * 1100, 1),
      ...opts.registers,
      importKwh,
      exportKwh,
      importTierKwh: opts.registers?.importTierKwh ?? tierSplit(importKwh),
      exportTierKwh: opts.registers?.exportTierKwh ?? tierSplit(exportKwh),
    },
    noise: { weatherK: 0.7 * r.normal(), rh: 0, load: 0, cloud: 0, freq: 0, volt: 0, q: 0, ins: 0 },
    day: { index: -1, clearness: 1, anomalyK: 0, heatK: 0, doorFromMin: -1, doorToMin: -1 },
    drift: null,
    pKw: 0,
  };
}

/** SOC of the site, % (unclamped: above 100 only after a forced overcharge). */
export function socPct(state: SiteState): number {
  return (100 * state.energyKwh) / state.params.capacityKwh;
}

/** Returns the state with fault `kind` injected (idempotent). */
export function injectFault(state: SiteState, kind: FaultKind): SiteState {
  if (state.faults.includes(kind)) return state;
  return { ...state, faults: [...state.faults, kind].sort() };
}

/** Returns the state without fault `kind` (or without any injected fault). */
export function clearFault(state: SiteState, kind?: FaultKind): SiteState {
  return { ...state, faults: kind ? state.faults.filter((f) => f !== kind) : [] };
}

/**
 * Returns the state running ToU scheme `plan` from the next step on (validate it first:
 * payloads.ts `set_tou_plan`). The EMS keeps it until the next one replaces it.
 */
export function setTouPlan(state: SiteState, plan: SetTouPlanParams): SiteState {
  return { ...state, touPlan: structuredClone(plan) };
}

/**
 * Returns the state running `settings` from the next step on (settings.ts
 * `settingsFromParams`, from parameters the contract's validator accepted).
 */
export function applySettings(state: SiteState, settings: SiteSettings): SiteState {
  return { ...state, settings };
}

const rulesMemo = new WeakMap<SiteSettings, AlarmRule[]>();

/** The alarm rules of `params`' equipment at the thresholds of `settings` (remembered per settings). */
function rulesOf(params: SiteParams, settings: SiteSettings): AlarmRule[] {
  let rules = rulesMemo.get(settings);
  if (!rules) {
    rules = alarmRules(params.profile, settings);
    rulesMemo.set(settings, rules);
  }
  return rules;
}

/**
 * The draws of local day `index`: the place's weather, whether a cell starts drifting (or the
 * drift's service visit is due) and when the door opens — a routine visit by chance, the
 * service visit on the drift's last day.
 */
function drawDay(
  params: SiteParams,
  index: number,
  dayOfYear: number,
  drift: SiteState['drift'],
): { day: SiteState['day']; drift: SiteState['drift'] } {
  const weather = dayWeather(params.placeSeed, index, seasonalMeanC(params.spec.climate, dayOfYear));
  const rng = Rng.fromSeed(deriveSeed(params.daySeed, `${index}`));
  let next = drift && index > drift.toDay ? null : drift;
  if (!next && rng.chance(params.driftChance)) {
    next = {
      cell: rng.int(0, params.profile.seriesCells - 1),
      fromDay: index,
      toDay: index + rng.int(5, 9),
      pctPerDay: rng.range(1.2, 2),
      fadePct: 0,
    };
  }
  let doorFromMin = -1;
  let doorToMin = -1;
  if (next?.toDay === index) {
    doorFromMin = rng.int(9 * 60, 15 * 60);
    doorToMin = doorFromMin + rng.int(20, 60);
  } else if (rng.chance(params.doorVisitChance)) {
    doorFromMin = rng.int(9 * 60, 16 * 60);
    doorToMin = doorFromMin + rng.int(5, 30);
  }
  return { day: { index, ...weather, doorFromMin, doorToMin }, drift: next };
}

/** The drift cell's capacity factor (1 − fade) on local day `day` at `minuteOfDay`; 1 once replaced. */
function driftFactor(drift: SiteState['drift'], day: SiteState['day'], minuteOfDay: number): number {
  if (!drift || (day.index === drift.toDay && minuteOfDay >= day.doorToMin)) return 1;
  return 1 - drift.fadePct / 100;
}

/**
 * Advances `state` by `dtS` seconds to site time `simTimeMs`. Returns the new state, the
 * readings at the end of the step, the alarm events of the step and the exact power flows.
 */
export function step(state: SiteState, dtS: number, simTimeMs: number): StepResult {
  if (!(dtS > 0)) throw new RangeError(`step: dtS must be > 0, got ${dtS}`);
  const params = state.params;
  const pr = params.profile;
  const spec = params.spec;
  const n = pr.seriesCells;
  const faults = new Set(state.faults);
  const alarms = new Set(state.alarms);
  const faultActive = (code: string) => alarms.has(alarmKey(code, 'fault'));
  const rng = Rng.fromState(state.rng);
  const noise = { ...state.noise };
  const lt = localTime(spec.timezone, simTimeMs);
  // the EMS decides at the start of the step and holds its setpoint through it; the load of
  // the step is that of the quarter hour it starts in; PV is taken at the step's midpoint
  const startMs = simTimeMs - dtS * 1000;
  const lt0 = localTime(spec.timezone, startMs);
  const drawn =
    state.day.index === lt.dayIndex
      ? { day: state.day, drift: state.drift }
      : drawDay(params, lt.dayIndex, lt.dayOfYear, state.drift);
  const day = drawn.day;
  const drift = drawn.drift;

  // ---- weather, load, PV ----
  noise.weatherK = ouStep(rng, noise.weatherK, dtS, 2 * 86_400, 0.7);
  noise.rh = ouStep(rng, noise.rh, dtS, 6 * 3600, 6);
  noise.load = ouStep(rng, noise.load, dtS, 900, params.loadNoise);
  noise.cloud = ouStep(rng, noise.cloud, dtS, 1200, 0.08);
  const dailyK = dailyCycleK(spec.climate, lt.minuteOfDay);
  const ambientC =
    seasonalMeanC(spec.climate, lt.dayOfYear) +
    dailyK +
    day.anomalyK +
    day.heatK * heatShape(lt.minuteOfDay) +
    noise.weatherK;
  const rhOut = outdoorRhPct(spec.climate, dailyK, noise.rh);
  const clearness = clamp(day.clearness + noise.cloud, 0.05, 1);
  const pvKw = pvPowerKw(spec.pvKwp, startMs + dtS * 500, spec.latitude, spec.longitude, clearness);

  // ---- air conditioner (thermostat on the cabinet air of the previous step) ----
  // cooling runs from above its start down to its stop, heating from below its start up to its stop
  const set = state.settings;
  const acFault = faults.has('ac_fault');
  let acState: 0 | 1 | 2 = 0;
  if (!acFault) {
    const t = state.cabinetC;
    if (state.acState === 1) acState = t > set.coolingStopC ? 1 : 0;
    else if (state.acState === 2) acState = t < set.heatingStopC ? 2 : 0;
    if (acState === 0) acState = t > set.coolingStartC ? 1 : t < set.heatingStartC ? 2 : 0;
  }
  const acHeatW = acState === 1 ? -pr.acCoolingKw * 1000 : acState === 2 ? pr.acHeatingKw * 1000 : 0;
  const acElectricKw = acState === 1 ? pr.acCoolingKw / pr.acCop : acState === 2 ? pr.acHeatingKw : 0;
  const base = spec.baseLoadShare ?? 0;
  const profiledKw =
    (1 - base) * profileLoadKw(params.load, spec.annualLoadKwh, lt0) + (base * spec.annualLoadKwh) / 8760;
  const loadKw = Math.max(0, profiledKw * Math.max(0.2, 1 + noise.load)) + acElectricKw;

  // ---- EMS setpoint (decided before the BMS limits, which the PCS applies to it) ----
  const soc0 = socPct(state);
  const forcedCharge = faults.has('overcharge');
  const forcedDischarge = faults.has('overdischarge');
  const builtIn = params.builtInPlans;
  const selfConsumption =
    !state.touPlan && !builtIn && spec.strategy?.kind === 'self_consumption' ? spec.strategy : null;
  const tou = set.mode === 'tou';
  const period =
    selfConsumption || !tou
      ? undefined
      : periodInForce(state.touPlan, builtIn?.[lt0.month - 1] ?? EMPTY_PLAN, startMs, lt0.minuteOfDay);
  // The SOC window the step stays in: the strategy's or the period's (ToU mode) within the
  // profile's and the EMS's own (its floor and ceiling; discharging also stops at the backup
  // reserve; in backup mode charging stops there too: it holds the reserve).
  const window = tou ? (selfConsumption ?? period) : undefined;
  const ceilingPct = Math.min(
    window?.socMaxPct ?? 100,
    pr.socCeilingPct,
    set.socMaxPct,
    set.mode === 'backup' ? set.backupReservePct : 100,
  );
  const floorPct = Math.max(window?.socMinPct ?? 0, pr.socFloorPct, set.socMinPct, set.backupReservePct);
  let setpointKw = forcedCharge
    ? -pr.maxPowerKw
    : forcedDischarge
      ? pr.maxPowerKw
      : set.mode === 'standby'
        ? 0
        : set.mode === 'manual'
          ? set.manualPowerKw
          : set.mode === 'backup'
            ? soc0 < ceilingPct
              ? -pr.ratedPowerKw
              : 0
            : selfConsumption
              ? selfConsumptionSetpointKw(loadKw, pvKw, soc0, selfConsumption, pr)
              : periodSetpointKw(period, soc0, pr);
  // demand control: discharge (or charge less) so that grid import stays at the target
  if (set.demandLimitKw > 0 && set.mode !== 'standby' && !forcedCharge && !forcedDischarge) {
    setpointKw = Math.max(setpointKw, loadKw - pvKw - set.demandLimitKw);
  }
  // anti-backflow: discharge at most what keeps the grid export below the export limit (a margin
  // of 2 % of the rating below it), decided on this step's load and PV
  const exportCapKw = Math.max(0, loadKw - pvKw + set.exportLimitKw - 0.02 * pr.ratedPowerKw);
  if (setpointKw > 0 && !forcedDischarge) setpointKw = Math.min(setpointKw, exportCapKw);
  const emergencyStop = faultActive('env.smoke') || faultActive('env.water');
  if (emergencyStop) setpointKw = 0;

  // ---- cells before the step; BMS current limits (A, pack = series current) ----
  const groupAh = pr.cellCapacityAh * pr.parallelCells * (params.sohPct / 100);
  const ratedA = pr.cellMaxCurrentA * pr.parallelCells;
  // SOC change (%) of a nominal cell at rated current over this step: the look-ahead of the taper
  const dSocRated = (ratedA * dtS * 100) / 3600 / groupAh;
  const imbalanced = faults.has('cell_imbalance') ? params.faultCell : -1;
  const driftCell = drift ? drift.cell : -1;
  // The fade grows only while the pack is low (a fade at rest when full would push the weak cell
  // past its limit, which a BMS's passive balancing prevents).
  const drift0 = driftFactor(drift, day, lt0.dayIndex === day.index ? lt0.minuteOfDay : 0);
  const drift1 = driftFactor(drift, day, lt.minuteOfDay);
  const driftNext =
    drift && soc0 < 60
      ? { ...drift, fadePct: Math.min(15, drift.fadePct + (drift.pctPerDay * dtS) / 21_600) }
      : drift;
  const cellR = new Float64Array(n);
  const cellSoc = new Float64Array(n);
  const cellK = new Float64Array(n); // SOC change (%) of the cell per ampere over the step
  let ocvSum = 0;
  let tMin = Number.POSITIVE_INFINITY;
  let tMax = Number.NEGATIVE_INFINITY;
  let chargeA = ratedA;
  let dischargeA = ratedA;
  let rMin = Number.POSITIVE_INFINITY;
  let rMax = 0;
  for (let i = 0; i < n; i++) {
    const capF = (1 + params.cellCapOffset[i]!) * (i === driftCell ? drift0 : 1);
    const soc = (soc0 + params.cellSocOffsetPct[i]!) / capF;
    const t = state.cellTempC[i]!;
    let r = (pr.cellResistanceOhm * params.cellResFactor[i]! * resistanceTempFactor(t)) / pr.parallelCells;
    if (i === imbalanced) r *= 15;
    cellR[i] = r;
    cellSoc[i] = soc;
    cellK[i] = dSocRated / ratedA / capF;
    if (r < rMin) rMin = r;
    if (r > rMax) rMax = r;
    ocvSum += lfpOcv(soc);
    if (t < tMin) tMin = t;
    if (t > tMax) tMax = t;
    const dSoc = dSocRated / capF;
    if (!forcedCharge) chargeA = Math.min(chargeA, (TAPER_CHARGE_V - lfpOcv(soc + dSoc)) / r);
    if (!forcedDischarge) dischargeA = Math.min(dischargeA, (lfpOcv(soc - dSoc) - TAPER_DISCHARGE_V) / r);
  }
  // The bounds above look ahead at rated current, which over a long step (a quarter hour of the
  // demo's history) stops well short of the limit: refine a binding bound to the largest current
  // that keeps every cell within it at the end of the step (bisection, 8 halvings).
  const fits = (amps: number, sign: 1 | -1) => {
    for (let i = 0; i < n; i++) {
      const v = lfpOcv(cellSoc[i]! + sign * amps * cellK[i]!) + sign * amps * cellR[i]!;
      if (sign > 0 ? v > TAPER_CHARGE_V : v < TAPER_DISCHARGE_V) return false;
    }
    return true;
  };
  const refine = (bound: number, sign: 1 | -1) => {
    let lo = Math.max(0, bound);
    let hi = ratedA;
    if (fits(hi, sign)) return hi;
    if (!fits(lo, sign)) return bound;
    for (let k = 0; k < 8; k++) {
      const mid = (lo + hi) / 2;
      if (fits(mid, sign)) lo = mid;
      else hi = mid;
    }
    return Math.max(bound, lo);
  };
  // (only where the EMS asks for more than the bound: the setpoint's DC current at the pack's voltage)
  const requestA =
    (Math.abs(setpointKw) * 1000 * (setpointKw < 0 ? pr.efficiency : 1 / pr.efficiency)) / ocvSum;
  if (!forcedCharge && setpointKw < 0 && chargeA < Math.min(ratedA, requestA)) chargeA = refine(chargeA, 1);
  if (!forcedDischarge && setpointKw > 0 && dischargeA < Math.min(ratedA, requestA))
    dischargeA = refine(dischargeA, -1);
  // derate so that resistance differences alone spread the cells by at most 250 mV
  const diffA = 0.25 / Math.max(1e-9, rMax - rMin);
  chargeA = Math.min(chargeA, diffA);
  dischargeA = Math.min(dischargeA, diffA);
  if (!forcedCharge) {
    if (soc0 >= pr.socCeilingPct) chargeA = 0;
    const cold = tMin < 0 ? 0 : tMin < 10 ? 0.3 : 1;
    chargeA *= cold * clamp((55 - tMax) / 10, 0, 1);
  }
  if (!forcedDischarge) {
    if (soc0 <= pr.socFloorPct) dischargeA = 0;
    dischargeA *= (tMin < -20 ? 0 : 1) * clamp((60 - tMax) / 10, 0, 1);
  }
  if (faultActive('bms.cell_overvoltage') || (faultActive('bms.soc_high') && !forcedCharge)) chargeA = 0;
  if (faultActive('bms.cell_undervoltage') || (faultActive('bms.soc_low') && !forcedDischarge))
    dischargeA = 0;
  if (faultActive('bms.cell_overtemperature') || faultActive('bms.cell_voltage_diff')) {
    chargeA = 0;
    dischargeA = 0;
  }
  // the BMS's configured current limits (empty: the rack's rating)
  if (set.chargeCurrentLimitA !== null && !forcedCharge) chargeA = Math.min(chargeA, set.chargeCurrentLimitA);
  if (set.dischargeCurrentLimitA !== null && !forcedDischarge)
    dischargeA = Math.min(dischargeA, set.dischargeCurrentLimitA);
  chargeA = Math.max(0, chargeA);
  dischargeA = Math.max(0, dischargeA);
  const chargeLimitKw = (chargeA * ocvSum) / 1000; // DC
  const dischargeLimitKw = (dischargeA * ocvSum) / 1000; // DC
  const eta = pr.efficiency;

  // ---- PCS (derated: healthy IGBTs settle at PCS_DERATE_C at most) ----
  const pcsTrip = emergencyStop || faultActive('pcs.over_temperature') || faultActive('pcs.grid_overvoltage');
  const pcsMaxKw = Math.min(
    pr.maxPowerKw,
    set.pcsLimitKw ?? Number.POSITIVE_INFINITY,
    pr.ratedPowerKw * Math.sqrt(Math.max(0, PCS_DERATE_C - ambientC - IGBT_OVER_AIR_K) / pr.igbtRiseAtRatedK),
  );
  let pKw = pcsTrip
    ? 0
    : clamp(setpointKw, -Math.min(pcsMaxKw, chargeLimitKw / eta), Math.min(pcsMaxKw, dischargeLimitKw * eta));
  // the PCS's ramp rate (a trip stops it at once); the export limit still holds within the step
  if (!pcsTrip && set.rampKwPerS !== null) {
    const ramp = set.rampKwPerS * dtS;
    pKw = clamp(pKw, state.pKw - ramp, state.pKw + ramp);
    if (pKw > 0 && !forcedDischarge) pKw = Math.min(pKw, exportCapKw);
  }
  const cap = params.capacityKwh;
  if (!forcedCharge && pKw < 0) {
    const roomKwh = Math.max(0, (cap * ceilingPct) / 100 - state.energyKwh);
    pKw = Math.max(pKw, -(roomKwh * 3600) / (eta * dtS));
  }
  if (!forcedDischarge && pKw > 0) {
    const availKwh = Math.max(0, state.energyKwh - (cap * floorPct) / 100);
    pKw = Math.min(pKw, (availKwh * eta * 3600) / dtS);
  }
  if (Math.abs(pKw) < 1e-6 * pr.ratedPowerKw) pKw = 0;
  const dcKw = pKw < 0 ? pKw * eta : pKw / eta;
  const energyKwh = state.energyKwh - (dcKw * dtS) / 3600;
  const soc1 = (100 * energyKwh) / cap;

  // ---- cells after the step ----
  const ocv = new Float64Array(n);
  let ocvSum1 = 0;
  let rSum = 0;
  for (let i = 0; i < n; i++) {
    const capF = (1 + params.cellCapOffset[i]!) * (i === driftCell ? drift1 : 1);
    ocv[i] = lfpOcv((soc1 + params.cellSocOffsetPct[i]!) / capF);
    ocvSum1 += ocv[i]!;
    rSum += cellR[i]!;
  }
  // P = I·U = I·(ΣOCV − I·ΣR) → I = (ΣOCV − √(ΣOCV² − 4·ΣR·P)) / (2·ΣR), + discharging
  const pW = dcKw * 1000;
  const disc = ocvSum1 * ocvSum1 - 4 * rSum * pW;
  const packA = Math.abs(pW) < 1e-9 ? 0 : (ocvSum1 - Math.sqrt(Math.max(0, disc))) / (2 * rSum);

  // ---- cell voltages and temperatures (first-order, integrated exactly) ----
  const cellV = new Float64Array(n);
  const cellTempC = new Float64Array(n);
  const cellT = new Float64Array(n); // as the sensors read them
  const cellC = pr.cellHeatCapacityJPerK * pr.parallelCells;
  const gCell = pr.cellConductanceWPerK * pr.parallelCells;
  const hotCell = faults.has('cell_overtemperature') ? params.faultCell : -1;
  const decay = cellDecay(params, dtS, gCell, cellC);
  let packV = 0;
  let gSum = 0;
  let gtSum = 0;
  let vMaxI = 0;
  let vMinI = 0;
  let tMaxI = 0;
  let tMinI = 0;
  for (let i = 0; i < n; i++) {
    const v = ocv[i]! - packA * cellR[i]!;
    cellV[i] = v;
    packV += v;
    const g = gCell * params.cellCondFactor[i]!;
    let q = packA * packA * cellR[i]!;
    if (i === hotCell) q += 40 * g;
    const eq = state.cabinetC + q / g;
    const t = eq + (state.cellTempC[i]! - eq) * decay[i]!;
    cellTempC[i] = t;
    gSum += g;
    gtSum += g * t;
    const ts = t + params.cellSensorOffsetK[i]!;
    cellT[i] = ts;
    if (v > cellV[vMaxI]!) vMaxI = i;
    if (v < cellV[vMinI]!) vMinI = i;
    if (ts > cellT[tMaxI]!) tMaxI = i;
    if (ts < cellT[tMinI]!) tMinI = i;
  }
  const gTotal = gSum + pr.enclosureUaWPerK;
  const cabEq = (gtSum + pr.enclosureUaWPerK * ambientC + pr.enclosureBaseHeatW + acHeatW) / gTotal;
  const cabinetC =
    cabEq + (state.cabinetC - cabEq) * Math.exp((-dtS * gTotal) / pr.enclosureHeatCapacityJPerK);
  const fanFailed = faults.has('pcs_over_temperature');
  const load2 = (pKw / pr.ratedPowerKw) ** 2;
  const igbtEq =
    ambientC + IGBT_OVER_AIR_K + (fanFailed ? 40 : 0) + pr.igbtRiseAtRatedK * load2 * (fanFailed ? 3 : 1);
  const igbtC = igbtEq + (state.igbtC - igbtEq) * Math.exp(-dtS / 300);

  // ---- grid and PCS AC values ----
  noise.freq = ouStep(rng, noise.freq, dtS, 60, 0.02);
  noise.volt = ouStep(rng, noise.volt, dtS, 1800, 0.012);
  noise.q = ouStep(rng, noise.q, dtS, 600, 0.01);
  noise.ins = ouStep(rng, noise.ins, dtS, 3 * 3600, 0.03);
  const freqHz = 50 + noise.freq + 0.002 * rng.normal();
  const ovf = faults.has('grid_overvoltage') ? 1.16 : 1;
  const phaseV = params.phaseUnbalance.map(
    (u) => pr.acPhaseV * (1 + noise.volt + u + 0.0008 * rng.normal()) * ovf,
  ) as [number, number, number];
  // reactive power: the PCS's setpoint (power factor or kvar), plus a little noise proportional to P
  const rx = set.reactive;
  const qSetKvar = pcsTrip
    ? 0
    : rx.mode === 'q'
      ? rx.kvar
      : rx.pf < 1
        ? (rx.inject ? 1 : -1) * Math.abs(pKw) * Math.tan(Math.acos(rx.pf))
        : 0;
  const qKvar = qSetKvar + 2 * noise.q * Math.abs(pKw);
  const sKva = Math.hypot(pKw, qKvar);
  const pf = sKva > 1e-9 ? Math.abs(pKw) / sKva : 1;
  const phaseI = (s: number, u: number) => (pr.acPhases === 3 ? (s * 1000) / (3 * u) : (s * 1000) / u);

  // ---- grid meter ----
  const gridKw = loadKw - pvKw - pKw;
  const gridQ = loadKw * 0.29 - qKvar; // site load at PF ≈ 0.96
  const gridS = Math.hypot(gridKw, gridQ);
  const gridPf = gridS > 1e-9 ? Math.abs(gridKw) / gridS : 1;

  // ---- registers ----
  const h = dtS / 3600;
  const reg = state.registers;
  const registers: Registers = {
    pcsChargeKwh: reg.pcsChargeKwh + (pKw < 0 ? -pKw * h : 0),
    pcsDischargeKwh: reg.pcsDischargeKwh + (pKw > 0 ? pKw * h : 0),
    importKwh: reg.importKwh + (gridKw > 0 ? gridKw * h : 0),
    exportKwh: reg.exportKwh + (gridKw < 0 ? -gridKw * h : 0),
    pvKwh: reg.pvKwh + pvKw * h,
    importTierKwh: [...reg.importTierKwh],
    exportTierKwh: [...reg.exportTierKwh],
  };
  // The tier in force by the site's tariff (whatever the EMS's mode), flat without one.
  const tariffPeriod = periodInForce(
    state.touPlan,
    builtIn?.[lt0.month - 1] ?? EMPTY_PLAN,
    startMs,
    lt0.minuteOfDay,
  );
  const tierIndex = Math.max(0, TOU_TIERS.indexOf(tariffPeriod?.tier ?? 'shoulder'));
  if (gridKw > 0) registers.importTierKwh[tierIndex] = registers.importTierKwh[tierIndex]! + gridKw * h;
  if (gridKw < 0) registers.exportTierKwh[tierIndex] = registers.exportTierKwh[tierIndex]! - gridKw * h;

  // ---- environment ----
  const door =
    faults.has('door_open') || (lt.minuteOfDay >= day.doorFromMin && lt.minuteOfDay < day.doorToMin) ? 1 : 0;
  const smoke = faults.has('smoke') ? 1 : 0;
  const water = faults.has('water') ? 1 : 0;
  // a cooling air conditioner condenses moisture out of the cabinet air
  const rhIn = indoorRhPct(rhOut, cabinetC - ambientC) * (acState === 1 ? 0.75 : 1);

  // ---- alarms ----
  const inputs: AlarmInputs = {
    cellMaxV: cellV[vMaxI]!,
    cellMaxNo: vMaxI + 1,
    cellMinV: cellV[vMinI]!,
    cellMinNo: vMinI + 1,
    cellMaxT: cellT[tMaxI]!,
    cellMaxTNo: tMaxI + 1,
    cellDiffMv: (cellV[vMaxI]! - cellV[vMinI]!) * 1000,
    socPct: soc1,
    igbtC,
    gridVMax: Math.max(...(pr.acPhases === 3 ? phaseV : [phaseV[0]])),
    smoke,
    water,
    door,
    acFault: acFault ? 1 : 0,
  };
  const evaluated = evaluateAlarms(rulesOf(params, set), state.alarms, inputs);
  const pcsFaultNow = evaluated.active.some((k) => k.startsWith('pcs.') && k.endsWith('/fault'));

  // ---- readings ----
  const socOut = round(soc1, 2);
  const three = pr.acPhases === 3;
  const uPoints = (): PointValues =>
    three
      ? { u_a_v: round(phaseV[0], 1), u_b_v: round(phaseV[1], 1), u_c_v: round(phaseV[2], 1) }
      : { u_a_v: round(phaseV[0], 1) };
  const iPoints = (s: number): PointValues =>
    three
      ? {
          i_a_a: round(phaseI(s, phaseV[0]), 1),
          i_b_a: round(phaseI(s, phaseV[1]), 1),
          i_c_a: round(phaseI(s, phaseV[2]), 1),
        }
      : { i_a_a: round(phaseI(s, phaseV[0]), 1) };
  const pcsState =
    pcsTrip || pcsFaultNow ? 3 : pKw < -0.001 * pr.ratedPowerKw ? 1 : pKw > 0.001 * pr.ratedPowerKw ? 2 : 0;
  const readings: SiteReadings = {
    ems: {
      run_mode: set.mode === 'manual' ? 1 : 0,
      p_setpoint_kw: round(setpointKw, 2),
      soc_pct: socOut,
      load_kw: round(loadKw, 2),
      pv_kw: round(pvKw, 2),
    },
    pcs: {
      p_kw: round(pKw, 2),
      q_kvar: round(qKvar, 2),
      pf: round(pf, 3),
      freq_hz: round(freqHz, 3),
      ...uPoints(),
      ...iPoints(sKva),
      dc_u_v: round(packV, 1),
      dc_i_a: round(packA, 1),
      t_igbt_c: round(igbtC, 1),
      state: pcsState,
      e_charge_total_kwh: round(registers.pcsChargeKwh, 3),
      e_discharge_total_kwh: round(registers.pcsDischargeKwh, 3),
    },
    bms: {
      soc_pct: socOut,
      soh_pct: params.sohPct,
      u_pack_v: round(packV, 1),
      i_pack_a: round(packA, 1),
      u_cell_max_v: round(cellV[vMaxI]!, 3),
      u_cell_min_v: round(cellV[vMinI]!, 3),
      u_cell_max_no: vMaxI + 1,
      u_cell_min_no: vMinI + 1,
      u_cell_diff_mv: round(inputs.cellDiffMv, 0),
      t_cell_max_c: round(cellT[tMaxI]!, 1),
      t_cell_min_c: round(cellT[tMinI]!, 1),
      t_cell_max_no: tMaxI + 1,
      t_cell_min_no: tMinI + 1,
      charge_limit_kw: round(chargeLimitKw, 1),
      discharge_limit_kw: round(dischargeLimitKw, 1),
      insulation_kohm: round(pr.insulationKohm * (1 - 0.004 * (rhIn - 50)) * (1 + noise.ins), 0),
    },
    meter: {
      p_kw: round(gridKw, 2),
      pf: round(gridPf, 3),
      freq_hz: round(freqHz, 3),
      ...uPoints(),
      ...iPoints(gridS),
      e_import_total_kwh: round(registers.importKwh, 3),
      e_export_total_kwh: round(registers.exportKwh, 3),
      ...Object.fromEntries(
        TOU_TIERS.flatMap((tier, i) => [
          [`e_import_${tier}_kwh`, round(registers.importTierKwh[i]!, 3)],
          [`e_export_${tier}_kwh`, round(registers.exportTierKwh[i]!, 3)],
        ]),
      ),
    },
    ...(spec.pvKwp > 0 ? { pv: { p_kw: round(pvKw, 2), e_total_kwh: round(registers.pvKwh, 3) } } : {}),
    air_conditioner: {
      state: acState,
      t_supply_c: round(acState === 1 ? cabinetC - 9 : acState === 2 ? cabinetC + 12 : cabinetC + 0.3, 1),
      t_return_c: round(cabinetC, 1),
      cooling_start_c: set.coolingStartC,
      heating_start_c: set.heatingStartC,
      fault: acFault ? 1 : 0,
    },
    env_sensor: { t_c: round(cabinetC, 1), rh_pct: round(rhIn, 1), smoke, water, door },
    cells: { u_v: roundAll(cellV, 3), t_c: roundAll(cellT, 1) },
  };

  const next: SiteState = {
    ...state,
    timeMs: simTimeMs,
    rng: rng.state(),
    energyKwh,
    cellTempC,
    cabinetC,
    igbtC,
    acState,
    alarms: evaluated.active,
    registers,
    noise,
    day,
    drift: driftNext,
    pKw,
  };
  return {
    state: next,
    readings,
    events: evaluated.events,
    flows: {
      loadKw,
      pvKw,
      pcsKw: pKw,
      dcKw,
      gridKw,
      setpointKw,
      chargeLimitKw,
      dischargeLimitKw,
      ambientC,
    },
  };
}
