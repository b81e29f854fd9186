/**
 * Energy per tier (issue 17 item 3): charged and discharged kWh of each storage metering device
 * per ToU period of a site-local day, stored in `energy_tier_day` for closed days (the
 * `energy-tier` task kind) and computed on the fly for today so far ({@link todayTierLines}).
 *
 * Storage metering devices of a site ({@link storageMeters}):
 * - the meters a project declares (`project_meter`, issue 17 item 1): their import register is
 *   the energy charged, export the energy discharged; × CT × PT when the meter reads the
 *   secondary side (`reads_secondary`), else × 1;
 * - else the devices the contract's site-figure rule names for a site's charge/discharge registers
 *   (`chargeTotalKwh`/`dischargeTotalKwh`: the PCS's AC registers, or the gateway's own on a
 *   gateway-only site), × 1. The demo fleet's meter (`MTR-…`) is the site's grid meter (load, PV
 *   and battery together), not a storage meter, so the demo prices its PCS registers.
 *
 * Conversely a declared storage meter is never the site's grid meter: the site-figure rule leaves
 * it out of every figure (contract device/site-figures.ts `FigureDevice.storageMeter`, SQL
 * `figureSourcesSql`), so grid power and the bills' maximum demand read the site's other meters,
 * else its gateway's `grid_kw`.
 *
 * Energy of a period `[start, end)` (README "Metering": reading difference × CT × PT):
 * - `registers`: the cumulative registers read at both bounds from the 15-minute rollups — the
 *   reading at bound t is the last value of the quarter hour ending at t, else the first value of
 *   the quarter hour starting at t (a bound between quarter hours reads the quarter hour it falls
 *   in). Both registers must be read at both bounds and must not go backwards;
 * - `power`: otherwise (a reading missing, a register reset or replaced meter) Σ over the period's
 *   quarter hours of the rollup's mean power × ¼ h, split by sign (meter: + import = charging;
 *   PCS/gateway: + discharging, design §4), and the row says so (the bill flags it);
 * - `none`: neither registers nor power in the period: 0 kWh, flagged.
 *
 * Meter swaps (`project_meter_swap`, issue 17 "meter replaced: record the swap, bill both parts"):
 * the device row stays, the physical meter changes at `swapped_at`. A period holding a swap
 * instant is stored as two rows split there (same ToU period and price, `start_at`/`end_at` the
 * parts): `[start, swap)` from the start reading to the old meter's final reading × the old
 * meter's multiplier, `[swap, end)` from the new meter's initial reading to the end reading × the
 * new one's. A period before a swap uses that swap's old multiplier (CT × PT of the old meter);
 * after the last swap, the `project_meter` row's. A quarter hour holding the swap counts (power
 * fallback) in the part before it. Recording or deleting a swap, and declaring a storage meter or
 * changing its CT/PT, re-price the site's unsettled closed days ({@link repriceSiteDays}).
 *
 * Prices: the day's tariff version (tariff-history.ts), its plan for the day (contract
 * money/tier-periods.ts `dayPeriods`, on contract tou/resolve.ts); no version: one period without
 * tier or price. Daylight-saving days have 23 h or 25 h and periods keep their wall-clock bounds.
 */
import {
  addDays,
  dayPeriods,
  localDateStart,
  localTimeOf,
  type PricedEnergy,
  registerEnergyKwh,
  roundKwh,
  type TouTier,
  valueEnergy,
} from '@ess/contract';
import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { numOrNull, numOrZero, rowsOf } from '../core/db/rows';
import { energyTierDay } from '../core/db/schema';
import { figureSourcesSql } from './site-figures';
import { type TariffVersion, tariffsForDays, versionOfDay } from './tariff-history';

const QUARTER_MS = 900_000;

/**
 * A site-local day is closed — its energy per tier and maximum demand stored — once it ended this
 * long ago, so its last quarter hour is in (closed-days.ts).
 */
export const DAY_CLOSED_AFTER_MS = 30 * 60_000;

/** A storage metering device of a site and how to read it. */
export interface StorageMeter {
  siteId: number;
  companyId: number;
  timezone: string;
  deviceId: number;
  /** Register of energy into storage (meter import / PCS charge). */
  chargePoint: string;
  /** Register of energy out of storage (meter export / PCS discharge). */
  dischargePoint: string;
  /** +1: positive `p_kw` is charging (meter import); −1: positive is discharging (PCS). */
  chargeSign: 1 | -1;
  /** CT × PT applied to register differences (after the last swap: the project_meter row's). */
  multiplier: number;
  /** Recorded swaps of a declared meter, oldest first (none for PCS/gateway registers). */
  swaps: readonly MeterSwapPoint[];
}

/** A recorded meter swap as the energy rule reads it (see the module note). */
export interface MeterSwapPoint {
  /** UTC ms of the swap. */
  atMs: number;
  /** The old meter's final total import/export registers (its own side, kWh). */
  oldImportKwh: number;
  oldExportKwh: number;
  /** The new meter's initial total import/export registers. */
  newImportKwh: number;
  newExportKwh: number;
  /** CT × PT of the old meter (1 when it read the primary side). */
  oldMultiplier: number;
}

/** The multiplier that applies at instant `t`: the old one of the first swap after `t`, else the meter's. */
function multiplierAt(meter: StorageMeter, t: number): number {
  return meter.swaps.find((s) => s.atMs > t)?.oldMultiplier ?? meter.multiplier;
}

/** One quarter hour of rollups of a device: points → first/last/mean. */
type Quarter = Map<string, { first: number; last: number; mean: number }>;

/** One computed period. */
export interface TierLine {
  day: string;
  startMs: number;
  endMs: number;
  start: string;
  end: string;
  tier: TouTier | null;
  priceCnyPerKwh: number | null;
  siteTariffId: number | null;
  chargedKwh: number;
  dischargedKwh: number;
  source: 'registers' | 'power' | 'none';
  chargeStart: number | null;
  chargeEnd: number | null;
  dischargeStart: number | null;
  dischargeEnd: number | null;
  multiplier: number;
}

/** The storage metering devices of `siteIds` (see the module note). */
export async function storageMeters(db: Db, siteIds: readonly number[]): Promise<StorageMeter[]> {
  if (siteIds.length === 0) return [];
  const ids = sql.join(
    siteIds.map((id) => sql`${id}::int`),
    sql`, `,
  );
  const declared = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      SELECT DISTINCT ON (d.id) d.id AS device_id, s.id AS site_id, s.company_id, s.timezone,
             CASE WHEN pm.reads_secondary THEN pm.ct_ratio::float8 * pm.pt_ratio::float8 ELSE 1 END AS multiplier
      FROM project_meter pm JOIN device d ON d.id = pm.device_id JOIN site s ON s.id = d.site_id
      WHERE s.id IN (${ids}) ORDER BY d.id, pm.id DESC`),
  );
  const out: StorageMeter[] = declared.map((r) => ({
    siteId: numOrZero(r.site_id),
    companyId: numOrZero(r.company_id),
    timezone: String(r.timezone),
    deviceId: numOrZero(r.device_id),
    chargePoint: 'e_import_total_kwh',
    dischargePoint: 'e_export_total_kwh',
    chargeSign: 1,
    multiplier: numOrZero(r.multiplier) || 1,
    swaps: [],
  }));
  if (out.length > 0) {
    const swapRows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT device_id, (extract(epoch FROM swapped_at) * 1000)::float8 AS at_ms,
               old_import_kwh, old_export_kwh, new_import_kwh, new_export_kwh,
               CASE WHEN old_reads_secondary THEN old_ct_ratio::float8 * old_pt_ratio::float8 ELSE 1 END AS old_multiplier
        FROM project_meter_swap
        WHERE device_id IN (${sql.join(
          out.map((m) => sql`${m.deviceId}::int`),
          sql`, `,
        )})
        ORDER BY device_id, swapped_at`),
    );
    for (const m of out) {
      m.swaps = swapRows
        .filter((r) => numOrZero(r.device_id) === m.deviceId)
        .map((r) => ({
          atMs: numOrZero(r.at_ms),
          oldImportKwh: numOrZero(r.old_import_kwh),
          oldExportKwh: numOrZero(r.old_export_kwh),
          newImportKwh: numOrZero(r.new_import_kwh),
          newExportKwh: numOrZero(r.new_export_kwh),
          oldMultiplier: numOrZero(r.old_multiplier) || 1,
        }));
    }
  }
  const withMeters = new Set(out.map((m) => m.siteId));
  const rest = siteIds.filter((id) => !withMeters.has(id));
  if (rest.length > 0) {
    const restIds = sql.join(
      rest.map((id) => sql`${id}::int`),
      sql`, `,
    );
    const rows = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT src.site_id, s.company_id, s.timezone, src.device_id,
               max(src.point) FILTER (WHERE src.figure = 'chargeTotalKwh') AS charge_point,
               max(src.point) FILTER (WHERE src.figure = 'dischargeTotalKwh') AS discharge_point
        FROM ${figureSourcesSql(sql`SELECT unnest(ARRAY[${restIds}])`, ['chargeTotalKwh', 'dischargeTotalKwh'])} src
        JOIN site s ON s.id = src.site_id
        GROUP BY src.site_id, s.company_id, s.timezone, src.device_id ORDER BY src.device_id`),
    );
    for (const r of rows) {
      if (!r.charge_point || !r.discharge_point) continue;
      out.push({
        siteId: numOrZero(r.site_id),
        companyId: numOrZero(r.company_id),
        timezone: String(r.timezone),
        deviceId: numOrZero(r.device_id),
        chargePoint: String(r.charge_point),
        dischargePoint: String(r.discharge_point),
        chargeSign: -1,
        multiplier: 1,
        swaps: [],
      });
    }
  }
  return out;
}

/** The 15-minute rollups of `meter` over `[fromMs, toMs)`, by quarter start (ms). */
async function quartersOf(
  db: Db,
  meter: StorageMeter,
  fromMs: number,
  toMs: number,
): Promise<Map<number, Quarter>> {
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      SELECT (extract(epoch FROM bucket_start) * 1000)::float8 AS t, point, first_value, last_value,
             CASE WHEN n > 0 THEN sum / n END AS mean
      FROM telemetry_rollup
      WHERE device_id = ${meter.deviceId} AND bucket_s = 900
        AND point IN (${meter.chargePoint}, ${meter.dischargePoint}, 'p_kw')
        AND bucket_start >= ${new Date(fromMs).toISOString()}::timestamptz
        AND bucket_start < ${new Date(toMs).toISOString()}::timestamptz`),
  );
  const out = new Map<number, Quarter>();
  for (const r of rows) {
    const t = numOrZero(r.t);
    const q = out.get(t) ?? new Map();
    q.set(String(r.point), {
      first: numOrZero(r.first_value),
      last: numOrZero(r.last_value),
      mean: numOrNull(r.mean) ?? 0,
    });
    out.set(t, q);
  }
  return out;
}

/** The register `point` at instant `t` (see the module note), or null. */
function readingAt(quarters: Map<number, Quarter>, point: string, t: number): number | null {
  const q = Math.floor(t / QUARTER_MS) * QUARTER_MS;
  const aligned = q === t;
  const before = quarters.get(aligned ? t - QUARTER_MS : q)?.get(point);
  if (before) return aligned ? before.last : before.first;
  const after = quarters.get(aligned ? t : q + QUARTER_MS)?.get(point);
  return after ? after.first : null;
}

/**
 * The latest reading of `point` in the running period `[fromMs, nowMs]`: the last value of the
 * last quarter hour starting in it that has the point (null when none: then power is used).
 */
function latestReading(
  quarters: Map<number, Quarter>,
  point: string,
  fromMs: number,
  nowMs: number,
): number | null {
  for (let q = Math.floor(nowMs / QUARTER_MS) * QUARTER_MS; q >= fromMs; q -= QUARTER_MS) {
    const v = quarters.get(q)?.get(point);
    if (v) return v.last;
  }
  return null;
}

/**
 * The periods of `meter` on local `day` (see the module note). With `nowMs` (today so far):
 * periods starting after it are left out and the running one ends at the latest reading.
 */
export function tierLinesOfDay(
  meter: StorageMeter,
  day: string,
  version: TariffVersion | null,
  quarters: Map<number, Quarter>,
  nowMs?: number,
): TierLine[] {
  const lines: TierLine[] = [];
  for (const p of dayPeriods(version?.document ?? null, day, meter.timezone)) {
    if (p.endMs <= p.startMs) continue;
    if (nowMs !== undefined && p.startMs >= nowMs) break;
    const running = nowMs !== undefined && p.endMs > nowMs;
    const periodEndMs = running ? nowMs! : p.endMs;
    // The period's parts: split at each swap inside it (see the module note).
    const cuts = meter.swaps.filter((s) => s.atMs > p.startMs && s.atMs < periodEndMs).map((s) => s.atMs);
    const bounds = [p.startMs, ...cuts, periodEndMs];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const partStart = bounds[i]!;
      const endMs = bounds[i + 1]!;
      const last = i + 2 === bounds.length;
      lines.push(partLine(meter, day, p, version, quarters, partStart, endMs, running && last, i === 0));
    }
  }
  return lines;
}

/**
 * One stored row: the part `[startMs, endMs)` of ToU period `p` (the whole period without a swap
 * inside). A bound at a swap instant reads the swap's readings (the new meter's initial at the
 * start, the old meter's final at the end); any other bound the rollups.
 */
function partLine(
  meter: StorageMeter,
  day: string,
  p: { startMs: number; start: string; end: string; tier: TouTier | null; priceCnyPerKwh: number | null },
  version: TariffVersion | null,
  quarters: Map<number, Quarter>,
  startMs: number,
  endMs: number,
  running: boolean,
  first: boolean,
): TierLine {
  const swapAtStart = meter.swaps.find((s) => s.atMs === startMs);
  const swapAtEnd = running ? undefined : meter.swaps.find((s) => s.atMs === endMs);
  const multiplier = multiplierAt(meter, startMs);
  const cs = swapAtStart ? swapAtStart.newImportKwh : readingAt(quarters, meter.chargePoint, startMs);
  const ds = swapAtStart ? swapAtStart.newExportKwh : readingAt(quarters, meter.dischargePoint, startMs);
  const ce = swapAtEnd
    ? swapAtEnd.oldImportKwh
    : running
      ? latestReading(quarters, meter.chargePoint, startMs, endMs)
      : readingAt(quarters, meter.chargePoint, endMs);
  const de = swapAtEnd
    ? swapAtEnd.oldExportKwh
    : running
      ? latestReading(quarters, meter.dischargePoint, startMs, endMs)
      : readingAt(quarters, meter.dischargePoint, endMs);
  const charged = cs !== null && ce !== null ? registerEnergyKwh(cs, ce, multiplier) : null;
  const discharged = ds !== null && de !== null ? registerEnergyKwh(ds, de, multiplier) : null;
  let source: TierLine['source'] = 'registers';
  let chargedKwh = charged ?? 0;
  let dischargedKwh = discharged ?? 0;
  if (charged === null || discharged === null) {
    // Fallback: mean power of each quarter hour of the period × ¼ h, split by sign.
    let c = 0;
    let d = 0;
    let seen = false;
    // The quarter hour holding a swap counts in the part before it.
    const from = first
      ? Math.floor(startMs / QUARTER_MS) * QUARTER_MS
      : Math.ceil(startMs / QUARTER_MS) * QUARTER_MS;
    for (let q = from; q < endMs; q += QUARTER_MS) {
      const v = quarters.get(q)?.get('p_kw');
      if (!v) continue;
      seen = true;
      const kw = v.mean * meter.chargeSign;
      if (kw > 0) c += kw * 0.25;
      else d += -kw * 0.25;
    }
    source = seen ? 'power' : 'none';
    chargedKwh = roundKwh(c * multiplier);
    dischargedKwh = roundKwh(d * multiplier);
  }
  return {
    day,
    startMs,
    endMs,
    start: p.start,
    end: p.end,
    tier: version ? p.tier : null,
    priceCnyPerKwh: version ? p.priceCnyPerKwh : null,
    siteTariffId: version?.id ?? null,
    chargedKwh,
    dischargedKwh,
    source,
    chargeStart: cs,
    chargeEnd: ce,
    dischargeStart: ds,
    dischargeEnd: de,
    multiplier,
  };
}

/**
 * Computes and stores (replacing) the periods of `meter` on the local `days` (closed days).
 * Answers the rows written.
 */
export async function computeTierDays(
  db: Db,
  meter: StorageMeter,
  days: readonly string[],
  versions: readonly TariffVersion[],
): Promise<number> {
  if (days.length === 0) return 0;
  const sorted = [...days].sort();
  const fromMs = localDateStart(sorted[0]!, meter.timezone) - QUARTER_MS;
  const toMs = localDateStart(addDays(sorted.at(-1)!, 1), meter.timezone) + QUARTER_MS;
  const quarters = await quartersOf(db, meter, fromMs, toMs);
  const rows = sorted.flatMap((day) =>
    tierLinesOfDay(meter, day, versionOfDay(versions, day), quarters).map((l) => ({
      companyId: meter.companyId,
      siteId: meter.siteId,
      deviceId: meter.deviceId,
      day: l.day,
      startAt: new Date(l.startMs),
      endAt: new Date(l.endMs),
      startHhmm: l.start,
      endHhmm: l.end,
      tier: l.tier,
      priceCnyPerKwh: l.priceCnyPerKwh,
      siteTariffId: l.siteTariffId,
      chargedKwh: l.chargedKwh,
      dischargedKwh: l.dischargedKwh,
      source: l.source,
      chargeStart: l.chargeStart,
      chargeEnd: l.chargeEnd,
      dischargeStart: l.dischargeStart,
      dischargeEnd: l.dischargeEnd,
      multiplier: l.multiplier,
    })),
  );
  await db.transaction(async (tx) => {
    await tx
      .delete(energyTierDay)
      .where(and(eq(energyTierDay.deviceId, meter.deviceId), inArray(energyTierDay.day, sorted)));
    // Two runs of the same day at once (the task and a screen's catch-up) both write it whole: the
    // later one's rows win instead of a key violation.
    const excluded = (column: string) => sql.raw(`excluded.${column}`);
    for (let i = 0; i < rows.length; i += 500) {
      await tx
        .insert(energyTierDay)
        .values(rows.slice(i, i + 500))
        .onConflictDoUpdate({
          target: [energyTierDay.deviceId, energyTierDay.startAt],
          set: {
            day: excluded('day'),
            endAt: excluded('end_at'),
            startHhmm: excluded('start_hhmm'),
            endHhmm: excluded('end_hhmm'),
            tier: excluded('tier'),
            priceCnyPerKwh: excluded('price_cny_per_kwh'),
            siteTariffId: excluded('site_tariff_id'),
            chargedKwh: excluded('charged_kwh'),
            dischargedKwh: excluded('discharged_kwh'),
            source: excluded('source'),
            chargeStart: excluded('charge_start'),
            chargeEnd: excluded('charge_end'),
            dischargeStart: excluded('discharge_start'),
            dischargeEnd: excluded('discharge_end'),
            multiplier: excluded('multiplier'),
            computedAt: excluded('computed_at'),
          },
        });
    }
  });
  return rows.length;
}

/** What a run of {@link computeMissingTierDays} did. */
export interface TierRunResult {
  meters: number;
  days: number;
  rows: number;
}

/**
 * Fills `energy_tier_day` for every storage meter of every site (or of `siteIds`): each closed
 * site-local day (ended at least 30 minutes before `nowMs`, so its last quarter hour is in) of the
 * last `lookbackDays` days that has 15-minute rollups of the device and no rows yet. Idempotent;
 * stops early when `signal` is aborted.
 */
export async function computeMissingTierDays(
  db: Db,
  opts: { nowMs: number; lookbackDays: number; siteIds?: readonly number[]; signal?: AbortSignal },
): Promise<TierRunResult> {
  const siteIds =
    opts.siteIds ??
    rowsOf<{ id: number }>(await db.execute(sql`SELECT id FROM site ORDER BY id`)).map((r) =>
      numOrZero(r.id),
    );
  const meters = await storageMeters(db, siteIds);
  const versions = await tariffsForDays(db, [...new Set(meters.map((m) => m.siteId))]);
  const result: TierRunResult = { meters: meters.length, days: 0, rows: 0 };
  for (const meter of meters) {
    if (opts.signal?.aborted) break;
    const today = localTimeOf(opts.nowMs, meter.timezone).date;
    const closedUntil = localTimeOf(opts.nowMs - DAY_CLOSED_AFTER_MS, meter.timezone).date; // days before it are closed
    const from = addDays(today, -opts.lookbackDays);
    const rows = rowsOf<{ day: string; done: boolean }>(
      await db.execute(sql`
        SELECT to_char((r.bucket_start AT TIME ZONE ${meter.timezone})::date, 'YYYY-MM-DD') AS day,
               bool_or(e.device_id IS NOT NULL) AS done
        FROM telemetry_rollup r
        LEFT JOIN energy_tier_day e ON e.device_id = r.device_id
             AND e.day = (r.bucket_start AT TIME ZONE ${meter.timezone})::date
        WHERE r.device_id = ${meter.deviceId} AND r.bucket_s = 86400 AND r.point = ${meter.dischargePoint}
          AND r.bucket_start >= ${new Date(localDateStart(from, meter.timezone)).toISOString()}::timestamptz
          AND r.bucket_start < ${new Date(localDateStart(closedUntil, meter.timezone)).toISOString()}::timestamptz
        GROUP BY 1`),
    );
    const missing = rows.filter((r) => !r.done).map((r) => String(r.day));
    for (let i = 0; i < missing.length && !opts.signal?.aborted; i += 31) {
      const chunk = missing.slice(i, i + 31);
      result.rows += await computeTierDays(db, meter, chunk, versions.get(meter.siteId) ?? []);
      result.days += chunk.length;
    }
  }
  return result;
}

/**
 * Drops the stored periods of every device of `siteId` from local day `fromDay` on, so they are
 * computed again ({@link fillTierDaysFrom} right after, else the `energy-tier` task within its
 * lookback). Run inside the write that changes how the site is measured (a meter swap recorded or
 * deleted, a storage meter declared or its CT/PT changed); the caller checks that `fromDay` is not
 * in a settled month (tariff-history.ts `firstUnsettledDate`).
 */
export async function dropTierDays(db: Pick<Db, 'delete'>, siteId: number, fromDay: string): Promise<void> {
  await db
    .delete(energyTierDay)
    .where(and(eq(energyTierDay.siteId, siteId), gte(energyTierDay.day, fromDay)));
}

/**
 * Computes `siteId`'s closed days from local `fromDay` to the last closed day that have rollups
 * and no stored periods ({@link computeMissingTierDays} over those days): what a re-pricing does
 * after {@link dropTierDays}. Answers what was written.
 */
export async function fillTierDaysFrom(
  db: Db,
  siteId: number,
  fromDay: string,
  nowMs: number,
): Promise<TierRunResult> {
  const [s] = rowsOf<{ timezone: string }>(
    await db.execute(sql`SELECT timezone FROM site WHERE id = ${siteId}`),
  );
  if (!s) return { meters: 0, days: 0, rows: 0 };
  const today = localTimeOf(nowMs, s.timezone).date;
  const lookbackDays = Math.max(
    0,
    Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${fromDay}T00:00:00Z`)) / 86_400_000),
  );
  return computeMissingTierDays(db, { nowMs, lookbackDays, siteIds: [siteId] });
}

/**
 * Today so far of `siteIds`, per storage meter and period (not stored): the same rule as the
 * closed days, the running period up to the latest reading. For the big screens and dashboard.
 */
export async function todayTierLines(
  db: Db,
  siteIds: readonly number[],
  nowMs: number,
): Promise<Array<TierLine & { siteId: number; deviceId: number }>> {
  const meters = await storageMeters(db, siteIds);
  const versions = await tariffsForDays(db, [...new Set(meters.map((m) => m.siteId))]);
  const out: Array<TierLine & { siteId: number; deviceId: number }> = [];
  for (const meter of meters) {
    const today = localTimeOf(nowMs, meter.timezone).date;
    const start = localDateStart(today, meter.timezone);
    const quarters = await quartersOf(db, meter, start - QUARTER_MS, nowMs + QUARTER_MS);
    const version = versionOfDay(versions.get(meter.siteId) ?? [], today);
    for (const l of tierLinesOfDay(meter, today, version, quarters, nowMs)) {
      out.push({ ...l, siteId: meter.siteId, deviceId: meter.deviceId });
    }
  }
  return out;
}

/** A site counted over local days `[fromDay, toDay]` (inclusive; null = open). */
export interface CountedDays {
  siteId: number;
  timezone: string;
  fromDay: string | null;
  toDay: string | null;
}

/** One priced line of a site: a ToU period of a local day, its storage meters summed. */
export interface SiteDayLine extends PricedEnergy {
  siteId: number;
  day: string;
  start: string;
  end: string;
  /** registers | power | none (the worst of the meters). */
  source: string;
  /** False without a tariff that day (price 0 then, not valued). */
  priced: boolean;
}

/**
 * The lines of `sites` over local days `[from, to]` (each site's own calendar, and within its
 * `fromDay`/`toDay`; a site may be listed more than once with different windows): the stored
 * days before the site's today, plus today so far ({@link todayTierLines}) when today is in range. What revenue
 * statistics, the big screens and the dashboard value with contract money/valuation.ts.
 */
export async function siteDayLines(
  db: Db,
  sites: readonly CountedDays[],
  from: string,
  to: string,
  nowMs: number,
): Promise<SiteDayLine[]> {
  if (sites.length === 0) return [];
  const siteIds = [...new Set(sites.map((s) => s.siteId))];
  const ids = sql.join(
    siteIds.map((id) => sql`${id}::int`),
    sql`, `,
  );
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      SELECT site_id, to_char(day, 'YYYY-MM-DD') AS day, start_hhmm, end_hhmm, tier,
             price_cny_per_kwh::float8 AS price, min(start_at) AS start_at,
             sum(charged_kwh)::float8 AS charged, sum(discharged_kwh)::float8 AS discharged,
             CASE WHEN bool_or(source = 'none') THEN 'none' WHEN bool_or(source = 'power') THEN 'power'
                  ELSE 'registers' END AS source
      FROM energy_tier_day
      WHERE site_id IN (${ids}) AND day >= ${from}::date AND day <= ${to}::date
      GROUP BY site_id, day, start_hhmm, end_hhmm, tier, price_cny_per_kwh
      ORDER BY site_id, day, min(start_at)`),
  );
  const windows = new Map<number, CountedDays[]>();
  for (const s of sites) windows.set(s.siteId, [...(windows.get(s.siteId) ?? []), s]);
  const counted = (siteId: number, day: string) =>
    (windows.get(siteId) ?? []).some(
      (w) => (w.fromDay === null || day >= w.fromDay) && (w.toDay === null || day <= w.toDay),
    );
  const out: SiteDayLine[] = [];
  for (const r of rows) {
    const siteId = numOrZero(r.site_id);
    const day = String(r.day);
    // Today (and later) comes from the live lines below, never from rows stored for it.
    if (!counted(siteId, day) || day >= localTimeOf(nowMs, windows.get(siteId)![0]!.timezone).date) continue;
    const price = numOrNull(r.price);
    out.push({
      siteId,
      day,
      start: String(r.start_hhmm),
      end: String(r.end_hhmm),
      tier: (r.tier ?? null) as TouTier | null,
      priceCnyPerKwh: price ?? 0,
      priced: price !== null,
      chargedKwh: numOrZero(r.charged),
      dischargedKwh: numOrZero(r.discharged),
      source: String(r.source),
    });
  }
  const todaySites = siteIds.filter((id) => {
    const tz = windows.get(id)![0]!.timezone;
    const today = localTimeOf(nowMs, tz).date;
    return today >= from && today <= to && counted(id, today);
  });
  if (todaySites.length > 0) {
    const merged = new Map<string, SiteDayLine>();
    for (const l of await todayTierLines(db, todaySites, nowMs)) {
      const key = `${l.siteId}|${l.start}`;
      const m = merged.get(key);
      if (m) {
        m.chargedKwh = roundKwh(m.chargedKwh + l.chargedKwh);
        m.dischargedKwh = roundKwh(m.dischargedKwh + l.dischargedKwh);
        if (l.source === 'none' || (l.source === 'power' && m.source === 'registers')) m.source = l.source;
        continue;
      }
      merged.set(key, {
        siteId: l.siteId,
        day: l.day,
        start: l.start,
        end: l.end,
        tier: l.tier,
        priceCnyPerKwh: l.priceCnyPerKwh ?? 0,
        priced: l.priceCnyPerKwh !== null,
        chargedKwh: l.chargedKwh,
        dischargedKwh: l.dischargedKwh,
        source: l.source,
      });
    }
    out.push(...merged.values());
  }
  return out;
}

/**
 * Revenue of each of `siteIds` today so far and this month so far (site-local), by the one money
 * rule over {@link siteDayLines}: what the big screens and the dashboard show. `priced`: the site
 * has a tariff today (else its energy is not valued).
 */
export async function revenueSoFar(
  db: Db,
  sites: ReadonlyArray<{ siteId: number; timezone: string }>,
  nowMs: number,
): Promise<Map<number, { todayCny: number; monthCny: number; priced: boolean }>> {
  const out = new Map<number, { todayCny: number; monthCny: number; priced: boolean }>();
  if (sites.length === 0) return out;
  await computeMissingTierDays(db, { nowMs, lookbackDays: 1, siteIds: sites.map((s) => s.siteId) });
  const todays = new Map(sites.map((s) => [s.siteId, localTimeOf(nowMs, s.timezone).date]));
  const from = [...todays.values()].map((d) => `${d.slice(0, 7)}-01`).sort()[0]!;
  const to = [...todays.values()].sort().at(-1)!;
  const lines = await siteDayLines(
    db,
    sites.map((s) => ({
      ...s,
      fromDay: `${todays.get(s.siteId)!.slice(0, 7)}-01`,
      toDay: todays.get(s.siteId)!,
    })),
    from,
    to,
    nowMs,
  );
  const versions = await tariffsForDays(
    db,
    sites.map((s) => s.siteId),
  );
  for (const s of sites) {
    const today = todays.get(s.siteId)!;
    const mine = lines.filter((l) => l.siteId === s.siteId && l.priced);
    out.set(s.siteId, {
      todayCny: valueEnergy(mine.filter((l) => l.day === today)).netCny,
      monthCny: valueEnergy(mine).netCny,
      priced: versionOfDay(versions.get(s.siteId) ?? [], today) !== null,
    });
  }
  return out;
}
