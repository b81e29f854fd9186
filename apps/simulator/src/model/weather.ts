/**
 * Outdoor weather of a site: air temperature and relative humidity.
 *
 * Temperature = seasonal mean + daily cycle + slow weather noise:
 * - seasonal: cosine between the January and July monthly mean temperatures of the city,
 *   warmest around 20 July (day 200) — approximate climate normals per city in `fleet.ts`;
 * - daily: cosine with amplitude half the mean daily range, warmest at 15:00 local, coolest at
 *   03:00 (a standard simplification of the diurnal cycle);
 * - weather: an Ornstein–Uhlenbeck process (σ ≈ 2 K, τ = 2 days) kept in the site state.
 * Relative humidity falls as the air warms over the day (≈ 3 %/K around the site's mean).
 */
import type { LocalTime } from './time';

export interface Climate {
  /** January and July monthly mean air temperature, °C. */
  janMeanC: number;
  julMeanC: number;
  /** Mean daily temperature range (max − min), K. */
  dailyRangeC: number;
  /** Annual mean relative humidity, %. */
  rhMeanPct: number;
}

/** Seasonal daily-mean temperature, °C, on day of year `doy`. */
export function seasonalMeanC(climate: Climate, doy: number): number {
  const mid = (climate.janMeanC + climate.julMeanC) / 2;
  const half = (climate.julMeanC - climate.janMeanC) / 2;
  return mid + half * Math.cos((2 * Math.PI * (doy - 200)) / 365);
}

/** Deviation from the daily mean by time of day, K (peak 15:00). */
export function dailyCycleK(climate: Climate, minuteOfDay: number): number {
  return (climate.dailyRangeC / 2) * Math.cos((2 * Math.PI * (minuteOfDay / 60 - 15)) / 24);
}

/** Outdoor temperature, °C, before the weather noise. */
export function ambientC(climate: Climate, local: LocalTime): number {
  return seasonalMeanC(climate, local.dayOfYear) + dailyCycleK(climate, local.minuteOfDay);
}

/** Outdoor relative humidity, % (15–98), given the daily-cycle deviation of temperature. */
export function outdoorRhPct(climate: Climate, dailyDeviationK: number, noisePct: number): number {
  return Math.max(15, Math.min(98, climate.rhMeanPct - 3 * dailyDeviationK + noisePct));
}

/**
 * Relative humidity inside an enclosure whose air is `deltaK` warmer than outside (same
 * moisture content): RH falls ~6 %/K of relative value (Magnus formula, near 25 °C).
 */
export function indoorRhPct(outdoorRh: number, deltaK: number): number {
  return Math.max(5, Math.min(98, outdoorRh * Math.exp(-0.062 * deltaK)));
}
