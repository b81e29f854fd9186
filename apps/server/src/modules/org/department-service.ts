/**
 * Departments: a tree per company (spec §3, §7 `department/*`; RuoYi's sys_dept). Reads and
 * writes follow the caller's data scope (tenancy/company-scope.ts): a department outside it
 * answers 5000, a company outside it 6000.
 *
 * Rules: the parent is a department of the same company (5000), never the department itself or
 * one below it (5003); sibling names are unique (5004); a department with sub-departments (5001)
 * or employees (5002) cannot be deleted. Callers limited to their department may only work
 * below the departments they see.
 */
import { type DepartmentInput, type DepartmentRow, ErrorCode } from '@ess/contract';
import { and, asc, count, eq, ilike, isNull, ne, sql } from 'drizzle-orm';
import {
  type DataScope,
  departmentInScope,
  departmentSubtree,
  scopeIncludes,
} from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { department, employee } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

type DepartmentRecord = typeof department.$inferSelect;

export class DepartmentService {
  constructor(private readonly db: Db) {}

  /** The company's departments the caller sees, flat, in display order (sort, id). */
  async list(scope: DataScope, companyId: number, keyword?: string): Promise<DepartmentRow[]> {
    if (!scopeIncludes(scope.companies, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const rows = await this.db
      .select({
        department,
        employeeCount: sql<number>`(SELECT count(*) FROM employee x WHERE x.department_id = "department".id)`,
      })
      .from(department)
      .where(
        and(
          eq(department.companyId, companyId),
          departmentInScope(scope, department),
          keyword ? ilike(department.name, likePattern(keyword)) : undefined,
        ),
      )
      .orderBy(asc(department.sort), asc(department.id));
    return rows.map(({ department: d, employeeCount }) => ({
      id: d.id,
      companyId: d.companyId,
      parentId: d.parentId,
      name: d.name,
      sort: d.sort,
      leader: d.leader,
      phone: d.phone,
      status: d.status === 'disabled' ? 'disabled' : 'enabled',
      employeeCount: Number(employeeCount),
      createdAt: d.createdAt.toISOString(),
    }));
  }

  /** The department with `id` the caller sees; 5000 otherwise. */
  async find(scope: DataScope, id: number): Promise<DepartmentRecord> {
    const [row] = await this.db
      .select()
      .from(department)
      .where(and(eq(department.id, id), departmentInScope(scope, department)));
    if (!row) throw new ApiError(ErrorCode.DEPARTMENT_NOT_FOUND);
    return row;
  }

  /** Checks the parent (same company, visible; or top level when the caller sees every department). */
  private async checkParent(scope: DataScope, companyId: number, parentId: number | null): Promise<void> {
    if (parentId === null) {
      if (scope.departmentIds !== null) throw new ApiError(ErrorCode.DEPARTMENT_NOT_FOUND);
      return;
    }
    const parent = await this.find(scope, parentId);
    if (parent.companyId !== companyId) throw new ApiError(ErrorCode.DEPARTMENT_NOT_FOUND);
  }

  private async assertNameFree(companyId: number, parentId: number | null, name: string, exceptId?: number) {
    const [clash] = await this.db
      .select({ id: department.id })
      .from(department)
      .where(
        and(
          eq(department.companyId, companyId),
          parentId === null ? isNull(department.parentId) : eq(department.parentId, parentId),
          eq(department.name, name),
          exceptId === undefined ? undefined : ne(department.id, exceptId),
        ),
      )
      .limit(1);
    if (clash) throw new ApiError(ErrorCode.DEPARTMENT_NAME_EXISTS);
  }

  async create(scope: DataScope, companyId: number, input: DepartmentInput): Promise<DepartmentRecord> {
    if (!scopeIncludes(scope.companies, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    const parentId = input.parentId ?? null;
    await this.checkParent(scope, companyId, parentId);
    await this.assertNameFree(companyId, parentId, input.name);
    const [row] = await this.db
      .insert(department)
      .values({
        companyId,
        parentId,
        name: input.name,
        sort: input.sort,
        leader: input.leader,
        phone: input.phone,
        status: input.status,
      })
      .returning();
    return row!;
  }

  async update(scope: DataScope, id: number, input: DepartmentInput) {
    const before = await this.find(scope, id);
    const parentId = input.parentId ?? null;
    if (parentId !== null && (await departmentSubtree(this.db, id)).includes(parentId)) {
      throw new ApiError(ErrorCode.DEPARTMENT_PARENT_INVALID);
    }
    if (parentId !== before.parentId) await this.checkParent(scope, before.companyId, parentId);
    await this.assertNameFree(before.companyId, parentId, input.name, id);
    const [after] = await this.db
      .update(department)
      .set({
        parentId,
        name: input.name,
        sort: input.sort,
        leader: input.leader,
        phone: input.phone,
        status: input.status,
        updatedAt: new Date(),
      })
      .where(eq(department.id, id))
      .returning();
    return { before, after: after! };
  }

  async remove(scope: DataScope, id: number): Promise<DepartmentRecord> {
    const before = await this.find(scope, id);
    const [{ children } = { children: 0 }] = await this.db
      .select({ children: count() })
      .from(department)
      .where(eq(department.parentId, id));
    if (Number(children) > 0) throw new ApiError(ErrorCode.DEPARTMENT_HAS_CHILDREN);
    const [{ members } = { members: 0 }] = await this.db
      .select({ members: count() })
      .from(employee)
      .where(eq(employee.departmentId, id));
    if (Number(members) > 0) throw new ApiError(ErrorCode.DEPARTMENT_HAS_EMPLOYEES);
    await this.db.delete(department).where(eq(department.id, id));
    return before;
  }
}
