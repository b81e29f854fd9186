/**
 * The one money rule: how the product turns energy into CNY. Every figure that multiplies energy
 * by a price (revenue statistics, big screens, dashboard, monthly bills, the arbitrage preview)
 * calls these functions; nothing else in the product multiplies kWh by CNY/kWh.
 *
 * Sources: shared data README "Revenue maths" (peak-valley arbitrage) and issue 17 items 2–5:
 *
 *   value (discharge value) = Σ over ToU periods  discharged kWh × the period's price
 *   cost  (charging cost)   = Σ over ToU periods  charged kWh    × the period's price
 *   net benefit             = value − cost
 *
 * Worked example of the README: 1000 kWh charged at 0.3 and 900 kWh discharged at 1.2 CNY/kWh
 * → 900 × 1.2 − 1000 × 0.3 = 780 CNY/day.
 *
 * At a storage meter, "charged" is the energy imported from the grid (the meter's import
 * register) and "discharged" the energy exported (export register); energies are primary-side
 * kWh: register difference × CT ratio × PT ratio ({@link registerEnergyKwh}, "Metering" in the
 * same README).
 *
 * Two-part tariffs (两部制电价, Chinese C&I tariffs of 1 kV and above): beside the energy charge a
 * monthly basic charge, either a demand charge in CNY/kW·month on the month's maximum demand or on
 * the contracted demand, or a capacity charge in CNY/kVA·month on the transformer's capacity
 * ({@link twoPartChargesCny}).
 *
 * Rounding: each line (one period of one day of one meter) is rounded to the fen (0.01 CNY) and
 * totals are sums of rounded lines, so a bill checked line by line adds up exactly and
 * net = value − cost holds to the fen. Energies keep three decimals (Wh).
 */
import { z } from 'zod';
import { TOU_TIERS, type TouTier } from '../tou/scheme';

/**
 * Fen (integer hundredths of a CNY) of an amount, half away from zero. The product is cut to 15
 * significant digits first so that binary noise (1.005 × 100 = 100.49999…) rounds as written.
 */
function fen(cny: number): number {
  const hundredths = Number((Math.abs(cny) * 100).toPrecision(15));
  return Math.sign(cny) * Math.round(hundredths) || 0;
}

/** An amount rounded to the fen (0.01 CNY), half away from zero. */
export function roundCny(cny: number): number {
  return fen(cny) / 100;
}

/** An energy rounded to the Wh (0.001 kWh). */
export function roundKwh(kwh: number): number {
  return Math.round(kwh * 1000) / 1000;
}

/**
 * Primary-side energy of a register between two readings, kWh (README "Metering": energy =
 * reading difference × CT ratio × PT ratio). `ctRatio`/`ptRatio` are 1 when the meter reads the
 * primary side. A reading that goes backwards (register reset, meter replaced) gives `null`: the
 * caller falls back to another source and says so; it never counts negative energy.
 */
export function registerEnergyKwh(
  startReadingKwh: number,
  endReadingKwh: number,
  ctRatio = 1,
  ptRatio = 1,
): number | null {
  const diff = endReadingKwh - startReadingKwh;
  if (!Number.isFinite(diff) || diff < 0) return null;
  return roundKwh(diff * ctRatio * ptRatio);
}

/** One priced energy line: a ToU period (or a tier) with its charged and discharged energy. */
export interface PricedEnergy {
  /** Peak-valley tier of the period (spec §9); null when the scheme gave none. */
  tier: TouTier | null;
  /** The period's energy price, CNY/kWh. */
  priceCnyPerKwh: number;
  /** Energy charged into storage (imported at the storage meter), kWh, ≥ 0. */
  chargedKwh: number;
  /** Energy discharged from storage (exported at the storage meter), kWh, ≥ 0. */
  dischargedKwh: number;
}

/** Value of one line, CNY (each rounded to the fen). */
export interface LineValue {
  /** chargedKwh × price, CNY. */
  costCny: number;
  /** dischargedKwh × price, CNY. */
  valueCny: number;
  /** value − cost, CNY. */
  netCny: number;
}

/** Charging cost, discharge value and net benefit of one line (see the module note). */
export function valueLine(line: PricedEnergy): LineValue {
  const costFen = fen(line.chargedKwh * line.priceCnyPerKwh);
  const valueFen = fen(line.dischargedKwh * line.priceCnyPerKwh);
  return { costCny: costFen / 100, valueCny: valueFen / 100, netCny: (valueFen - costFen) / 100 };
}

/** Totals of one tier. */
export interface TierValuation {
  tier: TouTier;
  chargedKwh: number;
  dischargedKwh: number;
  costCny: number;
  valueCny: number;
  netCny: number;
}

/** Valuation of a set of lines (a day, a month, a year; one meter, a site, a company). */
export interface EnergyValuation {
  chargedKwh: number;
  dischargedKwh: number;
  /** Charging cost Σ charged × price, CNY. */
  costCny: number;
  /** Discharge value Σ discharged × price, CNY. */
  valueCny: number;
  /** Net benefit value − cost, CNY. */
  netCny: number;
  /** Per tier, most expensive first (sharp, peak, shoulder, off-peak), every tier present. */
  perTier: TierValuation[];
}

/**
 * Value a set of priced lines: each line priced and rounded to the fen ({@link valueLine}), then
 * summed in total and per tier. Lines without a tier count in the totals only.
 */
export function valueEnergy(lines: readonly PricedEnergy[]): EnergyValuation {
  const tiers = new Map<TouTier, { c: number; d: number; cost: number; value: number }>(
    TOU_TIERS.map((t) => [t, { c: 0, d: 0, cost: 0, value: 0 }]),
  );
  let charged = 0;
  let discharged = 0;
  let costFen = 0;
  let valueFen = 0;
  for (const line of lines) {
    const v = valueLine(line);
    const cf = Math.round(v.costCny * 100);
    const vf = Math.round(v.valueCny * 100);
    charged += line.chargedKwh;
    discharged += line.dischargedKwh;
    costFen += cf;
    valueFen += vf;
    const t = line.tier ? tiers.get(line.tier) : undefined;
    if (t) {
      t.c += line.chargedKwh;
      t.d += line.dischargedKwh;
      t.cost += cf;
      t.value += vf;
    }
  }
  return {
    chargedKwh: roundKwh(charged),
    dischargedKwh: roundKwh(discharged),
    costCny: costFen / 100,
    valueCny: valueFen / 100,
    netCny: (valueFen - costFen) / 100,
    perTier: TOU_TIERS.map((tier) => {
      const t = tiers.get(tier)!;
      return {
        tier,
        chargedKwh: roundKwh(t.c),
        dischargedKwh: roundKwh(t.d),
        costCny: t.cost / 100,
        valueCny: t.value / 100,
        netCny: (t.value - t.cost) / 100,
      };
    }),
  };
}

/**
 * Round-trip efficiency of storage over a period, %: discharged ÷ charged × 100 (issue 17 item 4).
 * null when nothing was charged (undefined, not 0 or infinity).
 */
export function storageEfficiencyPct(chargedKwh: number, dischargedKwh: number): number | null {
  if (!(chargedKwh > 0)) return null;
  return Math.round((dischargedKwh / chargedKwh) * 1000) / 10;
}

/**
 * Equivalent full cycles: discharged ÷ usable capacity (issue 17 item 4; as the arbitrage
 * preview's `cycles`). null without a capacity.
 */
export function equivalentFullCycles(dischargedKwh: number, capacityKwh: number): number | null {
  if (!(capacityKwh > 0)) return null;
  return Math.round((dischargedKwh / capacityKwh) * 1000) / 1000;
}

/* ---------------------------------------------------------------- two-part tariff ---- */

/** Basis of a demand charge: the month's maximum demand, or the contracted demand. */
export const DEMAND_BASES = ['max_demand', 'contracted'] as const;
export type DemandBasis = (typeof DEMAND_BASES)[number];

/** Highest accepted price or size in the two-part fields (guards typos such as an extra 0000). */
const TWO_PART_MAX = 1_000_000;
const nonNegative = z.number().finite().min(0).max(TWO_PART_MAX);

/**
 * The two-part (basic) charge of a tariff, entered with the ToU scheme and kept per tariff
 * version (never sent to the EMS: `set_tou_plan` keeps its shape). All fields nullable: a
 * single-part tariff has none.
 *
 * - `demandChargeCnyPerKwMonth`: 需量电价, CNY per kW per month;
 * - `demandBasis`: `max_demand` (the month's highest 15-minute demand) or `contracted`
 *   (`contractedDemandKw`, 合同最大需量);
 * - `capacityChargeCnyPerKvaMonth`: 容量电价, CNY per kVA per month on `transformerKva`.
 */
export const twoPartTariffSchema = z.object({
  demandChargeCnyPerKwMonth: nonNegative.nullable(),
  demandBasis: z.enum(DEMAND_BASES).nullable(),
  contractedDemandKw: nonNegative.nullable(),
  capacityChargeCnyPerKvaMonth: nonNegative.nullable(),
  transformerKva: nonNegative.nullable(),
});
export type TwoPartTariff = z.infer<typeof twoPartTariffSchema>;

/** A tariff without a basic charge. */
export const NO_TWO_PART: TwoPartTariff = {
  demandChargeCnyPerKwMonth: null,
  demandBasis: null,
  contractedDemandKw: null,
  capacityChargeCnyPerKvaMonth: null,
  transformerKva: null,
};

/**
 * Which two-part field is missing for the charge to be computable, or null when complete:
 * a demand price needs a basis, a contracted basis needs the contracted kW, a capacity price needs
 * the transformer kVA. Field names as in {@link twoPartTariffSchema} (the server answers -100
 * naming it; the form marks it).
 */
export function twoPartTariffMissingField(t: TwoPartTariff): keyof TwoPartTariff | null {
  if (t.demandChargeCnyPerKwMonth !== null) {
    if (t.demandBasis === null) return 'demandBasis';
    if (t.demandBasis === 'contracted' && t.contractedDemandKw === null) return 'contractedDemandKw';
  }
  if (t.capacityChargeCnyPerKvaMonth !== null && t.transformerKva === null) return 'transformerKva';
  return null;
}

export interface TwoPartCharges {
  /** The kW the demand charge applied to (max demand or contracted), null without a demand charge. */
  demandKw: number | null;
  /** Demand charge of the month, CNY. */
  demandCny: number;
  /** Capacity charge of the month, CNY. */
  capacityCny: number;
  /** demand + capacity, CNY. */
  totalCny: number;
}

/**
 * The month's basic charge of a two-part tariff:
 *   demand   = price CNY/kW·month × (max demand kW of the month | contracted kW)
 *   capacity = price CNY/kVA·month × transformer kVA
 * `maxDemandKw`: the month's highest demand at the metering point (kW; null when unknown — the
 * demand on max demand is then 0 and `demandKw` null). `monthFraction` (0–1, default 1) prorates a
 * part month (a tariff version starting mid-month, a site moved mid-month): days ÷ days of month.
 */
export function twoPartChargesCny(
  t: TwoPartTariff,
  opts: { maxDemandKw: number | null; monthFraction?: number },
): TwoPartCharges {
  const fraction = Math.min(Math.max(opts.monthFraction ?? 1, 0), 1);
  let demandKw: number | null = null;
  if (t.demandChargeCnyPerKwMonth !== null && t.demandBasis !== null) {
    demandKw = t.demandBasis === 'contracted' ? t.contractedDemandKw : opts.maxDemandKw;
  }
  const demandFen =
    demandKw !== null && t.demandChargeCnyPerKwMonth !== null
      ? fen(t.demandChargeCnyPerKwMonth * demandKw * fraction)
      : 0;
  const capacityFen =
    t.capacityChargeCnyPerKvaMonth !== null && t.transformerKva !== null
      ? fen(t.capacityChargeCnyPerKvaMonth * t.transformerKva * fraction)
      : 0;
  return {
    demandKw,
    demandCny: demandFen / 100,
    capacityCny: capacityFen / 100,
    totalCny: (demandFen + capacityFen) / 100,
  };
}
