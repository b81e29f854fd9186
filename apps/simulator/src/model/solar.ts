/**
 * Solar position and clear-sky irradiance, for the optional PV of a site.
 *
 * - Declination and equation of time: Spencer (1971), "Fourier series representation of the
 *   position of the sun", Search 2(5) — the formulas used by Duffie & Beckman, "Solar
 *   Engineering of Thermal Processes", §1.6, accurate to a few arc-minutes.
 * - Clear-sky global horizontal irradiance: Haurwitz (1945) as implemented in pvlib
 *   (`pvlib.clearsky.haurwitz`): GHI = 1098 · cos z · exp(−0.059 / cos z) W/m², which Sandia's
 *   comparison of clear-sky models (Reno et al., SAND2012-2389) found best among models that use
 *   the zenith angle only.
 * - PV output: P = kWp · GHI / 1000 W/m² · PR, with a performance ratio PR ≈ 0.8 and modules
 *   treated as horizontal (a simplification: tilted modules give more in winter).
 *
 * Times are UTC milliseconds; angles in degrees unless a name says `Rad`.
 */

const DEG = Math.PI / 180;

/** Fractional day-of-year angle Γ (rad) for UTC time `ms` (Spencer). */
function dayAngle(ms: number): number {
  const d = new Date(ms);
  const startOfYear = Date.UTC(d.getUTCFullYear(), 0, 1);
  const dayOfYear = (ms - startOfYear) / 86_400_000; // 0-based, fractional
  return (2 * Math.PI * dayOfYear) / 365;
}

/** Solar declination δ, degrees (Spencer 1971). */
export function declinationDeg(ms: number): number {
  const g = dayAngle(ms);
  const rad =
    0.006918 -
    0.399912 * Math.cos(g) +
    0.070257 * Math.sin(g) -
    0.006758 * Math.cos(2 * g) +
    0.000907 * Math.sin(2 * g) -
    0.002697 * Math.cos(3 * g) +
    0.00148 * Math.sin(3 * g);
  return rad / DEG;
}

/** Equation of time, minutes (Spencer 1971). */
export function equationOfTimeMin(ms: number): number {
  const g = dayAngle(ms);
  return (
    229.18 *
    (0.000075 +
      0.001868 * Math.cos(g) -
      0.032077 * Math.sin(g) -
      0.014615 * Math.cos(2 * g) -
      0.04089 * Math.sin(2 * g))
  );
}

/** Solar elevation angle above the horizon, degrees (negative at night). */
export function solarElevationDeg(ms: number, latitudeDeg: number, longitudeDeg: number): number {
  const utcMinutes = (((ms % 86_400_000) + 86_400_000) % 86_400_000) / 60_000;
  const solarMinutes = utcMinutes + 4 * longitudeDeg + equationOfTimeMin(ms);
  const hourAngle = (solarMinutes / 4 - 180) * DEG;
  const lat = latitudeDeg * DEG;
  const dec = declinationDeg(ms) * DEG;
  const sinEl = Math.sin(lat) * Math.sin(dec) + Math.cos(lat) * Math.cos(dec) * Math.cos(hourAngle);
  return Math.asin(Math.max(-1, Math.min(1, sinEl))) / DEG;
}

/** Haurwitz clear-sky GHI, W/m², for a solar elevation in degrees (0 when the sun is down). */
export function clearSkyGhi(elevationDeg: number): number {
  const cosZ = Math.sin(elevationDeg * DEG);
  if (cosZ <= 0) return 0;
  return 1098 * cosZ * Math.exp(-0.059 / cosZ);
}

/** Default PV performance ratio (inverter, temperature, soiling and wiring losses). */
export const PV_PERFORMANCE_RATIO = 0.8;

/**
 * PV AC output, kW, of `kWp` modules at UTC `ms`, scaled by a clearness factor in [0, 1]
 * (1 = clear sky, lower for clouds).
 */
export function pvPowerKw(
  kWp: number,
  ms: number,
  latitudeDeg: number,
  longitudeDeg: number,
  clearness = 1,
  performanceRatio = PV_PERFORMANCE_RATIO,
): number {
  if (kWp <= 0) return 0;
  const ghi = clearSkyGhi(solarElevationDeg(ms, latitudeDeg, longitudeDeg));
  return Math.max(0, Math.min(kWp, (kWp * ghi * clearness * performanceRatio) / 1000));
}
