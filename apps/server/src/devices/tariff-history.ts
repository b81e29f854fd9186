/**
 * Tariff history (issue 17 item 2): every tariff a site was billed at, by site-local date
 * (table `site_tariff`). One rule answers which prices apply to a site's day: the version with the
 * latest `effective_from` ≤ that day ({@link tariffsForDays}, {@link tariffForDay}); before a site's
 * first version there is none (its energy is recorded without tier or price).
 *
 * Versions are written by the ToU scheme calls (modules/tou): when a scheme is edited, for every
 * site that runs it, and when sites are assigned a scheme, for the newly assigned ones — each from
 * the date the operator picked (default: today, site-local). A version snapshots the scheme's
 * document (the prices as they were) and its two-part charge, so later edits never re-price the
 * days before their date. A second version on the same date replaces the first. The energy rows of
 * the days a version now prices (from its date to yesterday) are dropped in the same transaction
 * and recomputed by the tier-energy task (tier-energy.ts), which answers them again priced.
 *
 * Settled months (issue 17 item 5, monthly bills) must never be re-priced: {@link firstUnsettledDate}
 * is the seam. It answers the first day a new version may start on.
 */
import {
  ErrorCode,
  localTimeOf,
  nextMonthStart,
  type TouSchemeDocument,
  type TwoPartTariff,
} from '@ess/contract';
import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { energyTierDay, site, siteTariff } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';

/** A database or an open transaction (both run the same queries). */
type Queryable = Pick<Db, 'select' | 'insert' | 'delete' | 'execute'>;

/** The earliest date a tariff version can carry ("the beginning of time" of the history). */
export const BEGINNING_OF_TIME = '0001-01-01';

/** One tariff version of a site. */
export interface TariffVersion {
  id: number;
  siteId: number;
  /** First site-local day the version prices, `YYYY-MM-DD`. */
  effectiveFrom: string;
  touSchemeId: number | null;
  schemeName: string;
  schemeVersion: number;
  document: TouSchemeDocument;
  twoPart: TwoPartTariff | null;
}

/**
 * The first site-local date of `siteId` that is not settled: a tariff version may start on it or
 * later, never earlier, so settled months are never re-priced. A month is settled when a
 * confirmed bill (issue 17 item 5, table `bill`) covers the site; the answer is the first day after
 * the latest such month, or {@link BEGINNING_OF_TIME} while none is.
 */
export async function firstUnsettledDate(db: Queryable, siteId: number): Promise<string> {
  const [row] = rowsOf<{ month: string | null }>(
    await db.execute(sql`
      SELECT max(month) AS month FROM bill
      WHERE state = 'confirmed' AND document -> 'sites' @> ${JSON.stringify([{ siteId }])}::jsonb`),
  );
  if (!row?.month) return BEGINNING_OF_TIME;
  return nextMonthStart(String(row.month));
}

/** Today's date of a site in its zone. */
export function siteToday(timezone: string, now = Date.now()): string {
  return localTimeOf(now, timezone).date;
}

/**
 * Writes a version of the scheme `scheme` for each of `siteIds` from `effectiveFrom` (`YYYY-MM-DD`;
 * null: each site's today in its zone). Refuses with 7020 (naming the site and the first allowed
 * date) a date before {@link firstUnsettledDate}. Drops the site's tier-energy rows from the date
 * on, so they are recomputed under the new prices. Run inside the caller's transaction.
 */
export async function writeTariffVersions(
  tx: Queryable,
  input: {
    siteIds: readonly number[];
    scheme: {
      /** null: prices without a scheme (the demo's regional tariff of a site running its own strategy). */
      id: number | null;
      name: string;
      version: number;
      document: TouSchemeDocument;
      twoPart: TwoPartTariff | null;
    };
    effectiveFrom: string | null;
    createdBy: string | null;
    now?: number;
  },
): Promise<void> {
  if (input.siteIds.length === 0) return;
  const sites = await tx
    .select({ id: site.id, companyId: site.companyId, timezone: site.timezone })
    .from(site)
    .where(inArray(site.id, [...input.siteIds]));
  for (const s of sites) {
    const from = input.effectiveFrom ?? siteToday(s.timezone, input.now);
    const first = await firstUnsettledDate(tx, s.id);
    if (from < first) throw new ApiError(ErrorCode.TARIFF_DATE_SETTLED, { date: first }, `siteId ${s.id}`);
    await tx
      .insert(siteTariff)
      .values({
        companyId: s.companyId,
        siteId: s.id,
        effectiveFrom: from,
        touSchemeId: input.scheme.id,
        schemeName: input.scheme.name,
        schemeVersion: input.scheme.version,
        document: input.scheme.document,
        twoPart: input.scheme.twoPart,
        createdBy: input.createdBy,
      })
      .onConflictDoUpdate({
        target: [siteTariff.siteId, siteTariff.effectiveFrom],
        set: {
          touSchemeId: input.scheme.id,
          schemeName: input.scheme.name,
          schemeVersion: input.scheme.version,
          document: input.scheme.document,
          twoPart: input.scheme.twoPart,
          createdBy: input.createdBy,
          createdAt: new Date(input.now ?? Date.now()),
        },
      });
    await tx.delete(energyTierDay).where(and(eq(energyTierDay.siteId, s.id), gte(energyTierDay.day, from)));
  }
}

/** Every version of `siteIds`, oldest first per site. */
export async function tariffVersions(db: Queryable, siteIds: readonly number[]): Promise<TariffVersion[]> {
  if (siteIds.length === 0) return [];
  const rows = await db
    .select()
    .from(siteTariff)
    .where(inArray(siteTariff.siteId, [...siteIds]))
    .orderBy(siteTariff.siteId, siteTariff.effectiveFrom);
  return rows.map((r) => ({
    id: r.id,
    siteId: r.siteId,
    effectiveFrom: r.effectiveFrom,
    touSchemeId: r.touSchemeId,
    schemeName: r.schemeName,
    schemeVersion: r.schemeVersion,
    document: r.document,
    twoPart: r.twoPart ?? null,
  }));
}

/**
 * The version that prices local day `day` among `versions` of one site (oldest first): the latest
 * with `effectiveFrom` ≤ `day`; null before the first.
 */
export function versionOfDay(versions: readonly TariffVersion[], day: string): TariffVersion | null {
  let found: TariffVersion | null = null;
  for (const v of versions) {
    if (v.effectiveFrom <= day) found = v;
    else break;
  }
  return found;
}

/** The tariff version that prices `siteId`'s local day `day` (null: none). */
export async function tariffForDay(
  db: Queryable,
  siteId: number,
  day: string,
): Promise<TariffVersion | null> {
  const rows = rowsOf<{ id: number }>(
    await db.execute(sql`
      SELECT id FROM site_tariff WHERE site_id = ${siteId} AND effective_from <= ${day}::date
      ORDER BY effective_from DESC LIMIT 1`),
  );
  if (!rows[0]) return null;
  const [v] = (await tariffVersions(db, [siteId])).filter((t) => t.id === Number(rows[0]!.id));
  return v ?? null;
}

/** For each site, its versions (oldest first) — what {@link versionOfDay} picks from. */
export async function tariffsForDays(
  db: Queryable,
  siteIds: readonly number[],
): Promise<Map<number, TariffVersion[]>> {
  const out = new Map<number, TariffVersion[]>();
  for (const v of await tariffVersions(db, siteIds)) {
    const list = out.get(v.siteId) ?? [];
    list.push(v);
    out.set(v.siteId, list);
  }
  return out;
}
