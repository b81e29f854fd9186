/**
 * /login (spec §2, §5, §8): validation messages in both languages, the server's message for a
 * wrong password, the page title, and a real sign-in landing on the dashboard with the server's
 * menu — the password never crossing the wire in plain text.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, recordCalls, submitLogin, toast } from './support/app';
import { launchBrowser, newPage } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function openLogin(): Promise<Page> {
  const { page } = await newPage(browser);
  await page.goto('/login');
  await page.getByTestId('login-form').waitFor();
  return page;
}

/** Switch the login page to English through the language menu. */
async function switchToEnglish(page: Page): Promise<void> {
  await page.getByTestId('language-switch').click();
  await page.getByTestId('lang-option-en').click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

describe('login page', () => {
  it('shows the Chinese validation messages by default', async () => {
    const page = await openLogin();
    await page.getByTestId('login-password').fill('12345');
    await page.getByTestId('login-submit').click();

    await page.getByText('请输入正确的用户名').waitFor();
    await page.getByText('密码不能少于6位').waitFor();
    expect(await page.getByTestId('login-account-error').textContent()).toBe('请输入正确的用户名');
    expect(await page.getByTestId('login-password-error').textContent()).toBe('密码不能少于6位');
    // Nothing was submitted: still on /login.
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.context().close();
  });

  it('checks a field on blur and clears the message once it is fixed', async () => {
    const page = await openLogin();
    await page.getByTestId('login-account').focus();
    await page.getByTestId('login-password').focus(); // account blurred while empty
    await page.getByTestId('login-account-error').waitFor();
    expect(await page.getByTestId('login-account-error').textContent()).toBe('请输入正确的用户名');

    await page.getByTestId('login-account').fill('admin');
    await page.getByTestId('login-account-error').waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('shows the English validation messages after switching the language on the page', async () => {
    const page = await openLogin();
    await switchToEnglish(page);
    await page.getByTestId('login-password').fill('12345');
    await page.getByTestId('login-submit').click();

    await page.getByText('Please enter the correct user name').waitFor();
    await page.getByText('The password can not be less than 6 digits').waitFor();
    expect(await page.getByTestId('login-account-error').textContent()).toBe(
      'Please enter the correct user name',
    );
    expect(await page.getByTestId('login-password-error').textContent()).toBe(
      'The password can not be less than 6 digits',
    );
    await page.context().close();
  });

  it('titles the page with the translated login title and the system name', async () => {
    const page = await openLogin();
    await expect.poll(() => page.title()).toBe('登录 - 储能云平台');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');

    await switchToEnglish(page);
    await expect.poll(() => page.title()).toBe('Sign in - ESS Console');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en-US');
    await page.context().close();
  });

  it('shows the server message for a wrong password, in Chinese and in English', async () => {
    const page = await openLogin();
    await submitLogin(page, ADMIN.account, 'wrong-password');
    await toast(page, '账号或密码错误').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');

    await switchToEnglish(page);
    await page.getByTestId('login-submit').click();
    await toast(page, 'Incorrect account or password').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.context().close();
  });

  it('signs in: dashboard with user and company, the server menu, password sent hashed', async () => {
    const page = await openLogin();
    const logins = recordCalls(page, '/api-bms/user/login');

    // The account is trimmed before sending (spec §5).
    await submitLogin(page, `  ${ADMIN.account} `, ADMIN.password);
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();

    expect(logins).toHaveLength(1);
    const body = logins[0]!;
    expect(body.account).toBe('admin');
    expect(body.password).toMatch(/^[0-9a-f]{64}$/);
    expect(body.password).not.toBe(ADMIN.password);
    expect(JSON.stringify(body)).not.toContain(ADMIN.password);

    const dashboard = page.getByTestId('dashboard');
    await dashboard.getByText('管理员，您好').waitFor();
    const profile = page.getByTestId('dashboard-profile');
    await profile.getByText('平台运营中心').waitFor();
    expect(await profile.textContent()).toContain('管理员');
    expect(await page.title()).toBe('首页 - 储能云平台');

    // The sidebar holds the server's menu: 系统管理 → 菜单管理.
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByText('首页').waitFor();
    await sidebar.getByText('系统管理').click();
    await sidebar.getByRole('menuitem', { name: '菜单管理' }).click();
    await page.waitForURL('**/system/menu');
    await page.getByTestId('menu-list').waitFor();
    await page.context().close();
  });
});
