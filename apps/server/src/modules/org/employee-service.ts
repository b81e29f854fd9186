/**
 * Employees of companies (spec §3, §4, §6, §7 `employee/*`). An employee is an
 * account's membership in one company; one account may belong to several companies (the company
 * pick at sign-in). Reads and writes follow the caller's data scope: an employee outside it
 * answers 5051.
 *
 * Rules: an account already employed (or invited) by the company → 5050; a new account gets the
 * initial password (browser digest, scrypt-hashed) and must change it at first sign-in; an
 * existing account keeps its password and is added at once when it already belongs to an employee
 * the caller sees, else invited: the company enters its pick only once its holder accepts
 * (docs/api.md "Adding an existing account"). Nothing the caller gets back tells a new account
 * from an invited one: the same answer `{id}` after the same work (the initial password is
 * hashed either way), the same log entry, and rows "awaiting first sign-in" without the
 * account's id or state until the person signs in or accepts. Department of the same company and within the
 * caller's department scope (5000); roles of the same company (5031); only administrators may
 * grant administrator roles or the administrator flag (5034). Nobody disables or deletes
 * themself (5057); administrator employees cannot be deleted (5053); a non-administrator may not
 * disable or reset the password of an employee wider than itself (5034). Disabling ends the
 * employee's sessions at once. A password reset applies to the account, so it is refused (5034)
 * when the account also belongs to a company outside the caller's scope, and for an employee still
 * awaiting first sign-in (5059, a new and an invited account alike); it ends the account's
 * sessions and forces a change at next sign-in.
 */
import {
  type EmployeeRow,
  type EmployeeSaveRequest,
  ErrorCode,
  type employeeUpdateRequest,
} from '@ess/contract';
import { and, count, desc, eq, ilike, inArray, isNull, ne, or } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type DataScope,
  departmentSubtree,
  employeeInScope,
  scopeIncludes,
  widestScope,
} from '../../access/company-scope';
import { hashPassword } from '../../access/password';
import type { SessionService } from '../../access/session-service';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import {
  company,
  department,
  employee,
  employeeRole,
  role,
  roleMenu,
  userAccount,
} from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

type EmployeeUpdate = z.infer<typeof employeeUpdateRequest>;

/** A row as the rules read it: the public row plus the account behind it. */
type EmployeeRecord = EmployeeRow & { userId: number };

/** The public row: without the account's id (it would tell an old account from a new one). */
function publicRow({ userId: _userId, ...row }: EmployeeRecord): EmployeeRow {
  return row;
}

export interface EmployeeListQuery {
  pageNum: number;
  pageSize: number;
  keyword?: string;
  departmentId?: number;
  status?: 'enabled' | 'disabled';
  companyId?: number;
}

/** The caller as the rules see it. */
export interface Caller {
  employeeId: number;
  companyId: number;
  isAdmin: boolean;
  /** Menu ids the caller's roles grant explicitly. */
  granted: ReadonlySet<number>;
}

export class EmployeeService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly scryptLogN: number,
  ) {}

  /** One page of the employees the caller sees, newest first. */
  async list(scope: DataScope, q: EmployeeListQuery): Promise<{ list: EmployeeRow[]; total: number }> {
    const departmentIds = q.departmentId ? await departmentSubtree(this.db, q.departmentId) : undefined;
    const where = and(
      employeeInScope(scope),
      q.companyId ? eq(employee.companyId, q.companyId) : undefined,
      departmentIds ? inArray(employee.departmentId, departmentIds) : undefined,
      q.status ? eq(employee.status, q.status) : undefined,
      q.keyword
        ? or(
            ilike(userAccount.account, likePattern(q.keyword)),
            ilike(employee.name, likePattern(q.keyword)),
            ilike(employee.phone, likePattern(q.keyword)),
          )
        : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db
      .select({ total: count() })
      .from(employee)
      .innerJoin(userAccount, eq(userAccount.id, employee.userId))
      .where(where);
    const ids = await this.db
      .select({ id: employee.id })
      .from(employee)
      .innerJoin(userAccount, eq(userAccount.id, employee.userId))
      .where(where)
      .orderBy(desc(employee.id))
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return { list: (await this.rows(ids.map((r) => r.id))).map(publicRow), total: Number(total) };
  }

  /** Full rows of these employees, in the given order. */
  private async rows(ids: number[]): Promise<EmployeeRecord[]> {
    if (ids.length === 0) return [];
    const base = await this.db
      .select({
        employee,
        account: userAccount.account,
        mustChangePassword: userAccount.mustChangePassword,
        companyName: company.name,
        departmentName: department.name,
      })
      .from(employee)
      .innerJoin(userAccount, eq(userAccount.id, employee.userId))
      .innerJoin(company, eq(company.id, employee.companyId))
      .leftJoin(department, eq(department.id, employee.departmentId))
      .where(inArray(employee.id, ids));
    const roles = await this.db
      .select({ employeeId: employeeRole.employeeId, id: role.id, name: role.name })
      .from(employeeRole)
      .innerJoin(role, eq(role.id, employeeRole.roleId))
      .where(inArray(employeeRole.employeeId, ids));
    const byId = new Map(base.map((r) => [r.employee.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      const e = r.employee;
      const awaitingSignIn = e.joinedAt === null;
      return [
        {
          id: e.id,
          companyId: e.companyId,
          companyName: r.companyName,
          userId: e.userId,
          account: r.account,
          name: e.name,
          phone: e.phone,
          email: e.email,
          departmentId: e.departmentId,
          departmentName: r.departmentName,
          roles: roles
            .filter((x) => x.employeeId === id)
            .map(({ id: roleId, name }) => ({ id: roleId, name })),
          status: e.status === 'disabled' ? 'disabled' : 'enabled',
          isAdmin: e.isAdmin,
          isSubAlarm: e.isSubAlarm === 'Y' ? 'Y' : 'N',
          awaitingSignIn,
          // An invited account's own flag stays hidden until it accepts.
          mustChangePassword: awaitingSignIn || r.mustChangePassword,
          createdAt: e.createdAt.toISOString(),
        },
      ];
    });
  }

  /** The employee the caller sees; 5051 otherwise. */
  async detail(scope: DataScope, id: number): Promise<EmployeeRow> {
    return publicRow(await this.record(scope, id));
  }

  /** {@link detail} with the account's id, for the rules. */
  private async record(scope: DataScope, id: number): Promise<EmployeeRecord> {
    const [visible] = await this.db
      .select({ id: employee.id })
      .from(employee)
      .where(and(eq(employee.id, id), employeeInScope(scope)));
    if (!visible) throw new ApiError(ErrorCode.EMPLOYEE_NOT_FOUND);
    return (await this.rows([id]))[0]!;
  }

  /** Department and roles of an employee of `companyId`, checked against the rules. */
  private async checkAssignments(
    scope: DataScope,
    caller: Caller,
    companyId: number,
    input: { departmentId?: number | null; roleIds: number[]; isAdmin: boolean },
    currentRoleIds: readonly number[] = [],
  ): Promise<void> {
    const departmentId = input.departmentId ?? null;
    if (departmentId !== null) {
      const [dept] = await this.db
        .select({ companyId: department.companyId })
        .from(department)
        .where(eq(department.id, departmentId));
      if (!dept || dept.companyId !== companyId) throw new ApiError(ErrorCode.DEPARTMENT_NOT_FOUND);
    }
    if (
      scope.departmentIds !== null &&
      (departmentId === null || !scope.departmentIds.includes(departmentId))
    ) {
      throw new ApiError(ErrorCode.DEPARTMENT_NOT_FOUND);
    }
    const roleIds = [...new Set(input.roleIds)];
    if (roleIds.length > 0) {
      const found = await this.db
        .select({ id: role.id })
        .from(role)
        .where(and(inArray(role.id, roleIds), eq(role.companyId, companyId)));
      if (found.length !== roleIds.length) throw new ApiError(ErrorCode.ROLE_NOT_FOUND);
    }
    if (!caller.isAdmin) {
      if (input.isAdmin) throw new ApiError(ErrorCode.NO_PERMISSION);
      const changed = [
        ...roleIds.filter((id) => !currentRoleIds.includes(id)),
        ...currentRoleIds.filter((id) => !roleIds.includes(id)),
      ];
      await this.assertWithinCaller(scope, caller, changed);
    }
  }

  /**
   * A caller who is not an administrator may give or take only roles that are no wider than
   * itself: not an administrator role, no menu it does not hold, no wider data scope (5034).
   */
  private async assertWithinCaller(scope: DataScope, caller: Caller, roleIds: number[]): Promise<void> {
    if (roleIds.length === 0) return;
    const roles = await this.db
      .select({ id: role.id, isAdmin: role.isAdmin, dataScope: role.dataScope })
      .from(role)
      .where(inArray(role.id, roleIds));
    const grants = await this.db
      .select({ menuId: roleMenu.menuId })
      .from(roleMenu)
      .where(inArray(roleMenu.roleId, roleIds));
    const wider = roles.some(
      (r) =>
        r.isAdmin ||
        widestScope([
          { isAdmin: false, dataScope: r.dataScope },
          { isAdmin: false, dataScope: scope.kind },
        ]) !== scope.kind,
    );
    if (wider || grants.some((g) => !caller.granted.has(g.menuId)))
      throw new ApiError(ErrorCode.NO_PERMISSION);
  }

  /**
   * Creates an employee: with a new account (initial password, awaiting first sign-in), or for
   * an existing account — added at once when an employee the caller sees holds it, else invited
   * (awaiting its holder's consent). Answers `{id}` alike (see the module comment).
   */
  async create(scope: DataScope, caller: Caller, input: EmployeeSaveRequest): Promise<{ id: number }> {
    const companyId = input.companyId ?? caller.companyId;
    if (!scopeIncludes(scope.companies, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    await this.checkAssignments(scope, caller, companyId, input);
    const [existing] = await this.db.select().from(userAccount).where(eq(userAccount.account, input.account));
    let known = false;
    if (existing) {
      const [member] = await this.db
        .select({ id: employee.id })
        .from(employee)
        .where(and(eq(employee.userId, existing.id), eq(employee.companyId, companyId)));
      if (member) throw new ApiError(ErrorCode.ACCOUNT_HAS_EMPLOYEE);
      const [seen] = await this.db
        .select({ id: employee.id })
        .from(employee)
        .where(and(eq(employee.userId, existing.id), isNull(employee.invitation), employeeInScope(scope)))
        .limit(1);
      known = seen !== undefined;
    }
    // Hashed for an existing account too, unused: the answer takes as long either way.
    const passwordHash = await hashPassword(input.password, this.scryptLogN);
    const id = await this.db.transaction(async (tx) => {
      let userId = existing?.id;
      if (userId === undefined) {
        const [account] = await tx
          .insert(userAccount)
          .values({ account: input.account, passwordHash, mustChangePassword: true })
          .returning({ id: userAccount.id });
        userId = account!.id;
      }
      const [row] = await tx
        .insert(employee)
        .values({
          companyId,
          userId,
          departmentId: input.departmentId ?? null,
          name: input.name,
          phone: input.phone,
          email: input.email,
          isAdmin: input.isAdmin,
          // A new account joins at its first sign-in; an account seen already has joined us.
          invitation: existing && !known ? 'pending' : null,
          joinedAt: known ? new Date() : null,
        })
        .returning({ id: employee.id });
      const roleIds = [...new Set(input.roleIds)];
      if (roleIds.length > 0) {
        await tx.insert(employeeRole).values(roleIds.map((roleId) => ({ employeeId: row!.id, roleId })));
      }
      return row!.id;
    });
    return { id };
  }

  async update(scope: DataScope, caller: Caller, input: EmployeeUpdate) {
    const before = await this.detail(scope, input.id);
    if (!caller.isAdmin && input.isAdmin !== before.isAdmin) throw new ApiError(ErrorCode.NO_PERMISSION);
    await this.checkAssignments(
      scope,
      caller,
      before.companyId,
      { ...input, isAdmin: false },
      before.roles.map((r) => r.id),
    );
    await this.db.transaction(async (tx) => {
      await tx
        .update(employee)
        .set({
          name: input.name,
          phone: input.phone,
          email: input.email,
          departmentId: input.departmentId ?? null,
          isAdmin: input.isAdmin,
          updatedAt: new Date(),
        })
        .where(eq(employee.id, input.id));
      await tx.delete(employeeRole).where(eq(employeeRole.employeeId, input.id));
      const roleIds = [...new Set(input.roleIds)];
      if (roleIds.length > 0) {
        await tx.insert(employeeRole).values(roleIds.map((roleId) => ({ employeeId: input.id, roleId })));
      }
    });
    return { before, after: await this.detail(scope, input.id) };
  }

  /**
   * A caller who is not an administrator may act on the account of (disable, reset the password
   * of) only an employee no wider than itself: not an administrator, roles within its own
   * rights — else it could sign in as someone with more rights (5034).
   */
  private async assertTargetWithinCaller(
    scope: DataScope,
    caller: Caller,
    target: Pick<EmployeeRow, 'isAdmin' | 'roles'>,
  ): Promise<void> {
    if (caller.isAdmin) return;
    if (target.isAdmin) throw new ApiError(ErrorCode.NO_PERMISSION);
    await this.assertWithinCaller(
      scope,
      caller,
      target.roles.map((r) => r.id),
    );
  }

  async setStatus(scope: DataScope, caller: Caller, id: number, status: 'enabled' | 'disabled') {
    const before = await this.detail(scope, id);
    if (id === caller.employeeId) throw new ApiError(ErrorCode.EMPLOYEE_SELF_ACTION);
    await this.assertTargetWithinCaller(scope, caller, before);
    await this.db.update(employee).set({ status, updatedAt: new Date() }).where(eq(employee.id, id));
    if (status === 'disabled') await this.sessions.revokeEmployeeSessions([id], 'disabled');
    return { before: { status: before.status }, after: { status } };
  }

  async remove(scope: DataScope, caller: Caller, id: number): Promise<EmployeeRow> {
    const before = await this.record(scope, id);
    if (id === caller.employeeId) throw new ApiError(ErrorCode.EMPLOYEE_SELF_ACTION);
    if (before.isAdmin) throw new ApiError(ErrorCode.EMPLOYEE_ADMIN_UNDELETABLE);
    await this.db.transaction(async (tx) => {
      await tx.delete(employee).where(eq(employee.id, id));
      const [{ others } = { others: 0 }] = await tx
        .select({ others: count() })
        .from(employee)
        .where(eq(employee.userId, before.userId));
      if (Number(others) === 0) await tx.delete(userAccount).where(eq(userAccount.id, before.userId));
    });
    return publicRow(before);
  }

  async resetPassword(scope: DataScope, caller: Caller, id: number, password: string) {
    const target = await this.record(scope, id);
    // Before the other rules: for an invited account they would answer 5034 where a new one
    // passes, telling the two apart.
    if (target.awaitingSignIn) throw new ApiError(ErrorCode.EMPLOYEE_AWAITING_SIGN_IN);
    await this.assertTargetWithinCaller(scope, caller, target);
    const memberships = await this.db
      .select({ companyId: employee.companyId })
      .from(employee)
      .where(and(eq(employee.userId, target.userId), ne(employee.id, id)));
    if (memberships.some((m) => !scopeIncludes(scope.companies, m.companyId))) {
      throw new ApiError(ErrorCode.NO_PERMISSION);
    }
    const passwordHash = await hashPassword(password, this.scryptLogN);
    await this.db
      .update(userAccount)
      .set({ passwordHash, mustChangePassword: true, passwordChangedAt: new Date() })
      .where(eq(userAccount.id, target.userId));
    await this.sessions.revokeUserSessions(target.userId, 'password-reset');
    return { targetId: id, after: { account: target.account, mustChangePassword: true } };
  }
}
