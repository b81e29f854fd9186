/**
 * Menus by role (spec §2, §3, §6): `user/getLanguageMenu` in both languages and filtered by the
 * caller's enabled roles, `user/getPermission`, and `menu/menuList` for menu management.
 *
 * Rows used by name: the seeded directory 100 System (sort 900) > page 101 Menus, and the test's
 * own rows (TEST_MENU): buttons under 101, directory Monitoring (sort 50) > page zdjk. Other
 * seeded rows may exist; assertions about "every menu" compare with the table itself.
 */
import {
  endpoints,
  getLanguageMenuResponse,
  getPermissionResponse,
  type MenuItem,
  menuListResponse,
} from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menu, role, roleMenu } from '../src/core/db/schema';
import { call, signIn } from './support/client';
import { addCompany, addExtraMenus, addRole, addStaff, conforms, TEST_MENU } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

const { addButton, deleteButton, monitor, zdjk } = TEST_MENU;

/** `id(child id, …)` outline of a tree, e.g. `['20200(20201)', '100(101)']`. */
function outline(items: readonly MenuItem[]): string[] {
  return items.map((m) => (m.children.length ? `${m.id}(${outline(m.children).join(',')})` : String(m.id)));
}

function flatten(items: readonly MenuItem[]): MenuItem[] {
  return items.flatMap((m) => [m, ...flatten(m.children)]);
}

describe.each(engines)('menus and permissions on %s', (engine) => {
  let ctx: TestContext;
  let adminToken: string;
  let companyId: number;
  /** Every stored menu row. */
  let rows: (typeof menu.$inferSelect)[];
  beforeAll(async () => {
    ctx = await createTestApp(engine);
    await addExtraMenus(ctx.database.db);
    rows = await ctx.database.db.select().from(menu);
    adminToken = (await signIn(ctx.app)).token;
    // A second platform-operator company: menu management (101) is platform-only.
    companyId = (await addCompany(ctx.database.db, { type: 'platform' })).id;
  });
  afterAll(async () => ctx?.close());

  const byId = (id: number) => rows.find((r) => r.id === id)!;
  const languageMenu = async (token: string, language?: string) => {
    const answer = await call(ctx.app, endpoints.user.getLanguageMenu.path, language ? { language } : {}, {
      token,
    });
    expect(answer.code).toBe(0);
    return conforms(getLanguageMenuResponse, answer.data).menuList;
  };
  const permissions = async (token: string) => {
    const answer = await call(ctx.app, endpoints.user.getPermission.path, {}, { token });
    expect(answer.code).toBe(0);
    return conforms(getPermissionResponse, answer.data).permissions;
  };
  /** Signs in an employee of a new account holding `roleIds`. */
  const staffToken = async (roleIds: number[]) => {
    const staff = await addStaff(ctx.database.db, { companyId, roleIds });
    return (await signIn(ctx.app, staff.account, staff.password)).token;
  };
  /** Checks that `tree` holds every directory and page, nested by parentId, in sort order. */
  const expectEveryMenu = (tree: readonly MenuItem[]) => {
    const nodes = flatten(tree);
    const expected = rows.filter((r) => r.type !== 'button').map((r) => r.id);
    expect(nodes.map((n) => n.id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    for (const n of nodes) {
      for (const c of n.children) expect(c.parentId).toBe(n.id);
      const sorts = n.children.map((c) => byId(c.id).sort);
      expect(sorts).toEqual([...sorts].sort((a, b) => a - b));
    }
    const rootSorts = tree.map((r) => byId(r.id).sort);
    expect(rootSorts).toEqual([...rootSorts].sort((a, b) => a - b));
  };

  describe('user/getLanguageMenu', () => {
    it("'cn' answers Chinese titles, 'en' English; every menu for the administrator, no buttons", async () => {
      const cn = await languageMenu(adminToken, 'cn');
      expectEveryMenu(cn);
      for (const n of flatten(cn)) expect(n.meta.title).toBe(byId(n.id).titleZh);
      expect(outline(cn)).toEqual(
        expect.arrayContaining([`${monitor}(${zdjk})`, expect.stringMatching(/^100\(.*\b101\b/)]),
      );
      // Monitoring (sort 50) comes before System (sort 900).
      expect(cn.findIndex((m) => m.id === monitor)).toBeLessThan(cn.findIndex((m) => m.id === 100));
      expect(flatten(cn).find((m) => m.id === 100)?.meta.title).toBe('系统管理');
      expect(flatten(cn).find((m) => m.id === zdjk)?.meta.title).toBe('站点监控');

      const en = await languageMenu(adminToken, 'en');
      expect(outline(en)).toEqual(outline(cn));
      for (const n of flatten(en)) expect(n.meta.title).toBe(byId(n.id).titleEn);
      expect(flatten(en).find((m) => m.id === 100)?.meta.title).toBe('System');
      expect(flatten(en).find((m) => m.id === 101)?.meta.title).toBe('Menus');
      expect(flatten(en).some((m) => m.type === 'button' || m.id === addButton)).toBe(false);
    });

    it("defaults to 'cn'", async () => {
      expect(await languageMenu(adminToken)).toEqual(await languageMenu(adminToken, 'cn'));
    });

    it('answers the entry fields the console builds routes from', async () => {
      const all = flatten(await languageMenu(adminToken, 'en'));
      expect(all.find((m) => m.id === 100)).toMatchObject({
        id: 100,
        parentId: null,
        path: '/system',
        name: 'System',
        component: 'Layout',
        icon: 'SettingOutlined',
        alwaysShow: true,
        redirect: 'noRedirect',
        hidden: false,
        type: 'directory',
      });
      expect(all.find((m) => m.id === 101)).toMatchObject({
        id: 101,
        parentId: 100,
        path: 'menu',
        component: 'system/menu/index',
        perms: 'system:menu:list',
        meta: { title: 'Menus', icon: 'MenuOutlined', keepAlive: false, noCache: true, breadcrumb: true },
      });
      // 'zdjk' pages are kept alive by default (spec §2).
      expect(all.find((m) => m.id === zdjk)?.meta).toMatchObject({ keepAlive: true, noCache: false });
    });

    it.each(['zh', 'fr', 'EN', ''])("answers -100 for language '%s'", async (language) => {
      const answer = await call(
        ctx.app,
        endpoints.user.getLanguageMenu.path,
        { language },
        { token: adminToken, lang: 'en' },
      );
      expect(answer.code).toBe(-100);
      expect(answer.msg).toContain('language:');
    });

    it('an employee granted only page 101 gets directory 100 and page 101', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, menuIds: [101] })]);
      const tree = await languageMenu(token, 'en');
      expect(outline(tree)).toEqual(['100(101)']);
      expect(tree[0]?.meta.title).toBe('System');
      expect(await permissions(token)).toEqual(['system:menu:list']);
    });

    it('a role with no grants gives an empty menu and no permissions', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId })]);
      expect(await languageMenu(token)).toEqual([]);
      expect(await permissions(token)).toEqual([]);
    });

    it('an employee without any role gives an empty menu', async () => {
      const token = await staffToken([]);
      expect(await languageMenu(token)).toEqual([]);
    });

    it('a disabled role grants nothing, not even an administrator role', async () => {
      const db = ctx.database.db;
      const disabled = await addRole(db, { companyId, menuIds: [101, zdjk], status: 'disabled' });
      const disabledAdmin = await addRole(db, { companyId, isAdmin: true, status: 'disabled' });
      const staff = await addStaff(db, { companyId, roleIds: [disabled, disabledAdmin] });
      const s = await signIn(ctx.app, staff.account, staff.password);
      expect(s.info).toMatchObject({ isAdmin: false, roles: [], menuList: [], permissions: [] });
      expect(await languageMenu(s.token)).toEqual([]);
      expect(await permissions(s.token)).toEqual([]);
    });

    it('an administrator role of the platform operator gets every menu and *:*:*', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, isAdmin: true })]);
      expectEveryMenu(await languageMenu(token));
      const everyPerm = [...new Set(rows.map((r) => r.perms).filter((p): p is string => !!p))];
      expect(await permissions(token)).toEqual(['*:*:*', ...everyPerm].sort());
    });

    it('other companies never hold platform-only menus, not even through an administrator role or a grant', async () => {
      const db = ctx.database.db;
      const agent = (await addCompany(db, { type: 'agent' })).id;
      const admin = await addStaff(db, {
        companyId: agent,
        roleIds: [await addRole(db, { companyId: agent, isAdmin: true })],
      });
      const adminToken = (await signIn(ctx.app, admin.account, admin.password)).token;
      const ids = flatten(await languageMenu(adminToken)).map((m) => m.id);
      expect(ids).toContain(100);
      expect(ids).toContain(120);
      expect(ids).not.toContain(101);
      expect((await call(ctx.app, endpoints.menu.list.path, {}, { token: adminToken })).code).toBe(5034);
      const granted = await addStaff(db, {
        companyId: agent,
        roleIds: [await addRole(db, { companyId: agent, menuIds: [101, 120] })],
      });
      const grantedToken = (await signIn(ctx.app, granted.account, granted.password)).token;
      expect(outline(await languageMenu(grantedToken))).toEqual(['100(120)']);
      expect(await permissions(grantedToken)).toEqual(['system:employee:list']);
    });

    it('granted buttons never appear in the tree but their perms are permissions', async () => {
      const token = await staffToken([
        await addRole(ctx.database.db, { companyId, menuIds: [101, addButton] }),
      ]);
      const tree = await languageMenu(token, 'en');
      expect(outline(tree)).toEqual(['100(101)']);
      expect(tree[0]?.children[0]?.children).toEqual([]);
      expect(await permissions(token)).toEqual(['system:menu:list', 'test:menu:add']);
    });

    it('a granted button alone brings its page into the tree but not the page’s permission', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, menuIds: [addButton] })]);
      expect(outline(await languageMenu(token, 'en'))).toEqual(['100(101)']);
      expect(await permissions(token)).toEqual(['test:menu:add']);
      // menu/menuList needs system:menu:list, which the button does not give.
      expect((await call(ctx.app, endpoints.menu.list.path, {}, { token })).code).toBe(5034);
    });

    it('several roles add up', async () => {
      const db = ctx.database.db;
      const token = await staffToken([
        await addRole(db, { companyId, menuIds: [101] }),
        await addRole(db, { companyId, menuIds: [zdjk] }),
      ]);
      expect(outline(await languageMenu(token))).toEqual([`${monitor}(${zdjk})`, '100(101)']);
      expect(await permissions(token)).toEqual(['system:menu:list', 'test:site:list']);
    });

    it('a change of grants or role status shows at the next call', async () => {
      const db = ctx.database.db;
      const roleId = await addRole(db, { companyId, menuIds: [101] });
      const token = await staffToken([roleId]);
      expect(outline(await languageMenu(token))).toEqual(['100(101)']);
      await db.insert(roleMenu).values({ roleId, menuId: zdjk });
      expect(outline(await languageMenu(token))).toEqual([`${monitor}(${zdjk})`, '100(101)']);
      await db.update(role).set({ status: 'disabled' }).where(eq(role.id, roleId));
      expect(await languageMenu(token)).toEqual([]);
      expect(await permissions(token)).toEqual([]);
    });

    it('getUserInfo answers the same menu and permissions as the menu and permission calls', async () => {
      const db = ctx.database.db;
      const roleId = await addRole(db, { companyId, menuIds: [101, deleteButton, zdjk] });
      const staff = await addStaff(db, { companyId, roleIds: [roleId] });
      const s = await signIn(ctx.app, staff.account, staff.password);
      expect(s.info.menuList).toEqual(await languageMenu(s.token, 'cn'));
      expect(s.info.permissions).toEqual(await permissions(s.token));
      expect(s.info.permissions).toEqual(['system:menu:list', 'test:menu:delete', 'test:site:list']);
      expect(s.info.isAdmin).toBe(false);
    });
  });

  describe('user/getPermission', () => {
    it('administrator permissions include *:*:* and every perms string, sorted', async () => {
      const perms = await permissions(adminToken);
      expect(perms).toEqual([...perms].sort());
      expect(perms).toEqual(
        expect.arrayContaining([
          '*:*:*',
          'system:menu:list',
          'test:menu:add',
          'test:menu:delete',
          'test:site:list',
        ]),
      );
    });

    it('needs a token', async () => {
      expect((await call(ctx.app, endpoints.user.getPermission.path, {})).code).toBe(9999);
    });
  });

  describe('menu/menuList', () => {
    it('answers 5034 to a role without system:menu:list, in both languages', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, menuIds: [zdjk] })]);
      const zh = await call(ctx.app, endpoints.menu.list.path, {}, { token });
      expect(zh).toMatchObject({ code: 5034, msg: '没有该操作的权限', data: null });
      const en = await call(ctx.app, endpoints.menu.list.path, {}, { token, lang: 'en' });
      expect(en.msg).toBe('You do not have permission for this operation');
    });

    it('answers every row, buttons included, with both titles, ordered by sort', async () => {
      const answer = await call(ctx.app, endpoints.menu.list.path, {}, { token: adminToken });
      expect(answer.code).toBe(0);
      const { list } = conforms(menuListResponse, answer.data);
      expect(list.map((r) => r.id).sort((a, b) => a - b)).toEqual(
        rows.map((r) => r.id).sort((a, b) => a - b),
      );
      for (let i = 1; i < list.length; i++) {
        const [a, b] = [list[i - 1]!, list[i]!];
        expect(a.sort < b.sort || (a.sort === b.sort && a.id < b.id), `${a.id} before ${b.id}`).toBe(true);
      }
      expect(list.find((r) => r.id === 100)).toMatchObject({
        titleZh: '系统管理',
        titleEn: 'System',
        type: 'directory',
        parentId: null,
        sort: 900,
      });
      expect(list.find((r) => r.id === addButton)).toMatchObject({
        titleZh: '新增菜单',
        titleEn: 'Add menu',
        type: 'button',
        parentId: 101,
        perms: 'test:menu:add',
      });
      for (const row of list) {
        expect(row.titleZh).not.toBe('');
        expect(row.titleEn).not.toBe('');
      }
    });

    it('needs a token', async () => {
      expect((await call(ctx.app, endpoints.menu.list.path, {})).code).toBe(9999);
    });
  });
});
