/**
 * Menus from the database, filtered by the caller's roles (spec §2, §6): an administrator role
 * holds every menu its company may hold (platform-only rows, like menu management, only in the
 * platform operator's company); other enabled roles hold the entries granted in `role_menu`, plus the
 * directories above them so the tree stays whole.
 */
import {
  ALL_PERMISSIONS,
  buildTree,
  KEEP_ALIVE_PATHS,
  type Lang,
  type MenuItem,
  type MenuRow,
  type MenuType,
} from '@ess/contract';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { company, employee, employeeRole, menu, role, roleMenu } from '../core/db/schema';

type MenuRecord = typeof menu.$inferSelect;

/**
 * How long a process reuses the menu table it read. Menus change rarely (migrations, menu
 * management); every call of every user needs them. Writes through this process clear the copy
 * at once ({@link forgetMenus}); other instances see a change within this time.
 */
export const MENU_CACHE_MS = 5_000;

const menuCache = new WeakMap<Db, { at: number; rows: Promise<MenuRecord[]> }>();

/** All menu rows in display order (sort, then id), from a copy at most MENU_CACHE_MS old. */
export async function allMenus(db: Db): Promise<MenuRecord[]> {
  const cached = menuCache.get(db);
  if (cached && Date.now() - cached.at < MENU_CACHE_MS) return cached.rows;
  const rows = db.select().from(menu).orderBy(asc(menu.sort), asc(menu.id));
  menuCache.set(db, { at: Date.now(), rows });
  rows.catch(() => menuCache.delete(db));
  return rows;
}

/** Drops the cached menu table (after a menu write). */
export function forgetMenus(db: Db): void {
  menuCache.delete(db);
}

const memberFactQueries = new WeakMap<Db, ReturnType<typeof prepareMemberFactQuery>>();

function prepareMemberFactQuery(db: Db) {
  return db
    .select({
      platform: sql<boolean>`${company.type} = 'platform'`,
      admin: sql<boolean>`EXISTS (
        SELECT 1 FROM ${employeeRole} JOIN ${role} ON ${role.id} = ${employeeRole.roleId}
        WHERE ${employeeRole.employeeId} = ${employee.id} AND ${role.status} = 'enabled' AND ${role.isAdmin})`,
    })
    .from(employee)
    .innerJoin(company, eq(company.id, employee.companyId))
    .where(eq(employee.id, sql.placeholder('employeeId')))
    .prepare('employee_menu_facts');
}

/**
 * Whether the employee's company is the platform operator and whether one of its enabled roles
 * is an administrator role.
 */
export async function memberFacts(
  db: Db,
  employeeId: number,
): Promise<{ platform: boolean; admin: boolean }> {
  let query = memberFactQueries.get(db);
  if (!query) {
    query = prepareMemberFactQuery(db);
    memberFactQueries.set(db, query);
  }
  const [row] = await query.execute({ employeeId });
  return { platform: row?.platform === true, admin: row?.admin === true };
}

/** The menu rows a company may hold at all: platform-only rows only for the platform operator. */
export function holdableMenus(menus: readonly MenuRecord[], platform: boolean): MenuRecord[] {
  return platform ? [...menus] : menus.filter((m) => !m.platformOnly);
}

/** What an employee's enabled roles grant. */
export interface MenuAccess {
  admin: boolean;
  /** The employee's company is the platform operator. */
  platform: boolean;
  /** Granted rows plus the directories and pages above them (the tree stays whole), in display order. */
  rows: MenuRecord[];
  /** Ids granted explicitly (or every id for an administrator): only these give permissions. */
  granted: Set<number>;
}

/**
 * The menus of the employee's enabled roles; an administrator role holds every menu its company
 * may hold (platform-only rows only in the platform operator's company).
 */
export async function menuAccess(db: Db, employeeId: number): Promise<MenuAccess> {
  const [all, { platform, admin }] = await Promise.all([allMenus(db), memberFacts(db, employeeId)]);
  const menus = holdableMenus(all, platform);
  if (admin) {
    return { admin: true, platform, rows: menus, granted: new Set(menus.map((m) => m.id)) };
  }
  const grantedRows = await db
    .selectDistinct({ menuId: roleMenu.menuId })
    .from(employeeRole)
    .innerJoin(role, eq(role.id, employeeRole.roleId))
    .innerJoin(roleMenu, eq(roleMenu.roleId, role.id))
    .where(and(eq(employeeRole.employeeId, employeeId), eq(role.status, 'enabled')));
  const holdable = new Set(menus.map((m) => m.id));
  const granted = new Set(grantedRows.map((g) => g.menuId).filter((id) => holdable.has(id)));
  const byId = new Map(menus.map((m) => [m.id, m]));
  const keep = new Set<number>();
  for (const menuId of granted) {
    for (let m = byId.get(menuId); m && !keep.has(m.id); m = m.parentId ? byId.get(m.parentId) : undefined) {
      keep.add(m.id);
    }
  }
  return { admin: false, platform, rows: menus.filter((m) => keep.has(m.id)), granted };
}

/** The navigable tree (directories and pages, no buttons) in one language (spec §3 "Menu item"). */
export function toMenuTree(rows: readonly MenuRecord[], lang: Lang): MenuItem[] {
  const items = rows
    .filter((r) => r.type !== 'button')
    .map(
      (r): Omit<MenuItem, 'children'> => ({
        id: r.id,
        parentId: r.parentId,
        name: r.name,
        path: r.path,
        component: r.component,
        vueName: r.vueName,
        icon: r.icon,
        meta: {
          title: lang === 'zh' ? r.titleZh : r.titleEn,
          icon: r.icon,
          keepAlive: r.keepAlive || KEEP_ALIVE_PATHS.includes(r.path),
          noCache: !(r.keepAlive || KEEP_ALIVE_PATHS.includes(r.path)),
          breadcrumb: r.breadcrumb,
          activeMenu: r.activeMenu,
        },
        hidden: r.hidden,
        alwaysShow: r.alwaysShow,
        redirect: r.redirect,
        type: r.type as MenuType,
        perms: r.perms,
      }),
    );
  return stripDisabled(buildTree(items));
}

function stripDisabled(nodes: ReturnType<typeof buildTree<Omit<MenuItem, 'children'>>>): MenuItem[] {
  return nodes.map(({ disabled: _disabled, children, ...rest }) => ({
    ...rest,
    children: stripDisabled(children),
  }));
}

/**
 * Permission strings of the explicitly granted rows (a granted button does not give its page's
 * permission). Administrators of the platform operator also get the wildcard `*:*:*`; other
 * companies' administrators get every string their company may hold, listed (so a platform-only
 * permission stays out of their reach).
 */
export function permissionsOf(access: MenuAccess): string[] {
  const perms = new Set(
    access.rows.filter((r) => access.granted.has(r.id) && r.perms).map((r) => r.perms as string),
  );
  if (access.admin && access.platform) perms.add(ALL_PERMISSIONS);
  return [...perms].sort();
}

/** A stored row as menu management sees it. */
export function toMenuRow(r: MenuRecord): MenuRow {
  return {
    id: r.id,
    parentId: r.parentId,
    type: r.type as MenuType,
    sort: r.sort,
    path: r.path,
    name: r.name,
    component: r.component,
    vueName: r.vueName,
    icon: r.icon,
    titleZh: r.titleZh,
    titleEn: r.titleEn,
    keepAlive: r.keepAlive,
    hidden: r.hidden,
    alwaysShow: r.alwaysShow,
    redirect: r.redirect,
    breadcrumb: r.breadcrumb,
    activeMenu: r.activeMenu,
    perms: r.perms,
    platformOnly: r.platformOnly,
  };
}
