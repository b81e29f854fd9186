/**
 * Departments and employees in the browser: the admin builds a department tree, adds
 * an employee with a role, and disabling that employee ends their session at once (the token
 * is refused and their open console asks them to sign in again). English texts on the
 * employee page; screenshots of both screens in zh/en at 1440 and 390 px
 * (.tmp/screenshots/<lang>-<size>-departments|department-dialog|employees|employee-dialog.png).
 * Rows are named uniquely: the server is shared with the other e2e files.
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
  openSignedIn,
  SCREENSHOTS_ON,
  screenshot,
  sha256Hex,
  signIn,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const unique = () => Date.now().toString(36).slice(-6);

let browser: Browser;
let admin: ApiSession;

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await apiSignIn(ADMIN.account, ADMIN.password);
});

afterAll(async () => {
  await browser?.close();
});

/** A call as the admin that must succeed; answers its data. */
async function asAdmin<T>(path: string, body: object): Promise<T> {
  const answer = await api<T>(
    path,
    { userInfo: { userId: admin.userId, companyId: admin.companyId }, ...body },
    {
      token: admin.token,
    },
  );
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code} ${answer.msg}`);
  return answer.data;
}

/** The `data-row-key` of the table row showing `text`. */
async function rowKey(page: Page, tableTestId: string, text: string): Promise<number> {
  const row = page.getByTestId(tableTestId).locator('tr[data-row-key]').filter({ hasText: text });
  await row.first().waitFor();
  return Number(await row.first().getAttribute('data-row-key'));
}

describe('departments', () => {
  it('the admin adds a department and a sub-department; one with a sub-department cannot be deleted', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/dept');
    await page.getByTestId('dept-page').waitFor();
    const name = `E2E研发部-${unique()}`;

    await page.getByTestId('dept-add').click();
    const dialog = page.getByTestId('dept-dialog');
    await dialog.waitFor();
    await page.getByTestId('dept-name').fill(name);
    await page.getByTestId('dept-leader').fill('张工');
    await page.getByTestId('dept-phone').fill('12345');
    await page.getByTestId('dept-phone').blur();
    await dialog.getByText('请输入正确的手机号码').waitFor();
    await page.getByTestId('dept-phone').fill('13800138000');
    await page.getByTestId('dept-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const id = await rowKey(page, 'dept-table', name);
    const row = page.locator(`[data-testid="dept-table"] tr[data-row-key="${id}"]`);
    expect(await row.innerText()).toContain('13800138000');

    // A sub-department from the row's action; the tree shows it under its parent.
    await page.getByTestId(`dept-add-child-${id}`).click();
    await page.getByTestId('dept-name').fill(`${name}-一组`);
    await page.getByTestId('dept-submit').click();
    const childId = await rowKey(page, 'dept-table', `${name}-一组`);
    const rows = await asAdmin<{ list: { id: number; parentId: number | null }[] }>(
      endpoints.department.list.path,
      {},
    );
    expect(rows.list.find((d) => d.id === childId)?.parentId).toBe(id);
    // antd indents a child row one level deeper than its parent.
    await page.locator(`tr[data-row-key="${childId}"] .ant-table-row-indent.indent-level-1`).waitFor();

    // The same name again at the same level: the server's 5004 marks the field.
    await page.getByTestId(`dept-add-child-${id}`).click();
    await page.getByTestId('dept-name').fill(`${name}-一组`);
    await page.getByTestId('dept-submit').click();
    await page.getByTestId('dept-dialog').getByText('同级部门名称已存在').waitFor();
    await page.keyboard.press('Escape');

    // Deleting the parent is refused while the sub-department exists (5001).
    await page.getByTestId(`dept-delete-${id}`).click();
    await page.getByTestId('dept-delete-ok').click();
    await toast(page, '该部门存在下级部门，不能删除').waitFor();
    await row.waitFor();

    // The name filter keeps matches with their parents.
    await page.getByTestId('dept-filter').fill('一组');
    await page.locator(`tr[data-row-key="${childId}"]`).waitFor();
    await row.waitFor();
    await context.close();
  });
});

describe('employees', () => {
  it('the admin adds an employee with a role; disabling them ends their session at once', async () => {
    const tag = unique();
    const roleName = `E2E巡检员-${tag}`;
    await asAdmin(endpoints.role.save.path, {
      name: roleName,
      code: `e2e_${tag}`,
      menuIds: [120],
      dataScope: 'company',
      status: 'enabled',
    });
    const department = `E2E运维部-${tag}`;
    const { id: departmentId } = await asAdmin<{ id: number }>(endpoints.department.save.path, {
      name: department,
    });

    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/employee');
    await page.getByTestId(`dept-node-${departmentId}`).click();

    const account = `e2e_emp_${tag}`;
    const password = 'start123';
    await page.getByTestId('employee-add').click();
    const dialog = page.getByTestId('employee-dialog');
    await dialog.waitFor();
    await page.getByTestId('employee-account').fill(account);
    await page.getByTestId('employee-password').fill(password);
    await page.getByTestId('employee-password-confirm').fill('start124');
    await page.getByTestId('employee-password-confirm').blur();
    await dialog.getByText('两次输入的密码不一致').waitFor();
    await page.getByTestId('employee-password-confirm').fill(password);
    await page.getByTestId('employee-name').fill('李巡检');
    await page.getByTestId('employee-phone').fill('13900139000');
    // The department chosen on the left is preset.
    await dialog.getByText(department).waitFor();
    await page.getByTestId('employee-roles').click();
    await page.locator('.ant-select-item-option').filter({ hasText: roleName }).click();
    await page.keyboard.press('Escape');
    const saves = [] as Record<string, unknown>[];
    page.on('request', (req) => {
      if (req.url().endsWith(endpoints.employee.save.path))
        saves.push(req.postDataJSON() as Record<string, unknown>);
    });
    await page.getByTestId('employee-submit').click();
    await dialog.waitFor({ state: 'detached' });

    const id = await rowKey(page, 'employee-table', account);
    const row = page.locator(`[data-testid="employee-table"] tr[data-row-key="${id}"]`);
    await row.locator('.ant-tag').filter({ hasText: roleName }).waitFor();
    expect(await row.innerText()).toContain(department);
    expect(saves[0]?.password).toBe(sha256Hex(password));

    // The new employee signs in (the initial password is only flagged for a change).
    const detail = await asAdmin<{ mustChangePassword: boolean }>(endpoints.employee.detail.path, { id });
    expect(detail.mustChangePassword).toBe(true);
    await apiSignIn(account, password);

    // The admin sets a new password: the old one stops working, the new one signs in.
    const fresh = 'reset456';
    await page.getByTestId(`employee-reset-${id}`).click();
    await page.getByTestId('reset-password-new').fill(fresh);
    await page.getByTestId('reset-password-confirm').fill(fresh);
    await page.getByTestId('reset-password-submit').click();
    await page.getByTestId('reset-password-dialog').waitFor({ state: 'detached' });
    await expect(apiSignIn(account, password)).rejects.toThrow(/5080/);
    const employee = await apiSignIn(account, fresh);
    const probe = () =>
      api(
        endpoints.employee.pageList.path,
        { userInfo: { userId: employee.userId, companyId: employee.companyId }, pageNum: 1, pageSize: 10 },
        { token: employee.token },
      );
    // A reset password must be changed before anything else: the server refuses the list (5058;
    // the console's forced dialog has its own test). The employee chooses their own now.
    expect((await probe()).code).toBe(5058);
    const own = 'mine789';
    const changed = await api(
      '/api-bms/employee/updatePassword',
      { oldPassword: sha256Hex(fresh), newPassword: sha256Hex(own), confirmPassword: sha256Hex(own) },
      { token: employee.token },
    );
    expect(changed.code).toBe(0);
    expect((await probe()).code).toBe(0);

    // Their own console, open in another browser.
    const other = await newPage(browser);
    await signIn(other.page, { account, password: own });
    // With only the employee list right: the list, without the department tree or buttons.
    await other.page.goto('/system/employee');
    await other.page.getByTestId('employee-table').locator(`tr[data-row-key="${id}"]`).waitFor();
    expect(await other.page.getByTestId('dept-tree').count()).toBe(0);
    expect(await other.page.getByTestId('employee-add').count()).toBe(0);
    expect(await other.page.getByTestId(`employee-status-${id}`).count()).toBe(0);
    expect(await other.page.locator('.ant-message-error').count()).toBe(0);

    // The admin disables them after confirming.
    await page.getByTestId(`employee-status-${id}`).click();
    const confirm = page.locator('.ant-modal-confirm').filter({ hasText: '其已登录的会话会立即结束' });
    await confirm.waitFor();
    await confirm.locator('.ant-btn-primary').click();
    await toast(page, '已禁用').waitFor();
    await expect
      .poll(() => page.getByTestId(`employee-status-${id}`).getAttribute('aria-checked'))
      .toBe('false');

    expect((await probe()).code).toBe(50012);

    // Their next action in the open console: signed out (the re-login question or /login).
    await other.page.getByTestId('user-dropdown').click();
    await other.page.getByTestId('user-menu-email').click();
    await expect
      .poll(
        async () =>
          new URL(other.page.url()).pathname === '/login' ||
          (await other.page.getByText('您已被登出').count()) > 0,
        { timeout: 15_000 },
      )
      .toBe(true);
    await other.context.close();
    await context.close();
  });

  it('shows the employee page in English', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/employee', { lang: 'en' });
    await page.getByTestId('employee-page').waitFor();
    await page.getByTestId('dept-tree-all').getByText('All employees').waitFor();
    const table = page.getByTestId('employee-table');
    await table.getByRole('columnheader', { name: 'Account' }).waitFor();
    await table.getByRole('columnheader', { name: 'Roles' }).waitFor();
    await page.getByRole('button', { name: 'Add employee' }).click();
    await page.getByTestId('employee-dialog').getByText('Initial password').waitFor();
    await page.getByTestId('employee-dialog').getByText('must change it at the first sign-in').waitFor();
    await context.close();
  });
});

/** A department named `name` under `parentId`: the existing one, or a new one. */
async function ensureDepartment(name: string, parentId: number | null, extra: object = {}): Promise<number> {
  const { list } = await asAdmin<{ list: { id: number; name: string; parentId: number | null }[] }>(
    endpoints.department.list.path,
    {},
  );
  const found = list.find((d) => d.name === name && d.parentId === parentId);
  if (found) return found.id;
  return (await asAdmin<{ id: number }>(endpoints.department.save.path, { name, parentId, ...extra })).id;
}

/** A few departments and an employee with a role, so the pictures show filled screens. */
async function seedForScreenshots(): Promise<void> {
  const ops = await ensureDepartment('运维中心', null, { leader: '王建国', phone: '13800000001' });
  const east = await ensureDepartment('华东运维组', ops, { leader: '陈立', sort: 1 });
  await ensureDepartment('华南运维组', ops, { sort: 2 });
  await ensureDepartment('财务部', null, { sort: 5 });
  const roles = await asAdmin<{ list: { id: number; code: string }[] }>(endpoints.role.pageList.path, {
    pageNum: 1,
    pageSize: 500,
    keyword: 'shot_operator',
  });
  const roleId =
    roles.list.find((r) => r.code === 'shot_operator')?.id ??
    (
      await asAdmin<{ id: number }>(endpoints.role.save.path, {
        name: '运维工程师',
        code: 'shot_operator',
        menuIds: [120],
        dataScope: 'company',
      })
    ).id;
  const existing = await asAdmin<{ total: number }>(endpoints.employee.pageList.path, {
    pageNum: 1,
    pageSize: 10,
    keyword: 'wang.ops',
  });
  if (existing.total === 0) {
    await asAdmin(endpoints.employee.save.path, {
      account: 'wang.ops',
      password: sha256Hex('start123'),
      name: '王运维',
      phone: '13900000002',
      email: 'wang.ops@example.com',
      departmentId: east,
      roleIds: [roleId],
    });
  }
}

describe.runIf(SCREENSHOTS_ON)('screenshots', { concurrent: true }, () => {
  beforeAll(seedForScreenshots);

  it.each([
    ['zh', 'desktop'],
    ['zh', 'mobile'],
    ['en', 'desktop'],
    ['en', 'mobile'],
  ] as const)(
    '%s %s: departments and employees',
    async (lang, size) => {
      const { context, page } = await newPage(browser, size === 'desktop' ? DESKTOP : MOBILE);
      const prefix = `${lang}-${size}`;
      await context.addInitScript(() => {
        addEventListener('DOMContentLoaded', () => {
          const style = document.createElement('style');
          style.textContent = '*, *::before, *::after { caret-color: transparent !important; }';
          document.head.append(style);
        });
      });
      await openSignedIn(page, '/system/dept', { lang });
      await page.getByTestId('dept-table').locator('tr[data-row-key]').first().waitFor();
      await screenshot(page, `${prefix}-departments`);
      await page.locator('[data-testid^="dept-edit-"]').last().click();
      await page.getByTestId('dept-dialog').waitFor();
      await screenshot(page, `${prefix}-department-dialog`);
      await page.keyboard.press('Escape');
      await page.getByTestId('dept-dialog').waitFor({ state: 'detached' });

      await page.goto('/system/employee');
      await page.getByTestId('employee-table').locator('tr[data-row-key]').first().waitFor();
      await page.getByTestId('dept-tree').locator('[data-testid^="dept-node-"]').first().waitFor();
      await screenshot(page, `${prefix}-employees`);

      await page.getByTestId('employee-add').click();
      await page.getByTestId('employee-dialog').waitFor();
      await screenshot(page, `${prefix}-employee-dialog`);
      await context.close();
    },
    120_000,
  );
});
