/**
 * Forced password change (user info `mustChangePassword`): an employee whose password an
 * administrator set (new account, reset) meets the change-password dialog in forced mode right
 * after signing in and after a reload (the server answers the page's calls 5058 meanwhile, which
 * the console does not show): no close button or cancel, Escape and the backdrop do
 * nothing, a note says why, a log-out link instead of cancel. A wrong old password is refused
 * (5054); a good change closes it for good, this session staying. Last, screenshots of the
 * forced dialog (zh / en, 1440 and 390 px) from a stored session.
 *
 * The employee and its role are created through the API with a unique stamp (the server is
 * shared by every e2e file); the tests run in order on the same employee.
 */
import { endpoints } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  DESKTOP,
  MOBILE,
  screenshot,
  sha256Hex,
  signIn,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const STAMP = Date.now().toString(36).slice(-6);
const ACCOUNT = `e2e-forced-${STAMP}`;
const INITIAL = 'initial1';
const CHOSEN = 'chosen-22';
const RESET = 'reset-333';

let browser: Browser;
let admin: ApiSession;
let employeeId: number;

/** A call as the admin that must succeed; answers its data. */
async function adminCall<T>(path: string, body: object): Promise<T> {
  const answer = await api<T>(
    path,
    { userInfo: { userId: admin.userId, companyId: admin.companyId }, ...body },
    { token: admin.token },
  );
  expect(answer.code, `${path}: ${answer.msg}`).toBe(0);
  return answer.data;
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await apiSignIn(ADMIN.account, ADMIN.password);
  // A role with the employee list, so the new account has a menu (spec §6).
  const role = await adminCall<{ id: number }>(endpoints.role.save.path, {
    name: `E2E 改密角色 ${STAMP}`,
    code: `e2e_forced_${STAMP}`,
    menuIds: [120],
  });
  const saved = await adminCall<{ id: number }>(endpoints.employee.save.path, {
    account: ACCOUNT,
    password: sha256Hex(INITIAL),
    name: `改密员工 ${STAMP}`,
    roleIds: [role.id],
  });
  employeeId = saved.id;
});

afterAll(async () => {
  await browser?.close();
});

/** The forced dialog, once open. */
async function forcedDialog(page: Page) {
  const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('password-forced-note') });
  await dialog.waitFor();
  return dialog;
}

/** True once the employee's user info is in the frame (the navbar shows their name). */
async function userShown(page: Page): Promise<void> {
  await page
    .getByTestId('user-dropdown')
    .filter({ hasText: `改密员工 ${STAMP}` })
    .waitFor();
}

describe('forced password change', () => {
  it('a new account must choose a password before using the console', async () => {
    const { page, context } = await newPage(browser);
    const overview = page.waitForResponse((r) => r.url().endsWith(endpoints.dashboard.overview.path));
    await signIn(page, { account: ACCOUNT, password: INITIAL });
    const dialog = await forcedDialog(page);
    // The server refuses the page behind the dialog too (5058), and the console says nothing of it.
    expect(((await (await overview).json()) as { code: number }).code).toBe(5058);
    await page.waitForTimeout(300);
    expect(await page.locator('.ant-message-notice').count()).toBe(0);
    expect(await dialog.getByTestId('password-forced-note').innerText()).toContain(
      '管理员为您设置了初始密码，请先修改密码',
    );
    expect(await dialog.locator('.ant-modal-close').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: /取\s?消/ }).count()).toBe(0);
    await dialog.getByTestId('password-logout').waitFor();

    // Neither Escape nor a click on the backdrop (over the sidebar) closes it.
    await dialog.getByTestId('password-old').focus();
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.elementFromPoint(12, 450)?.className)).toContain(
      'ant-modal-wrap',
    );
    await page.mouse.click(12, 450);
    await page.waitForTimeout(400);
    expect(await dialog.isVisible()).toBe(true);

    // A wrong old password: the server's 5054 message, the dialog stays.
    await dialog.getByTestId('password-old').fill('not-my-password');
    await dialog.getByTestId('password-new').fill(CHOSEN);
    await dialog.getByTestId('password-confirm').fill(CHOSEN);
    await dialog.getByTestId('password-submit').click();
    await toast(page, '原密码错误').waitFor();
    expect(await dialog.isVisible()).toBe(true);

    // The right one: changed, the dialog goes, this session stays and the page is usable.
    await dialog.getByTestId('password-old').fill(INITIAL);
    await dialog.getByTestId('password-submit').click();
    await toast(page, '修改成功').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('submenu-/system').click();
    await page.getByTestId('menu-/system/employee').click();
    await page.getByTestId('employee-table').locator('tr[data-row-key]').first().waitFor();

    // A reload restores the session without the dialog.
    await page.reload();
    await userShown(page);
    await page.getByTestId('employee-table').locator('tr[data-row-key]').first().waitFor();
    expect(await page.getByTestId('password-dialog').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/system/employee');
    await context.close();

    // The chosen password signs in; the initial one no longer does.
    await expect(apiSignIn(ACCOUNT, INITIAL)).rejects.toThrow(/5080/);
    await apiSignIn(ACCOUNT, CHOSEN);
  });

  it("after the administrator's reset it asks again; log out leaves", async () => {
    await adminCall(endpoints.employee.resetPassword.path, { id: employeeId, password: sha256Hex(RESET) });
    const { page, context } = await newPage(browser, MOBILE);
    await signIn(page, { account: ACCOUNT, password: RESET, lang: 'en' });
    const dialog = await forcedDialog(page);
    expect(await dialog.getByTestId('password-forced-note').innerText()).toContain(
      'An administrator set your password; please choose a new one first',
    );
    await page.keyboard.press('Escape');
    await page.waitForTimeout(400);
    expect(await dialog.isVisible()).toBe(true);

    await dialog.getByTestId('password-logout').click();
    await page.waitForURL('**/login');
    await page.getByTestId('login-form').waitFor();
    await context.close();
  });

  it('a stored session with the flag opens the dialog on load (screenshots)', async () => {
    for (const lang of ['zh', 'en'] as const) {
      for (const [width, viewport] of [
        [1440, DESKTOP],
        [390, MOBILE],
      ] as const) {
        const session = await apiSignIn(ACCOUNT, RESET);
        const { page, context } = await newPage(browser, viewport);
        const { terminalId, ...credentials } = session;
        await context.addInitScript(
          ({ credentials, terminalId, lang }) => {
            if (sessionStorage.getItem('e2e.seeded')) return;
            sessionStorage.setItem('e2e.seeded', '1');
            localStorage.setItem('ess.session', JSON.stringify(credentials));
            localStorage.setItem('ess.terminalId', terminalId);
            localStorage.setItem('ess.language', lang);
          },
          { credentials, terminalId, lang },
        );
        await page.goto('/system/employee');
        await forcedDialog(page);
        await screenshot(page, `account-forced-password-${lang}-${width}`);
        await context.close();
      }
    }
  });
});
