/**
 * The configurable parameters of a simulated site's devices (the contract's params/schema.ts)
 * and what the physics model makes of them.
 *
 * - {@link initialParams}: what a device runs before anyone configured it — the contract's
 *   `defaultParams(type)` completed with the device's own values: the site's time zone and the
 *   broker it connects to (EMS), the export limit of its kind of site (0 kW for C&I and
 *   household systems: anti-backflow; the schema's 10 MW bound for a grid-side storage station,
 *   whose job is to export), the demand-control target of a site billed on its maximum demand
 *   (the fleet's `demandLimitKw`; off elsewhere), the profile's SOC window (5–100 %) and a
 *   backup reserve at its floor (no reserve until one is configured), the air conditioner's type
 *   and the meter's role (the grid connection point). Limits whose default is "empty: the
 *   rating" (PCS active power limit and ramp rate, BMS current limits) stay empty: the device
 *   runs at its ratings. So a site nobody configured runs exactly as before parameters existed,
 *   but for the demand-controlled one.
 * - {@link settingsFromParams}: the values the model reads each step ({@link SiteSettings}),
 *   from the parameter values of each device type (a missing or wrongly typed value reads as
 *   the default: the contract's validator keeps them right, this only keeps the model total).
 *
 * Obeyed by site.ts `step`: EMS operating mode (ToU / manual setpoint / backup holding the
 * reserve / standby), export limit (caps discharge so that grid export stays below it in the
 * same step), demand-control target, SOC floor/ceiling and backup reserve, PCS active power
 * limit, ramp rate and reactive power setpoint, BMS current limits and cell alarm thresholds
 * (alarms.ts), the grid over-voltage trip, and the air conditioner's four switching thresholds.
 * Stored but not modelled: grid frequency trips and the under-voltage trip (the simulated grid
 * never gets there), the on/off-grid mode, the EMS's time zone (ToU plans carry their own zone;
 * the weather and load follow the place), network and MQTT settings (the simulated gateway keeps
 * its connection), the air conditioner's alarm values and type, and the meter's serial settings,
 * CT/PT ratios and role (its Modbus address is obeyed by the register map, registers.ts).
 */
import { type DeviceType, defaultParams, PARAM_POWER_LIMIT_KW, type ParamValue } from '@ess/contract';
import type { EquipmentProfile } from './profiles';

/** Parameter values of one device: key → value (absent: empty). */
export type ParamValues = Record<string, ParamValue>;

/** The EMS operating modes (params/schema.ts `operating_mode`). */
export type OperatingMode = 'tou' | 'manual' | 'backup' | 'standby';

/** What the model reads of the parameters (units in the names; null: no limit of its own). */
export interface SiteSettings {
  mode: OperatingMode;
  /** + discharging. */
  manualPowerKw: number;
  exportLimitKw: number;
  /** 0: demand control off. */
  demandLimitKw: number;
  socMinPct: number;
  socMaxPct: number;
  backupReservePct: number;
  pcsLimitKw: number | null;
  rampKwPerS: number | null;
  reactive: { mode: 'pf'; pf: number; inject: boolean } | { mode: 'q'; kvar: number };
  /** Grid over-voltage trip, % of the nominal voltage. */
  gridVoltageHighPct: number;
  chargeCurrentLimitA: number | null;
  dischargeCurrentLimitA: number | null;
  cellOvWarningV: number;
  cellOvFaultV: number;
  cellUvWarningV: number;
  cellUvFaultV: number;
  cellOtWarningC: number;
  cellOtFaultC: number;
  coolingStartC: number;
  coolingStopC: number;
  heatingStartC: number;
  heatingStopC: number;
}

/** What a device knows of its place that no default can give. */
export interface InitialParamsOptions {
  /** IANA zone of the site. */
  timezone: string;
  /** Whether the EMS may export (a grid-side station) or not (anti-backflow). */
  antiBackflow: boolean;
  /** The EMS's demand-control target, kW (absent or 0: demand control off, the contract's default). */
  demandLimitKw?: number;
  /** The broker the gateway connects to (default 127.0.0.1:1883). */
  mqttHost?: string;
  mqttPort?: number;
}

/** Whether a site's EMS keeps export at 0 by default: all but the grid-side storage station. */
export function antiBackflowOf(spec: { antiBackflow?: boolean | undefined; profile: string }): boolean {
  return spec.antiBackflow ?? spec.profile !== 'container_5mwh';
}

/**
 * What a site's devices know of their place (site.ts `SiteSpec`): its zone, anti-backflow
 * ({@link antiBackflowOf}) and the demand-control target its spec carries (fleet.ts). The one
 * source of both the model's initial settings and the simulated gateway's initial parameters
 * (params.ts), so the demo's written past and its live run start configured alike.
 */
export function initialParamsOptionsOf(spec: {
  timezone: string;
  antiBackflow?: boolean | undefined;
  demandLimitKw?: number | undefined;
  profile: string;
}): InitialParamsOptions {
  return {
    timezone: spec.timezone,
    antiBackflow: antiBackflowOf(spec),
    ...(spec.demandLimitKw ? { demandLimitKw: spec.demandLimitKw } : {}),
  };
}

const AC_TYPE_OF_PROFILE: Record<EquipmentProfile['id'], string> = {
  ci_cabinet_215kwh: 'cabinet',
  household_10kwh: 'cabinet',
  container_5mwh: 'liquid_cooling',
};

/** The values a device of `type` runs before it is configured (module comment). */
export function initialParams(
  type: DeviceType,
  profile: EquipmentProfile,
  opts: InitialParamsOptions,
): ParamValues {
  const values = defaultParams(type);
  switch (type) {
    case 'ems':
      return {
        ...values,
        export_limit_kw: opts.antiBackflow ? 0 : PARAM_POWER_LIMIT_KW,
        ...(opts.demandLimitKw ? { demand_limit_kw: opts.demandLimitKw } : {}),
        soc_min_pct: profile.socFloorPct,
        soc_max_pct: profile.socCeilingPct,
        backup_reserve_pct: profile.socFloorPct,
        timezone: opts.timezone,
        mqtt_host: opts.mqttHost ?? '127.0.0.1',
        mqtt_port: opts.mqttPort ?? 1883,
      };
    case 'air_conditioner':
      return { ...values, ac_type: AC_TYPE_OF_PROFILE[profile.id] };
    case 'meter':
      return { ...values, meter_role: 'grid' };
    default:
      return values;
  }
}

/** Parameter values by device type (one device of each type per site). */
export type ParamsByType = Partial<Record<DeviceType, Readonly<ParamValues>>>;

/** The model's settings from the parameters of a site's devices (module comment). */
export function settingsFromParams(params: ParamsByType): SiteSettings {
  const read = (type: DeviceType) => {
    const own = params[type] ?? {};
    const dflt = defaultParams(type);
    return {
      num(key: string): number {
        const v = own[key];
        return typeof v === 'number' && Number.isFinite(v) ? v : (dflt[key] as number);
      },
      opt(key: string): number | null {
        const v = own[key];
        return typeof v === 'number' && Number.isFinite(v) ? v : null;
      },
      str(key: string): string {
        const v = own[key];
        return typeof v === 'string' ? v : (dflt[key] as string);
      },
    };
  };
  const ems = read('ems');
  const pcs = read('pcs');
  const bms = read('bms');
  const ac = read('air_conditioner');
  const mode = ems.str('operating_mode');
  return {
    mode: (['tou', 'manual', 'backup', 'standby'] as const).find((m) => m === mode) ?? 'tou',
    manualPowerKw: ems.num('manual_power_kw'),
    exportLimitKw: ems.num('export_limit_kw'),
    demandLimitKw: ems.num('demand_limit_kw'),
    socMinPct: ems.num('soc_min_pct'),
    socMaxPct: ems.num('soc_max_pct'),
    backupReservePct: ems.num('backup_reserve_pct'),
    pcsLimitKw: pcs.opt('active_power_limit_kw'),
    rampKwPerS: pcs.opt('ramp_rate_kw_s'),
    reactive:
      pcs.str('reactive_mode') === 'q'
        ? { mode: 'q', kvar: pcs.num('reactive_power_kvar') }
        : { mode: 'pf', pf: pcs.num('power_factor'), inject: pcs.str('pf_direction') !== 'absorb' },
    gridVoltageHighPct: ems.num('grid_voltage_high_pct'),
    chargeCurrentLimitA: bms.opt('charge_current_limit_a'),
    dischargeCurrentLimitA: bms.opt('discharge_current_limit_a'),
    cellOvWarningV: bms.num('cell_ov_warning_v'),
    cellOvFaultV: bms.num('cell_ov_fault_v'),
    cellUvWarningV: bms.num('cell_uv_warning_v'),
    cellUvFaultV: bms.num('cell_uv_fault_v'),
    cellOtWarningC: bms.num('cell_ot_warning_c'),
    cellOtFaultC: bms.num('cell_ot_fault_c'),
    coolingStartC: ac.num('cooling_start_c'),
    coolingStopC: ac.num('cooling_stop_c'),
    heatingStartC: ac.num('heating_start_c'),
    heatingStopC: ac.num('heating_stop_c'),
  };
}

/** The settings of a site nobody configured. */
export function initialSettings(profile: EquipmentProfile, opts: InitialParamsOptions): SiteSettings {
  const params: ParamsByType = {};
  for (const type of ['ems', 'pcs', 'bms', 'air_conditioner'] as const) {
    params[type] = initialParams(type, profile, opts);
  }
  return settingsFromParams(params);
}
