/**
 * Projects (issue 17 item 1; contract api/project.ts holds the rules, shapes and refusals).
 *
 * Every read and write is limited to the caller's company scope (access/company-scope.ts): a
 * project outside it answers 7001 like a missing one. A project belongs to the company that runs
 * it; its sites must be sites of that company (or one below it) in the caller's scope (3036
 * otherwise); its partners companies of the matching type in scope (-100 naming the field).
 *
 * Writes are one transaction each (nothing partial): the project row, its investors and meters,
 * site bindings with `device.project_id` of the site's devices, and a `project_change` row with
 * the changed fields before/after. Dates of bindings are local dates in the site's zone.
 */
import {
  type CompanyKind,
  canChangeProjectStatus,
  ErrorCode,
  type Lang,
  localTimeOf,
  PROJECT_STATUS_TRANSITIONS,
  type ProjectChange,
  type ProjectChangeAction,
  type ProjectChangeEntry,
  type ProjectCostBearer,
  type ProjectDetail,
  type ProjectIncomeMode,
  type ProjectRentBasis,
  type ProjectRow,
  type ProjectSiteOption,
  type ProjectStatus,
  projectContractEnd,
  projectContractProblem,
  projectStatusChangeProblem,
} from '@ess/contract';
import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, notInArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type CompanyScope, companyTree, inScope, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { rowsOf } from '../../core/db/rows';
import {
  company,
  device,
  employee,
  project,
  projectChange,
  projectInvestor,
  projectMeter,
  projectSite,
  site,
} from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import type { FleetSnapshot } from '../../devices/fleet-snapshot';
import { firstUnsettledDate } from '../../devices/tariff-history';
import { dropTierDays, fillTierDaysFrom } from '../../devices/tier-energy';
import { MeterSwapService } from './meter-swaps';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

const ownerCo = alias(company, 'owner_co');
const constructionCo = alias(company, 'construction_co');
const agentCo = alias(company, 'agent_co');
const runner = alias(company, 'runner');

/** The editable fields of a project (save/update bodies without userInfo, id, sites). */
export interface ProjectInput {
  name: string;
  address: string | null;
  longitude: number | null;
  latitude: number | null;
  constructionCompanyId: number | null;
  agentCompanyId: number | null;
  ownerCompanyId: number | null;
  contractStart: string;
  contractYears: number;
  incomeMode: ProjectIncomeMode;
  ownerSharePct: number | null;
  rentBasis: ProjectRentBasis | null;
  rentCny: number | null;
  capacityKwh: number | null;
  maintenanceCnyPerMonth: number;
  insuranceCnyPerMonth: number;
  costBearer: ProjectCostBearer;
  remark: string | null;
  investors: { companyId: number; ratioPct: number }[];
  meters: { deviceId: number; ctRatio: number; ptRatio: number; readsSecondary: boolean }[];
}

/** A site whose stored energy per tier was dropped from `fromDay` to be computed again. */
interface RepriceSite {
  siteId: number;
  fromDay: string;
}

/** Who acts (history rows): an employee, or the server itself (the demo) named by `name`. */
export interface Actor {
  employeeId: number | null;
  name?: string;
}

/**
 * A comparable picture of a project's editable state: the history's before/after and the
 * operation log's. Partners and investors by name, meters by SN, so the history reads well after
 * renames too (it records what was true then).
 */
export type ProjectSnapshot = Record<string, unknown>;

/**
 * The refusal a unique violation of a project write stands for: `project_company_name_uq` → 7000
 * (a concurrent save took the name), `project_site_open_uq` → 6004 (a concurrent bind took the
 * site); any other error as it is. One place for create, update and bindSites.
 */
function uniqueViolationRefusal(err: unknown): unknown {
  if (isUniqueViolation(err, 'project_company_name_uq')) return new ApiError(ErrorCode.PROJECT_NAME_EXISTS);
  if (isUniqueViolation(err, 'project_site_open_uq')) return new ApiError(ErrorCode.DEVICE_BOUND_TO_PROJECT);
  return err;
}

function paramError(field: string, message: string): ApiError {
  return new ApiError(ErrorCode.PARAM_ERROR, {}, `${field}: ${message}`);
}

const partnerTexts: Record<CompanyKind, { zh: string; en: string }> = {
  construction: { zh: '须为可见的施工方公司', en: 'must be a construction party you can see' },
  agent: { zh: '须为可见的代理商公司', en: 'must be an agent company you can see' },
  owner: { zh: '须为可见的业主（用户公司）', en: 'must be an owner company you can see' },
  investor: { zh: '须为可见的投资方公司', en: 'must be an investor company you can see' },
};

const meterTexts = {
  notMeter: {
    zh: '须为项目所绑定站点的电表设备',
    en: 'must be a meter device of a site bound to the project',
  },
  boundFromBeforeEnd: {
    zh: '绑定开始日期不能早于该站点上一次绑定的结束日期 {date}',
    en: 'The binding cannot start before the site’s previous binding ended ({date})',
  },
  boundToBeforeFrom: {
    zh: '解绑日期不能早于绑定开始日期 {date}',
    en: 'The unbinding date cannot be before the binding started ({date})',
  },
  boundToFuture: {
    zh: '解绑日期不能晚于站点当地今天 {date}',
    en: 'The unbinding date cannot be after today ({date}) at the site',
  },
} as const;

export class ProjectService {
  /** Meter swaps (meter-swaps.ts): `project/recordMeterSwap`, `project/deleteMeterSwap`, the detail's lists. */
  readonly swaps: MeterSwapService;

  constructor(
    private readonly db: Db,
    private readonly fleet: FleetSnapshot,
    private readonly now: () => number = Date.now,
  ) {
    this.swaps = new MeterSwapService(
      db,
      (d, scope, id) => this.requireProject(d, scope, id),
      (tx, actor, p, action, changes) => this.log(tx, actor, p, action, changes),
      now,
    );
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  /** One page of the projects in scope (filters: name contains, status, mode), newest first. */
  async pageList(
    scope: CompanyScope,
    q: {
      pageNum: number;
      pageSize: number;
      name?: string;
      status?: ProjectStatus;
      incomeMode?: ProjectIncomeMode;
    },
  ): Promise<{ list: ProjectRow[]; total: number }> {
    const where = and(
      inScope(scope, project.companyId),
      q.name ? ilike(project.name, likePattern(q.name)) : undefined,
      q.status ? eq(project.status, q.status) : undefined,
      q.incomeMode ? eq(project.incomeMode, q.incomeMode) : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(project).where(where);
    const rows = await this.db
      .select({
        p: project,
        companyName: runner.name,
        ownerName: ownerCo.name,
        siteCount: sql<number>`(SELECT count(*) FROM project_site x WHERE x.project_id = "project".id AND x.bound_to IS NULL)`,
        investorCount: sql<number>`(SELECT count(*) FROM project_investor x WHERE x.project_id = "project".id)`,
      })
      .from(project)
      .innerJoin(runner, eq(runner.id, project.companyId))
      .leftJoin(ownerCo, eq(ownerCo.id, project.ownerCompanyId))
      .where(where)
      .orderBy(desc(project.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return {
      total: Number(total),
      list: rows.map((r) => ({
        ...rowOf(r.p, r.companyName, r.ownerName),
        siteCount: Number(r.siteCount),
        investorCount: Number(r.investorCount),
      })),
    };
  }

  /** The project with partners, investors, meters, bindings (live figures of bound sites). 7001. */
  async detail(scope: CompanyScope, id: number, db: Db | Tx = this.db): Promise<ProjectDetail> {
    const [r] = await db
      .select({
        p: project,
        companyName: runner.name,
        ownerName: ownerCo.name,
        constructionName: constructionCo.name,
        agentName: agentCo.name,
      })
      .from(project)
      .innerJoin(runner, eq(runner.id, project.companyId))
      .leftJoin(ownerCo, eq(ownerCo.id, project.ownerCompanyId))
      .leftJoin(constructionCo, eq(constructionCo.id, project.constructionCompanyId))
      .leftJoin(agentCo, eq(agentCo.id, project.agentCompanyId))
      .where(and(eq(project.id, id), inScope(scope, project.companyId)));
    if (!r) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
    const p = r.p;
    const investors = await db
      .select({
        companyId: projectInvestor.investorCompanyId,
        companyName: company.name,
        ratioPct: projectInvestor.ratioPct,
      })
      .from(projectInvestor)
      .innerJoin(company, eq(company.id, projectInvestor.investorCompanyId))
      .where(eq(projectInvestor.projectId, id))
      .orderBy(asc(projectInvestor.sort), asc(projectInvestor.id));
    const meters = await db
      .select({
        deviceId: projectMeter.deviceId,
        sn: device.sn,
        siteId: device.siteId,
        siteName: site.name,
        timezone: site.timezone,
        ctRatio: projectMeter.ctRatio,
        ptRatio: projectMeter.ptRatio,
        readsSecondary: projectMeter.readsSecondary,
      })
      .from(projectMeter)
      .innerJoin(device, eq(device.id, projectMeter.deviceId))
      .innerJoin(site, eq(site.id, device.siteId))
      .where(eq(projectMeter.projectId, id))
      .orderBy(asc(site.name), asc(device.sn));
    const swaps = await this.swaps.list(
      db,
      id,
      meters.map((m) => ({ ...m, siteId: m.siteId! })),
    );
    const bindings = await db
      .select({
        id: projectSite.id,
        siteId: projectSite.siteId,
        siteCode: site.code,
        siteName: site.name,
        timezone: site.timezone,
        longitude: site.longitude,
        latitude: site.latitude,
        boundFrom: projectSite.boundFrom,
        boundTo: projectSite.boundTo,
      })
      .from(projectSite)
      .innerJoin(site, eq(site.id, projectSite.siteId))
      .where(eq(projectSite.projectId, id))
      .orderBy(sql`${projectSite.boundTo} IS NULL DESC`, desc(projectSite.boundFrom), desc(projectSite.id));
    const sites = [];
    for (const b of bindings) {
      // The fleet's own figures (devices/fleet-snapshot.ts): online, SOC, power, today's kWh.
      const live = b.boundTo === null ? ((await this.fleet.sites(scope, b.siteId))[0] ?? null) : null;
      sites.push({ ...b, live });
    }
    const status = p.status as ProjectStatus;
    return {
      ...rowOf(p, r.companyName, r.ownerName),
      siteCount: bindings.filter((b) => b.boundTo === null).length,
      investorCount: investors.length,
      longitude: p.longitude,
      latitude: p.latitude,
      construction: p.constructionCompanyId
        ? { id: p.constructionCompanyId, name: r.constructionName ?? '' }
        : null,
      agent: p.agentCompanyId ? { id: p.agentCompanyId, name: r.agentName ?? '' } : null,
      capacityKwh: p.capacityKwh,
      ownerSharePct: p.ownerSharePct,
      rentBasis: p.rentBasis as ProjectRentBasis | null,
      rentCny: p.rentCny,
      maintenanceCnyPerMonth: p.maintenanceCnyPerMonth,
      insuranceCnyPerMonth: p.insuranceCnyPerMonth,
      costBearer: p.costBearer as ProjectCostBearer,
      remark: p.remark,
      investors,
      meters: meters.map((m) => ({ ...m, swaps: swaps.get(m.deviceId) ?? [] })),
      sites,
      nextStatuses: [...PROJECT_STATUS_TRANSITIONS[status]],
    };
  }

  /** The change history of a project, newest first. 7001. */
  async history(
    scope: CompanyScope,
    q: { id: number; pageNum: number; pageSize: number },
  ): Promise<{ list: ProjectChange[]; total: number }> {
    await this.requireProject(this.db, scope, q.id);
    const [{ total } = { total: 0 }] = await this.db
      .select({ total: count() })
      .from(projectChange)
      .where(eq(projectChange.projectId, q.id));
    const rows = await this.db
      .select({
        id: projectChange.id,
        action: projectChange.action,
        changes: projectChange.changes,
        userName: sql<string | null>`coalesce(${employee.name}, ${projectChange.userName})`,
        at: projectChange.at,
      })
      .from(projectChange)
      .leftJoin(employee, eq(employee.id, projectChange.employeeId))
      .where(eq(projectChange.projectId, q.id))
      .orderBy(desc(projectChange.at), desc(projectChange.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return {
      total: Number(total),
      list: rows.map((r) => ({
        id: r.id,
        action: r.action as ProjectChangeAction,
        changes: r.changes as ProjectChangeEntry[],
        userName: r.userName,
        at: r.at.toISOString(),
      })),
    };
  }

  /**
   * Sites in scope a project of `companyId` (default: any in scope) may bind: the company's and
   * those below it, with their meters and the project each is bound to now.
   */
  async siteOptions(scope: CompanyScope, companyId?: number): Promise<ProjectSiteOption[]> {
    let tree: number[] | undefined;
    if (companyId !== undefined) {
      if (!scopeIncludes(scope, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
      tree = await companyTree(this.db, companyId);
    }
    const rows = await this.db
      .select({
        id: site.id,
        code: site.code,
        name: site.name,
        companyId: site.companyId,
        timezone: site.timezone,
        latitude: site.latitude,
        longitude: site.longitude,
        projectId: projectSite.projectId,
        projectName: project.name,
      })
      .from(site)
      .leftJoin(projectSite, and(eq(projectSite.siteId, site.id), isNull(projectSite.boundTo)))
      .leftJoin(project, eq(project.id, projectSite.projectId))
      .where(and(inScope(scope, site.companyId), tree ? inArray(site.companyId, tree) : undefined))
      .orderBy(asc(site.name));
    const ids = rows.map((r) => r.id);
    const meters = ids.length
      ? await this.db
          .select({ siteId: device.siteId, deviceId: device.id, sn: device.sn })
          .from(device)
          .where(and(inArray(device.siteId, ids), eq(device.type, 'meter')))
          .orderBy(asc(device.sn))
      : [];
    return rows.map((r) => ({
      ...r,
      meters: meters.filter((m) => m.siteId === r.id).map(({ deviceId, sn }) => ({ deviceId, sn })),
    }));
  }

  // -------------------------------------------------------------------------------------------
  // Writes

  /**
   * Creates a project of `companyId` (6000 when missing or outside the scope), status
   * to_be_started, and binds `siteIds` from `boundFrom` (default today at each site). Errors:
   * -100 field: reason, 7000, 3036, 6004. Answers the new id and the snapshot for the log.
   */
  async create(
    scope: CompanyScope,
    actor: Actor,
    input: ProjectInput & { companyId: number; siteIds: number[]; boundFrom?: string },
    lang: Lang,
  ): Promise<{ id: number; after: ProjectSnapshot }> {
    const [runnerRow] = await this.db
      .select({ id: company.id })
      .from(company)
      .where(eq(company.id, input.companyId));
    if (!runnerRow || !scopeIncludes(scope, input.companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    this.assertContract(input, lang);
    await this.assertPartners(scope, input.companyId, input, lang);
    await this.assertNameFree(input.companyId, input.name);
    const { siteIds, boundFrom, companyId, investors, meters, ...fields } = input;
    try {
      const created = await this.db.transaction(async (tx) => {
        const [row] = await tx
          .insert(project)
          .values({ ...fields, companyId, status: 'to_be_started' })
          .returning({ id: project.id });
        const id = row!.id;
        await this.writeInvestors(tx, id, companyId, investors);
        const bound = await this.bind(tx, scope, { id, companyId }, siteIds, boundFrom, lang);
        const reprice = await this.writeMeters(tx, { id, companyId }, meters, lang);
        const after = await this.snapshot(tx, id);
        await this.log(tx, actor, { id, companyId }, 'create', diff({}, after));
        if (bound.length) await this.log(tx, actor, { id, companyId }, 'bind', bound);
        return { id, after, reprice };
      });
      await this.fillRepriced(created.reprice);
      return { id: created.id, after: created.after };
    } catch (err) {
      throw uniqueViolationRefusal(err);
    }
  }

  /**
   * Saves the editable fields, investors (replaced) and the declared storage meters of the bound
   * sites (the listed ones; see writeMeters). Errors: -100, 7000, 7001.
   */
  async update(
    scope: CompanyScope,
    actor: Actor,
    id: number,
    input: ProjectInput,
    lang: Lang,
  ): Promise<{ before: ProjectSnapshot; after: ProjectSnapshot }> {
    const existing = await this.requireProject(this.db, scope, id);
    this.assertContract(input, lang);
    await this.assertPartners(scope, existing.companyId, input, lang);
    await this.assertNameFree(existing.companyId, input.name, id);
    const { investors, meters, ...fields } = input;
    try {
      const updated = await this.db.transaction(async (tx) => {
        await lockProject(tx, id);
        const before = await this.snapshot(tx, id);
        await tx
          .update(project)
          .set({ ...fields, updatedAt: new Date(this.now()) })
          .where(eq(project.id, id));
        await tx.delete(projectInvestor).where(eq(projectInvestor.projectId, id));
        await this.writeInvestors(tx, id, existing.companyId, investors);
        const reprice = await this.writeMeters(tx, existing, meters, lang);
        const after = await this.snapshot(tx, id);
        const changes = diff(before, after);
        if (changes.length) await this.log(tx, actor, existing, 'update', changes);
        return { before, after, reprice };
      });
      await this.fillRepriced(updated.reprice);
      return { before: updated.before, after: updated.after };
    } catch (err) {
      throw uniqueViolationRefusal(err);
    }
  }

  /** Deletes a project no site is bound to now (7002 otherwise). Errors: 7001, 7002. */
  async remove(scope: CompanyScope, id: number): Promise<ProjectSnapshot> {
    await this.requireProject(this.db, scope, id);
    return this.db.transaction(async (tx) => {
      await lockProject(tx, id);
      const [open] = await tx
        .select({ n: count() })
        .from(projectSite)
        .where(and(eq(projectSite.projectId, id), isNull(projectSite.boundTo)));
      if (Number(open?.n ?? 0) > 0) throw new ApiError(ErrorCode.PROJECT_HAS_SITES);
      const before = await this.snapshot(tx, id);
      await tx.update(device).set({ projectId: null }).where(eq(device.projectId, id));
      await tx.delete(project).where(eq(project.id, id));
      return before;
    });
  }

  /** Moves the status along the allowed transitions. Errors: 7001, 7003 (reason names the allowed ones). */
  async changeStatus(
    scope: CompanyScope,
    actor: Actor,
    id: number,
    to: ProjectStatus,
    lang: Lang,
  ): Promise<{ before: ProjectStatus; after: ProjectStatus }> {
    const existing = await this.requireProject(this.db, scope, id);
    return this.db.transaction(async (tx) => {
      const locked = await lockProject(tx, id);
      const from = locked.status as ProjectStatus;
      if (!canChangeProjectStatus(from, to)) {
        throw new ApiError(
          ErrorCode.PROJECT_STATUS_CHANGE_REFUSED,
          {},
          projectStatusChangeProblem(from, to, lang) ?? undefined,
        );
      }
      await tx
        .update(project)
        .set({ status: to, updatedAt: new Date(this.now()) })
        .where(eq(project.id, id));
      await this.log(tx, actor, existing, 'status', [{ field: 'status', before: from, after: to }]);
      return { before: from, after: to };
    });
  }

  /** Binds sites from `boundFrom` (default today at each site). Errors: 7001, 3036, 6004, -100. */
  async bindSites(
    scope: CompanyScope,
    actor: Actor,
    id: number,
    siteIds: number[],
    boundFrom: string | undefined,
    lang: Lang,
  ): Promise<ProjectChangeEntry[]> {
    const existing = await this.requireProject(this.db, scope, id);
    try {
      return await this.db.transaction(async (tx) => {
        await lockProject(tx, id);
        const bound = await this.bind(tx, scope, existing, siteIds, boundFrom, lang);
        if (bound.length) await this.log(tx, actor, existing, 'bind', bound);
        return bound;
      });
    } catch (err) {
      throw uniqueViolationRefusal(err);
    }
  }

  /**
   * Ends the site's open binding on `boundTo` (exclusive; default today at the site): the
   * binding covers `[boundFrom, boundTo)`, a binding that would cover no day is removed. The
   * site's devices are released; its meters keep their CT/PT rows (bills of the bound days read
   * them). Errors: 7001, 3036 not bound to this project, -100 boundTo.
   */
  async unbindSite(
    scope: CompanyScope,
    actor: Actor,
    id: number,
    siteId: number,
    boundTo: string | undefined,
    lang: Lang,
  ): Promise<ProjectChangeEntry[]> {
    const existing = await this.requireProject(this.db, scope, id);
    return this.db.transaction(async (tx) => {
      await lockProject(tx, id);
      const [b] = await tx
        .select({
          id: projectSite.id,
          boundFrom: projectSite.boundFrom,
          timezone: site.timezone,
          name: site.name,
        })
        .from(projectSite)
        .innerJoin(site, eq(site.id, projectSite.siteId))
        .where(
          and(eq(projectSite.projectId, id), eq(projectSite.siteId, siteId), isNull(projectSite.boundTo)),
        );
      if (!b) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
      const today = localTimeOf(this.now(), b.timezone).date;
      const to = boundTo ?? today;
      if (to < b.boundFrom) {
        throw paramError('boundTo', meterTexts.boundToBeforeFrom[lang].replace('{date}', b.boundFrom));
      }
      if (to > today) throw paramError('boundTo', meterTexts.boundToFuture[lang].replace('{date}', today));
      if (to === b.boundFrom) await tx.delete(projectSite).where(eq(projectSite.id, b.id));
      else await tx.update(projectSite).set({ boundTo: to }).where(eq(projectSite.id, b.id));
      await tx
        .update(device)
        .set({ projectId: null })
        .where(and(eq(device.siteId, siteId), eq(device.projectId, id)));
      const changes = [
        {
          field: 'site',
          before: { site: b.name, boundFrom: b.boundFrom },
          after: { site: b.name, boundTo: to },
        },
      ];
      await this.log(tx, actor, existing, 'unbind', changes);
      return changes;
    });
  }

  // -------------------------------------------------------------------------------------------
  // Parts

  /** The project in scope, or 7001. */
  async requireProject(db: Db | Tx, scope: CompanyScope, id: number) {
    const [row] = await db
      .select()
      .from(project)
      .where(and(eq(project.id, id), inScope(scope, project.companyId)));
    if (!row) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
    return row;
  }

  private assertContract(input: ProjectInput, lang: Lang): void {
    const problem = projectContractProblem(input, lang);
    if (problem) throw paramError(problem.field, problem.message);
  }

  /**
   * Partners must be companies of the matching type that the caller sees or that sit in the
   * project company's tree (its own partner sub-companies, which a caller with data scope
   * `self` does not list but acts for): -100 naming the field otherwise.
   */
  private async assertPartners(
    scope: CompanyScope,
    projectCompanyId: number,
    input: ProjectInput,
    lang: Lang,
  ): Promise<void> {
    const wanted: { field: string; id: number; kind: CompanyKind }[] = [];
    if (input.constructionCompanyId !== null)
      wanted.push({ field: 'constructionCompanyId', id: input.constructionCompanyId, kind: 'construction' });
    if (input.agentCompanyId !== null)
      wanted.push({ field: 'agentCompanyId', id: input.agentCompanyId, kind: 'agent' });
    if (input.ownerCompanyId !== null)
      wanted.push({ field: 'ownerCompanyId', id: input.ownerCompanyId, kind: 'owner' });
    for (const [i, inv] of input.investors.entries()) {
      wanted.push({ field: `investors[${i}].companyId`, id: inv.companyId, kind: 'investor' });
    }
    if (!wanted.length) return;
    const rows = await this.db
      .select({ id: company.id, type: company.type })
      .from(company)
      .where(
        and(
          inArray(
            company.id,
            wanted.map((w) => w.id),
          ),
          scope.all
            ? undefined
            : inArray(company.id, [
                ...new Set([...scope.companyIds, ...(await companyTree(this.db, projectCompanyId))]),
              ]),
        ),
      );
    const types = new Map(rows.map((r) => [r.id, r.type]));
    for (const w of wanted) {
      if (types.get(w.id) !== w.kind) throw paramError(w.field, partnerTexts[w.kind][lang]);
    }
  }

  /** 7000 when another project of the company has the name. */
  private async assertNameFree(companyId: number, name: string, exceptId?: number): Promise<void> {
    const [taken] = await this.db
      .select({ id: project.id })
      .from(project)
      .where(
        and(
          eq(project.companyId, companyId),
          eq(project.name, name),
          exceptId ? ne(project.id, exceptId) : undefined,
        ),
      );
    if (taken) throw new ApiError(ErrorCode.PROJECT_NAME_EXISTS);
  }

  private async writeInvestors(
    tx: Tx,
    projectId: number,
    companyId: number,
    investors: { companyId: number; ratioPct: number }[],
  ): Promise<void> {
    if (!investors.length) return;
    await tx.insert(projectInvestor).values(
      investors.map((inv, i) => ({
        companyId,
        projectId,
        investorCompanyId: inv.companyId,
        ratioPct: inv.ratioPct,
        sort: i,
      })),
    );
  }

  /**
   * Makes the listed meters the project's declared storage meters of its bound sites: each must be
   * a meter device of a site bound to the project now (-100 `meters[i].deviceId` otherwise); their
   * CT/PT are upserted, and a declared meter of a site bound now that is not listed is removed
   * (issue 17 review: storage meters are an explicit choice). Meters of sites no longer bound keep
   * their rows (the bills of their bound days read them).
   */
  private async writeMeters(
    tx: Tx,
    p: { id: number; companyId: number },
    meters: ProjectInput['meters'],
    lang: Lang,
  ): Promise<RepriceSite[]> {
    const listed = meters.map((m) => m.deviceId);
    const before = await this.declaredMultipliers(tx, p.id);
    const boundMeters = tx
      .select({ id: device.id })
      .from(device)
      .innerJoin(
        projectSite,
        and(
          eq(projectSite.siteId, device.siteId),
          eq(projectSite.projectId, p.id),
          isNull(projectSite.boundTo),
        ),
      )
      .where(eq(device.type, 'meter'));
    await tx
      .delete(projectMeter)
      .where(
        and(
          eq(projectMeter.projectId, p.id),
          inArray(projectMeter.deviceId, boundMeters),
          listed.length ? notInArray(projectMeter.deviceId, listed) : undefined,
        ),
      );
    if (!meters.length) return this.dropChangedSites(tx, before, await this.declaredMultipliers(tx, p.id));
    const ok = await tx
      .select({ id: device.id })
      .from(device)
      .innerJoin(
        projectSite,
        and(
          eq(projectSite.siteId, device.siteId),
          eq(projectSite.projectId, p.id),
          isNull(projectSite.boundTo),
        ),
      )
      .where(
        and(
          inArray(
            device.id,
            meters.map((m) => m.deviceId),
          ),
          eq(device.type, 'meter'),
        ),
      );
    const okIds = new Set(ok.map((r) => r.id));
    for (const [i, m] of meters.entries()) {
      if (!okIds.has(m.deviceId)) throw paramError(`meters[${i}].deviceId`, meterTexts.notMeter[lang]);
    }
    for (const m of meters) {
      await tx
        .insert(projectMeter)
        .values({ companyId: p.companyId, projectId: p.id, ...m })
        .onConflictDoUpdate({
          target: [projectMeter.projectId, projectMeter.deviceId],
          set: {
            ctRatio: m.ctRatio,
            ptRatio: m.ptRatio,
            readsSecondary: m.readsSecondary,
            updatedAt: new Date(this.now()),
          },
        });
    }
    return this.dropChangedSites(tx, before, await this.declaredMultipliers(tx, p.id));
  }

  /** The project's declared meters: device → its site and the multiplier energy uses (CT × PT or 1). */
  private async declaredMultipliers(
    tx: Tx,
    projectId: number,
  ): Promise<Map<number, { siteId: number; k: number }>> {
    const rows = await tx
      .select({
        deviceId: projectMeter.deviceId,
        siteId: device.siteId,
        ct: projectMeter.ctRatio,
        pt: projectMeter.ptRatio,
        secondary: projectMeter.readsSecondary,
      })
      .from(projectMeter)
      .innerJoin(device, eq(device.id, projectMeter.deviceId))
      .where(eq(projectMeter.projectId, projectId));
    return new Map(
      rows.map((r) => [r.deviceId, { siteId: r.siteId ?? 0, k: r.secondary ? r.ct * r.pt : 1 }]),
    );
  }

  /**
   * Issue 17 (energy per tier): a storage meter declared, removed, or given another CT × PT
   * changes how the site's energy is measured, and its days may already be priced (from the PCS
   * registers, or the old multiplier). For each such site, drops its stored periods from the first
   * unsettled day it has rows for (settled months stay as billed; tariff-history.ts
   * `firstUnsettledDate`) — in the caller's transaction; {@link fillRepriced} computes them again
   * right after it commits.
   */
  private async dropChangedSites(
    tx: Tx,
    before: Map<number, { siteId: number; k: number }>,
    after: Map<number, { siteId: number; k: number }>,
  ): Promise<RepriceSite[]> {
    const sites = new Set<number>();
    for (const [deviceId, b] of before) if (after.get(deviceId)?.k !== b.k) sites.add(b.siteId);
    for (const [deviceId, a] of after) if (before.get(deviceId)?.k !== a.k) sites.add(a.siteId);
    const out: RepriceSite[] = [];
    for (const siteId of sites) {
      const [first] = rowsOf<{ day: string | null }>(
        await tx.execute(
          sql`SELECT to_char(min(day), 'YYYY-MM-DD') AS day FROM energy_tier_day WHERE site_id = ${siteId}`,
        ),
      );
      if (!first?.day) continue;
      const unsettled = await firstUnsettledDate(tx, siteId);
      const fromDay = first.day > unsettled ? first.day : unsettled;
      await dropTierDays(tx, siteId, fromDay);
      out.push({ siteId, fromDay });
    }
    return out;
  }

  /** Computes the days {@link dropChangedSites} dropped (after the write committed). */
  private async fillRepriced(sites: readonly RepriceSite[]): Promise<void> {
    for (const s of sites) await fillTierDaysFrom(this.db, s.siteId, s.fromDay, this.now());
  }

  /**
   * Binds each site (a site already bound to this project is left as it is): the site must be in
   * scope and of the project's company or one below it (3036); bound to another project, or a
   * device of it carrying another project → 6004 naming it; `boundFrom` before the site's last
   * binding ended → -100. Sets `device.project_id`. Declares no storage meter (issue 17 review: a
   * site's meter is usually its grid connection meter; storage meters are declared explicitly
   * through save/update `meters`). Answers the history entries.
   */
  private async bind(
    tx: Tx,
    scope: CompanyScope,
    p: { id: number; companyId: number },
    siteIds: number[],
    boundFrom: string | undefined,
    lang: Lang,
  ): Promise<ProjectChangeEntry[]> {
    if (!siteIds.length) return [];
    const tree = new Set(await companyTree(tx as unknown as Db, p.companyId));
    const entries: ProjectChangeEntry[] = [];
    for (const siteId of [...new Set(siteIds)]) {
      const [s] = await tx
        .select()
        .from(site)
        .where(and(eq(site.id, siteId), inScope(scope, site.companyId)))
        .for('update');
      if (!s || !tree.has(s.companyId))
        throw new ApiError(ErrorCode.SITE_NOT_FOUND, {}, `siteIds: ${siteId}`);
      const bindings = await tx
        .select({ projectId: projectSite.projectId, boundTo: projectSite.boundTo, name: project.name })
        .from(projectSite)
        .innerJoin(project, eq(project.id, projectSite.projectId))
        .where(eq(projectSite.siteId, siteId));
      const open = bindings.find((b) => b.boundTo === null);
      if (open?.projectId === p.id) continue;
      if (open) throw new ApiError(ErrorCode.DEVICE_BOUND_TO_PROJECT, {}, `${s.name} → ${open.name}`);
      const [held] = await tx
        .select({ sn: device.sn })
        .from(device)
        .where(
          and(eq(device.siteId, siteId), sql`${device.projectId} IS NOT NULL`, ne(device.projectId, p.id)),
        )
        .limit(1);
      if (held) throw new ApiError(ErrorCode.DEVICE_BOUND_TO_PROJECT, {}, held.sn);
      const from = boundFrom ?? localTimeOf(this.now(), s.timezone).date;
      const lastEnd = bindings.reduce<string | null>(
        (m, b) => (b.boundTo && (!m || b.boundTo > m) ? b.boundTo : m),
        null,
      );
      if (lastEnd && from < lastEnd) {
        throw paramError('boundFrom', meterTexts.boundFromBeforeEnd[lang].replace('{date}', lastEnd));
      }
      await tx
        .insert(projectSite)
        .values({ companyId: p.companyId, projectId: p.id, siteId, boundFrom: from });
      await tx.update(device).set({ projectId: p.id }).where(eq(device.siteId, siteId));
      entries.push({ field: 'site', before: null, after: { site: s.name, boundFrom: from } });
    }
    return entries;
  }

  /** The project's editable state as the history compares it (see {@link ProjectSnapshot}). */
  async snapshot(tx: Db | Tx, id: number): Promise<ProjectSnapshot> {
    const [r] = await tx
      .select({
        p: project,
        ownerName: ownerCo.name,
        constructionName: constructionCo.name,
        agentName: agentCo.name,
      })
      .from(project)
      .leftJoin(ownerCo, eq(ownerCo.id, project.ownerCompanyId))
      .leftJoin(constructionCo, eq(constructionCo.id, project.constructionCompanyId))
      .leftJoin(agentCo, eq(agentCo.id, project.agentCompanyId))
      .where(eq(project.id, id));
    if (!r) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
    const p = r.p;
    const investors = await tx
      .select({ name: company.name, ratioPct: projectInvestor.ratioPct })
      .from(projectInvestor)
      .innerJoin(company, eq(company.id, projectInvestor.investorCompanyId))
      .where(eq(projectInvestor.projectId, id))
      .orderBy(asc(projectInvestor.sort), asc(projectInvestor.id));
    const meters = await tx
      .select({
        sn: device.sn,
        ctRatio: projectMeter.ctRatio,
        ptRatio: projectMeter.ptRatio,
        readsSecondary: projectMeter.readsSecondary,
      })
      .from(projectMeter)
      .innerJoin(device, eq(device.id, projectMeter.deviceId))
      .where(eq(projectMeter.projectId, id))
      .orderBy(asc(device.sn));
    return {
      name: p.name,
      address: p.address,
      longitude: p.longitude,
      latitude: p.latitude,
      construction: r.constructionName ?? null,
      agent: r.agentName ?? null,
      owner: r.ownerName ?? null,
      contractStart: p.contractStart,
      contractYears: p.contractYears,
      status: p.status,
      incomeMode: p.incomeMode,
      ownerSharePct: p.ownerSharePct,
      rentBasis: p.rentBasis,
      rentCny: p.rentCny,
      capacityKwh: p.capacityKwh,
      maintenanceCnyPerMonth: p.maintenanceCnyPerMonth,
      insuranceCnyPerMonth: p.insuranceCnyPerMonth,
      costBearer: p.costBearer,
      remark: p.remark,
      investors,
      meters,
    };
  }

  private async log(
    tx: Tx,
    actor: Actor,
    p: { id: number; companyId: number },
    action: ProjectChangeAction,
    changes: ProjectChangeEntry[],
  ): Promise<void> {
    const [who] =
      actor.employeeId === null
        ? [{ name: actor.name ?? null }]
        : await tx.select({ name: employee.name }).from(employee).where(eq(employee.id, actor.employeeId));
    await tx.insert(projectChange).values({
      companyId: p.companyId,
      projectId: p.id,
      action,
      changes,
      employeeId: actor.employeeId,
      userName: who?.name ?? null,
      at: new Date(this.now()),
    });
  }
}

/** Locks the project row for the transaction (status and bindings change one at a time). */
async function lockProject(tx: Tx, id: number) {
  const [row] = await tx.select().from(project).where(eq(project.id, id)).for('update');
  if (!row) throw new ApiError(ErrorCode.PROJECT_NOT_FOUND);
  return row;
}

/** The fields whose values differ (JSON comparison), before → after. */
function diff(before: ProjectSnapshot, after: ProjectSnapshot): ProjectChangeEntry[] {
  const out: ProjectChangeEntry[] = [];
  for (const field of Object.keys(after)) {
    const b = before[field] ?? null;
    const a = after[field] ?? null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out.push({ field, before: b, after: a });
  }
  return out;
}

function rowOf(
  p: typeof project.$inferSelect,
  companyName: string,
  ownerName: string | null,
): Omit<ProjectRow, 'siteCount' | 'investorCount'> {
  return {
    id: p.id,
    companyId: p.companyId,
    companyName,
    name: p.name,
    address: p.address,
    status: p.status as ProjectStatus,
    incomeMode: p.incomeMode as ProjectIncomeMode,
    owner: p.ownerCompanyId ? { id: p.ownerCompanyId, name: ownerName ?? '' } : null,
    contractStart: p.contractStart,
    contractYears: p.contractYears,
    contractEnd: projectContractEnd(p.contractStart, p.contractYears),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
