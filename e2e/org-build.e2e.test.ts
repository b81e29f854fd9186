/**
 * Building a partner company from the console alone: the platform administrator
 * creates an agent on the agent page, picks it in the employees screen's company picker and adds
 * its first employee with the agent's 管理员 role (created by the server with the company);
 * that employee signs in (after changing the initial password through the API) and manages the
 * employees of their own company, without a picker. The departments screen lists and saves for
 * the picked company, and the roles screen's authority tree comes from `role/menuOptions` for
 * the picked company (no platform-only entry for an agent's role). Screenshots of the picker
 * (open, on the employees screen; closed, on the roles screen) in zh/en at 1440 and 390 px:
 * .tmp/screenshots/<lang>-<size>-company-picker|roles-picker.png.
 * Names are unique per run: the server is shared with the other e2e files.
 */
import { endpoints } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  apiSignIn,
  DESKTOP,
  MOBILE,
  openSignedIn,
  recordCalls,
  SCREENSHOTS_ON,
  screenshot,
  sha256Hex,
  signIn,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const stamp = Date.now().toString(36).slice(-6);
const AGENT = `E2E建站代理商-${stamp}`;
/** Menu management: platform-only, never offered to an agent's role. */
const MENU_MANAGEMENT = 101;
/** The employees page entry. */
const EMPLOYEES_PAGE = 120;

let browser: Browser;
let agentId = 0;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** The `data-row-key` of the row of `testId`'s table showing `text`. */
async function rowKey(page: Page, testId: string, text: string): Promise<number> {
  const row = page.getByTestId(testId).locator('tr[data-row-key]').filter({ hasText: text });
  await row.first().waitFor();
  return Number(await row.first().getAttribute('data-row-key'));
}

/** Choose `name` in the company picker (typing filters the list). */
async function pickCompany(page: Page, name: string): Promise<void> {
  const picker = page.getByTestId('company-picker');
  await picker.click();
  await picker.locator('input').fill(name);
  await page.locator('.ant-select-item-option').filter({ hasText: name }).click();
  await picker.getByText(name).waitFor();
}

describe('a new agent built from the console', () => {
  it('the admin creates an agent, adds its administrator employee, who then manages its employees', async () => {
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/org/agent');
    await page.getByTestId('company-add').click();
    await page.getByTestId('company-name').fill(AGENT);
    await page.getByTestId('company-submit').click();
    await page.getByTestId('company-dialog').waitFor({ state: 'detached' });
    agentId = await rowKey(page, 'company-table', AGENT);

    // Employees: the picker starts on the own company; the agent has nobody yet.
    const lists = recordCalls(page, endpoints.employee.pageList.path);
    const roleLists = recordCalls(page, endpoints.role.pageList.path);
    const saves = recordCalls(page, endpoints.employee.save.path);
    await page.goto('/system/employee');
    await page.getByTestId('employee-table').locator('tr[data-row-key]').first().waitFor();
    await pickCompany(page, AGENT);
    await page.getByTestId('employee-table').getByText('还没有员工').waitFor();
    expect(lists.at(-1)?.companyId).toBe(agentId);

    const account = `e2e_agent_admin_${stamp}`;
    const initial = 'start123';
    const password = 'agent456';
    await page.getByTestId('employee-add').click();
    const dialog = page.getByTestId('employee-dialog');
    await dialog.waitFor();
    await page.getByTestId('employee-account').fill(account);
    await page.getByTestId('employee-password').fill(initial);
    await page.getByTestId('employee-password-confirm').fill(initial);
    await page.getByTestId('employee-name').fill('代理商管理员');
    await page.getByTestId('employee-roles').click();
    // Only the agent's roles are offered: its administrator role.
    const options = page.locator('.ant-select-dropdown:visible .ant-select-item-option');
    await options.filter({ hasText: '管理员' }).click();
    expect(await options.count()).toBe(1);
    expect(roleLists.at(-1)?.companyId).toBe(agentId);
    await page.keyboard.press('Escape');
    await page.getByTestId('employee-submit').click();
    await dialog.waitFor({ state: 'detached' });
    expect(saves[0]?.companyId).toBe(agentId);
    const id = await rowKey(page, 'employee-table', account);
    const row = page.locator(`[data-testid="employee-table"] tr[data-row-key="${id}"]`);
    await row.locator('.ant-tag').filter({ hasText: '管理员' }).waitFor();
    await context.close();

    // The new employee changes the initial password, then signs in with the new one.
    const first = await apiSignIn(account, initial);
    expect(first.companyId).toBe(agentId);
    const changed = await api(
      '/api-bms/employee/updatePassword',
      {
        userInfo: { userId: first.userId, companyId: first.companyId },
        oldPassword: sha256Hex(initial),
        newPassword: sha256Hex(password),
        confirmPassword: sha256Hex(password),
      },
      { token: first.token },
    );
    expect(changed.code, changed.msg).toBe(0);

    const own = await newPage(browser, DESKTOP);
    await signIn(own.page, { account, password });
    await own.page.goto('/system/employee');
    await own.page.getByTestId('employee-page').waitFor();
    await own.page.getByTestId('employee-table').locator(`tr[data-row-key="${id}"]`).waitFor();
    // Their own company only: one company, so no picker; the platform's admin is not listed.
    expect(await own.page.getByTestId('company-picker').count()).toBe(0);
    expect(await own.page.getByTestId('employee-table').locator('tr[data-row-key]').count()).toBe(1);
    await own.page.getByTestId('employee-add').waitFor();
    expect(await own.page.locator('.ant-message-error').count()).toBe(0);
    await own.context.close();
  }, 120_000);

  it('departments and roles follow the picked company', async () => {
    expect(agentId).toBeGreaterThan(0);
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/system/dept');
    const saves = recordCalls(page, endpoints.department.save.path);
    await page.getByTestId('dept-page').waitFor();
    await pickCompany(page, AGENT);
    await page.getByTestId('dept-table').getByText('还没有部门').waitFor();
    const name = `代理商运维部-${stamp}`;
    await page.getByTestId('dept-add').click();
    await page.getByTestId('dept-name').fill(name);
    await page.getByTestId('dept-submit').click();
    await page.getByTestId('dept-dialog').waitFor({ state: 'detached' });
    await rowKey(page, 'dept-table', name);
    expect(saves[0]?.companyId).toBe(agentId);

    // Roles: the agent's administrator role, and a new role's tree without platform-only entries.
    const menuOptions = recordCalls(page, endpoints.role.menuOptions.path);
    await page.goto('/system/role');
    await page.getByTestId('role-table').locator('tr[data-row-key]').first().waitFor();
    await pickCompany(page, AGENT);
    // The platform's list may still be on screen for a moment (it has a 管理员 row too): wait for
    // the agent's list, which holds exactly its administrator role.
    await expect.poll(() => page.getByTestId('role-table').locator('tr[data-row-key]').count()).toBe(1);
    const adminRole = await rowKey(page, 'role-table', '管理员');
    expect(adminRole).toBeGreaterThan(0);
    await page.getByTestId('role-add').click();
    await page.getByTestId(`role-menu-${EMPLOYEES_PAGE}`).waitFor();
    expect(await page.getByTestId(`role-menu-${MENU_MANAGEMENT}`).count()).toBe(0);
    expect(menuOptions.at(-1)?.companyId).toBe(agentId);
    await page.getByTestId('role-name').fill(`代理商客服-${stamp}`);
    await page.getByTestId('role-code').fill(`agent_cs_${stamp}`);
    await page.getByTestId(`role-menu-${EMPLOYEES_PAGE}`).click();
    const roleSaves = recordCalls(page, endpoints.role.save.path);
    await page.getByTestId('role-submit').click();
    await toast(page, '角色已保存').waitFor();
    expect(roleSaves[0]).toMatchObject({ companyId: agentId });
    expect(roleSaves[0]?.menuIds).toContain(EMPLOYEES_PAGE);
    await rowKey(page, 'role-table', `agent_cs_${stamp}`);

    // Back on the own company, the platform's own role dialog offers menu management.
    await pickCompany(page, '平台运营中心');
    await page.getByTestId('role-add').click();
    await page.getByTestId(`role-menu-${MENU_MANAGEMENT}`).waitFor();
    await context.close();
  }, 120_000);

  for (const lang of ['zh', 'en'] as const) {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['mobile', MOBILE],
    ] as const) {
      it.runIf(SCREENSHOTS_ON)(
        `screenshots ${lang} ${size}`,
        async () => {
          const { context, page } = await newPage(browser, viewport);
          const prefix = `${lang}-${size}`;
          await openSignedIn(page, '/system/employee', { lang });
          await page.getByTestId('employee-table').locator('tr[data-row-key]').first().waitFor();
          await page.getByTestId('company-picker').click();
          await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().waitFor();
          await screenshot(page, `${prefix}-company-picker`);
          await page.keyboard.press('Escape');

          await page.goto('/system/role');
          await page.getByTestId('role-table').locator('tr[data-row-key]').first().waitFor();
          await pickCompany(page, AGENT);
          await page.getByTestId('role-table').locator('tr[data-row-key]').nth(1).waitFor();
          await screenshot(page, `${prefix}-roles-picker`);
          await context.close();
        },
        120_000,
      );
    }
  }
});
