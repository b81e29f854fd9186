/**
 * Site load from the BDEW standard load profiles (data/README.md).
 *
 * A profile table holds, for each of 96 quarter hours × 12 months × 3 day types (SA Saturday,
 * FT Sunday/holiday, WT workday), the energy in kWh of that quarter hour for a consumer of
 * ~1,000,000 kWh per year. Average power of the quarter hour for a site consuming
 * `annualKwh` per year:
 *
 *     P_kW = value × 4 × annualKwh / 1e6
 *
 * H25 (households) is multiplied by the BDEW dynamisation factor F(t) for day of year t, as
 * oemof/demandlib does: F(t) = −3.92e−10·t⁴ + 3.2e−7·t³ − 7.02e−5·t² + 2.1e−3·t + 1.24.
 *
 * Source: oemof/demandlib (MIT), data from BDEW. Chinese public holidays are not modelled;
 * Saturday uses SA, Sunday FT, other days WT. Pure functions; parsing takes the CSV text.
 */
import type { LocalTime } from './time';

export type BdewProfileName = 'G25' | 'H25';

export interface BdewProfile {
  name: BdewProfileName;
  /** kWh per quarter hour at 1e6 kWh/a, index `quarter * 36 + (month − 1) * 3 + dayType`. */
  values: Float64Array;
}

/** Column order within a month in the BDEW files. */
export const DAY_TYPES = ['SA', 'FT', 'WT'] as const;
export type DayType = (typeof DAY_TYPES)[number];

/**
 * Parses a demandlib BDEW CSV (two header rows, then 96 rows `HH:MM-HH:MM,v1,…,v36`).
 * Throws on a malformed file.
 */
export function parseBdewCsv(text: string, name: BdewProfileName): BdewProfile {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[1]?.split(',') ?? [];
  for (let c = 0; c < 36; c++) {
    if (header[c + 1]?.trim() !== DAY_TYPES[c % 3])
      throw new Error(`${name}: unexpected header column ${c + 1}`);
  }
  const rows = lines.slice(2);
  if (rows.length !== 96) throw new Error(`${name}: expected 96 quarter-hour rows, got ${rows.length}`);
  const values = new Float64Array(96 * 36);
  rows.forEach((row, q) => {
    const cells = row.split(',');
    if (cells.length !== 37) throw new Error(`${name}: row ${q + 3} has ${cells.length} columns`);
    for (let c = 0; c < 36; c++) {
      const v = Number(cells[c + 1]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${name}: bad value in row ${q + 3}`);
      values[q * 36 + c] = v;
    }
  });
  return { name, values };
}

/** BDEW day type of a weekday (0 Sunday … 6 Saturday). */
export function dayTypeOf(weekday: number): DayType {
  return weekday === 6 ? 'SA' : weekday === 0 ? 'FT' : 'WT';
}

/** BDEW dynamisation factor for H25 at day of year `t` (1–366). */
export function h25Dynamisation(t: number): number {
  return -3.92e-10 * t ** 4 + 3.2e-7 * t ** 3 - 7.02e-5 * t ** 2 + 2.1e-3 * t + 1.24;
}

/** Raw table value (kWh per quarter hour at 1e6 kWh/a). */
export function bdewValue(profile: BdewProfile, month: number, weekday: number, quarter: number): number {
  const col = (month - 1) * 3 + DAY_TYPES.indexOf(dayTypeOf(weekday));
  return profile.values[quarter * 36 + col]!;
}

/**
 * Average load in kW during the local quarter hour containing `local`, for a consumer of
 * `annualKwh` kWh per year following `profile`.
 */
export function profileLoadKw(profile: BdewProfile, annualKwh: number, local: LocalTime): number {
  const quarter = Math.min(95, Math.floor(local.minuteOfDay / 15));
  let v = bdewValue(profile, local.month, local.weekday, quarter);
  if (profile.name === 'H25') v *= h25Dynamisation(local.dayOfYear);
  return (v * 4 * annualKwh) / 1e6;
}

/**
 * The usual peak, kW, of a C&I site's load drawn as the site model draws it (site.ts: a share
 * `baseLoadShare` (0–1) of `annualKwh` evenly round the clock, the rest by `profile`): the
 * lowest over the twelve months of the highest workday (WT) quarter hour, without the model's
 * noise and without PV. Every month's 15-minute peak of the site's load reaches about this much
 * (PV lowers midday import only on sunny days; the month's peak falls on a dull one).
 */
export function usualPeakLoadKw(profile: BdewProfile, annualKwh: number, baseLoadShare: number): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (let month = 1; month <= 12; month++) {
    let highest = 0;
    for (let quarter = 0; quarter < 96; quarter++) {
      highest = Math.max(highest, bdewValue(profile, month, 1, quarter));
    }
    lowest = Math.min(lowest, highest);
  }
  return (1 - baseLoadShare) * ((lowest * 4 * annualKwh) / 1e6) + (baseLoadShare * annualKwh) / 8760;
}
