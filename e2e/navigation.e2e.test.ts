/**
 * Navigation guard, titles, breadcrumb and logout (spec §2, §4, §8): what a signed-in and a
 * signed-out user reach, the route title in the tab, which breadcrumb items are links, and that
 * logging out ends the session on the server too.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, chooseUserMenu, openSignedIn, signIn } from './support/app';
import { launchBrowser, newPage } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

const pathOf = (url: string) => new URL(url).pathname;

describe('signed in', () => {
  it('stays signed in across a reload; /login and / lead to the dashboard', async () => {
    const { page, context } = await newPage(browser);
    await signIn(page);

    await page.reload();
    await page.getByTestId('dashboard').getByText('管理员，您好').waitFor();
    expect(pathOf(page.url())).toBe('/dashboard');
    await page.getByTestId('sidebar').getByText('系统管理').waitFor();

    // With a token, /login redirects to / which redirects to /dashboard.
    await page.goto('/login');
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();

    await page.goto('/');
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();
    await context.close();
  });

  it('sends an unknown path to the 404 page', async () => {
    const { page, context } = await newPage(browser);
    await openSignedIn(page);
    await page.goto('/no/such/page');
    await page.waitForURL('**/404');
    await page.getByTestId('not-found').getByText('抱歉，您访问的页面不存在。').waitFor();
    await expect.poll(() => page.title()).toBe('页面不存在 - 储能云平台');

    await page.getByRole('button', { name: '返回首页' }).click();
    await page.waitForURL('**/dashboard');
    await context.close();
  });

  it('titles /system/menu "菜单管理 - 储能云平台" and shows its breadcrumb', async () => {
    const { page, context } = await newPage(browser);
    await openSignedIn(page, '/system/menu');
    await page.getByTestId('menu-list').waitFor();
    await expect.poll(() => page.title()).toBe('菜单管理 - 储能云平台');

    const crumb = page.getByTestId('breadcrumb');
    await crumb.getByText('菜单管理').waitFor();
    const items = crumb.locator('li:not(.ant-breadcrumb-separator)');
    expect((await items.allInnerTexts()).map((t) => t.trim())).toEqual(['首页', '系统管理', '菜单管理']);

    // 系统管理 (redirect 'noRedirect') and the last item are not links.
    expect(await crumb.getByRole('link').allInnerTexts()).toEqual(['首页']);
    expect(await crumb.locator('a').filter({ hasText: '系统管理' }).count()).toBe(0);
    expect(await crumb.locator('a').filter({ hasText: '菜单管理' }).count()).toBe(0);
    await crumb.getByText('系统管理').click();
    expect(pathOf(page.url())).toBe('/system/menu');

    // 首页 navigates to the dashboard, whose breadcrumb is just itself.
    await crumb.getByRole('link', { name: '首页' }).click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();
    expect(
      (await crumb.locator('li:not(.ant-breadcrumb-separator)').allInnerTexts()).map((t) => t.trim()),
    ).toEqual(['首页']);
    await context.close();
  });

  it('logs out from the user dropdown and the old token is refused by the server', async () => {
    const { page, context } = await newPage(browser);
    const { token } = await openSignedIn(page, '/dashboard', { fresh: true });
    await page.getByTestId('dashboard').waitFor();
    const before = await api('/api-bms/user/getLanguageMenu', { language: 'cn' }, { token });
    expect(before.code).toBe(0);

    // (The dropdown's opening animation can swallow a click on a loaded machine: chooseUserMenu retries.)
    await chooseUserMenu(page, '退出登录', page.getByTestId('login-form'));
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('ess.session'))).toBeNull();

    await page.goto('/dashboard');
    await page.waitForURL('**/login?redirect=%2Fdashboard');
    await page.getByTestId('login-form').waitFor();

    const after = await api('/api-bms/user/getLanguageMenu', { language: 'cn' }, { token });
    expect(after.code).toBe(50012);
    await context.close();
  });
});

describe('signed out', () => {
  it('sends /dashboard and /system/menu to /login with a redirect query, and back after sign-in', async () => {
    const { page, context } = await newPage(browser);
    await page.goto('/dashboard');
    await page.waitForURL('**/login?redirect=%2Fdashboard');
    await page.getByTestId('login-form').waitFor();

    await page.goto('/system/menu');
    await page.waitForURL('**/login?redirect=%2Fsystem%2Fmenu');
    await page.getByTestId('login-account').fill('admin');
    await page.getByTestId('login-password').fill('admin123');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/system/menu');
    await page.getByTestId('menu-list').waitFor();
    await context.close();
  });

  it('opens /newscreen without a token: the public cockpit', async () => {
    const { page, context } = await newPage(browser);
    await page.goto('/newscreen');
    const cockpit = page.getByTestId('cockpit');
    await cockpit.waitFor();
    expect(pathOf(page.url())).toBe('/newscreen');
    await cockpit.getByRole('heading', { name: '储能运营驾驶舱' }).waitFor();
    await page.getByTestId('cockpit-clock').waitFor();
    expect(await page.getByTestId('cockpit-link').textContent()).toBe('登录');
    await expect.poll(() => page.title()).toBe('驾驶舱 - 储能云平台');

    // Aggregates only (what they are and that no site shows: bigscreens.e2e.test.ts).
    expect(await page.getByTestId('cockpit-mode').getAttribute('data-mode')).toBe('public');
    await context.close();
  });
});
