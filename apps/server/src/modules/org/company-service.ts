/**
 * Companies of each kind (agents, investors, construction parties, owners; spec §1, §3, §6, §8)
 * and the devices assigned to agents. Every read and write is limited to the caller's company
 * scope (tenancy/company-scope.ts); a company outside it answers 6000.
 *
 * Rules: name or phone taken by another company → 6002; the caller's own company cannot be
 * disabled → 6005; disabling ends the sessions of the company's employees (and they cannot sign
 * in: 6001). A new company gets its administrator role (`admin`, holds every menu it may hold).
 * Device assignment works on gateways (a cabinet, a household system): the devices that report
 * through a gateway follow it. A device assigned to another agent → 6003; bound to a project →
 * its agent cannot change (6004).
 */
import {
  type AgentDevice,
  type CompanyInput,
  type CompanyKind,
  type CompanyOption,
  type CompanyRow,
  ErrorCode,
} from '@ess/contract';
import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type CompanyScope, inScope, scopeIncludes } from '../../access/company-scope';
import type { SessionService } from '../../access/session-service';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { company, device, employee, role, site } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

const parent = alias(company, 'parent');

/** Name and code of the administrator role every company gets. */
export const COMPANY_ADMIN_ROLE = { name: '管理员', code: 'admin' } as const;

/** A transaction of `Db` (or `Db` itself). */
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

/**
 * Inserts a company with its administrator role (every company gets one, so its first employee
 * can be given it). Used by company creation and by the demo fleet.
 */
export async function insertCompany(tx: Tx, values: typeof company.$inferInsert) {
  const [row] = await tx.insert(company).values(values).returning();
  await tx.insert(role).values({
    companyId: row!.id,
    ...COMPANY_ADMIN_ROLE,
    // No stored remark: the console describes a built-in administrator role in the reader's language.
    remark: null,
    isAdmin: true,
    dataScope: 'company',
  });
  return row!;
}

export interface CompanyListQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
  status?: 'enabled' | 'disabled';
}

export class CompanyService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
  ) {}

  /** One page of the companies of `kind` in scope, newest first, with counts. */
  async list(scope: CompanyScope, kind: CompanyKind, q: CompanyListQuery) {
    const where = and(
      eq(company.type, kind),
      inScope(scope, company.id),
      q.status ? eq(company.status, q.status) : undefined,
      q.keyword
        ? or(
            ilike(company.name, likePattern(q.keyword)),
            ilike(company.contact, likePattern(q.keyword)),
            ilike(company.phone, likePattern(q.keyword)),
          )
        : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(company).where(where);
    const rows = await this.db
      .select({
        id: company.id,
        type: company.type,
        parentId: company.parentId,
        parentName: parent.name,
        name: company.name,
        contact: company.contact,
        phone: company.phone,
        status: company.status,
        createdAt: company.createdAt,
        employeeCount: sql<number>`(SELECT count(*) FROM employee x WHERE x.company_id = "company".id)`,
        siteCount: sql<number>`(SELECT count(*) FROM site x WHERE x.company_id = "company".id)`,
        assignedDeviceCount: sql<number>`(SELECT count(*) FROM device x WHERE x.agent_id = "company".id AND x.gateway_id IS NULL)`,
      })
      .from(company)
      .leftJoin(parent, eq(parent.id, company.parentId))
      .where(where)
      .orderBy(desc(company.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    const list: CompanyRow[] = rows.map((r) => ({
      ...r,
      parentName: scopeIncludes(scope, r.parentId ?? -1) ? r.parentName : null,
      status: r.status === 'disabled' ? 'disabled' : 'enabled',
      employeeCount: Number(r.employeeCount),
      siteCount: Number(r.siteCount),
      assignedDeviceCount: Number(r.assignedDeviceCount),
      createdAt: r.createdAt.toISOString(),
    }));
    return { list, total: Number(total) };
  }

  /** Every company in scope (any kind), by name. */
  async options(scope: CompanyScope): Promise<CompanyOption[]> {
    const rows = await this.db
      .select({
        id: company.id,
        name: company.name,
        type: company.type,
        parentId: company.parentId,
        status: company.status,
      })
      .from(company)
      .where(inScope(scope, company.id))
      .orderBy(asc(company.name));
    return rows.map((r) => ({
      ...r,
      parentId: r.parentId !== null && scopeIncludes(scope, r.parentId) ? r.parentId : null,
      status: r.status === 'disabled' ? 'disabled' : 'enabled',
    }));
  }

  /** The company of `kind` with `id` in scope; 6000 otherwise. */
  async find(scope: CompanyScope, kind: CompanyKind, id: number) {
    const [row] = await this.db
      .select()
      .from(company)
      .where(and(eq(company.id, id), eq(company.type, kind), inScope(scope, company.id)));
    if (!row) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    return row;
  }

  private async assertUnique(name: string, phone: string | null, exceptId?: number): Promise<void> {
    const [clash] = await this.db
      .select({ id: company.id })
      .from(company)
      .where(
        and(
          or(eq(company.name, name), phone ? eq(company.phone, phone) : undefined),
          exceptId === undefined ? undefined : ne(company.id, exceptId),
        ),
      )
      .limit(1);
    if (clash) throw new ApiError(ErrorCode.COMPANY_NAME_OR_PHONE_EXISTS);
  }

  /** Creates a company of `kind` under `parentId` (default: the caller's) with its administrator role. */
  async create(scope: CompanyScope, callerCompanyId: number, kind: CompanyKind, input: CompanyInput) {
    const parentId = input.parentId ?? callerCompanyId;
    if (!scopeIncludes(scope, parentId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    await this.assertUnique(input.name, input.phone);
    return this.db.transaction((tx) =>
      insertCompany(tx, {
        type: kind,
        name: input.name,
        contact: input.contact,
        phone: input.phone,
        parentId,
      }),
    );
  }

  /** Updates name, contact and phone (the parent stays: companies are not moved). */
  async update(scope: CompanyScope, kind: CompanyKind, id: number, input: CompanyInput) {
    const before = await this.find(scope, kind, id);
    await this.assertUnique(input.name, input.phone, id);
    const [after] = await this.db
      .update(company)
      .set({ name: input.name, contact: input.contact, phone: input.phone, updatedAt: new Date() })
      .where(eq(company.id, id))
      .returning();
    return { before, after: after! };
  }

  /** Enables or disables; disabling ends the sessions of the company's employees. */
  async setStatus(
    scope: CompanyScope,
    callerCompanyId: number,
    kind: CompanyKind,
    id: number,
    status: 'enabled' | 'disabled',
  ) {
    const before = await this.find(scope, kind, id);
    if (id === callerCompanyId) throw new ApiError(ErrorCode.COMPANY_SELF_ACTION);
    await this.db.update(company).set({ status, updatedAt: new Date() }).where(eq(company.id, id));
    if (status === 'disabled') {
      const members = await this.db
        .select({ id: employee.id })
        .from(employee)
        .where(eq(employee.companyId, id));
      await this.sessions.revokeEmployeeSessions(
        members.map((m) => m.id),
        'disabled',
      );
    }
    return { before: { status: before.status }, after: { status } };
  }

  /** Gateways assigned to the agent, and the unassigned ones in scope. */
  async agentDevices(
    scope: CompanyScope,
    agentId: number,
  ): Promise<{ assigned: AgentDevice[]; available: AgentDevice[] }> {
    await this.find(scope, 'agent', agentId);
    const agent = alias(company, 'agent');
    const owner = alias(company, 'owner');
    const rows = await this.db
      .select({
        id: device.id,
        sn: device.sn,
        type: device.type,
        siteName: site.name,
        companyName: owner.name,
        agentId: device.agentId,
        agentName: agent.name,
        projectId: device.projectId,
      })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId))
      .innerJoin(owner, eq(owner.id, device.companyId))
      .leftJoin(agent, eq(agent.id, device.agentId))
      .where(
        and(
          isNull(device.gatewayId),
          inScope(scope, device.companyId),
          or(eq(device.agentId, agentId), isNull(device.agentId)),
        ),
      )
      .orderBy(asc(site.name), asc(device.sn));
    const list = rows.map(({ projectId, ...r }) => ({ ...r, projectBound: projectId !== null }));
    return {
      assigned: list.filter((d) => d.agentId === agentId),
      available: list.filter((d) => d.agentId === null),
    };
  }

  /**
   * Assigns (`agentId`) or releases (`null`) gateways and the devices behind them.
   * Errors: 6000 agent not in scope, 3030 a device not in scope (or, on release, not this
   * agent's), 6003 assigned to another agent, 6004 bound to a project.
   */
  async assign(scope: CompanyScope, agentId: number, deviceIds: number[], assign: boolean) {
    await this.find(scope, 'agent', agentId);
    const ids = [...new Set(deviceIds)];
    return this.db.transaction(async (tx) => {
      const gateways = await tx
        .select({ id: device.id, sn: device.sn, agentId: device.agentId, projectId: device.projectId })
        .from(device)
        .where(and(inArray(device.id, ids), isNull(device.gatewayId), inScope(scope, device.companyId)));
      if (gateways.length !== ids.length) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
      for (const g of gateways) {
        if (assign && g.agentId !== null && g.agentId !== agentId) {
          throw new ApiError(ErrorCode.DEVICE_ASSIGNED_TO_OTHER_AGENT, {}, g.sn);
        }
        if (!assign && g.agentId !== agentId) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND, {}, g.sn);
        if (g.projectId !== null && g.agentId !== (assign ? agentId : null)) {
          throw new ApiError(ErrorCode.DEVICE_BOUND_TO_PROJECT, {}, g.sn);
        }
      }
      const value = assign ? agentId : null;
      await tx
        .update(device)
        .set({ agentId: value, updatedAt: new Date() })
        .where(or(inArray(device.id, ids), inArray(device.gatewayId, ids)));
      return gateways.map((g) => ({ id: g.id, sn: g.sn, agentId: g.agentId }));
    });
  }
}
