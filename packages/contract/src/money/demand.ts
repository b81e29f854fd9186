/**
 * The month's maximum demand of a site, with storage (measured) and without (baseline): the two
 * figures a monthly bill prices with a two-part tariff's demand charge on a max-demand basis
 * (money/bill.ts step 4, `twoPartChargesCny` in money/valuation.ts; issue 17 item 5 "demand
 * charge change").
 *
 * Rule (China two-part tariff, 两部制电价): the basic charge on a max-demand basis (按实际最大需量)
 * is the demand price (需量电价, CNY/kW·month) × the month's maximum demand, the highest average
 * active power drawn from the grid over a 15-minute demand interval, as the utility's meter
 * records it. Users of 1 kV and above choose a capacity, contracted-demand or actual-max-demand
 * basis (NDRC 发改办价格〔2016〕1583号, kept by the third regulatory period's provincial T&D prices,
 * NDRC 发改价格〔2023〕526号, which publish each province's 需量电价). The interval is the demand
 * period set on the utility's multifunction meter (DL/T 614), 15 minutes in Chinese practice; the
 * utility bills the meter's recorded maximum. The product measures what it can: the mean of each
 * 15-minute rollup bucket (sum ÷ n of the samples in it), which is the quarter-hour average of
 * the sampled power — close to, not the same as, the utility meter's integrated (and possibly
 * sliding-window) maximum; a bill is checked against the utility's own figure when it differs.
 *
 * Per quarter hour q of the month (the site's local calendar month, cut to the days the site was
 * bound to the project):
 *
 *   measured(q) = max(grid(q), 0)                   grid + = import (site-figure rule `gridKw`)
 *   baseline(q) = max(grid(q) + battery(q), 0)      battery + = discharging (`batteryKw`)
 *
 *   maxDemandKw         = max over q of measured(q)
 *   baselineMaxDemandKw = max over q of baseline(q)
 *
 * Only import counts (export is not demand). Without the battery the grid would have carried the
 * battery's discharge and not its charging, hence grid + battery. A quarter without a grid
 * figure is skipped (nothing measured); a quarter with a grid figure and no battery figure counts
 * its battery as idle (0). No quarter with a grid figure in the month → both null: the bill says
 * the demand was not measured and a max-demand basis changes nothing.
 *
 * Figures in kW with two decimals (as the site figures).
 */

/** One 15-minute interval of a site: mean powers, kW; null when nothing was measured. */
export interface DemandQuarter {
  /** Net grid power, + = import (the sum over the site's grid-figure devices). */
  gridKw: number | null;
  /** Storage power, + = discharging (the sum over the site's battery-figure devices). */
  batteryKw: number | null;
}

/** The month's maximum demand, kW (see the module note); null when the grid was not measured. */
export interface MonthDemand {
  /** With storage: the highest quarter-hour import. */
  maxDemandKw: number | null;
  /** Without storage: the highest quarter-hour import had the battery not run. */
  baselineMaxDemandKw: number | null;
}

const round2 = (v: number): number => Math.round(v * 100) / 100 || 0;

/**
 * Maximum demand with and without storage over a series of quarter hours (any order), by the rule
 * of the module note. Non-finite figures count as missing.
 */
export function monthDemand(quarters: Iterable<DemandQuarter>): MonthDemand {
  let measured: number | null = null;
  let baseline: number | null = null;
  for (const q of quarters) {
    if (q.gridKw === null || !Number.isFinite(q.gridKw)) continue;
    const battery = q.batteryKw !== null && Number.isFinite(q.batteryKw) ? q.batteryKw : 0;
    const m = Math.max(q.gridKw, 0);
    const b = Math.max(q.gridKw + battery, 0);
    measured = measured === null ? m : Math.max(measured, m);
    baseline = baseline === null ? b : Math.max(baseline, b);
  }
  return {
    maxDemandKw: measured === null ? null : round2(measured),
    baselineMaxDemandKw: baseline === null ? null : round2(baseline),
  };
}

/**
 * The maximum demand over several parts of a month (e.g. its days, each already reduced by
 * {@link monthDemand}): the highest of each figure, null only when no part measured it. Equal to
 * {@link monthDemand} of all the parts' quarter hours together (a maximum of maxima; the two-decimal
 * rounding is monotonic).
 */
export function combineDemand(parts: Iterable<MonthDemand>): MonthDemand {
  let measured: number | null = null;
  let baseline: number | null = null;
  for (const p of parts) {
    if (p.maxDemandKw !== null)
      measured = measured === null ? p.maxDemandKw : Math.max(measured, p.maxDemandKw);
    if (p.baselineMaxDemandKw !== null)
      baseline = baseline === null ? p.baselineMaxDemandKw : Math.max(baseline, p.baselineMaxDemandKw);
  }
  return { maxDemandKw: measured, baselineMaxDemandKw: baseline };
}
