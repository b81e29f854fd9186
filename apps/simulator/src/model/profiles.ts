/**
 * Equipment profiles: the physical and electrical parameters of the three kinds of simulated
 * system. Figures come from the vendor data collected in shared/data/README.md:
 *
 * - `ci_cabinet_215kwh`: C&I outdoor cabinet, 215 kWh LFP, cells 3.2 V / 280 Ah in 1P240S
 *   (768 V rated, 672–876 V range), PCS 100 kW rated / 110 kW max, 400 V AC three-phase, system
 *   efficiency ≥ 90 %, depth of discharge 95 % (vendor specification sheets of 215 kWh / 100 kW
 *   cabinets).
 * - `household_10kwh`: 10 kWh usable, 5 kW, single phase 230 V, 350–560 V battery (Huawei
 *   LUNA2000-10-S0 datasheet). The datasheet gives no cell layout; we use 144 LFP cells of
 *   23 Ah in series (460.8 V nominal, 360–526 V between 2.5 and 3.65 V), 10.6 kWh nominal.
 * - `container_5mwh`: 5015 kWh container, LFP 3.2 V / 314 Ah cells in 416S12P, 1123–1498 V DC,
 *   2.5 MW (2 h), 690 V AC (Sungrow ST5015 brochure). Each of the 416 series positions is a
 *   parallel group of 12 cells and is reported as one "cell" (BMS cell arrays are capped at 2048
 *   entries by the protocol and a real BMS also measures per series position).
 *
 * Cell limits: charge to 3.65 V, discharge cut-off 2.5 V (EVE 304 Ah / Lishen 202 Ah LFP
 * datasheets). Cell internal resistance, thermal mass and cooling are engineering estimates
 * scaled with cell capacity (marked "estimate" below); they are chosen so that a 0.5 C
 * charge raises the cell voltage by ~80 mV over open circuit and the cells by ~5 K over the
 * cabinet air, which is what such systems show.
 */

export type ProfileId = 'ci_cabinet_215kwh' | 'household_10kwh' | 'container_5mwh';

export const PROFILE_IDS: readonly ProfileId[] = ['ci_cabinet_215kwh', 'household_10kwh', 'container_5mwh'];

export interface EquipmentProfile {
  id: ProfileId;
  /** Short product names of the devices of such a site (birth message, device registry). */
  models: {
    ems: string;
    pcs: string;
    bms: string;
    meter: string;
    pv: string;
    air_conditioner: string;
    env_sensor: string;
  };
  firmware: string;

  // ---- battery ----
  /** Cell nominal voltage, V. */
  cellNominalV: number;
  /** Capacity of one cell, Ah. */
  cellCapacityAh: number;
  /** Cells (or parallel groups) in series. */
  seriesCells: number;
  /** Cells in parallel per series position. */
  parallelCells: number;
  /** Hard cell voltage limits, V (datasheet). */
  cellMaxV: number;
  cellMinV: number;
  /** Internal DC resistance of one cell at 25 °C, Ω (estimate: 0.168 Ω·Ah / Ah). */
  cellResistanceOhm: number;
  /** Heat capacity of one cell, J/K (estimate: ~21 J/(K·Ah), LFP prismatic cells ~1.1 kJ/(kg·K)). */
  cellHeatCapacityJPerK: number;
  /** Thermal conductance cell ↔ cabinet air, W/K (estimate: τ ≈ 40 min). */
  cellConductanceWPerK: number;
  /** Largest continuous cell current, A per cell (0.6 C). */
  cellMaxCurrentA: number;
  /** SOC window of normal operation, % (DoD 95 % → 5–100 %). */
  socFloorPct: number;
  socCeilingPct: number;
  /** Insulation resistance of a healthy system, kΩ. */
  insulationKohm: number;

  // ---- PCS ----
  ratedPowerKw: number;
  maxPowerKw: number;
  /** One-way efficiency AC ↔ stored energy (PCS and battery), 0–1; round trip = η². */
  efficiency: number;
  /** 3 = three-phase (u_a/u_b/u_c), 1 = single phase (phase A only). */
  acPhases: 1 | 3;
  /** Nominal phase (line-to-neutral) voltage, V. */
  acPhaseV: number;
  /** IGBT temperature rise over cabinet air at rated power, K (estimate). */
  igbtRiseAtRatedK: number;

  // ---- enclosure and air conditioner ----
  /** Heat capacity of the cabinet air and structure, J/K (estimate). */
  enclosureHeatCapacityJPerK: number;
  /** Heat transfer cabinet ↔ outside air, W/K (estimate). */
  enclosureUaWPerK: number;
  /** Constant heat of electronics (BMS, EMS, fans) inside the enclosure, W. */
  enclosureBaseHeatW: number;
  /** Air conditioner (or chiller) thermal power, kW, and its coefficient of performance. */
  acCoolingKw: number;
  acHeatingKw: number;
  acCop: number;
}

/** Cell parameters scaled from cell capacity (see module comment). */
function cellParams(ah: number, parallel: number) {
  return {
    cellResistanceOhm: 0.168 / ah,
    cellHeatCapacityJPerK: 21.4 * ah,
    cellConductanceWPerK: 0.0089 * ah,
    cellMaxCurrentA: 0.6 * ah,
    parallelCells: parallel,
  };
}

export const PROFILES: Record<ProfileId, EquipmentProfile> = {
  ci_cabinet_215kwh: {
    id: 'ci_cabinet_215kwh',
    models: {
      ems: 'ESS-215-EMS',
      pcs: 'PCS-100K-3P',
      bms: 'BMS-1P240S',
      meter: 'MTR-3P4W-400',
      pv: 'PV-INV-3P',
      air_conditioner: 'AC-3KW',
      env_sensor: 'ENV-THSWD',
    },
    firmware: 'EMS-2.4.1',
    cellNominalV: 3.2,
    cellCapacityAh: 280,
    seriesCells: 240,
    ...cellParams(280, 1),
    cellMaxV: 3.65,
    cellMinV: 2.5,
    socFloorPct: 5,
    socCeilingPct: 100,
    insulationKohm: 3000,
    ratedPowerKw: 100,
    maxPowerKw: 110,
    efficiency: 0.95,
    acPhases: 3,
    acPhaseV: 230,
    igbtRiseAtRatedK: 35,
    enclosureHeatCapacityJPerK: 150_000,
    enclosureUaWPerK: 25,
    enclosureBaseHeatW: 150,
    acCoolingKw: 3,
    acHeatingKw: 2,
    acCop: 3,
  },
  household_10kwh: {
    id: 'household_10kwh',
    models: {
      ems: 'HESS-10-EMS',
      pcs: 'HINV-5K-1P',
      bms: 'BMS-1P144S',
      meter: 'MTR-1P-230',
      pv: 'PV-STRING-1P',
      air_conditioner: 'FAN-HEAT-0.5',
      env_sensor: 'ENV-THSWD',
    },
    firmware: 'HEMS-1.8.3',
    cellNominalV: 3.2,
    cellCapacityAh: 23,
    seriesCells: 144,
    ...cellParams(23, 1),
    cellMaxV: 3.65,
    cellMinV: 2.5,
    socFloorPct: 5,
    socCeilingPct: 100,
    insulationKohm: 5000,
    ratedPowerKw: 5,
    maxPowerKw: 5,
    efficiency: 0.95,
    acPhases: 1,
    acPhaseV: 230,
    igbtRiseAtRatedK: 30,
    enclosureHeatCapacityJPerK: 30_000,
    enclosureUaWPerK: 4,
    enclosureBaseHeatW: 15,
    acCoolingKw: 0.5,
    acHeatingKw: 0.3,
    acCop: 2.5,
  },
  container_5mwh: {
    id: 'container_5mwh',
    models: {
      ems: 'ESS-5015-EMS',
      pcs: 'PCS-2500K-690',
      bms: 'BMS-12P416S',
      meter: 'MTR-3P4W-690',
      pv: 'PV-INV-3P',
      air_conditioner: 'CHILLER-80KW',
      env_sensor: 'ENV-THSWD',
    },
    firmware: 'EMS-3.1.0',
    cellNominalV: 3.2,
    cellCapacityAh: 314,
    seriesCells: 416,
    ...cellParams(314, 12),
    cellMaxV: 3.65,
    cellMinV: 2.5,
    socFloorPct: 5,
    socCeilingPct: 100,
    insulationKohm: 1500,
    ratedPowerKw: 2500,
    maxPowerKw: 2750,
    efficiency: 0.95,
    acPhases: 3,
    acPhaseV: 690 / Math.sqrt(3),
    igbtRiseAtRatedK: 40,
    enclosureHeatCapacityJPerK: 1_500_000,
    enclosureUaWPerK: 200,
    enclosureBaseHeatW: 2000,
    acCoolingKw: 80,
    acHeatingKw: 20,
    acCop: 3.5,
  },
};

/** Nominal stored energy of a profile, kWh (cells × Ah × V). */
export function nominalEnergyKwh(p: EquipmentProfile): number {
  return (p.seriesCells * p.parallelCells * p.cellCapacityAh * p.cellNominalV) / 1000;
}

/**
 * The profile of `units` identical systems side by side behind one EMS and meter, reported as
 * one (a C&I site with two or three 215 kWh cabinets): cells in parallel, PCS power, enclosure
 * and air conditioning scale with `units`; cell voltages, limits and efficiency do not. `units`
 * 1 answers `p` itself.
 */
export function scaledProfile(p: EquipmentProfile, units: number): EquipmentProfile {
  if (units === 1) return p;
  if (!Number.isInteger(units) || units < 1)
    throw new RangeError(`units must be a positive integer, got ${units}`);
  return {
    ...p,
    parallelCells: p.parallelCells * units,
    ratedPowerKw: p.ratedPowerKw * units,
    maxPowerKw: p.maxPowerKw * units,
    enclosureHeatCapacityJPerK: p.enclosureHeatCapacityJPerK * units,
    enclosureUaWPerK: p.enclosureUaWPerK * units,
    enclosureBaseHeatW: p.enclosureBaseHeatW * units,
    acCoolingKw: p.acCoolingKw * units,
    acHeatingKw: p.acHeatingKw * units,
  };
}
