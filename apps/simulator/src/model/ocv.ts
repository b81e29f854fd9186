/**
 * Open-circuit voltage of an LFP (LiFePO4/graphite) cell versus state of charge, at 25 °C.
 *
 * Piecewise-linear table shaped after published LFP OCV curves (e.g. the 3.2 V prismatic cells
 * of EVE and CATL): a steep rise from ~2.9 V at 0 % to ~3.2 V at 10 %, the characteristic flat
 * plateau ~3.26–3.34 V between 20 % and 90 % (with the small step near 60–70 % between the two
 * graphite staging plateaus), and a sharp knee to ~3.5 V at 100 %. Points beyond 0–100 % model
 * an over-discharged or over-charged cell (the curve keeps falling or rising steeply); a cell
 * only gets there when protection has failed (fault injection).
 *
 * Voltage under load: `u = ocv(soc) − i·r` with `i` positive when discharging (sign convention
 * of the protocol: battery power + = discharging).
 */

/** [SOC %, OCV V] points, SOC ascending. */
export const LFP_OCV_TABLE: ReadonlyArray<readonly [number, number]> = [
  [-6, 1.8],
  [-4, 2.2],
  [-2, 2.55],
  [-1, 2.75],
  [0, 2.9],
  [2, 3.05],
  [5, 3.15],
  [10, 3.2],
  [15, 3.235],
  [20, 3.26],
  [30, 3.28],
  [40, 3.29],
  [50, 3.295],
  [60, 3.3],
  [65, 3.315],
  [70, 3.325],
  [80, 3.33],
  [90, 3.335],
  [95, 3.36],
  [98, 3.41],
  [100, 3.5],
  [101, 3.56],
  [102, 3.63],
  [103, 3.72],
  [104, 3.85],
  [106, 4.2],
];

const GRID_MIN = -6;
const GRID_STEP = 0.1;

/**
 * The table sampled every 0.1 % SOC. All breakpoints lie on this grid, so linear interpolation
 * in the samples equals interpolation in the table; it just avoids a search per call (the model
 * evaluates the curve for every cell several times per step).
 */
const GRID: Float64Array = (() => {
  const t = LFP_OCV_TABLE;
  const last = t[t.length - 1]![0];
  const n = Math.round((last - GRID_MIN) / GRID_STEP) + 1;
  const g = new Float64Array(n);
  let k = 0;
  for (let j = 0; j < n; j++) {
    const soc = GRID_MIN + j * GRID_STEP;
    while (k < t.length - 2 && t[k + 1]![0] <= soc) k++;
    const [s0, v0] = t[k]!;
    const [s1, v1] = t[k + 1]!;
    g[j] = v0 + ((v1 - v0) * (Math.min(soc, s1) - s0)) / (s1 - s0);
  }
  return g;
})();
const GRID_LAST = GRID.length - 1;

/** OCV (V) of an LFP cell at `socPct` (linear interpolation, clamped at the table ends). */
export function lfpOcv(socPct: number): number {
  const x = (socPct - GRID_MIN) / GRID_STEP;
  if (x <= 0) return GRID[0]!;
  if (x >= GRID_LAST) return GRID[GRID_LAST]!;
  const j = Math.floor(x);
  const f = x - j;
  return GRID[j]! + (GRID[j + 1]! - GRID[j]!) * f;
}

/**
 * Resistance multiplier for cell temperature `tC` (°C): LFP internal resistance rises in the
 * cold (roughly doubling from 25 °C to 0 °C) and falls slightly when warm. Estimate.
 */
export function resistanceTempFactor(tC: number): number {
  return Math.min(4, Math.max(0.75, 1 + 0.04 * (25 - tC)));
}
