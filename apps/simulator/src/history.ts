/**
 * A site's past and a site's restart, for the server's demo fleet (apps/server/src/demo):
 *
 * - {@link historyStart}, {@link historyStep}, {@link historyAdvance}: what the site's gateway
 *   would have sent over the past, one reading every {@link HISTORY_STEP_S} (the same model as
 *   the live gateway, stepped a quarter hour at a time: the BMS taper solves for the end of each
 *   step, so a quarter-hour step charges and discharges like the live 10 s steps). Payloads are
 *   the live gateway's (payloads.ts), without the BMS cell arrays; message ids start with `h-`
 *   (telemetry) and `he-` (events) and name the reading's time, so the same past always has the
 *   same ids and a store that deduplicates by id takes it once.
 * - {@link resumeSite}: the model picking up where the server's stored values left it (energy
 *   registers, SOC, active alarms), so that a restart neither resets the registers nor leaves an
 *   alarm raised for ever.
 *
 * Pure and deterministic: the same site, seed, start and scheme give the same readings.
 */
import {
  type AlarmLevel,
  type DeviceType,
  type EventPayload,
  type SetTouPlanParams,
  type TelemetryPayload,
  TOU_TIERS,
} from '@ess/contract';
import type { FleetSite } from './fleet';
import { alarmKey } from './model/alarms';
import { type Registers, type SiteState, setTouPlan, step } from './model/site';
import { buildEvents, buildTelemetry, schemeRefusal } from './payloads';
import { createSimSite } from './sim-site';

/** Seconds between two readings of a site's past (15 min: one reading per 15-minute rollup bucket). */
export const HISTORY_STEP_S = 900;

/** What a site's gateway sent at one instant of its past. */
export interface HistoryReading {
  /** Device time of the reading, UTC ms. */
  ts: number;
  telemetry: TelemetryPayload;
  /** Alarm events raised or cleared at `ts` (usually none). */
  events: EventPayload[];
}

/**
 * The site at `fromMs`, fresh from the seed, running `touPlan` (the ToU scheme the server has it
 * run, as `set_tou_plan` would deliver it) when given and valid; its built-in strategy otherwise.
 */
export function historyStart(
  site: FleetSite,
  seed: number,
  fromMs: number,
  touPlan?: SetTouPlanParams | null,
): SiteState {
  const state = createSimSite(site, seed, fromMs);
  return touPlan && schemeRefusal(touPlan.scheme) === undefined ? setTouPlan(state, touPlan) : state;
}

/** One step of `stepS` seconds: the new state and the reading at its end. */
export function historyStep(
  site: FleetSite,
  state: SiteState,
  stepS = HISTORY_STEP_S,
): { state: SiteState; reading: HistoryReading } {
  const ts = state.timeMs + stepS * 1000;
  const r = step(state, stepS, ts);
  const id = ts.toString(36);
  const telemetry = buildTelemetry(site, r.readings, { id: `h-${id}`, ts, withCells: false });
  const events: EventPayload[] = [];
  for (let i = 0; i < r.events.length; i += 64) {
    events.push(buildEvents(site, r.events.slice(i, i + 64), { id: `he-${id}-${i / 64}`, ts }));
  }
  return { state: r.state, reading: { ts, telemetry, events } };
}

/** `count` steps of `stepS` seconds without building payloads (the state where a past ends). */
export function historyAdvance(state: SiteState, count: number, stepS = HISTORY_STEP_S): SiteState {
  let s = state;
  for (let k = 0; k < count; k++) s = step(s, stepS, s.timeMs + stepS * 1000).state;
  return s;
}

/** What the server last stored of a site, to resume its model from. */
export interface ResumeValues {
  /** Latest points per device type (the server's `device_latest`), e.g. `{ bms: { soc_pct: 57 } }`. */
  points: Partial<Record<DeviceType, Record<string, number>>>;
  /** Its alarms still active. */
  alarms: ReadonlyArray<{ code: string; level: AlarmLevel }>;
}

/**
 * The site at `nowMs`, fresh from the seed but for what `values` holds: its energy registers
 * (PCS charge/discharge, meter import/export, PV), its SOC, and its active alarms (each cleared,
 * with a `disappear` event, once its condition is gone).
 */
export function resumeSite(site: FleetSite, seed: number, nowMs: number, values: ResumeValues): SiteState {
  const p = values.points;
  const registers: Partial<Registers> = {};
  const take = (
    key: 'pcsChargeKwh' | 'pcsDischargeKwh' | 'importKwh' | 'exportKwh' | 'pvKwh',
    v: number | undefined,
  ) => {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) registers[key] = v;
  };
  take('pcsChargeKwh', p.pcs?.e_charge_total_kwh);
  take('pcsDischargeKwh', p.pcs?.e_discharge_total_kwh);
  take('importKwh', p.meter?.e_import_total_kwh);
  take('exportKwh', p.meter?.e_export_total_kwh);
  take('pvKwh', p.pv?.e_total_kwh);
  // The meter's per-tier registers (DL/T 645), when all four of a direction are stored.
  for (const [key, dir] of [
    ['importTierKwh', 'import'],
    ['exportTierKwh', 'export'],
  ] as const) {
    const tiers = TOU_TIERS.map((t) => p.meter?.[`e_${dir}_${t}_kwh`]);
    if (tiers.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      registers[key] = tiers as [number, number, number, number];
    }
  }
  const soc = p.bms?.soc_pct;
  return createSimSite(site, seed, nowMs, {
    ...(typeof soc === 'number' && Number.isFinite(soc)
      ? { initialSocPct: Math.min(100, Math.max(0, soc)) }
      : {}),
    registers,
    alarms: values.alarms.map((a) => alarmKey(a.code, a.level)),
  });
}
