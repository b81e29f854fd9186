/**
 * Monthly bill of a storage project (issue 17 item 5): the settlement the owner, the investors
 * and the operator sign — pure arithmetic, the same in the server (drafting, confirming, xlsx,
 * print page) and the console (a bill's lines are re-added in front of the reader).
 *
 * Inputs ({@link BillInput}): the project's contract (income mode, owner share, investors with
 * ratios, rent, maintenance and insurance premium per month and who bears them), the month, and
 * for each site bound to the project during the month: its time zone, the local dates it was
 * bound, its tariff by date range (price per tier, two-part charges), its maximum demand with and
 * without storage, and its storage meters (CT/PT, register readings, swaps, daily fallback energy).
 *
 * The arithmetic, in order (every step written out in packages/contract/test/money-bill.test.ts):
 *
 * 1. **Period.** The month is the site's local calendar month `[YYYY-MM-01 00:00, next month
 *    01 00:00)` in its IANA zone: 744 h for a 31-day month, 743 h or 745 h when a daylight-saving
 *    change falls in it (Europe/Berlin March / October). It is cut to the dates the site was bound
 *    to the project (`project_site`: `[from, to)`, a site moved mid-month is billed by date) and
 *    split where the tariff changes (a price change mid-month): one **segment** per date range.
 * 2. **Energy per meter × segment × tier.** For each storage meter active in the segment (a
 *    swapped meter: the old one up to its final reading, the new one from its initial reading —
 *    both parts billed), the import and export registers of each tier (sharp, peak, shoulder,
 *    off-peak) are read at the part's start and end (a reading counts within
 *    {@link READING_TOLERANCE_MS} of the instant) and turned into primary-side kWh with
 *    `registerEnergyKwh` (difference × CT × PT when the meter reads the secondary side; × 1 when it
 *    reads the primary). Import = charged into storage, export = discharged.
 *    - A reading missing at either end → the part's energy is the sum of the meter's **daily
 *      fallback** (15-minute rollups, issue 17 item 3) for the days the part touches, and the line
 *      says `source: 'rollup'`; days without fallback are listed in `missingDates`.
 *    - A reading lower than the earlier one with no swap recorded (register reset, unrecorded
 *      meter change) is never billed as negative energy: the line falls back to the rollups as
 *      above and carries `problem: 'reading_backwards'` (documented outcome; the operator records
 *      the swap and drafts again, or corrects the bill).
 * 3. **Money.** Each line (meter × segment × tier, charged and discharged kWh at the segment's
 *    tier price) is valued by money/valuation.ts `valueLine` — the one energy × price rule —
 *    rounded to the fen; totals are sums of rounded lines. Cost = Σ charged × price, value =
 *    Σ discharged × price.
 * 4. **Two-part tariff.** Per site and segment, the basic charge is computed with `twoPartChargesCny`
 *    on the month's maximum demand without storage (baseline) and with storage (measured), prorated
 *    by the segment's days ÷ days of the month; the **demand charge change** = baseline − measured
 *    (positive = storage lowered the charge). With a contracted-demand basis or a capacity charge
 *    the two are equal and the change is 0 (storage does not move them); both figures are shown.
 *    The maxima come with the site (money/demand.ts `monthDemand`: the highest 15-minute import
 *    with storage, and of grid + battery without); null when not measured — the segment still has
 *    its line (null kW, a max-demand charge of 0, change 0).
 * 5. **Net benefit** = value − cost + demand charge change.
 * 6. **Split** ({@link splitFen}: fen amounts by integer weights, largest remainder, ties to the
 *    earlier party — owner first, then investors in their order — so the parts add up exactly to
 *    the whole; a negative whole is split as its absolute value, negated):
 *    - self-investment: the net benefit (less maintenance and premium when `costBearer` is
 *      `shared`) is split between the owner (`ownerSharePct`) and each investor (`ratioPct`);
 *      owner + investors = 100 %;
 *    - leasing: the owner keeps the net benefit and pays the rent (`monthly`: `rentCny` per month;
 *      `per_kwh_capacity`: `rentCny` × `capacityKwh`), the investors (the lessors) share the rent
 *      by their ratios (investors = 100 %);
 *    - maintenance and premium (whole months: the contract prices a month) are deducted from the
 *      bearer: `owner` → the owner; `investors` → the investors by their ratios; `shared` →
 *      self-investment: before the split (everyone by ratio); leasing: half the owner, half the
 *      investors by their ratios.
 *    Σ parties' payable = net benefit − maintenance − premium, to the fen.
 *
 * Errors: a contract that breaks api/project.ts `projectContractProblem` (ratios that do not add up
 * to 100 %, CT/PT of 0, …: {@link BillInputError} for `-100` naming the field, zh and en texts),
 * a site without a tariff for a bound date, an unknown time zone (RangeError from `Intl`).
 */
import {
  meterPrimaryKwh,
  type ProjectContract,
  type ProjectInvestorShare,
  projectContractProblem,
} from '../api/project';
import { addDays, localDateStart } from '../local-time';
import { daysInMonth, TOU_TIERS, type TouTier } from '../tou/scheme';
import type { MonthDemand } from './demand';
import { registerEnergyKwh, roundKwh, type TwoPartTariff, twoPartChargesCny, valueLine } from './valuation';

/** How far from a boundary instant a meter reading still counts as read at it (15 min). */
export const READING_TOLERANCE_MS = 15 * 60_000;

/** kWh per tier (register values or energies). */
export type TierKwh = Record<TouTier, number>;

/**
 * The project contract a bill applies (project / project_investor rows; api/project.ts
 * `ProjectContract`, checked by its `projectContractProblem`), the investors with their names.
 * Meters come with the sites.
 */
export interface BillContract extends Omit<ProjectContract, 'investors' | 'meters'> {
  investors: ReadonlyArray<ProjectInvestorShare & { name: string }>;
}

/** One snapshot of a meter's registers (its own side: secondary kWh when it reads the secondary). */
export interface MeterReading {
  /** UTC ms of the reading. */
  atMs: number;
  importKwh: TierKwh;
  exportKwh: TierKwh;
}

/** A physical storage meter. A swap is two meters: the old one `removedAtMs`, the new one `installedAtMs`. */
export interface BillMeterInput {
  meterId: number;
  sn: string;
  /**
   * Type of the device whose registers are billed: `meter` (a storage meter the project declares,
   * the default) or, for a site without one, the `pcs` / `gateway` whose charge/discharge
   * registers the site figures name (devices/tier-energy.ts `storageMeters`). Copied to the lines.
   */
  deviceType?: string;
  ctRatio: number;
  ptRatio: number;
  /** Readings × CT × PT when true; readings are primary kWh when false. */
  readsSecondary: boolean;
  /** First instant it measures (its initial reading); absent = before the month. */
  installedAtMs?: number | null;
  /** Last instant it measures (its final reading); absent = after the month. */
  removedAtMs?: number | null;
  readings: readonly MeterReading[];
  /**
   * Energy per ToU period as stored (energy_tier_day: total import/export registers read at each
   * period's bounds, × multiplier, or the rollups' power × time when a bound reading was missing or
   * went backwards). When given, the meter's lines are these periods summed per segment × tier ×
   * price, each period kept on its line for checking; `readings` and `fallbackDaily` are not used.
   */
  periods?: readonly BillPeriodEnergy[];
  /** Primary-side kWh per local day from the rollups (the fallback when a reading is missing). */
  fallbackDaily?: ReadonlyArray<{ date: string; importKwh: TierKwh; exportKwh: TierKwh }>;
}

/** One ToU period of one meter and day (see {@link BillMeterInput.periods}). */
export interface BillPeriodEnergy {
  startMs: number;
  endMs: number;
  tier: TouTier | null;
  priceCnyPerKwh: number | null;
  /** Total import (charge) / export (discharge) registers at the bounds, the meter's own side. */
  chargeStart: number | null;
  chargeEnd: number | null;
  dischargeStart: number | null;
  dischargeEnd: number | null;
  /** Primary kWh. */
  chargedKwh: number;
  dischargedKwh: number;
  source: 'registers' | 'power';
}

/** A tariff in force from local date `from` (inclusive) to `to` (exclusive; null = open). */
export interface BillTariff {
  from: string;
  to: string | null;
  /** Energy price per tier, CNY/kWh. */
  pricesCnyPerKwh: TierKwh;
  twoPart: TwoPartTariff;
}

export interface BillSiteInput {
  siteId: number;
  siteName: string;
  /** IANA zone of the site. */
  timeZone: string;
  /** Local dates the site was bound to the project, `[from, to)`, `to` null = still bound. */
  bound: ReadonlyArray<{ from: string; to: string | null }>;
  tariffs: readonly BillTariff[];
  /**
   * The month's highest 15-minute demand at the grid connection, kW: measured, and without
   * storage (money/demand.ts {@link MonthDemand}, over the bound days); null = not measured.
   */
  demand?: MonthDemand;
  meters: readonly BillMeterInput[];
}

export interface BillInput {
  /** `YYYY-MM`, local to each site. */
  month: string;
  contract: BillContract;
  /** The owner company (project.owner_company_id), for the bill's party row. */
  owner?: { companyId: number; name: string } | null;
  sites: readonly BillSiteInput[];
}

export type LineSource = 'register' | 'rollup';

/** One line: one meter × one segment × one tier; every figure checkable against the readings. */
export interface BillLine {
  siteId: number;
  meterId: number;
  meterSn: string;
  /** {@link BillMeterInput.deviceType} (absent on bills drafted before it: a declared meter). */
  deviceType?: string;
  /** Local dates of the segment `[from, to)`. */
  from: string;
  to: string;
  /** Instants the readings were taken for (the part of the segment the meter measured). */
  startMs: number;
  endMs: number;
  tier: TouTier;
  /** CT × PT (readsSecondary) or 1. */
  multiplier: number;
  importStartKwh: number | null;
  importEndKwh: number | null;
  exportStartKwh: number | null;
  exportEndKwh: number | null;
  /** Primary kWh. */
  chargedKwh: number;
  dischargedKwh: number;
  chargedSource: LineSource;
  dischargedSource: LineSource;
  priceCnyPerKwh: number;
  costCny: number;
  valueCny: number;
  netCny: number;
  /** A register that went backwards with no swap recorded (the line is from the rollups). */
  problem: 'reading_backwards' | null;
  /** Days of a rollup line without fallback energy (their energy is missing from the bill). */
  missingDates: string[];
  /** The ToU periods summed into the line (meters billed from stored periods), for checking. */
  periods?: BillPeriodEnergy[];
}

export interface BillSegment {
  siteId: number;
  from: string;
  to: string;
  startMs: number;
  endMs: number;
  days: number;
  hours: number;
  pricesCnyPerKwh: TierKwh;
}

/** Two-part charge of one site × segment, with storage and without (baseline). */
export interface BillDemandLine {
  siteId: number;
  from: string;
  to: string;
  /** segment days ÷ days of the month */
  monthFraction: number;
  baselineKw: number | null;
  measuredKw: number | null;
  baselineCny: number;
  measuredCny: number;
  /** baseline − measured: positive when storage lowered the basic charge. */
  changeCny: number;
}

export interface BillSiteSummary {
  siteId: number;
  siteName: string;
  timeZone: string;
  /** The local month's bounds and length (743/744/745 h around daylight saving). */
  monthStartMs: number;
  monthEndMs: number;
  monthHours: number;
  /** Bound hours in the month. */
  billedHours: number;
}

export type PartyRole = 'owner' | 'investor';

export interface BillParty {
  role: PartyRole;
  companyId: number | null;
  name: string | null;
  ratioPct: number;
  /** Share of the (distributable) benefit, CNY (self-investment; 0 in leasing for investors). */
  benefitCny: number;
  /** Leasing: + rent received (investors), − rent paid (owner); 0 in self-investment. */
  rentCny: number;
  /** − maintenance borne. */
  maintenanceCny: number;
  /** − premium borne. */
  insuranceCny: number;
  /** benefit + rent + maintenance + insurance: what the party gets (negative = pays). */
  payableCny: number;
}

export interface BillTotals {
  chargedKwh: number;
  dischargedKwh: number;
  costCny: number;
  valueCny: number;
  /** value − cost */
  energyNetCny: number;
  demandChangeCny: number;
  /** energyNet + demandChange */
  netBenefitCny: number;
  rentCny: number;
  maintenanceCny: number;
  insuranceCny: number;
  /** netBenefit − maintenance − insurance = Σ parties' payable. */
  distributedCny: number;
}

export interface BillResult {
  month: string;
  incomeMode: ProjectContract['incomeMode'];
  sites: BillSiteSummary[];
  segments: BillSegment[];
  lines: BillLine[];
  demand: BillDemandLine[];
  totals: BillTotals;
  parties: BillParty[];
  /** Count of lines from rollups / with a backwards reading (shown on the bill's head). */
  flags: { rollupLines: number; backwardsLines: number; missingDates: number };
}

/** A bill input the arithmetic refuses: `-100` with the field (and a zh/en text). */
export class BillInputError extends Error {
  constructor(
    readonly field: string,
    readonly zh: string,
    readonly en: string,
  ) {
    super(`${field}: ${en}`);
    this.name = 'BillInputError';
  }
}

/** Hundredths of a percent as an integer (ratios carry two decimals). */
function basisPoints(pct: number): number {
  return Math.round(pct * 100);
}

/**
 * The contract rule (api/project.ts `projectContractProblem`: ratios add up to 100.00 %, rent,
 * costs ≥ 0, CT/PT > 0 of every meter billed) as a {@link BillInputError} with both texts, or null.
 * Each meter is checked on its own (`meters[i]` names its place in `meters`): the parts of a swapped
 * meter share its `meterId` (a swap is two meters of one device), so the declared-twice rule of
 * the contract does not apply to them.
 */
export function billContractProblem(
  c: BillContract,
  meters: readonly BillMeterInput[] = [],
): BillInputError | null {
  const contract = (m: BillMeterInput | null): ProjectContract => ({
    ...c,
    investors: c.investors.map((i) => ({ companyId: i.companyId, ratioPct: i.ratioPct })),
    meters: m
      ? [{ deviceId: m.meterId, ctRatio: m.ctRatio, ptRatio: m.ptRatio, readsSecondary: m.readsSecondary }]
      : [],
  });
  for (const [i, m] of [null, ...meters].entries()) {
    const zh = projectContractProblem(contract(m), 'zh');
    const en = projectContractProblem(contract(m), 'en');
    if (zh && en) {
      const field = zh.field.replace(/^meters\[0\]/, `meters[${i - 1}]`);
      return new BillInputError(field, zh.message, en.message);
    }
  }
  return null;
}

/**
 * Split `totalFen` (integer fen, any sign) by integer `weights` (≥ 0, not all 0) so that the
 * parts add up exactly: each part is ⌊|total| × w ÷ Σw⌋, the fen left over go one each to the
 * largest remainders (ties: the earlier weight), and a negative total is split as its absolute
 * value, negated (Hamilton's largest-remainder method).
 */
export function splitFen(totalFen: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const sign = totalFen < 0 ? -1 : 1;
  const abs = BigInt(Math.abs(totalFen));
  const big = BigInt(sum);
  const parts = weights.map((w) => abs * BigInt(w));
  const floors = parts.map((p) => p / big);
  let left = Number(abs - floors.reduce((a, b) => a + b, 0n));
  const order = parts
    .map((p, i) => ({ i, rem: p % big }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  const out = floors.map(Number);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i]! += 1;
    left -= 1;
  }
  return out.map((v) => sign * v || 0);
}

const toFen = (cny: number) => Math.round(cny * 100);
const cnyOf = (fen: number) => fen / 100;

/** `YYYY-MM-01` of `YYYY-MM` and the first day of the next month. */
function monthBounds(month: string): { first: string; next: string; days: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const days = daysInMonth(y, m);
  return { first: `${month}-01`, next: addDays(`${month}-01`, days), days };
}

/** Zone of a bill's month when the project has no site to take it from (the fleet's home zone). */
export const BILL_DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/**
 * The instant `month` (`YYYY-MM`) has ended in every zone of `timeZones` (the sites bound to the
 * project in that month): the latest of the next month's first local midnight in each zone, UTC ms
 * ({@link BILL_DEFAULT_TIME_ZONE} when no zone is given). A month may be settled from this instant
 * on (issue 17 item 5 review: a running month settled could never be billed for its remaining
 * days, since a settled month is never drafted again — 7060); before it, a draft is a month-to-date
 * preview and `bill/confirm` answers 7064. Throws RangeError for an unknown zone.
 */
export function billMonthEndMs(month: string, timeZones: readonly string[]): number {
  const { next } = monthBounds(month);
  const zones = timeZones.length ? timeZones : [BILL_DEFAULT_TIME_ZONE];
  return Math.max(...zones.map((z) => localDateStart(next, z)));
}

/** Local days between two dates (`to` exclusive). */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

const maxDate = (a: string, b: string) => (a > b ? a : b);
const minDate = (a: string, b: string) => (a < b ? a : b);

/** The site's segments: bound dates ∩ month, cut at tariff changes. Throws when a date has no tariff. */
function siteSegments(
  site: BillSiteInput,
  first: string,
  next: string,
): { from: string; to: string; tariff: BillTariff }[] {
  const out: { from: string; to: string; tariff: BillTariff }[] = [];
  const bound = [...site.bound].sort((a, b) => a.from.localeCompare(b.from));
  for (const b of bound) {
    let from = maxDate(b.from, first);
    const to = minDate(b.to ?? next, next);
    while (from < to) {
      const tariff = [...site.tariffs]
        .sort((x, y) => y.from.localeCompare(x.from))
        .find((t) => t.from <= from && (t.to === null || t.to > from));
      if (!tariff) {
        throw new BillInputError(
          'tariffs',
          `站点“${site.siteName}”${from}没有电价`,
          `site “${site.siteName}” has no tariff on ${from}`,
        );
      }
      // The segment ends at the bound end, the tariff's end or the next tariff's start.
      let end = to;
      if (tariff.to !== null) end = minDate(end, tariff.to);
      for (const t of site.tariffs) if (t.from > from) end = minDate(end, t.from);
      out.push({ from, to: end, tariff });
      from = end;
    }
  }
  return out;
}

/** The reading nearest to `atMs` within the tolerance, if any. */
function readingAt(readings: readonly MeterReading[], atMs: number): MeterReading | undefined {
  let best: MeterReading | undefined;
  for (const r of readings) {
    const d = Math.abs(r.atMs - atMs);
    if (d <= READING_TOLERANCE_MS && (!best || d < Math.abs(best.atMs - atMs))) best = r;
  }
  return best;
}

/** Sum of the fallback energy of the local days touching `[startMs, endMs)`, and the days without any. */
function fallbackEnergy(
  meter: BillMeterInput,
  timeZone: string,
  fromDate: string,
  toDate: string,
  startMs: number,
  endMs: number,
  direction: 'importKwh' | 'exportKwh',
  tier: TouTier,
): { kwh: number; missing: string[] } {
  let kwh = 0;
  const missing: string[] = [];
  for (let d = fromDate; d < toDate; d = addDays(d, 1)) {
    const dayStart = localDateStart(d, timeZone);
    const dayEnd = localDateStart(addDays(d, 1), timeZone);
    if (dayEnd <= startMs || dayStart >= endMs) continue;
    const row = meter.fallbackDaily?.find((r) => r.date === d);
    if (row) kwh += row[direction][tier];
    else missing.push(d);
  }
  return { kwh: roundKwh(kwh), missing };
}

/**
 * Lines of a meter billed from stored periods: the periods starting in `[a, b)` with a tier and a
 * price, summed per tier × price (a tier priced twice in the segment gives two lines), valued once
 * per line by `valueLine`. Source `rollup` when any period came from power × time; a period whose
 * register went backwards marks the line `reading_backwards`.
 */
function periodLines(
  siteId: number,
  meter: BillMeterInput,
  seg: { from: string; to: string },
  a: number,
  b: number,
  multiplier: number,
): BillLine[] {
  const groups = new Map<string, BillPeriodEnergy[]>();
  for (const p of meter.periods ?? []) {
    if (p.startMs < a || p.startMs >= b || p.tier === null || p.priceCnyPerKwh === null) continue;
    const key = `${TOU_TIERS.indexOf(p.tier)}|${p.priceCnyPerKwh}`;
    const list = groups.get(key) ?? [];
    list.push(p);
    groups.set(key, list);
  }
  const backwards = (s: number | null, e: number | null) => s !== null && e !== null && e < s;
  return [...groups.entries()]
    .sort(([x], [y]) => x.localeCompare(y, 'en', { numeric: true }))
    .map(([, ps]) => {
      const sorted = [...ps].sort((x, y) => x.startMs - y.startMs);
      const tier = sorted[0]!.tier!;
      const price = sorted[0]!.priceCnyPerKwh!;
      const charged = roundKwh(sorted.reduce((n, p) => n + p.chargedKwh, 0));
      const discharged = roundKwh(sorted.reduce((n, p) => n + p.dischargedKwh, 0));
      const v = valueLine({ tier, priceCnyPerKwh: price, chargedKwh: charged, dischargedKwh: discharged });
      const rollup = sorted.some((p) => p.source === 'power');
      return {
        siteId,
        meterId: meter.meterId,
        meterSn: meter.sn,
        deviceType: meter.deviceType ?? 'meter',
        from: seg.from,
        to: seg.to,
        startMs: a,
        endMs: b,
        tier,
        multiplier,
        importStartKwh: null,
        importEndKwh: null,
        exportStartKwh: null,
        exportEndKwh: null,
        chargedKwh: charged,
        dischargedKwh: discharged,
        chargedSource: rollup ? 'rollup' : 'register',
        dischargedSource: rollup ? 'rollup' : 'register',
        priceCnyPerKwh: price,
        costCny: v.costCny,
        valueCny: v.valueCny,
        netCny: v.netCny,
        problem: sorted.some(
          (p) => backwards(p.chargeStart, p.chargeEnd) || backwards(p.dischargeStart, p.dischargeEnd),
        )
          ? 'reading_backwards'
          : null,
        missingDates: [],
        periods: sorted,
      } satisfies BillLine;
    });
}

/**
 * The bill of one project for one month (see the module note for every rule).
 * Throws {@link BillInputError} for a contract that cannot be split or a bound date without a tariff.
 */
export function computeBill(input: BillInput): BillResult {
  const problem = billContractProblem(
    input.contract,
    input.sites.flatMap((s) => s.meters),
  );
  if (problem) throw problem;
  const { first, next, days: monthDays } = monthBounds(input.month);

  const sites: BillSiteSummary[] = [];
  const segments: BillSegment[] = [];
  const lines: BillLine[] = [];
  const demand: BillDemandLine[] = [];

  for (const site of input.sites) {
    const monthStartMs = localDateStart(first, site.timeZone);
    const monthEndMs = localDateStart(next, site.timeZone);
    let billedMs = 0;
    for (const seg of siteSegments(site, first, next)) {
      const startMs = localDateStart(seg.from, site.timeZone);
      const endMs = localDateStart(seg.to, site.timeZone);
      billedMs += endMs - startMs;
      const segDays = daysBetween(seg.from, seg.to);
      segments.push({
        siteId: site.siteId,
        from: seg.from,
        to: seg.to,
        startMs,
        endMs,
        days: segDays,
        hours: (endMs - startMs) / 3_600_000,
        pricesCnyPerKwh: seg.tariff.pricesCnyPerKwh,
      });

      for (const meter of site.meters) {
        const a = Math.max(startMs, meter.installedAtMs ?? -Infinity);
        const b = Math.min(endMs, meter.removedAtMs ?? Infinity);
        if (a >= b) continue;
        const multiplier = meterPrimaryKwh(1, meter);
        if (meter.periods) {
          lines.push(...periodLines(site.siteId, meter, seg, a, b, multiplier));
          continue;
        }
        const ra = readingAt(meter.readings, a);
        const rb = readingAt(meter.readings, b);
        for (const tier of TOU_TIERS) {
          let problemFlag: BillLine['problem'] = null;
          const missingDates = new Set<string>();
          const side = (direction: 'importKwh' | 'exportKwh') => {
            const start = ra ? ra[direction][tier] : null;
            const end = rb ? rb[direction][tier] : null;
            if (start !== null && end !== null) {
              const kwh = registerEnergyKwh(start, end, multiplier, 1);
              if (kwh !== null) return { start, end, kwh, source: 'register' as const };
              problemFlag = 'reading_backwards';
            }
            const fb = fallbackEnergy(meter, site.timeZone, seg.from, seg.to, a, b, direction, tier);
            for (const d of fb.missing) missingDates.add(d);
            return { start, end, kwh: fb.kwh, source: 'rollup' as const };
          };
          const imp = side('importKwh');
          const exp = side('exportKwh');
          const price = seg.tariff.pricesCnyPerKwh[tier];
          const v = valueLine({ tier, priceCnyPerKwh: price, chargedKwh: imp.kwh, dischargedKwh: exp.kwh });
          lines.push({
            siteId: site.siteId,
            meterId: meter.meterId,
            meterSn: meter.sn,
            deviceType: meter.deviceType ?? 'meter',
            from: seg.from,
            to: seg.to,
            startMs: a,
            endMs: b,
            tier,
            multiplier,
            importStartKwh: imp.start,
            importEndKwh: imp.end,
            exportStartKwh: exp.start,
            exportEndKwh: exp.end,
            chargedKwh: imp.kwh,
            dischargedKwh: exp.kwh,
            chargedSource: imp.source,
            dischargedSource: exp.source,
            priceCnyPerKwh: price,
            costCny: v.costCny,
            valueCny: v.valueCny,
            netCny: v.netCny,
            problem: problemFlag,
            missingDates: [...missingDates].sort(),
          });
        }
      }

      const fraction = segDays / monthDays;
      const baseline = twoPartChargesCny(seg.tariff.twoPart, {
        maxDemandKw: site.demand?.baselineMaxDemandKw ?? null,
        monthFraction: fraction,
      });
      const measured = twoPartChargesCny(seg.tariff.twoPart, {
        maxDemandKw: site.demand?.maxDemandKw ?? null,
        monthFraction: fraction,
      });
      // Every segment priced with a basic charge has its line, also when the demand was not
      // measured (null kW, 0 CNY: the bill says "not measured" rather than "no two-part tariff").
      const twoPart = seg.tariff.twoPart;
      const basicCharge =
        (twoPart.demandChargeCnyPerKwMonth !== null && twoPart.demandBasis !== null) ||
        (twoPart.capacityChargeCnyPerKvaMonth !== null && twoPart.transformerKva !== null);
      if (basicCharge) {
        demand.push({
          siteId: site.siteId,
          from: seg.from,
          to: seg.to,
          monthFraction: fraction,
          baselineKw: baseline.demandKw,
          measuredKw: measured.demandKw,
          baselineCny: baseline.totalCny,
          measuredCny: measured.totalCny,
          changeCny: cnyOf(toFen(baseline.totalCny) - toFen(measured.totalCny)),
        });
      }
    }
    sites.push({
      siteId: site.siteId,
      siteName: site.siteName,
      timeZone: site.timeZone,
      monthStartMs,
      monthEndMs,
      monthHours: (monthEndMs - monthStartMs) / 3_600_000,
      billedHours: billedMs / 3_600_000,
    });
  }

  const sumFen = (xs: readonly number[]) => xs.reduce((s, x) => s + toFen(x), 0);
  const costFen = sumFen(lines.map((l) => l.costCny));
  const valueFen = sumFen(lines.map((l) => l.valueCny));
  const demandFen = sumFen(demand.map((d) => d.changeCny));
  const netFen = valueFen - costFen + demandFen;

  const c = input.contract;
  const maintenanceFen = toFen(c.maintenanceCnyPerMonth);
  const insuranceFen = toFen(c.insuranceCnyPerMonth);
  let rentFen = 0;
  if (c.incomeMode === 'leasing') {
    const rent =
      c.rentBasis === 'per_kwh_capacity' ? (c.rentCny ?? 0) * (c.capacityKwh ?? 0) : (c.rentCny ?? 0);
    rentFen = toFen(Number((rent * 100).toPrecision(15)) / 100);
  }

  const investorWeights = c.investors.map((i) => basisPoints(i.ratioPct));
  const parties: BillParty[] = [
    {
      role: 'owner' as const,
      companyId: input.owner?.companyId ?? null,
      name: input.owner?.name ?? null,
      ratioPct: c.ownerSharePct ?? 0,
    },
    ...c.investors.map((i) => ({
      role: 'investor' as const,
      companyId: i.companyId,
      name: i.name,
      ratioPct: i.ratioPct,
    })),
  ].map((p) => ({ ...p, benefitCny: 0, rentCny: 0, maintenanceCny: 0, insuranceCny: 0, payableCny: 0 }));
  const fenOf = parties.map(() => ({ benefit: 0, rent: 0, maintenance: 0, insurance: 0 }));
  const toInvestors = (amountFen: number, key: 'benefit' | 'rent' | 'maintenance' | 'insurance') =>
    splitFen(amountFen, investorWeights).forEach((v, i) => {
      fenOf[i + 1]![key] += v;
    });

  if (c.incomeMode === 'self_investment') {
    const shared = c.costBearer === 'shared' ? maintenanceFen + insuranceFen : 0;
    const weights = [basisPoints(c.ownerSharePct ?? 0), ...investorWeights];
    splitFen(netFen - shared, weights).forEach((v, i) => {
      fenOf[i]!.benefit = v;
    });
    if (c.costBearer === 'shared') {
      // Shown per party: the split of each cost by the same weights (already out of the benefit).
      const m = splitFen(-maintenanceFen, weights);
      const ins = splitFen(-insuranceFen, weights);
      // Keep benefit + costs = the party's share of the net benefit: add the costs back to benefit.
      m.forEach((v, i) => {
        fenOf[i]!.maintenance = v;
        fenOf[i]!.benefit -= v;
      });
      ins.forEach((v, i) => {
        fenOf[i]!.insurance = v;
        fenOf[i]!.benefit -= v;
      });
    }
  } else {
    fenOf[0]!.benefit = netFen;
    fenOf[0]!.rent = -rentFen;
    toInvestors(rentFen, 'rent');
  }
  if (c.costBearer === 'owner') {
    fenOf[0]!.maintenance = -maintenanceFen;
    fenOf[0]!.insurance = -insuranceFen;
  } else if (c.costBearer === 'investors') {
    toInvestors(-maintenanceFen, 'maintenance');
    toInvestors(-insuranceFen, 'insurance');
  } else if (c.incomeMode === 'leasing') {
    const [ownerM, investorsM] = splitFen(-maintenanceFen, [1, 1]) as [number, number];
    const [ownerI, investorsI] = splitFen(-insuranceFen, [1, 1]) as [number, number];
    fenOf[0]!.maintenance = ownerM;
    fenOf[0]!.insurance = ownerI;
    toInvestors(investorsM, 'maintenance');
    toInvestors(investorsI, 'insurance');
  }
  parties.forEach((p, i) => {
    const f = fenOf[i]!;
    p.benefitCny = cnyOf(f.benefit);
    p.rentCny = cnyOf(f.rent);
    p.maintenanceCny = cnyOf(f.maintenance);
    p.insuranceCny = cnyOf(f.insurance);
    p.payableCny = cnyOf(f.benefit + f.rent + f.maintenance + f.insurance);
  });

  const chargedKwh = roundKwh(lines.reduce((s, l) => s + l.chargedKwh, 0));
  const dischargedKwh = roundKwh(lines.reduce((s, l) => s + l.dischargedKwh, 0));
  return {
    month: input.month,
    incomeMode: c.incomeMode,
    sites,
    segments,
    lines,
    demand,
    totals: {
      chargedKwh,
      dischargedKwh,
      costCny: cnyOf(costFen),
      valueCny: cnyOf(valueFen),
      energyNetCny: cnyOf(valueFen - costFen),
      demandChangeCny: cnyOf(demandFen),
      netBenefitCny: cnyOf(netFen),
      rentCny: cnyOf(rentFen),
      maintenanceCny: cnyOf(maintenanceFen),
      insuranceCny: cnyOf(insuranceFen),
      distributedCny: cnyOf(netFen - maintenanceFen - insuranceFen),
    },
    parties,
    flags: {
      rollupLines: lines.filter((l) => l.chargedSource === 'rollup' || l.dischargedSource === 'rollup')
        .length,
      backwardsLines: lines.filter((l) => l.problem === 'reading_backwards').length,
      missingDates: new Set(lines.flatMap((l) => l.missingDates)).size,
    },
  };
}
