/**
 * Menu management writes: create, update and delete menu rows. Menus are global
 * (one tree for every company), so these calls need platform-only permissions.
 *
 * Rules: the parent exists and is not a button, and on update is neither the row itself nor one
 * below it, and a row with children cannot become a button (5040); a missing row answers 5037; a row with children cannot be deleted (5038);
 * rows seeded by migrations (ids below {@link FIRST_CUSTOM_MENU_ID}) cannot be deleted (5039: a
 * later migration may refer to them; hide them instead). Every write clears the menu cache.
 */
import { ErrorCode, FIRST_CUSTOM_MENU_ID, type MenuInput } from '@ess/contract';
import { count, eq } from 'drizzle-orm';
import { allMenus, forgetMenus } from '../../access/menu-access';
import type { Db } from '../../core/db/database';
import { menu } from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';

type MenuRecord = typeof menu.$inferSelect;

function columnsOf(input: MenuInput) {
  return {
    parentId: input.parentId ?? null,
    type: input.type,
    sort: input.sort,
    path: input.type === 'button' ? '' : input.path,
    name: input.name,
    component: input.component ?? null,
    vueName: input.vueName ?? null,
    icon: input.icon ?? null,
    titleZh: input.titleZh,
    titleEn: input.titleEn,
    keepAlive: input.keepAlive,
    hidden: input.hidden,
    alwaysShow: input.alwaysShow,
    redirect: input.redirect ?? null,
    breadcrumb: input.breadcrumb,
    activeMenu: input.activeMenu ?? null,
    perms: input.perms ?? null,
    platformOnly: input.platformOnly,
  };
}

async function findMenu(db: Db, id: number): Promise<MenuRecord> {
  const [row] = await db.select().from(menu).where(eq(menu.id, id));
  if (!row) throw new ApiError(ErrorCode.MENU_NOT_FOUND);
  return row;
}

/** Checks the parent of `selfId` (absent for a new row). */
async function checkParent(db: Db, parentId: number | null, selfId?: number): Promise<void> {
  if (parentId === null) return;
  forgetMenus(db);
  const rows = await allMenus(db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const parent = byId.get(parentId);
  if (!parent || parent.type === 'button') throw new ApiError(ErrorCode.MENU_PARENT_INVALID);
  for (let m: MenuRecord | undefined = parent; m; m = m.parentId ? byId.get(m.parentId) : undefined) {
    if (m.id === selfId) throw new ApiError(ErrorCode.MENU_PARENT_INVALID);
  }
}

async function childCount(db: Db, id: number): Promise<number> {
  const [{ children } = { children: 0 }] = await db
    .select({ children: count() })
    .from(menu)
    .where(eq(menu.parentId, id));
  return Number(children);
}

export async function createMenu(db: Db, input: MenuInput): Promise<MenuRecord> {
  await checkParent(db, input.parentId ?? null);
  const [row] = await db.insert(menu).values(columnsOf(input)).returning();
  forgetMenus(db);
  return row!;
}

export async function updateMenu(db: Db, id: number, input: MenuInput) {
  const before = await findMenu(db, id);
  await checkParent(db, input.parentId ?? null, id);
  if (input.type === 'button' && (await childCount(db, id)) > 0) {
    throw new ApiError(ErrorCode.MENU_PARENT_INVALID);
  }
  const [after] = await db.update(menu).set(columnsOf(input)).where(eq(menu.id, id)).returning();
  forgetMenus(db);
  return { before, after: after! };
}

export async function deleteMenu(db: Db, id: number): Promise<MenuRecord> {
  const before = await findMenu(db, id);
  if (id < FIRST_CUSTOM_MENU_ID) throw new ApiError(ErrorCode.MENU_BUILT_IN);
  const [{ children } = { children: 0 }] = await db
    .select({ children: count() })
    .from(menu)
    .where(eq(menu.parentId, id));
  if (Number(children) > 0) throw new ApiError(ErrorCode.MENU_HAS_CHILDREN);
  await db.delete(menu).where(eq(menu.id, id));
  forgetMenus(db);
  return before;
}
