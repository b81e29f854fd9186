/**
 * Test support: rows put straight into the database (companies, accounts, employees, roles with
 * menu grants, extra menu entries) and reads of what the server stored (sessions, throttle rows).
 */
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { forgetMenus } from '../../src/access/menu-access';
import { hashPassword } from '../../src/access/password';
import { tokenDigest } from '../../src/access/tokens';
import type { Db } from '../../src/core/db/database';
import {
  authSession,
  company,
  employee,
  employeeRole,
  menu,
  role,
  roleMenu,
  userAccount,
} from '../../src/core/db/schema';
import { digest } from './client';
import { TEST_SCRYPT_LOG_N } from './test-app';

let counter = 0;

/** A name no other row of this test process uses: `<prefix>-<n>-<random>`. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A client address no other test of this process uses (for throttling per address). */
export function uniqueIp(): string {
  counter += 1;
  return `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
}

/** A well-formed terminal id (8–64 of A–Z a–z 0–9 _ -). */
export function terminal(): string {
  return unique('term').replace(/[^A-Za-z0-9_-]/g, '');
}

export async function addCompany(
  db: Db,
  options: { name?: string; status?: 'enabled' | 'disabled'; type?: string } = {},
): Promise<{ id: number; name: string }> {
  const name = options.name ?? unique('公司');
  const [row] = await db
    .insert(company)
    .values({ name, type: options.type ?? 'owner', status: options.status ?? 'enabled' })
    .returning({ id: company.id, name: company.name });
  return row!;
}

/** An account whose stored hash is scrypt (test cost) of the browser digest of `password`. */
export async function addAccount(db: Db, account: string, password: string): Promise<number> {
  const passwordHash = await hashPassword(digest(password), TEST_SCRYPT_LOG_N);
  const [row] = await db
    .insert(userAccount)
    .values({ account, passwordHash })
    .returning({ id: userAccount.id });
  return row!.id;
}

export async function addEmployee(
  db: Db,
  options: {
    companyId: number;
    userId: number;
    name?: string;
    status?: 'enabled' | 'disabled';
    roleIds?: number[];
  },
): Promise<number> {
  const [row] = await db
    .insert(employee)
    .values({
      companyId: options.companyId,
      userId: options.userId,
      name: options.name ?? unique('员工'),
      status: options.status ?? 'enabled',
    })
    .returning({ id: employee.id });
  for (const roleId of options.roleIds ?? []) {
    await db.insert(employeeRole).values({ employeeId: row!.id, roleId });
  }
  return row!.id;
}

/** A role of `companyId` granted `menuIds` through role_menu. */
export async function addRole(
  db: Db,
  options: { companyId: number; menuIds?: number[]; isAdmin?: boolean; status?: 'enabled' | 'disabled' },
): Promise<number> {
  const code = unique('role');
  const [row] = await db
    .insert(role)
    .values({
      companyId: options.companyId,
      name: code,
      code,
      isAdmin: options.isAdmin ?? false,
      status: options.status ?? 'enabled',
    })
    .returning({ id: role.id });
  for (const menuId of options.menuIds ?? []) await db.insert(roleMenu).values({ roleId: row!.id, menuId });
  return row!.id;
}

export interface Staff {
  account: string;
  password: string;
  userId: number;
  employeeId: number;
  companyId: number;
}

/**
 * An account with one employee in `companyId` (default: a new enabled company), holding
 * `roleIds`. Password default: 'secret1'.
 */
export async function addStaff(
  db: Db,
  options: {
    companyId?: number;
    roleIds?: number[];
    status?: 'enabled' | 'disabled';
    password?: string;
    account?: string;
  } = {},
): Promise<Staff> {
  const companyId = options.companyId ?? (await addCompany(db)).id;
  const account = options.account ?? unique('user');
  const password = options.password ?? 'secret1';
  const userId = await addAccount(db, account, password);
  const employeeId = await addEmployee(db, {
    companyId,
    userId,
    ...(options.status ? { status: options.status } : {}),
    ...(options.roleIds ? { roleIds: options.roleIds } : {}),
  });
  return { account, password, userId, employeeId, companyId };
}

/**
 * Menu rows of the tests, beside the seeded ones (ids below 10000 are reserved for seed
 * migrations, so these use 20000+): two buttons under the seeded page 101 (System > Menus), and
 * a directory "Monitoring" (sort 50, before System's 900) holding a 'zdjk' page.
 */
export const TEST_MENU = { addButton: 20102, deleteButton: 20103, monitor: 20200, zdjk: 20201 } as const;

export const EXTRA_MENUS = [
  {
    id: TEST_MENU.addButton,
    parentId: 101,
    type: 'button',
    sort: 1,
    titleZh: '新增菜单',
    titleEn: 'Add menu',
    perms: 'test:menu:add',
  },
  {
    id: TEST_MENU.deleteButton,
    parentId: 101,
    type: 'button',
    sort: 2,
    titleZh: '删除菜单',
    titleEn: 'Delete menu',
    perms: 'test:menu:delete',
  },
  {
    id: TEST_MENU.monitor,
    parentId: null,
    type: 'directory',
    sort: 50,
    path: '/monitor',
    name: 'Monitor',
    component: 'Layout',
    titleZh: '监控中心',
    titleEn: 'Monitoring',
  },
  {
    id: TEST_MENU.zdjk,
    parentId: TEST_MENU.monitor,
    type: 'page',
    sort: 10,
    path: 'zdjk',
    name: 'Zdjk',
    component: 'zdjk/index',
    titleZh: '站点监控',
    titleEn: 'Site monitoring',
    perms: 'test:site:list',
  },
] as const satisfies (typeof menu.$inferInsert)[];

export async function addExtraMenus(db: Db): Promise<void> {
  await db.insert(menu).values([...EXTRA_MENUS]);
  forgetMenus(db); // the server keeps the menu table for a few seconds
}

/** The stored session of an access token, if any. */
export async function sessionOfToken(db: Db, token: string) {
  const [row] = await db
    .select()
    .from(authSession)
    .where(eq(authSession.accessTokenHash, tokenDigest(token)));
  return row;
}

/** Parses `data` with a contract schema, so that a test fails when an answer breaks the contract. */
export function conforms<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new Error(`answer breaks the contract: ${parsed.error.message}`);
  return parsed.data;
}

/** True when a message looks like it carries a stack trace or source locations. */
export function looksLikeInternals(msg: string): boolean {
  return /\n\s*at\s|\bat .+:\d+:\d+|node_modules|\.[cm]?[jt]s:\d+|Error:/.test(msg);
}
