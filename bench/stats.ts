/** Small helpers shared by the benchmarks. */

/** The p-th percentile of ascending `sorted` (nearest rank); NaN when empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;

/** Min, median and max of a few runs. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  runs: number[];
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? Number.NaN,
    median: percentile(sorted, 50),
    max: sorted.at(-1) ?? Number.NaN,
    runs: [...values],
  };
}

export const formatSpread = (s: Spread, unit = '') => `${s.median}${unit} (min ${s.min}, max ${s.max})`;

/** Flags Chromium runs with here (design: Debian's Chromium, no sandbox in containers). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
