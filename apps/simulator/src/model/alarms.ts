/**
 * Two-level BMS / PCS / environment alarms with hysteresis.
 *
 * Each rule watches one measured value. A `high` rule becomes active when the value reaches
 * `on` and clears only when it falls below `off` (`off < on`); a `low` rule mirrors that. The
 * warning and fault levels of one code are separate rules with their own thresholds, so an
 * overcharge reads: warning produced, fault produced, …, fault disappears, warning disappears
 * (event kinds `produce`/`disappear`, spec §3 and docs/device-protocol.md "event"). A warning
 * stays raised while the fault of its code is, so a fault never stands alone.
 *
 * Thresholds follow the cell datasheets and common BMS/PCS practice (shared/data/README.md: LFP
 * charge limit 3.65 V, cut-off 2.5 V; two alarm levels per quantity as in the OpenEMS Soltaro
 * BMS register map; PCS grid over-voltage and over-temperature as in Sungrow's fault list).
 * Grid over-voltage: warning at 1.10 Un, trip at 1.15 Un — typical inverter protection bands,
 * chosen here, not taken from a specific standard's table.
 */
import type { AlarmLevel, DeviceType } from '@ess/contract';
import type { EquipmentProfile } from './profiles';
import type { SiteSettings } from './settings';

/** Values the rules look at, computed by the site model after each step. */
export interface AlarmInputs {
  cellMaxV: number;
  /** 1-based cell positions for the messages. */
  cellMaxNo: number;
  cellMinV: number;
  cellMinNo: number;
  cellMaxT: number;
  cellMaxTNo: number;
  cellDiffMv: number;
  socPct: number;
  igbtC: number;
  /** Highest phase voltage, V. */
  gridVMax: number;
  smoke: number;
  water: number;
  door: number;
  acFault: number;
}

export interface AlarmRule {
  code: string;
  device: DeviceType;
  level: AlarmLevel;
  direction: 'high' | 'low';
  on: number;
  off: number;
  input: keyof AlarmInputs;
  unit: string;
  /** Human label (English; the console translates by code). */
  label: string;
  /** Position (e.g. cell number) named in the message. */
  where?: keyof AlarmInputs;
}

/** An alarm raised or cleared during a step. */
export interface AlarmEvent {
  device: DeviceType;
  kind: 'produce' | 'disappear';
  code: string;
  level: AlarmLevel;
  content: string;
  value: number;
}

/** Key of an active alarm in the site state. */
export const alarmKey = (code: string, level: AlarmLevel): string => `${code}/${level}`;

type RuleRow = [
  code: string,
  device: DeviceType,
  level: AlarmLevel,
  direction: 'high' | 'low',
  on: number,
  off: number,
  input: keyof AlarmInputs,
  unit: string,
  label: string,
  where?: keyof AlarmInputs,
];

/**
 * The thresholds that are device parameters (BMS cell warning/fault values, the grid
 * over-voltage trip in % of the nominal voltage; model/settings.ts). Defaults: the table of
 * docs/device-protocol.md "Alarm codes" (3.6/3.65 V, 2.8/2.5 V, 50/55 °C, 115 % Un).
 */
export type AlarmThresholds = Pick<
  SiteSettings,
  | 'cellOvWarningV'
  | 'cellOvFaultV'
  | 'cellUvWarningV'
  | 'cellUvFaultV'
  | 'cellOtWarningC'
  | 'cellOtFaultC'
  | 'gridVoltageHighPct'
>;

/** The thresholds of equipment `p` nobody configured (its datasheet limits for the faults). */
export function defaultThresholds(p: EquipmentProfile): AlarmThresholds {
  return {
    cellOvWarningV: 3.6,
    cellOvFaultV: p.cellMaxV,
    cellUvWarningV: 2.8,
    cellUvFaultV: p.cellMinV,
    cellOtWarningC: 50,
    cellOtFaultC: 55,
    gridVoltageHighPct: 115,
  };
}

/**
 * The alarm rules of a site with equipment `p` and thresholds `t` (the BMS's and EMS's
 * parameters). Each rule is raised at its threshold and released at a fixed distance from it
 * (the defaults' hysteresis: 50 mV / 200 mV over-voltage, 100 mV / 500 mV under-voltage,
 * 3 K / 5 K over-temperature, 2 % / 5 % Un grid over-voltage, whose warning lies 5 % Un below
 * the trip). Fault releases are far below the trip point where the condition persists at rest
 * (a tripped over-voltage cell must be discharged, an under-voltage cell charged, a tripped PCS
 * must cool to 60 °C) so that protection does not chatter.
 */
export function alarmRules(p: EquipmentProfile, t: AlarmThresholds = defaultThresholds(p)): AlarmRule[] {
  const un = p.acPhaseV;
  // (rounded: 3.6 − 0.05 is 3.5500000000000003 in binary, the defaults stay exact)
  const r = (x: number) => Math.round(x * 1e9) / 1e9;
  const gridFault = t.gridVoltageHighPct / 100;
  const gridWarning = r(gridFault - 0.05);
  // biome-ignore format: one rule per line reads as a table
  const rows: RuleRow[] = [
    ['bms.cell_overvoltage', 'bms', 'warning', 'high', t.cellOvWarningV, r(t.cellOvWarningV - 0.05), 'cellMaxV', 'V', 'Cell overvoltage', 'cellMaxNo'],
    ['bms.cell_overvoltage', 'bms', 'fault', 'high', t.cellOvFaultV, r(t.cellOvFaultV - 0.2), 'cellMaxV', 'V', 'Cell overvoltage', 'cellMaxNo'],
    ['bms.cell_undervoltage', 'bms', 'warning', 'low', t.cellUvWarningV, r(t.cellUvWarningV + 0.1), 'cellMinV', 'V', 'Cell undervoltage', 'cellMinNo'],
    ['bms.cell_undervoltage', 'bms', 'fault', 'low', t.cellUvFaultV, r(t.cellUvFaultV + 0.5), 'cellMinV', 'V', 'Cell undervoltage', 'cellMinNo'],
    ['bms.cell_overtemperature', 'bms', 'warning', 'high', t.cellOtWarningC, r(t.cellOtWarningC - 3), 'cellMaxT', '°C', 'Cell overtemperature', 'cellMaxTNo'],
    ['bms.cell_overtemperature', 'bms', 'fault', 'high', t.cellOtFaultC, r(t.cellOtFaultC - 5), 'cellMaxT', '°C', 'Cell overtemperature', 'cellMaxTNo'],
    ['bms.cell_voltage_diff', 'bms', 'warning', 'high', 200, 150, 'cellDiffMv', 'mV', 'Cell voltage difference'],
    ['bms.cell_voltage_diff', 'bms', 'fault', 'high', 400, 300, 'cellDiffMv', 'mV', 'Cell voltage difference'],
    ['bms.soc_high', 'bms', 'warning', 'high', p.socCeilingPct + 0.5, p.socCeilingPct, 'socPct', '%', 'SOC high'],
    ['bms.soc_high', 'bms', 'fault', 'high', p.socCeilingPct + 2, p.socCeilingPct + 0.5, 'socPct', '%', 'SOC high'],
    ['bms.soc_low', 'bms', 'warning', 'low', p.socFloorPct - 1, p.socFloorPct, 'socPct', '%', 'SOC low'],
    ['bms.soc_low', 'bms', 'fault', 'low', 1, 3, 'socPct', '%', 'SOC low'],
    ['pcs.over_temperature', 'pcs', 'warning', 'high', 85, 80, 'igbtC', '°C', 'PCS IGBT over-temperature'],
    ['pcs.over_temperature', 'pcs', 'fault', 'high', 95, 60, 'igbtC', '°C', 'PCS IGBT over-temperature'],
    ['pcs.grid_overvoltage', 'pcs', 'warning', 'high', gridWarning * un, r(gridWarning - 0.02) * un, 'gridVMax', 'V', 'Grid overvoltage'],
    ['pcs.grid_overvoltage', 'pcs', 'fault', 'high', gridFault * un, r(gridFault - 0.05) * un, 'gridVMax', 'V', 'Grid overvoltage'],
    ['env.smoke', 'env_sensor', 'fault', 'high', 1, 0.5, 'smoke', '', 'Smoke detected'],
    ['env.water', 'env_sensor', 'fault', 'high', 1, 0.5, 'water', '', 'Water detected'],
    ['env.door_open', 'env_sensor', 'warning', 'high', 1, 0.5, 'door', '', 'Cabinet door open'],
    ['ac.fault', 'air_conditioner', 'warning', 'high', 1, 0.5, 'acFault', '', 'Air conditioner fault'],
  ];
  return rows.map(([code, device, level, direction, on, off, input, unit, label, where]) => ({
    code,
    device,
    level,
    direction,
    on,
    off,
    input,
    unit,
    label,
    ...(where ? { where } : {}),
  }));
}

function fmt(value: number, unit: string): string {
  if (unit === '') return '';
  const digits = unit === 'V' && Math.abs(value) < 10 ? 3 : unit === 'mV' ? 0 : 1;
  return ` ${value.toFixed(digits)} ${unit}`;
}

function message(rule: AlarmRule, inputs: AlarmInputs, kind: 'produce' | 'disappear'): string {
  const value = inputs[rule.input];
  const where = rule.where ? ` (cell ${inputs[rule.where]})` : '';
  if (kind === 'produce') {
    const cmp = rule.direction === 'high' ? '≥' : '≤';
    const limit = rule.unit === '' ? '' : `, limit ${cmp}${fmt(rule.on, rule.unit)}`;
    return `${rule.label}${where}:${fmt(value, rule.unit) || ' active'}${limit}`;
  }
  return `${rule.label} cleared:${fmt(value, rule.unit) || ' normal'}`;
}

/**
 * Evaluates `rules` against `inputs`, given the keys of the alarms active before. Returns the
 * new active keys (sorted) and the produce/disappear events, faults after warnings when both
 * are raised in one step and in the reverse order when cleared.
 */
export function evaluateAlarms(
  rules: readonly AlarmRule[],
  activeBefore: readonly string[],
  inputs: AlarmInputs,
): { active: string[]; events: AlarmEvent[] } {
  const before = new Set(activeBefore);
  const now = rules.map((rule) => {
    const v = inputs[rule.input];
    const high = rule.direction === 'high';
    return before.has(alarmKey(rule.code, rule.level))
      ? high
        ? v >= rule.off
        : v <= rule.off
      : high
        ? v >= rule.on
        : v <= rule.on;
  });
  // a warning stays raised while the fault of the same code is
  const faultOn = new Set(rules.filter((r, i) => r.level === 'fault' && now[i]).map((r) => r.code));
  const active: string[] = [];
  const produced: AlarmEvent[] = [];
  const cleared: AlarmEvent[] = [];
  rules.forEach((rule, i) => {
    const key = alarmKey(rule.code, rule.level);
    const was = before.has(key);
    const is = now[i]! || (rule.level === 'warning' && faultOn.has(rule.code));
    if (is) active.push(key);
    if (is !== was) {
      const kind = is ? 'produce' : 'disappear';
      (is ? produced : cleared).push({
        device: rule.device,
        kind,
        code: rule.code,
        level: rule.level,
        content: message(rule, inputs, kind),
        value: Math.round(inputs[rule.input] * 1000) / 1000,
      });
    }
  });
  active.sort();
  return { active, events: [...produced, ...cleared.reverse()] };
}
