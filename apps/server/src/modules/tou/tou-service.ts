/**
 * ToU schemes (spec §3 time tariffs and plans, §5 plan rules, §9 limits): a company's
 * schemes, each one document (packages/contract tou/scheme.ts) of daily, weekly, yearly and
 * exception plans with tariffs and charge strategy, and the sites that run it.
 *
 * Every read and write follows the caller's company scope (tenancy/company-scope.ts): a scheme
 * outside it answers 3090, a site 3036, as if they did not exist. A document is checked with
 * the same `validateScheme` as the console's form before anything is written; the first issue is
 * the answer (its code, the catalogue text, and where in the document). Codes: 3070–3094 rules
 * and scheme errors, 3036 site, 6000 company.
 *
 * Delivery to the EMS (`device_delivery` rows of kind 'tou', `set_tou_plan`) is
 * devices/tou-push.ts on devices/delivery.ts; this service only records what each site should
 * run (the row's `desired` `{schemeId}` and `version`, state pending) and answers which sites
 * need a send.
 */
import {
  describeIssuePath,
  ErrorCode,
  type Lang,
  type TouAssignedSite,
  type TouSchemeDetail,
  type TouSchemeDocument,
  type TouSchemeRow,
  type TwoPartTariff,
  twoPartTariffMissingField,
  validateScheme,
} from '@ess/contract';
import { and, count, eq, ilike, inArray, ne, notInArray, sql } from 'drizzle-orm';
import { type CompanyScope, companyTree, inScope, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { company, deviceDelivery, site, touScheme } from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import { siteCapacityKwhSql, siteRatedPowerKwSql } from '../../devices/site-figures';
import { writeTariffVersions } from '../../devices/tariff-history';
import { TOU_KIND, touDesired, touTargetKey } from '../../devices/tou-push';

type SchemeRecord = typeof touScheme.$inferSelect;

export interface TouListQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
  companyId?: number;
}

/** What a scheme's write changed, for the operation log and the push. */
export interface SchemeSnapshot {
  name: string;
  version: number;
  document: TouSchemeDocument;
}

/**
 * Throws the first rule the document breaks (spec §5, §9) as the answer: its code, the
 * catalogue text in `lang` with `{max}` filled, and where it is ("daily plan "Workday", period 3").
 * `today` (`YYYY-MM-DD`) fixes the current year of rule 3076.
 */
export function assertValidScheme(doc: TouSchemeDocument, today: string, lang: Lang): void {
  const [issue] = validateScheme(doc, { today });
  if (!issue) return;
  const where = describeIssuePath(doc, issue.path, lang);
  throw new ApiError(issue.code, issue.params ?? {}, where || undefined);
}

/**
 * Throws -100 naming the two-part field a charge needs but lacks (contract money/valuation.ts
 * `twoPartTariffMissingField`): a demand price without basis, a contracted basis without kW, a
 * capacity price without transformer kVA.
 */
export function assertValidTwoPart(twoPart: TwoPartTariff | null | undefined): void {
  if (!twoPart) return;
  const field = twoPartTariffMissingField(twoPart);
  if (field) throw new ApiError(ErrorCode.PARAM_ERROR, {}, `twoPart.${field}`);
}

/** Who writes tariff versions and from when (issue 17 item 2; modules/revenue/tariff-history.ts). */
export interface TariffWrite {
  /** Site-local date the new prices apply from; null: each site's today. */
  effectiveFrom: string | null;
  /** Operator recorded with the versions. */
  createdBy: string | null;
}

// Written out qualified: in a one-table select Drizzle renders `${site.id}` as a bare "id", which
// inside these subqueries would mean the device's id.
const siteCapacityKwh = siteCapacityKwhSql(sql`"site"."id"`);
const siteRatedPowerKw = siteRatedPowerKwSql(sql`"site"."id"`);
/** The ToU delivery rows of scheme `schemeId`. */
const rowsOfScheme = (schemeId: number) =>
  and(
    eq(deviceDelivery.kind, TOU_KIND),
    sql`${deviceDelivery.desired} @> ${JSON.stringify(touDesired(schemeId))}::jsonb`,
  );

const planCount = (kind: keyof TouSchemeDocument) =>
  sql<number>`jsonb_array_length(${touScheme.document} -> ${sql.raw(`'${kind}'`)})`;

export class TouService {
  constructor(private readonly db: Db) {}

  /** Schemes in scope, newest change first, with plan counts and the number of sites using each. */
  async list(scope: CompanyScope, q: TouListQuery): Promise<{ list: TouSchemeRow[]; total: number }> {
    const where = and(
      inScope(scope, touScheme.companyId),
      q.companyId ? eq(touScheme.companyId, q.companyId) : undefined,
      q.keyword ? ilike(touScheme.name, likePattern(q.keyword)) : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(touScheme).where(where);
    const rows = await this.db
      .select({
        id: touScheme.id,
        companyId: touScheme.companyId,
        companyName: company.name,
        name: touScheme.name,
        version: touScheme.version,
        updatedAt: touScheme.updatedAt,
        dailyPlanCount: planCount('dailyPlans'),
        weeklyPlanCount: planCount('weeklyPlans'),
        yearlyPlanCount: planCount('yearlyPlans'),
        exceptionPlanCount: planCount('exceptionPlans'),
        siteCount: sql<number>`(SELECT count(*)::int FROM site s WHERE s.tou_scheme_id = "tou_scheme"."id")`,
      })
      .from(touScheme)
      .innerJoin(company, eq(company.id, touScheme.companyId))
      .where(where)
      .orderBy(sql`${touScheme.updatedAt} DESC`, sql`${touScheme.id} DESC`)
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return {
      total: Number(total),
      list: rows.map((r) => ({
        ...r,
        dailyPlanCount: Number(r.dailyPlanCount),
        weeklyPlanCount: Number(r.weeklyPlanCount),
        yearlyPlanCount: Number(r.yearlyPlanCount),
        exceptionPlanCount: Number(r.exceptionPlanCount),
        siteCount: Number(r.siteCount),
        updatedAt: r.updatedAt.toISOString(),
      })),
    };
  }

  /** The scheme if it is in scope; 3090 otherwise. */
  async requireScheme(scope: CompanyScope, id: number): Promise<SchemeRecord> {
    const [row] = await this.db
      .select()
      .from(touScheme)
      .where(and(eq(touScheme.id, id), inScope(scope, touScheme.companyId)));
    if (!row) throw new ApiError(ErrorCode.TOU_SCHEME_NOT_FOUND);
    return row;
  }

  /**
   * The whole scheme with the sites in `scope` that run it (capacity kWh of their BMS, rated kW
   * of their PCS): a scheme of a parent company may run sites of companies below it that the
   * caller does not see.
   */
  async detail(scope: CompanyScope, id: number): Promise<TouSchemeDetail> {
    const scheme = await this.requireScheme(scope, id);
    const [owner] = await this.db
      .select({ name: company.name })
      .from(company)
      .where(eq(company.id, scheme.companyId));
    return {
      id: scheme.id,
      companyId: scheme.companyId,
      companyName: owner?.name ?? '',
      name: scheme.name,
      version: scheme.version,
      document: scheme.document,
      twoPart: scheme.twoPart ?? null,
      sites: await this.sitesOf(scope, scheme.id),
      updatedAt: scheme.updatedAt.toISOString(),
    };
  }

  private async sitesOf(scope: CompanyScope, schemeId: number): Promise<TouAssignedSite[]> {
    const rows = await this.db
      .select({
        siteId: site.id,
        siteName: site.name,
        siteCode: site.code,
        timezone: site.timezone,
        capacityKwh: siteCapacityKwh,
        ratedPowerKw: siteRatedPowerKw,
      })
      .from(site)
      .where(and(eq(site.touSchemeId, schemeId), inScope(scope, site.companyId)))
      .orderBy(site.id);
    return rows.map((r) => ({
      ...r,
      capacityKwh: Number(r.capacityKwh),
      ratedPowerKw: Number(r.ratedPowerKw),
    }));
  }

  /**
   * Creates a scheme of `companyId` (default: the caller's; 6000 when missing or outside the
   * scope). Errors: the first rule broken (3070–3094), 3091 name taken in that company.
   */
  async create(
    scope: CompanyScope,
    input: { companyId: number; name: string; document: TouSchemeDocument; twoPart?: TwoPartTariff | null },
    today: string,
    lang: Lang,
  ): Promise<SchemeRecord> {
    const [owner] = await this.db
      .select({ id: company.id })
      .from(company)
      .where(eq(company.id, input.companyId));
    if (!owner || !scopeIncludes(scope, input.companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    assertValidScheme(input.document, today, lang);
    assertValidTwoPart(input.twoPart);
    await this.assertNameFree(input.companyId, input.name);
    try {
      const [row] = await this.db
        .insert(touScheme)
        .values({
          companyId: input.companyId,
          name: input.name,
          document: input.document,
          twoPart: input.twoPart ?? null,
        })
        .returning();
      return row!;
    } catch (err) {
      if (isUniqueViolation(err, 'tou_scheme_company_name_uq'))
        throw new ApiError(ErrorCode.TOU_SCHEME_NAME_EXISTS);
      throw err;
    }
  }

  /**
   * Saves a new document and name over version `version` (3093 when someone saved in between),
   * answering the new version; the sites running the scheme get it queued (their delivery rows
   * pending at the new version) and a tariff version from `tariff.effectiveFrom` (every site
   * running it, in scope or not: their prices change). Errors: 3090, the first rule broken, -100
   * a two-part field, 3091, 3093, 7020 a date in a settled month.
   */
  async update(
    scope: CompanyScope,
    input: {
      id: number;
      version: number;
      name: string;
      document: TouSchemeDocument;
      twoPart?: TwoPartTariff | null;
    },
    today: string,
    lang: Lang,
    tariff: TariffWrite = { effectiveFrom: null, createdBy: null },
  ): Promise<{ before: SchemeSnapshot; after: SchemeSnapshot; siteIds: number[] }> {
    const existing = await this.requireScheme(scope, input.id);
    assertValidScheme(input.document, today, lang);
    assertValidTwoPart(input.twoPart);
    const twoPart = input.twoPart === undefined ? (existing.twoPart ?? null) : input.twoPart;
    if (existing.version !== input.version) throw new ApiError(ErrorCode.TOU_SCHEME_STALE);
    await this.assertNameFree(existing.companyId, input.name, existing.id);
    const version = input.version + 1;
    try {
      const siteIds = await this.db.transaction(async (tx) => {
        const updated = await tx
          .update(touScheme)
          .set({ name: input.name, document: input.document, twoPart, version, updatedAt: new Date() })
          .where(and(eq(touScheme.id, input.id), eq(touScheme.version, input.version)))
          .returning({ id: touScheme.id });
        if (updated.length === 0) throw new ApiError(ErrorCode.TOU_SCHEME_STALE);
        const running = await tx.select({ id: site.id }).from(site).where(eq(site.touSchemeId, input.id));
        await writeTariffVersions(tx, {
          siteIds: running.map((r) => r.id),
          scheme: { id: input.id, name: input.name, version, document: input.document, twoPart },
          ...tariff,
        });
        const queued = await tx
          .update(deviceDelivery)
          .set({ version, state: 'pending', reason: null, requestedAt: new Date() })
          .where(rowsOfScheme(input.id))
          .returning({ siteId: deviceDelivery.siteId });
        return queued.map((r) => r.siteId);
      });
      return {
        before: { name: existing.name, version: existing.version, document: existing.document },
        after: { name: input.name, version, document: input.document },
        siteIds,
      };
    } catch (err) {
      if (isUniqueViolation(err, 'tou_scheme_company_name_uq'))
        throw new ApiError(ErrorCode.TOU_SCHEME_NAME_EXISTS);
      throw err;
    }
  }

  /**
   * Deletes a scheme no site runs (any site, in the caller's scope or not). Errors: 3090, 3092
   * sites still use it. The scheme row is locked before the sites are counted: an assignment in
   * progress finishes first (and is counted), one that starts later finds no scheme (3090).
   */
  async remove(scope: CompanyScope, id: number): Promise<SchemeSnapshot> {
    const existing = await this.requireScheme(scope, id);
    await this.db.transaction(async (tx) => {
      const [locked] = await tx
        .select({ id: touScheme.id })
        .from(touScheme)
        .where(eq(touScheme.id, id))
        .for('update');
      if (!locked) throw new ApiError(ErrorCode.TOU_SCHEME_NOT_FOUND);
      const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(site).where(eq(site.touSchemeId, id));
      if (Number(n) > 0) throw new ApiError(ErrorCode.TOU_SCHEME_IN_USE);
      await tx.delete(deviceDelivery).where(rowsOfScheme(id));
      await tx.delete(touScheme).where(eq(touScheme.id, id));
    });
    return { name: existing.name, version: existing.version, document: existing.document };
  }

  /**
   * Makes `siteIds` exactly the sites in the caller's scope that run the scheme: in-scope sites
   * no longer listed run none (their EMS keeps the last scheme it received; docs/api.md), sites
   * listed are moved from whatever scheme they ran, and sites outside the scope that run it are
   * left alone. Every listed site must be in the caller's scope and belong to the scheme's
   * company or one below it (3036 otherwise); 3090 when the scheme is gone meanwhile. Answers the
   * in-scope sites before and after, and those whose delivery is now due (newly assigned, or not
   * yet applied at the scheme's version). Newly assigned sites get a tariff version of the scheme
   * from `tariff.effectiveFrom` (tariff history; 7020 a date in a settled month).
   */
  async assign(
    scope: CompanyScope,
    id: number,
    siteIds: readonly number[],
    tariff: TariffWrite = { effectiveFrom: null, createdBy: null },
  ): Promise<{ before: number[]; after: number[]; due: number[] }> {
    const scheme = await this.requireScheme(scope, id);
    const wanted = [...new Set(siteIds)].sort((a, b) => a - b);
    if (wanted.length > 0) {
      const owners = await companyTree(this.db, scheme.companyId);
      const found = await this.db
        .select({ id: site.id })
        .from(site)
        .where(
          and(
            inArray(site.id, wanted),
            inScope(scope, site.companyId),
            inArray(site.companyId, owners.length ? owners : [-1]),
          ),
        );
      if (found.length !== wanted.length) {
        const known = new Set(found.map((f) => f.id));
        const missing = wanted.find((s) => !known.has(s));
        throw new ApiError(ErrorCode.SITE_NOT_FOUND, {}, `siteId ${missing}`);
      }
    }
    return this.db.transaction(async (tx) => {
      // The scheme as it is now, locked against a save or a deletion until the rows are written:
      // the rows get its current version, never an older one read before.
      const [current] = await tx
        .select({
          version: touScheme.version,
          name: touScheme.name,
          document: touScheme.document,
          twoPart: touScheme.twoPart,
        })
        .from(touScheme)
        .where(eq(touScheme.id, id))
        .for('share');
      if (!current) throw new ApiError(ErrorCode.TOU_SCHEME_NOT_FOUND);
      const version = current.version;
      const before = (
        await tx
          .select({ id: site.id })
          .from(site)
          .where(and(eq(site.touSchemeId, id), inScope(scope, site.companyId)))
          .orderBy(site.id)
      ).map((r) => r.id);
      const dropped = before.filter((s) => !wanted.includes(s));
      if (dropped.length) {
        await tx
          .update(site)
          .set({ touSchemeId: null, updatedAt: new Date() })
          .where(inArray(site.id, dropped));
        await tx
          .delete(deviceDelivery)
          .where(and(eq(deviceDelivery.kind, TOU_KIND), inArray(deviceDelivery.siteId, dropped)));
      }
      if (wanted.length === 0) return { before, after: wanted, due: [] };
      const moved = await tx
        .update(site)
        .set({ touSchemeId: id, updatedAt: new Date() })
        .where(and(inArray(site.id, wanted), sql`${site.touSchemeId} IS DISTINCT FROM ${id}`))
        .returning({ id: site.id });
      await writeTariffVersions(tx, {
        siteIds: moved.map((m) => m.id),
        scheme: {
          id,
          name: current.name,
          version,
          document: current.document,
          twoPart: current.twoPart ?? null,
        },
        ...tariff,
      });
      // A row already at this scheme and version keeps its state (applied stays applied); any
      // other becomes pending for this scheme.
      const now = new Date();
      await tx
        .insert(deviceDelivery)
        .values(
          wanted.map((siteId) => ({
            kind: TOU_KIND,
            target: touTargetKey(siteId),
            siteId,
            deviceId: null,
            version,
            desired: touDesired(id),
            requestedAt: now,
          })),
        )
        .onConflictDoUpdate({
          target: [deviceDelivery.kind, deviceDelivery.target],
          set: {
            version,
            desired: touDesired(id),
            // What the EMS runs of this scheme stays known; of another scheme it says nothing.
            appliedVersion: sql`CASE WHEN ${deviceDelivery.desired} = excluded.desired THEN ${deviceDelivery.appliedVersion} END`,
            appliedAt: sql`CASE WHEN ${deviceDelivery.desired} = excluded.desired THEN ${deviceDelivery.appliedAt} END`,
            state: 'pending',
            reason: null,
            requestedAt: now,
            sentAt: null,
          },
          setWhere: sql`${deviceDelivery.desired} <> excluded.desired OR ${deviceDelivery.version} <> ${version}`,
        });
      const open = await tx
        .select({ siteId: deviceDelivery.siteId })
        .from(deviceDelivery)
        .where(
          and(
            eq(deviceDelivery.kind, TOU_KIND),
            inArray(deviceDelivery.siteId, wanted),
            ne(deviceDelivery.state, 'applied'),
          ),
        );
      return { before, after: wanted, due: open.map((r) => r.siteId) };
    });
  }

  private async assertNameFree(companyId: number, name: string, selfId?: number): Promise<void> {
    const [taken] = await this.db
      .select({ id: touScheme.id })
      .from(touScheme)
      .where(
        and(
          eq(touScheme.companyId, companyId),
          eq(touScheme.name, name),
          selfId === undefined ? undefined : notInArray(touScheme.id, [selfId]),
        ),
      );
    if (taken) throw new ApiError(ErrorCode.TOU_SCHEME_NAME_EXISTS);
  }
}
