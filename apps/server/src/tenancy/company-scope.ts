/**
 * Which companies' rows a caller may see (design §4 "Tenancy": one place for every query of
 * company data). The platform operator sees every company; any other company sees itself and
 * its sub-companies (`company.parent_id`, any depth). Role data scopes (department, self) refine
 * this in the access-control issue.
 */
import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { AuthContext } from '../auth/session-service';
import type { Db } from '../db/database';
import { rowsOf } from '../db/rows';
import { company } from '../db/schema';

/** `all`, or the ids of the companies the caller may see. */
export type CompanyScope = { all: true } | { all: false; companyIds: number[] };

export async function companyScope(db: Db, auth: Pick<AuthContext, 'companyId'>): Promise<CompanyScope> {
  const [own] = await db.select({ type: company.type }).from(company).where(eq(company.id, auth.companyId));
  if (own?.type === 'platform') return { all: true };
  const rows = await db.execute<{ id: number }>(sql`
    WITH RECURSIVE tree AS (
      SELECT id FROM company WHERE id = ${auth.companyId}
      UNION SELECT c.id FROM company c JOIN tree t ON c.parent_id = t.id
    ) SELECT id FROM tree`);
  return { all: false, companyIds: rowsOf<{ id: number }>(rows).map((r) => Number(r.id)) };
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
