/**
 * Which rows a caller may see (design §4 "Tenancy"). Two layers:
 *
 *  1. Tenancy, absolute: the platform operator's company may see every company; any other
 *     company sees itself and its sub-companies (`company.parent_id`, any depth), never more.
 *  2. The role's data scope (RuoYi), the widest of the caller's enabled roles (an administrator
 *     role counts as `all`):
 *     - `all`: every company tenancy allows;
 *     - `company`: own company and its sub-companies;
 *     - `department_and_below` / `department`: own company only; employees and departments limited
 *       to the own department and the ones below it / the own department (plus oneself);
 *     - `self`: own company only; employees limited to oneself, departments to one's own.
 *     Rows without a department (sites, devices, telemetry, roles) follow the company part.
 *
 * Queries call `dataScopeOf` (or `companyScope` for the company part) once per request and use
 * the condition builders below; a row outside the scope answers as if it did not exist.
 */
import { type DataScopeKind, ErrorCode } from '@ess/contract';
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { company, employee, employeeRole, role, site } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import type { AuthContext } from './session-service';

/** `all`, or the ids of the companies the caller may see. */
export type CompanyScope = { all: true } | { all: false; companyIds: number[] };

/** The caller's full data scope. */
export interface DataScope {
  kind: DataScopeKind;
  companies: CompanyScope;
  /** Departments whose employees the caller sees; null = every department of those companies. */
  departmentIds: number[] | null;
  /** The caller's own employee id (always visible to itself). */
  employeeId: number;
  /** The caller's own department, if any. */
  ownDepartmentId: number | null;
}

/** Widest first: the caller gets the lowest rank among its roles. */
const RANK: Record<DataScopeKind, number> = {
  all: 0,
  company: 1,
  department_and_below: 2,
  department: 3,
  self: 4,
};

/** The widest data scope among the given roles (`self` when there is none). */
export function widestScope(roles: readonly { isAdmin: boolean; dataScope: string }[]): DataScopeKind {
  let best: DataScopeKind = 'self';
  for (const r of roles) {
    const kind: DataScopeKind = r.isAdmin ? 'all' : (r.dataScope as DataScopeKind);
    if (RANK[kind] !== undefined && RANK[kind] < RANK[best]) best = kind;
  }
  return best;
}

/** The company and every company below it (`company.parent_id`, any depth). */
export async function companyTree(db: Db, companyId: number): Promise<number[]> {
  const rows = await db.execute<{ id: number }>(sql`
    WITH RECURSIVE tree AS (
      SELECT id FROM company WHERE id = ${companyId}
      UNION SELECT c.id FROM company c JOIN tree t ON c.parent_id = t.id
    ) SELECT id FROM tree`);
  return rowsOf<{ id: number }>(rows).map((r) => Number(r.id));
}

/** The department and every department below it. */
export async function departmentSubtree(db: Db, departmentId: number): Promise<number[]> {
  const rows = await db.execute<{ id: number }>(sql`
    WITH RECURSIVE tree AS (
      SELECT id FROM department WHERE id = ${departmentId}
      UNION SELECT d.id FROM department d JOIN tree t ON d.parent_id = t.id
    ) SELECT id FROM tree`);
  return rowsOf<{ id: number }>(rows).map((r) => Number(r.id));
}

/** The caller's data scope, from its company, department and enabled roles. */
export async function dataScopeOf(
  db: Db,
  auth: Pick<AuthContext, 'companyId' | 'employeeId'>,
): Promise<DataScope> {
  const rows = rowsOf<{
    company_type: string;
    department_id: number | null;
    is_admin: boolean | null;
    data_scope: string | null;
  }>(
    await db.execute(sql`
      SELECT c.type AS company_type, e.department_id, r.is_admin, r.data_scope
      FROM ${employee} e
      JOIN ${company} c ON c.id = e.company_id
      LEFT JOIN ${employeeRole} er ON er.employee_id = e.id
      LEFT JOIN ${role} r ON r.id = er.role_id AND r.status = 'enabled'
      WHERE e.id = ${auth.employeeId}`),
  );
  const own = rows[0] ? { type: rows[0].company_type } : undefined;
  const member = rows[0]
    ? { departmentId: rows[0].department_id === null ? null : Number(rows[0].department_id) }
    : undefined;
  const roles = rows
    .filter((r) => r.data_scope !== null)
    .map((r) => ({ isAdmin: r.is_admin === true, dataScope: r.data_scope as string }));
  const kind = widestScope(roles);
  const ownDepartmentId = member?.departmentId ?? null;
  const base = { kind, employeeId: auth.employeeId, ownDepartmentId };
  if (kind === 'all' || kind === 'company') {
    const companies: CompanyScope =
      kind === 'all' && own?.type === 'platform'
        ? { all: true }
        : { all: false, companyIds: await companyTree(db, auth.companyId) };
    return { ...base, companies, departmentIds: null };
  }
  const companies: CompanyScope = { all: false, companyIds: [auth.companyId] };
  let departmentIds: number[] = [];
  if (ownDepartmentId !== null && kind === 'department_and_below') {
    departmentIds = await departmentSubtree(db, ownDepartmentId);
  } else if (ownDepartmentId !== null && kind === 'department') {
    departmentIds = [ownDepartmentId];
  }
  return { ...base, companies, departmentIds };
}

/** The company part of the caller's data scope. */
export async function companyScope(
  db: Db,
  auth: Pick<AuthContext, 'companyId' | 'employeeId'>,
): Promise<CompanyScope> {
  return (await dataScopeOf(db, auth)).companies;
}

/** A WHERE condition limiting `column` (a company_id) to the scope; undefined = no limit. */
export function inScope(scope: CompanyScope, column: AnyPgColumn): SQL | undefined {
  return scope.all ? undefined : inArray(column, scope.companyIds.length ? scope.companyIds : [-1]);
}

/**
 * The same limit for hand-written SQL: `<column> IN (…)` or TRUE. `column` is a trusted
 * identifier written in our code (e.g. `'s.company_id'`), never input.
 */
export function inScopeSql(scope: CompanyScope, column: string): SQL {
  if (scope.all) return sql`TRUE`;
  const ids = scope.companyIds.length ? scope.companyIds : [-1];
  return sql`${sql.raw(column)} IN (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/** True when `companyId` is within the scope. */
export function scopeIncludes(scope: CompanyScope, companyId: number): boolean {
  return scope.all || scope.companyIds.includes(companyId);
}

/** Employees the caller may see: company scope, then department scope or oneself. */
export function employeeInScope(scope: DataScope): SQL | undefined {
  const byCompany = inScope(scope.companies, employee.companyId);
  if (scope.departmentIds === null) return byCompany;
  const byDepartment = scope.departmentIds.length
    ? or(inArray(employee.departmentId, scope.departmentIds), eq(employee.id, scope.employeeId))
    : eq(employee.id, scope.employeeId);
  return and(byCompany, byDepartment);
}

/**
 * Departments the caller may see: company scope, then the department scope (`self`: one's own
 * department only).
 */
export function departmentInScope(
  scope: DataScope,
  columns: { id: AnyPgColumn; companyId: AnyPgColumn },
): SQL | undefined {
  const byCompany = inScope(scope.companies, columns.companyId);
  if (scope.departmentIds === null) return byCompany;
  const ids =
    scope.kind === 'self'
      ? scope.ownDepartmentId === null
        ? []
        : [scope.ownDepartmentId]
      : scope.departmentIds;
  return and(byCompany, inArray(columns.id, ids.length ? ids : [-1]));
}

/** The site row if it is in `scope`; 3036 otherwise (a site outside answers as if absent). */
export async function requireSiteInScope(db: Db, scope: CompanyScope, siteId: number) {
  const [row] = await db
    .select()
    .from(site)
    .where(and(eq(site.id, siteId), inScope(scope, site.companyId)));
  if (!row) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
  return row;
}
