/**
 * Outdoor weather of a site: air temperature and relative humidity.
 *
 * Temperature = seasonal mean + daily cycle + weather:
 * - seasonal: cosine between the January and July monthly mean temperatures of the city,
 *   warmest around 20 July (day 200) — approximate climate normals per city in `fleet.ts`;
 * - daily: cosine with amplitude half the mean daily range, warmest at 15:00 local, coolest at
 *   03:00 (a standard simplification of the diurnal cycle);
 * - weather: the day's anomaly of the place (below) plus a small Ornstein–Uhlenbeck process per
 *   site (σ ≈ 0.7 K, τ = 2 days) kept in the site state.
 * Relative humidity falls as the air warms over the day (≈ 3 %/K around the site's mean).
 *
 * The weather of a day belongs to the place, not to the site ({@link dayWeather}): every site of
 * one city (the same `weatherKey`) sees the same sky and the same warm or cold day, drawn from
 * the fleet seed, the place and the local day — so two sites in Foshan have the same cloudy
 * afternoon and a Beijing site a different one. Besides a persistent day-to-day anomaly
 * (σ ≈ 1.5 K, weighted over three days), a warm-season day (seasonal mean ≥ 25 °C) may start a
 * heat spell of 1–3 days, 4–7 K above normal and most of it in the afternoon: the hot afternoons
 * on which an outdoor PCS runs hot (site.ts).
 */
import { deriveSeed, Rng } from './random';
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

/** The weather of one local day at one place ({@link dayWeather}). */
export interface DayWeather {
  /** Clear-sky fraction reaching the ground, 0.15–1 (before the site's passing clouds). */
  clearness: number;
  /** Whole-day temperature anomaly, K. */
  anomalyK: number;
  /** Extra heat of a heat spell, K (0 on other days); {@link heatShape} spreads it over the day. */
  heatK: number;
}

/** Chance per warm-season day that a heat spell starts. */
const HEAT_SPELL_CHANCE = 0.07;

function dayDraws(placeSeed: number, dayIndex: number) {
  const r = Rng.fromSeed(deriveSeed(placeSeed, `day/${dayIndex}`));
  const sky = r.float();
  const clearness = sky < 0.55 ? r.range(0.85, 1) : sky < 0.8 ? r.range(0.5, 0.85) : r.range(0.15, 0.5);
  return { clearness, anomaly: r.normal(), spell: r.float(), spellDays: r.int(1, 3), spellK: r.range(4, 7) };
}

/**
 * The weather of local day `dayIndex` (days since 1970-01-01, local) at the place of seed
 * `placeSeed` (derived from the fleet seed and the site's `weatherKey`), whose seasonal mean that
 * day is `seasonalC`. Pure: the same place and day always give the same weather.
 */
export function dayWeather(placeSeed: number, dayIndex: number, seasonalC: number): DayWeather {
  const d0 = dayDraws(placeSeed, dayIndex);
  const d1 = dayDraws(placeSeed, dayIndex - 1);
  const d2 = dayDraws(placeSeed, dayIndex - 2);
  const anomalyK = 2.2 * (0.6 * d0.anomaly + 0.3 * d1.anomaly + 0.1 * d2.anomaly);
  let heatK = 0;
  if (seasonalC >= 25) {
    [d0, d1, d2].forEach((d, back) => {
      if (d.spell < HEAT_SPELL_CHANCE && d.spellDays > back) heatK = Math.max(heatK, d.spellK);
    });
  }
  return { clearness: d0.clearness, anomalyK, heatK };
}

/** Share (0.4–1) of a heat spell's extra heat at `minuteOfDay`: all of it at 15:00, 40 % at night. */
export function heatShape(minuteOfDay: number): number {
  return 0.4 + 0.6 * Math.max(0, Math.cos((2 * Math.PI * (minuteOfDay / 60 - 15)) / 24));
}
