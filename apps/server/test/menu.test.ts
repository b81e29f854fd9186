/**
 * Menus by role (spec §2, §3, §6): `user/getLanguageMenu` in both languages and filtered by the
 * caller's enabled roles, `user/getPermission`, and `menu/menuList` for menu management.
 *
 * Menu rows: seeded 100 System (directory, sort 900) > 101 Menus (page, sort 40), plus
 * 102/103 buttons under 101, and 200 Monitoring (directory, sort 100) > 201 zdjk (page, sort 10).
 */
import {
  ApiPath,
  getLanguageMenuResponse,
  getPermissionResponse,
  type MenuItem,
  menuListResponse,
} from '@ess/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { role, roleMenu } from '../src/db/schema';
import { call, signIn } from './support/client';
import { addCompany, addExtraMenus, addRole, addStaff, conforms } from './support/fixtures';
import { createTestApp, engines, type TestContext } from './support/test-app';

/** `id(child id, …)` outline of a tree, e.g. `['200(201)', '100(101)']`. */
function outline(items: readonly MenuItem[]): string[] {
  return items.map((m) => (m.children.length ? `${m.id}(${outline(m.children).join(',')})` : String(m.id)));
}

describe.each(engines)('menus and permissions on %s', (engine) => {
  let ctx: TestContext;
  let adminToken: string;
  let companyId: number;
  beforeAll(async () => {
    ctx = await createTestApp(engine);
    await addExtraMenus(ctx.database.db);
    adminToken = (await signIn(ctx.app)).token;
    companyId = (await addCompany(ctx.database.db)).id;
  });
  afterAll(async () => ctx?.close());

  const languageMenu = async (token: string, language?: string) => {
    const answer = await call(ctx.app, ApiPath.getLanguageMenu, language ? { language } : {}, { token });
    expect(answer.code).toBe(0);
    return conforms(getLanguageMenuResponse, answer.data).menuList;
  };
  const permissions = async (token: string) => {
    const answer = await call(ctx.app, ApiPath.getPermission, {}, { token });
    expect(answer.code).toBe(0);
    return conforms(getPermissionResponse, answer.data).permissions;
  };
  /** Signs in an employee of a new account holding `roleIds`. */
  const staffToken = async (roleIds: number[]) => {
    const staff = await addStaff(ctx.database.db, { companyId, roleIds });
    return (await signIn(ctx.app, staff.account, staff.password)).token;
  };

  describe('user/getLanguageMenu', () => {
    it("'cn' answers Chinese titles, 'en' English, in sort order, without buttons", async () => {
      const cn = await languageMenu(adminToken, 'cn');
      expect(outline(cn)).toEqual(['200(201)', '100(101)']);
      expect(cn.map((m) => m.meta.title)).toEqual(['监控中心', '系统管理']);
      expect(cn.flatMap((m) => m.children.map((c) => c.meta.title))).toEqual(['站点监控', '菜单管理']);
      const en = await languageMenu(adminToken, 'en');
      expect(outline(en)).toEqual(['200(201)', '100(101)']);
      expect(en.map((m) => m.meta.title)).toEqual(['Monitoring', 'System']);
      expect(en.flatMap((m) => m.children.map((c) => c.meta.title))).toEqual(['Site monitoring', 'Menus']);
      const all = [...en, ...en.flatMap((m) => m.children)];
      expect(all.some((m) => m.type === 'button')).toBe(false);
    });

    it("defaults to 'cn'", async () => {
      expect((await languageMenu(adminToken))[0]?.meta.title).toBe('监控中心');
    });

    it('answers the entry fields the console builds routes from', async () => {
      const [monitor, system] = await languageMenu(adminToken, 'en');
      expect(system).toMatchObject({
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
      expect(system?.children[0]).toMatchObject({
        id: 101,
        parentId: 100,
        path: 'menu',
        component: 'system/menu/index',
        perms: 'system:menu:list',
        meta: { title: 'Menus', icon: 'MenuOutlined', keepAlive: false, noCache: true, breadcrumb: true },
        children: [],
      });
      // 'zdjk' pages are kept alive by default (spec §2).
      expect(monitor?.children[0]?.meta).toMatchObject({ keepAlive: true, noCache: false });
    });

    it.each(['zh', 'fr', 'EN', ''])("answers -100 for language '%s'", async (language) => {
      const answer = await call(
        ctx.app,
        ApiPath.getLanguageMenu,
        { language },
        { token: adminToken, lang: 'en' },
      );
      expect(answer.code).toBe(-100);
      expect(answer.msg).toContain('language:');
    });

    it('an employee granted only page 101 gets directory 100 and page 101', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, menuIds: [101] })]);
      const menu = await languageMenu(token, 'en');
      expect(outline(menu)).toEqual(['100(101)']);
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
      const disabled = await addRole(db, { companyId, menuIds: [101, 201], status: 'disabled' });
      const disabledAdmin = await addRole(db, { companyId, isAdmin: true, status: 'disabled' });
      const staff = await addStaff(db, { companyId, roleIds: [disabled, disabledAdmin] });
      const s = await signIn(ctx.app, staff.account, staff.password);
      expect(s.info).toMatchObject({ isAdmin: false, roles: [], menuList: [], permissions: [] });
      expect(await languageMenu(s.token)).toEqual([]);
      expect(await permissions(s.token)).toEqual([]);
    });

    it('an administrator role of any company gets every menu and *:*:*', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, isAdmin: true })]);
      expect(outline(await languageMenu(token))).toEqual(['200(201)', '100(101)']);
      expect(await permissions(token)).toEqual([
        '*:*:*',
        'monitor:site:list',
        'system:menu:add',
        'system:menu:delete',
        'system:menu:list',
      ]);
    });

    it('granted buttons never appear in the tree but their perms are permissions', async () => {
      const token = await staffToken([await addRole(ctx.database.db, { companyId, menuIds: [101, 102] })]);
      const menu = await languageMenu(token, 'en');
      expect(outline(menu)).toEqual(['100(101)']);
      expect(menu[0]?.children[0]?.children).toEqual([]);
      expect(await permissions(token)).toEqual(['system:menu:add', 'system:menu:list']);
    });

    it('several roles add up', async () => {
      const db = ctx.database.db;
      const token = await staffToken([
        await addRole(db, { companyId, menuIds: [101] }),
        await addRole(db, { companyId, menuIds: [201] }),
      ]);
      expect(outline(await languageMenu(token))).toEqual(['200(201)', '100(101)']);
      expect(await permissions(token)).toEqual(['monitor:site:list', 'system:menu:list']);
    });

    it('a change of grants or role status shows at the next call', async () => {
      const db = ctx.database.db;
      const roleId = await addRole(db, { companyId, menuIds: [101] });
      const token = await staffToken([roleId]);
      expect(outline(await languageMenu(token))).toEqual(['100(101)']);
      await db.insert(roleMenu).values({ roleId, menuId: 201 });
      expect(outline(await languageMenu(token))).toEqual(['200(201)', '100(101)']);
      await db.update(role).set({ status: 'disabled' }).where(eq(role.id, roleId));
      expect(await languageMenu(token)).toEqual([]);
      expect(await permissions(token)).toEqual([]);
    });

    it('getUserInfo answers the same menu and permissions as the menu and permission calls', async () => {
      const db = ctx.database.db;
      const staff = await addStaff(db, {
        companyId,
        roleIds: [await addRole(db, { companyId, menuIds: [102, 201] })],
      });
      const s = await signIn(ctx.app, staff.account, staff.password);
      expect(s.info.menuList).toEqual(await languageMenu(s.token, 'cn'));
      expect(s.info.permissions).toEqual(await permissions(s.token));
      expect(s.info.isAdmin).toBe(false);
    });
  });

  describe('user/getPermission', () => {
    it('administrator permissions include *:*:* and every perms string, sorted', async () => {
      const perms = await permissions(adminToken);
      expect(perms).toEqual([...perms].sort());
      expect(perms).toEqual(
        expect.arrayContaining(['*:*:*', 'system:menu:list', 'system:menu:add', 'monitor:site:list']),
      );
    });

    it('needs a token', async () => {
      expect((await call(ctx.app, ApiPath.getPermission, {})).code).toBe(9999);
    });
  });

  describe('menu/menuList', () => {
    it('answers every row, buttons included, with both titles, ordered by sort', async () => {
      const answer = await call(ctx.app, ApiPath.menuList, {}, { token: adminToken });
      expect(answer.code).toBe(0);
      const { list } = conforms(menuListResponse, answer.data);
      expect(list.map((r) => r.id)).toEqual([102, 103, 201, 101, 200, 100]);
      expect(list.map((r) => r.sort)).toEqual([1, 2, 10, 40, 100, 900]);
      expect(list.find((r) => r.id === 100)).toMatchObject({
        titleZh: '系统管理',
        titleEn: 'System',
        type: 'directory',
        parentId: null,
      });
      expect(list.find((r) => r.id === 102)).toMatchObject({
        titleZh: '新增菜单',
        titleEn: 'Add menu',
        type: 'button',
        parentId: 101,
        perms: 'system:menu:add',
      });
      for (const row of list) {
        expect(row.titleZh).not.toBe('');
        expect(row.titleEn).not.toBe('');
      }
    });

    it('needs a token', async () => {
      expect((await call(ctx.app, ApiPath.menuList, {})).code).toBe(9999);
    });
  });
});
