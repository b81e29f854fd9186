/**
 * Roles (spec §3, §6, §7 `role/pageList, save, update, delete, detail, copy`):
 * name, code, remark, status, data scope and role authority (menu, page and button ids). Roles
 * belong to a company and follow the caller's company scope: a role outside it answers 5031.
 *
 * Rules: name and code unique per company (5036); granted menus must exist and be holdable by
 * the role's company (platform-only entries only for the platform operator) and, for a caller
 * who is not an administrator, be menus the caller holds itself (5034: no escalation); updates
 * carry the version read (5035 when someone saved in between: no lost rights); an administrator
 * role keeps every menu and cannot be disabled or deleted (5033); a role held by employees
 * cannot be deleted (5032). Copy makes a new role with the same rights, data scope and remark.
 */
import {
  type DataScopeKind,
  ErrorCode,
  type RoleDetail,
  type RoleRow,
  type RoleSaveRequest,
  type RoleUpdateRequest,
} from '@ess/contract';
import { and, count, desc, eq, ilike, ne, or, sql } from 'drizzle-orm';
import { type CompanyScope, inScope, scopeIncludes } from '../../access/company-scope';
import { allMenus, holdableMenus, type MenuAccess } from '../../access/menu-access';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { company, employeeRole, role, roleMenu } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

type RoleRecord = typeof role.$inferSelect;

export interface RoleListQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
  status?: 'enabled' | 'disabled';
  companyId?: number;
}

export class RoleService {
  constructor(private readonly db: Db) {}

  private rowQuery() {
    return this.db
      .select({
        role,
        companyName: company.name,
        employeeCount: sql<number>`(SELECT count(*) FROM employee_role x WHERE x.role_id = "role".id)`,
      })
      .from(role)
      .innerJoin(company, eq(company.id, role.companyId));
  }

  private toRow(r: { role: RoleRecord; companyName: string; employeeCount: number }): RoleRow {
    return {
      id: r.role.id,
      companyId: r.role.companyId,
      companyName: r.companyName,
      name: r.role.name,
      code: r.role.code,
      remark: r.role.remark,
      status: r.role.status === 'disabled' ? 'disabled' : 'enabled',
      isAdmin: r.role.isAdmin,
      dataScope: r.role.dataScope as DataScopeKind,
      version: r.role.version,
      employeeCount: Number(r.employeeCount),
      createdAt: r.role.createdAt.toISOString(),
    };
  }

  async list(scope: CompanyScope, q: RoleListQuery): Promise<{ list: RoleRow[]; total: number }> {
    const where = and(
      inScope(scope, role.companyId),
      q.companyId ? eq(role.companyId, q.companyId) : undefined,
      q.status ? eq(role.status, q.status) : undefined,
      q.keyword
        ? or(ilike(role.name, likePattern(q.keyword)), ilike(role.code, likePattern(q.keyword)))
        : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(role).where(where);
    const rows = await this.rowQuery()
      .where(where)
      .orderBy(desc(role.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return { list: rows.map((r) => this.toRow(r)), total: Number(total) };
  }

  /** The role with its granted menu ids; 5031 outside the scope. */
  async detail(scope: CompanyScope, id: number): Promise<RoleDetail> {
    const [row] = await this.rowQuery().where(and(eq(role.id, id), inScope(scope, role.companyId)));
    if (!row) throw new ApiError(ErrorCode.ROLE_NOT_FOUND);
    return { ...this.toRow(row), menuIds: await this.menuIdsOf(row.role) };
  }

  private async menuIdsOf(r: RoleRecord): Promise<number[]> {
    if (r.isAdmin) {
      const holdable = holdableMenus(await allMenus(this.db), await this.isPlatform(r.companyId));
      return holdable.map((m) => m.id);
    }
    const rows = await this.db
      .select({ id: roleMenu.menuId })
      .from(roleMenu)
      .where(eq(roleMenu.roleId, r.id));
    return rows.map((m) => m.id).sort((a, b) => a - b);
  }

  private async isPlatform(companyId: number): Promise<boolean> {
    const [row] = await this.db.select({ type: company.type }).from(company).where(eq(company.id, companyId));
    return row?.type === 'platform';
  }

  /**
   * Checks that `menuIds` may be held by a role of `companyId` and that this caller may make the
   * change from `current`: a caller who is not an administrator may only add or remove entries it
   * holds itself (the role's other entries stay as they are).
   */
  private async checkGrants(
    companyId: number,
    menuIds: number[],
    caller: MenuAccess,
    current: readonly number[] = [],
  ): Promise<number[]> {
    const ids = [...new Set(menuIds)];
    const holdable = new Set(
      holdableMenus(await allMenus(this.db), await this.isPlatform(companyId)).map((m) => m.id),
    );
    if (ids.some((id) => !holdable.has(id))) throw new ApiError(ErrorCode.MENU_NOT_FOUND);
    if (!caller.admin) {
      const before = new Set(current);
      const after = new Set(ids);
      const changed = [...ids.filter((id) => !before.has(id)), ...current.filter((id) => !after.has(id))];
      if (changed.some((id) => !caller.granted.has(id))) throw new ApiError(ErrorCode.NO_PERMISSION);
    }
    return ids;
  }

  /**
   * The menu rows a role of `companyId` may be given by this caller, with both titles: every row
   * the company may hold for an administrator, else the caller's own rows (the granted ones and
   * the directories above them; only the granted ones can be added or removed).
   */
  async grantableMenus(scope: CompanyScope, companyId: number, caller: MenuAccess) {
    if (!scopeIncludes(scope, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const holdable = holdableMenus(await allMenus(this.db), await this.isPlatform(companyId));
    if (caller.admin) return { list: holdable, grantable: holdable.map((m) => m.id) };
    const own = new Set(caller.rows.map((m) => m.id));
    return {
      list: holdable.filter((m) => own.has(m.id)),
      grantable: holdable.filter((m) => caller.granted.has(m.id)).map((m) => m.id),
    };
  }

  private async assertUnique(companyId: number, name: string, code: string, exceptId?: number) {
    const [clash] = await this.db
      .select({ id: role.id })
      .from(role)
      .where(
        and(
          eq(role.companyId, companyId),
          or(eq(role.name, name), eq(role.code, code)),
          exceptId === undefined ? undefined : ne(role.id, exceptId),
        ),
      )
      .limit(1);
    if (clash) throw new ApiError(ErrorCode.ROLE_NAME_OR_CODE_EXISTS);
  }

  async create(scope: CompanyScope, companyId: number, input: RoleSaveRequest, caller: MenuAccess) {
    if (!scopeIncludes(scope, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const menuIds = await this.checkGrants(companyId, input.menuIds, caller);
    await this.assertUnique(companyId, input.name, input.code);
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(role)
        .values({
          companyId,
          name: input.name,
          code: input.code,
          remark: input.remark,
          status: input.status,
          dataScope: input.dataScope,
        })
        .returning({ id: role.id });
      if (menuIds.length > 0)
        await tx.insert(roleMenu).values(menuIds.map((menuId) => ({ roleId: row!.id, menuId })));
      return row!.id;
    });
    return this.detail(scope, id);
  }

  async update(scope: CompanyScope, input: RoleUpdateRequest, caller: MenuAccess) {
    const before = await this.detail(scope, input.id);
    if (before.isAdmin && (input.status !== 'enabled' || input.dataScope !== before.dataScope)) {
      throw new ApiError(ErrorCode.ROLE_ADMIN_UNDELETABLE);
    }
    const menuIds = before.isAdmin
      ? []
      : await this.checkGrants(before.companyId, input.menuIds, caller, before.menuIds);
    await this.assertUnique(before.companyId, input.name, input.code, input.id);
    await this.db.transaction(async (tx) => {
      const updated = await tx
        .update(role)
        .set({
          name: input.name,
          code: input.code,
          remark: input.remark,
          status: input.status,
          dataScope: input.dataScope,
          version: sql`${role.version} + 1`,
          updatedAt: new Date(),
        })
        .where(and(eq(role.id, input.id), eq(role.version, input.version)))
        .returning({ id: role.id });
      if (updated.length === 0) throw new ApiError(ErrorCode.ROLE_VERSION_CONFLICT);
      if (!before.isAdmin) {
        await tx.delete(roleMenu).where(eq(roleMenu.roleId, input.id));
        if (menuIds.length > 0) {
          await tx.insert(roleMenu).values(menuIds.map((menuId) => ({ roleId: input.id, menuId })));
        }
      }
    });
    return { before, after: await this.detail(scope, input.id) };
  }

  async remove(scope: CompanyScope, id: number): Promise<RoleDetail> {
    const before = await this.detail(scope, id);
    if (before.isAdmin) throw new ApiError(ErrorCode.ROLE_ADMIN_UNDELETABLE);
    const [{ holders } = { holders: 0 }] = await this.db
      .select({ holders: count() })
      .from(employeeRole)
      .where(eq(employeeRole.roleId, id));
    if (Number(holders) > 0) throw new ApiError(ErrorCode.ROLE_IN_USE);
    await this.db.delete(role).where(eq(role.id, id));
    return before;
  }

  /** A new role of the same company with the same rights (an administrator role's: every menu). */
  async copy(
    scope: CompanyScope,
    id: number,
    name: string,
    code: string,
    caller: MenuAccess,
  ): Promise<RoleDetail> {
    const source = await this.detail(scope, id);
    await this.checkGrants(source.companyId, source.menuIds, caller);
    await this.assertUnique(source.companyId, name, code);
    const copyId = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(role)
        .values({
          companyId: source.companyId,
          name,
          code,
          remark: source.remark,
          status: source.status,
          dataScope: source.dataScope,
        })
        .returning({ id: role.id });
      if (source.menuIds.length > 0) {
        await tx.insert(roleMenu).values(source.menuIds.map((menuId) => ({ roleId: row!.id, menuId })));
      }
      return row!.id;
    });
    return this.detail(scope, copyId);
  }
}
