/**
 * Change-password dialog (spec §4, §5, §7, §8): checks on blur, the server's message for a wrong
 * old password, success, and that the new password (and not the old one) signs in afterwards.
 *
 * The admin's password is shared by every e2e file: afterAll puts admin123 back through the API
 * (and fails the file if it cannot).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  api,
  apiSignIn,
  chooseUserMenu,
  openSignedIn,
  recordCalls,
  sha256Hex,
  signIn,
  submitLogin,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const NEW_PASSWORD = 'e2e-Pass-2468';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  // Put admin123 back (the second test leaves the new password in place).
  try {
    const { token } = await apiSignIn(ADMIN.account, NEW_PASSWORD);
    await api(
      '/api-bms/employee/updatePassword',
      {
        oldPassword: sha256Hex(NEW_PASSWORD),
        newPassword: sha256Hex(ADMIN.password),
        confirmPassword: sha256Hex(ADMIN.password),
      },
      { token },
    );
  } catch {
    // the new password does not sign in: admin123 is still in place
  }
  await apiSignIn(ADMIN.account, ADMIN.password); // throws if the password was not restored
});

async function openDialog(page: Page) {
  const dialog = page.getByRole('dialog', { name: '修改密码' });
  await chooseUserMenu(page, '修改密码', dialog.getByTestId('password-dialog'));
  return dialog;
}

async function logout(page: Page): Promise<void> {
  await page.getByTestId('user-dropdown').click();
  await page.getByRole('menuitem', { name: '退出登录' }).click();
  await page.waitForURL('**/login');
  await page.getByTestId('login-form').waitFor();
}

describe('change password', () => {
  it('checks the fields on blur and shows the server message for a wrong old password', async () => {
    const { page, context } = await newPage(browser);
    await openSignedIn(page);
    const dialog = await openDialog(page);
    const errors = dialog.locator('.ant-form-item-explain-error');

    // Required on blur.
    await dialog.getByTestId('password-old').focus();
    await dialog.getByTestId('password-new').focus();
    await errors.filter({ hasText: '请输入原密码' }).waitFor();

    // Confirm differs from the new password: shown on blur.
    await dialog.getByTestId('password-new').fill(NEW_PASSWORD);
    await dialog.getByTestId('password-confirm').fill(`${NEW_PASSWORD}x`);
    await dialog.getByTestId('password-old').focus();
    await errors.filter({ hasText: '两次输入的密码不一致' }).waitFor();

    // Each field has a show/hide toggle.
    await dialog.getByTestId('password-old').fill('not-my-password');
    expect(await dialog.getByTestId('password-old').getAttribute('type')).toBe('password');
    await dialog.locator('.ant-input-password-icon').first().click();
    expect(await dialog.getByTestId('password-old').getAttribute('type')).toBe('text');

    // Fixed confirm, wrong old password: the server's message, the dialog stays open.
    const calls = recordCalls(page, '/api-bms/employee/updatePassword');
    await dialog.getByTestId('password-confirm').fill(NEW_PASSWORD);
    await dialog.getByTestId('password-submit').click();
    await toast(page, '原密码错误').waitFor();
    expect(await errors.count()).toBe(0);
    await dialog.getByTestId('password-dialog').waitFor();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      oldPassword: sha256Hex('not-my-password'),
      newPassword: sha256Hex(NEW_PASSWORD),
      confirmPassword: sha256Hex(NEW_PASSWORD),
    });
    await context.close();
  });

  it('changes the password: the new one signs in, the old one no longer does', async () => {
    const { page, context } = await newPage(browser);
    await signIn(page);
    const dialog = await openDialog(page);
    await dialog.getByTestId('password-old').fill(ADMIN.password);
    await dialog.getByTestId('password-new').fill(NEW_PASSWORD);
    await dialog.getByTestId('password-confirm').fill(NEW_PASSWORD);
    await dialog.getByTestId('password-submit').click();
    await toast(page, '修改成功').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    // Still signed in on this terminal.
    await page.getByTestId('dashboard').waitFor();

    await logout(page);
    await submitLogin(page, ADMIN.account, ADMIN.password);
    await toast(page, '账号或密码错误').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.getByTestId('login-password').fill(NEW_PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').getByText('管理员，您好').waitFor();

    await context.close();
    // admin123 is put back by afterAll.
  });
});
