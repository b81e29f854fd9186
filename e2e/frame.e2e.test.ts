/**
 * The page frame (spec §2, §4): sidebar state kept in the `sidebarStatus` cookie, the mobile
 * layout below 992 px (drawer with backdrop), the language switch (menu re-fetched, reload,
 * kept), and keep-alive of 'development' and 'zdjk' pages.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseUserMenu,
  cookie,
  DESKTOP,
  MOBILE,
  openSignedIn,
  recordCalls,
  recordToasts,
  switchLanguageReloaded,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/**
 * What the user sees of the sidebar: 'open' (210 px on screen), 'collapsed' (the 64 px icon
 * rail) or 'hidden' (slid off the left edge). Polled, as it slides.
 */
async function sidebarState(page: Page): Promise<'open' | 'collapsed' | 'hidden' | 'other'> {
  const box = await page.getByTestId('sidebar').boundingBox();
  if (!box || box.x + box.width <= 0) return 'hidden';
  if (box.x === 0 && box.width === 210) return 'open';
  if (box.x === 0 && box.width === 64) return 'collapsed';
  return 'other';
}

const backdrop = (page: Page) => page.getByTestId('sidebar-backdrop');

describe('sidebar on desktop', () => {
  it('is toggled by the hamburger and keeps its state across a reload (cookie sidebarStatus)', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await openSignedIn(page);
    await expect.poll(() => sidebarState(page)).toBe('open');
    await page.getByTestId('sidebar').getByText('储能云平台').waitFor();

    await page.getByTestId('hamburger').click();
    await expect.poll(() => sidebarState(page)).toBe('collapsed');
    expect(await cookie(page, 'sidebarStatus')).toBe('0');
    await page.getByTestId('sidebar').getByText('储能云平台').waitFor({ state: 'detached' });

    await page.reload();
    await page.getByTestId('dashboard').waitFor();
    await expect.poll(() => sidebarState(page)).toBe('collapsed');

    await page.getByTestId('hamburger').click();
    await expect.poll(() => sidebarState(page)).toBe('open');
    expect(await cookie(page, 'sidebarStatus')).toBe('1');

    await page.reload();
    await page.getByTestId('dashboard').waitFor();
    await expect.poll(() => sidebarState(page)).toBe('open');
    await context.close();
  });
});

describe('dialogs over the frame', () => {
  it('a dialog covers the whole frame: the sidebar is behind the mask, not clickable', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await openSignedIn(page);
    await chooseUserMenu(page, '修改密码', page.getByTestId('password-dialog'));

    // What a click on the sidebar's 首页 item would hit while the dialog is open.
    const item = await page.getByTestId('sidebar').getByRole('menuitem', { name: '首页' }).boundingBox();
    const hit = await page.evaluate(
      ({ x, y }) => {
        const el = document.elementFromPoint(x, y);
        return el?.closest('[data-testid="sidebar"]') ? 'sidebar' : (el?.className.toString() ?? 'nothing');
      },
      { x: item!.x + item!.width / 2, y: item!.y + item!.height / 2 },
    );
    expect(hit).not.toBe('sidebar');
    await context.close();
  });
});

describe('mobile layout (390×844)', () => {
  it('starts closed; the hamburger opens it over a backdrop, which closes it on click', async () => {
    const { page, context } = await newPage(browser, MOBILE);
    await openSignedIn(page);
    await expect.poll(() => sidebarState(page)).toBe('hidden');
    expect(await backdrop(page).count()).toBe(0);

    await page.getByTestId('hamburger').click();
    await expect.poll(() => sidebarState(page)).toBe('open');
    await backdrop(page).waitFor();

    // Click the backdrop to the right of the drawer.
    await backdrop(page).click({ position: { x: 330, y: 400 } });
    await backdrop(page).waitFor({ state: 'detached' });
    await expect.poll(() => sidebarState(page)).toBe('hidden');
    await context.close();
  });

  it('closes the drawer after navigating through a sidebar item', async () => {
    const { page, context } = await newPage(browser, MOBILE);
    await openSignedIn(page);
    await page.getByTestId('hamburger').click();
    await expect.poll(() => sidebarState(page)).toBe('open');

    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByText('系统管理').click();
    await sidebar.getByRole('menuitem', { name: '菜单管理' }).click();
    await page.waitForURL('**/system/menu');
    await page.getByTestId('menu-list').waitFor();
    await backdrop(page).waitFor({ state: 'detached' });
    await expect.poll(() => sidebarState(page)).toBe('hidden');
    await context.close();
  });

  it('closes an open sidebar when a desktop window is narrowed to 390 px', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await openSignedIn(page);
    await expect.poll(() => sidebarState(page)).toBe('open');

    await page.setViewportSize(MOBILE);
    await expect.poll(() => sidebarState(page)).toBe('hidden');
    expect(await backdrop(page).count()).toBe(0);
    // The main area now spans the whole width.
    const main = await page.getByTestId('main').boundingBox();
    expect(main?.x).toBe(0);
    await context.close();
  });
});

describe('language switch in the frame', () => {
  it('switches to English (menu, texts, title), keeps it across a reload, and back to Chinese', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await openSignedIn(page);
    const menuCalls = recordCalls(page, '/api-bms/user/getLanguageMenu');
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByText('系统管理').waitFor();

    // The switch shows its message, then reloads the document (a mark on the window tells).
    const toasts = await recordToasts(page);
    await switchLanguageReloaded(page, 'en');
    expect(toasts).toContain('Language switch successful');
    expect(menuCalls.map((b) => b.language)).toEqual(['en']);

    await page.getByTestId('dashboard').getByText('Hello, 管理员').waitFor();
    await sidebar.getByText('Dashboard').waitFor();
    await sidebar.getByText('System').click();
    await sidebar.getByRole('menuitem', { name: 'Menus' }).waitFor();
    expect(await sidebar.getByText('系统管理').count()).toBe(0);
    expect(await page.getByTestId('dashboard-profile').textContent()).toContain('Company');
    await expect.poll(() => page.title()).toBe('Dashboard - ESS Console');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en-US');

    await page.reload();
    await page.getByTestId('dashboard').getByText('Hello, 管理员').waitFor();
    await sidebar.getByText('System').waitFor();
    await expect.poll(() => page.title()).toBe('Dashboard - ESS Console');

    await switchLanguageReloaded(page, 'zh');
    expect(toasts).toContain('切换语言成功');
    expect(menuCalls.map((b) => b.language)).toEqual(['en', 'cn']);
    await page.getByTestId('dashboard').getByText('管理员，您好').waitFor();
    await sidebar.getByText('系统管理').waitFor();
    await expect.poll(() => page.title()).toBe('首页 - 储能云平台');
    await context.close();
  });
});

describe('keep-alive', () => {
  /**
   * The server has no 'development' menu, so the browser's copy of the menu gets one (a top-level
   * 'development' page showing the menu list); everything else is the real server.
   */
  it("keeps a 'development' page's state while the user is elsewhere; other pages start fresh", async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await page.route('**/api-bms/user/getUserInfo', async (route) => {
      const response = await route.fetch();
      type Item = Record<string, unknown> & { children: Item[] };
      const body = (await response.json()) as { code: number; data: { menuList: Item[] } };
      const menuPage = body.data?.menuList
        .flatMap((item) => [item, ...item.children])
        .find((item) => item.component === 'system/menu/index');
      if (body.code === 0 && menuPage) {
        body.data.menuList.push({
          ...menuPage,
          id: 9001,
          parentId: null,
          path: '/development',
          name: 'Development',
          vueName: null,
          redirect: null,
          children: [],
          meta: { ...(menuPage.meta as object), title: '开发调试', keepAlive: false },
        });
      }
      await route.fulfill({ response, json: body });
    });
    await openSignedIn(page);

    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByRole('menuitem', { name: '开发调试' }).click();
    await page.waitForURL('**/development/index');
    await page.getByTestId('menu-filter').fill('菜单');

    await page.getByTestId('tag-/dashboard').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();
    await page.getByTestId('tag-/development/index').click();
    await page.waitForURL('**/development/index');
    const kept = page.locator('[data-keep-alive="/development/index"]');
    await kept.waitFor();
    expect(await kept.getByTestId('menu-filter').inputValue()).toBe('菜单');

    // A page that is not kept alive mounts fresh on each visit.
    // Open the System group unless it is open, then the page (the group's expand animation can
    // swallow a click: try again until the route changes).
    const menuItem = sidebar.getByRole('menuitem', { name: '菜单管理' });
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await menuItem.isVisible())) await sidebar.getByText('系统管理').click();
        await menuItem.click({ timeout: 3_000 });
        await page.waitForURL('**/system/menu', { timeout: 3_000 });
        break;
      } catch (err) {
        if (attempt === 5) throw err;
      }
    }
    // The kept-alive page stays in the document, hidden; the visible filter is this page's own.
    await kept.waitFor({ state: 'hidden' });
    const filter = page.getByTestId('menu-filter').filter({ visible: true });
    await filter.fill('菜单');
    await page.getByTestId('tag-/dashboard').click();
    await page.getByTestId('dashboard').waitFor();
    await page.getByTestId('tag-/system/menu').click();
    await page.waitForURL('**/system/menu');
    await filter.waitFor();
    expect(await filter.inputValue()).toBe('');
    await context.close();
  });

  it("keeps site monitoring (/zdjkshow, under 'zdjk') as the user left it", async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/zdjkshow');
    const search = page.getByTestId('monitor-search');
    await search.fill('上海');
    await page.getByTestId('tag-/dashboard').click();
    await page.getByTestId('dashboard').waitFor();
    await page.getByTestId('tag-/zdjkshow').click();
    await page.waitForURL('**/zdjkshow');
    expect(await page.getByTestId('monitor-search').filter({ visible: true }).inputValue()).toBe('上海');
    await context.close();
  });
});
