/**
 * Test support for organisation and access control: companies in a tree, departments, roles
 * with a data scope, unique phones, and a snapshot of the organisation tables to show that a
 * refused call changed nothing.
 */
import { type DataScopeKind, errorMessage } from '@ess/contract';
import { and, eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Db } from '../../src/core/db/database';
import { rowsOf } from '../../src/core/db/rows';
import { company, department, role, roleMenu } from '../../src/core/db/schema';
import type { Envelope } from './client';
import { unique } from './fixtures';

let phoneCounter = 0;

/** A mainland mobile number (1[3-9] + 9 digits) no other row of this process uses. */
export function uniquePhone(): string {
  phoneCounter += 1;
  const tail = (Date.now() % 1e5) * 1e4 + (phoneCounter % 1e4);
  return `13${String(tail).padStart(9, '0').slice(-9)}`;
}

/** A company of `type` below `parentId` (null: top level). */
export async function addCompanyUnder(
  db: Db,
  options: { type: string; parentId: number | null; status?: 'enabled' | 'disabled'; phone?: string },
): Promise<number> {
  const [row] = await db
    .insert(company)
    .values({
      type: options.type,
      parentId: options.parentId,
      name: unique(options.type),
      status: options.status ?? 'enabled',
      phone: options.phone ?? null,
    })
    .returning({ id: company.id });
  return row!.id;
}

export async function addDepartment(
  db: Db,
  options: { companyId: number; parentId?: number | null; name?: string },
): Promise<number> {
  const [row] = await db
    .insert(department)
    .values({
      companyId: options.companyId,
      parentId: options.parentId ?? null,
      name: options.name ?? unique('部门'),
    })
    .returning({ id: department.id });
  return row!.id;
}

/** A role of `companyId` with a data scope, granted `menuIds`. */
export async function addScopedRole(
  db: Db,
  options: {
    companyId: number;
    dataScope: DataScopeKind;
    menuIds?: number[];
    isAdmin?: boolean;
    status?: 'enabled' | 'disabled';
  },
): Promise<number> {
  const code = unique('r').replace(/[^A-Za-z0-9_-]/g, '');
  const [row] = await db
    .insert(role)
    .values({
      companyId: options.companyId,
      name: code,
      code,
      dataScope: options.dataScope,
      isAdmin: options.isAdmin ?? false,
      status: options.status ?? 'enabled',
    })
    .returning({ id: role.id });
  for (const menuId of options.menuIds ?? []) await db.insert(roleMenu).values({ roleId: row!.id, menuId });
  return row!.id;
}

/** The administrator role of a company (the seeded one for the platform, `admin` for new ones). */
export async function adminRoleOf(db: Db, companyId: number): Promise<number> {
  const [row] = await db
    .select({ id: role.id })
    .from(role)
    .where(and(eq(role.companyId, companyId), eq(role.isAdmin, true)))
    .orderBy(role.id)
    .limit(1);
  if (!row) throw new Error(`company ${companyId} has no administrator role`);
  return row.id;
}

/** Tables a refused organisation call must leave as they were. */
const TABLES = [
  'company',
  'department',
  'user_account',
  'employee',
  'employee_role',
  'role',
  'role_menu',
  'sys_menu',
  'site',
  'device',
  'auth_session',
] as const;

/** Every row of the organisation tables, as JSON text in a stable order (one round trip). */
export async function snapshot(db: Db): Promise<Record<string, string[]>> {
  const parts = TABLES.map(
    (table) =>
      `'${table}', (SELECT coalesce(json_agg(r ORDER BY r), '[]'::json) FROM (SELECT to_jsonb(t)::text AS r FROM "${table}" t) x)`,
  );
  const result = await db.execute(sql.raw(`SELECT json_build_object(${parts.join(', ')})::text AS snap`));
  return JSON.parse(rowsOf<{ snap: string }>(result)[0]!.snap);
}

/** The `msg` the server answers for `code` in `lang`, with an optional detail (e.g. an SN). */
export function catalogueMsg(code: number, lang: 'zh' | 'en', detail?: string): string {
  const text = errorMessage(code, lang);
  return detail ? `${text}${lang === 'zh' ? '：' : ': '}${detail}` : text;
}

/** Asserts a refusal envelope: the code, the catalogue text in `lang`, no data. */
export function expectRefusal(answer: Envelope, code: number, lang: 'zh' | 'en', detail?: string): void {
  expect(answer).toEqual({ code, msg: catalogueMsg(code, lang, detail), data: null });
}
