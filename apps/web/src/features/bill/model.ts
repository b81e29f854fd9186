/**
 * What the bill screen and the print page compute for display — nothing here decides money: the
 * amounts are the server's (contract money/bill.ts `computeBill`, each line valued by
 * money/valuation.ts). These helpers only show how a line is made, so an operator can check it:
 * a period's kWh is (end register − start register) × multiplier (CT × PT when the meter reads the
 * secondary side), a line's kWh is the sum of its periods, its amount is kWh × price to the fen.
 */
import {
  BILL_STATE_LABELS,
  type BillLine,
  type BillPeriodEnergy,
  type BillRow,
  type BillState,
  type Lang,
  previousMonth,
  roundKwh,
} from '@ess/contract';
import type { TFunction } from 'i18next';
import { formatQuantity } from '@/shared/format';

/** Tag colours of the bill states. */
export const BILL_STATE_COLORS: Readonly<Record<BillState, string>> = {
  draft: 'gold',
  confirmed: 'green',
};

/** The state's label in `lang`. */
export function billStateLabel(state: BillState, lang: Lang): string {
  return BILL_STATE_LABELS[state][lang];
}

/**
 * The primary kWh of one period recomputed from its registers: (end − start) × multiplier, or
 * null when a register is missing or went backwards (the period then came from the rollups).
 */
export function periodRegisterKwh(
  start: number | null,
  end: number | null,
  multiplier: number,
): number | null {
  if (start === null || end === null || end < start) return null;
  return roundKwh((end - start) * multiplier);
}

/** How a line's kWh is made up, for the check column and the print page. */
export interface LineCheck {
  /** Σ of its periods' kWh (or the register difference × multiplier): equals the line's kWh. */
  chargedKwh: number;
  dischargedKwh: number;
  /** True when the sum equals the line's figure (to 0.001 kWh). */
  agrees: boolean;
  /** Periods summed, and those from the rollups (power × time). */
  periods: number;
  rollupPeriods: number;
}

/** Re-adds a line's periods (or its readings) — what the operator checks it against. */
export function checkLine(line: BillLine): LineCheck {
  const periods: readonly BillPeriodEnergy[] = line.periods ?? [];
  let charged: number;
  let discharged: number;
  if (line.periods) {
    charged = roundKwh(periods.reduce((s, p) => s + p.chargedKwh, 0));
    discharged = roundKwh(periods.reduce((s, p) => s + p.dischargedKwh, 0));
  } else {
    charged = periodRegisterKwh(line.importStartKwh, line.importEndKwh, line.multiplier) ?? line.chargedKwh;
    discharged =
      periodRegisterKwh(line.exportStartKwh, line.exportEndKwh, line.multiplier) ?? line.dischargedKwh;
  }
  const near = (a: number, b: number) => Math.abs(a - b) < 0.0005;
  return {
    chargedKwh: charged,
    dischargedKwh: discharged,
    agrees: near(charged, line.chargedKwh) && near(discharged, line.dischargedKwh),
    periods: periods.length,
    rollupPeriods: periods.filter((p) => p.source === 'power').length,
  };
}

/** True when any part of the line came from the 15-minute rollups rather than the registers. */
export function isRollupLine(line: BillLine): boolean {
  return line.chargedSource === 'rollup' || line.dischargedSource === 'rollup';
}

/** Decimals of a maximum demand in kW on the bill (as its kWh: contract `roundKwh`, to 0.001). */
const DEMAND_KW_DIGITS = 3;

/**
 * A site's maximum demand on the bill (its demand table and print page), kW, in the UI language:
 * `1234.5678` → '1,234.568 kW', `40` → '40 kW'; `null` (no demand measured in the segment) →
 * `bill.demand.notMeasured` ('未计量' / 'Not measured').
 */
export function demandKwText(t: TFunction, kw: number | null): string {
  return kw === null ? t('bill.demand.notMeasured') : formatQuantity(kw, 'kW', DEMAND_KW_DIGITS);
}

/**
 * True while the bill's month has not ended at every site on it (`monthEndMs`: contract
 * money/bill.ts `billMonthEndMs`): the draft is a month-to-date preview and cannot be settled yet
 * (the server answers 7064; the screens disable settling and say why).
 */
export function isMonthToDate(b: Pick<BillRow, 'monthEndMs'>, nowMs: number): boolean {
  return nowMs < b.monthEndMs;
}

/** The month (`YYYY-MM`) holding local date `today`: the running month, draftable as month to date. */
export function runningMonth(today: string): string {
  return today.slice(0, 7);
}

/** The last `count` ended months (`YYYY-MM`) before the month holding local date `today`. */
export function endedMonths(today: string, count: number): string[] {
  const out: string[] = [];
  let m = previousMonth(today);
  for (let i = 0; i < count; i++) {
    out.push(m);
    m = previousMonth(`${m}-01`);
  }
  return out;
}

/** The last local date of a `[from, to)` range: the day before `to`. */
export function lastDay(to: string): string {
  const last = new Date(`${to}T00:00:00Z`);
  last.setUTCDate(last.getUTCDate() - 1);
  return last.toISOString().slice(0, 10);
}

/** A `[from, to)` local date range as shown: '2025-07-01 – 2025-07-31' (the day before `to`). */
export function dateRange(from: string, to: string): string {
  const end = lastDay(to);
  return from === end ? from : `${from} – ${end}`;
}

/** Path of the printable page of bill `id` (outside the frame; app/router.tsx). */
export const BILL_PRINT_PATH = '/project/bill/print';

/** The print page's address for bill `id` (it prints in the UI language, switchable there). */
export function billPrintHref(id: number): string {
  return `${BILL_PRINT_PATH}?id=${id}`;
}
