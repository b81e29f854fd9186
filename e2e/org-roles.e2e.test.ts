/**
 * Roles, rights and the operation log in the browser: an administrator copies a role
 * and the copy has the same rights; an employee whose role lacks the role buttons sees the role
 * list without them; the operation log shows the copy with its action and operator; saving a
 * role changed meanwhile (5035) reloads it; a page added in menu management shows in the
 * sidebar until deleted. Last, screenshots of the role, menu and log screens (zh / en, 1440
 * and 390 px).
 *
 * The tests run in order: the log test looks for the copy made by the first one.
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
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** Unique per run: the server is shared by every e2e file. */
const STAMP = Date.now().toString(36).slice(-6);

interface RoleRow {
  id: number;
  name: string;
  code: string;
}

/** A call as the admin that must succeed; answers its data. */
async function adminCall<T>(admin: ApiSession, path: string, body: object): Promise<T> {
  const answer = await api<T>(
    path,
    { userInfo: { userId: admin.userId, companyId: admin.companyId }, ...body },
    { token: admin.token },
  );
  expect(answer.code, `${path}: ${answer.msg}`).toBe(0);
  return answer.data;
}

/** The role with this exact code, through the API. */
async function roleByCode(admin: ApiSession, code: string): Promise<RoleRow | undefined> {
  const page = await adminCall<{ list: RoleRow[] }>(admin, endpoints.role.pageList.path, {
    pageNum: 1,
    pageSize: 20,
    keyword: code,
  });
  return page.list.find((r) => r.code === code);
}

async function menuIdsOf(admin: ApiSession, id: number): Promise<number[]> {
  const detail = await adminCall<{ menuIds: number[] }>(admin, endpoints.role.detail.path, { id });
  return [...detail.menuIds].sort((a, b) => a - b);
}

/** Search the role table for `keyword` and wait for the row of `code`. */
async function findRoleRow(page: Page, keyword: string, code: string) {
  await page.getByTestId('role-search').locator('input').fill(keyword);
  await page.getByTestId('role-search').locator('input').press('Enter');
  const row = page.getByTestId('role-table').locator('tr[data-row-key]').filter({ hasText: code });
  await row.waitFor();
  return row;
}

describe('roles, rights and the operation log', () => {
  let browser: Browser;
  let admin: ApiSession;
  let copy: RoleRow | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    admin = await apiSignIn(ADMIN.account, ADMIN.password);
  });
  afterAll(async () => browser?.close());

  it('an administrator copies a role and the copy holds the same rights', async () => {
    const source = await adminCall<{ id: number }>(admin, endpoints.role.save.path, {
      name: `E2E 源角色 ${STAMP}`,
      code: `e2e_src_${STAMP}`,
      menuIds: [120, 121],
    });

    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/role');
    await findRoleRow(page, `e2e_src_${STAMP}`, `e2e_src_${STAMP}`);
    await page.getByTestId(`role-copy-${source.id}`).click();
    const dialog = page.getByTestId('role-copy-dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('role-copy-name').inputValue()).toBe(`E2E 源角色 ${STAMP}-副本`);
    await page.getByTestId('role-copy-name').fill(`E2E 副本 ${STAMP}`);
    await page.getByTestId('role-copy-code').fill(`e2e_copy_${STAMP}`);
    await page.getByTestId('role-copy-submit').click();
    await dialog.waitFor({ state: 'hidden' });

    const row = await findRoleRow(page, STAMP, `e2e_copy_${STAMP}`);
    expect(await row.innerText()).toContain(`E2E 副本 ${STAMP}`);

    copy = await roleByCode(admin, `e2e_copy_${STAMP}`);
    expect(copy).toBeDefined();
    expect(await menuIdsOf(admin, copy!.id)).toEqual(await menuIdsOf(admin, source.id));
    expect(await menuIdsOf(admin, copy!.id)).toEqual([120, 121]);
    await context.close();
  });

  it('an employee whose role lacks the role buttons sees the list without them', async () => {
    const role = await adminCall<{ id: number }>(admin, endpoints.role.save.path, {
      name: `E2E 只读角色 ${STAMP}`,
      code: `e2e_ro_${STAMP}`,
      menuIds: [130],
    });
    const account = `e2e-ro-${STAMP}`;
    const first = 'first-pass-1';
    const password = 'second-pass-2';
    await adminCall(admin, endpoints.employee.save.path, {
      account,
      password: sha256Hex(first),
      name: `只读员工 ${STAMP}`,
      roleIds: [role.id],
    });
    // A new account must change the password set by the administrator first.
    const own = await apiSignIn(account, first);
    const changed = await api(
      '/api-bms/employee/updatePassword',
      {
        userInfo: { userId: own.userId, companyId: own.companyId },
        oldPassword: sha256Hex(first),
        newPassword: sha256Hex(password),
        confirmPassword: sha256Hex(password),
      },
      { token: own.token },
    );
    expect(changed.code, changed.msg).toBe(0);

    const { context, page } = await newPage(browser);
    await signIn(page, { account, password });
    await page.goto('/system/role');
    const table = page.getByTestId('role-table');
    await table.locator('tr[data-row-key]').first().waitFor();
    await findRoleRow(page, `e2e_ro_${STAMP}`, `e2e_ro_${STAMP}`);
    expect(await table.locator('tr[data-row-key]').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('role-add').count()).toBe(0);
    expect(await page.locator('[data-testid^="role-copy-"]').count()).toBe(0);
    expect(await page.locator('[data-testid^="role-delete-"]').count()).toBe(0);
    expect(await page.locator('[data-testid^="role-edit-"]').count()).toBe(0);
    await context.close();
  });

  it('the operation log lists the copy with its action and operator', async () => {
    expect(copy).toBeDefined();
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/log');
    await page.getByTestId('oplog-filter-action').click();
    await page.getByTestId('oplog-filter-action').locator('input').fill('复制角色');
    await page.locator('.ant-select-item-option').filter({ hasText: '复制角色' }).click();
    const row = page
      .getByTestId('oplog-table')
      .locator('tr[data-row-key]')
      .filter({ hasText: `#${copy!.id}` });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('复制角色');
    expect(text).toContain(ADMIN.account);
    expect(text).toContain('成功');

    const id = await row.getAttribute('data-row-key');
    await page.getByTestId(`oplog-detail-${id}`).click();
    await page.getByTestId('oplog-drawer').waitFor();
    expect(await page.getByTestId('oplog-after').innerText()).toContain(`e2e_copy_${STAMP}`);
    await context.close();
  });

  it('saving a role someone else changed meanwhile reloads it, and the next save goes through', async () => {
    const name = `E2E 并发 ${STAMP}`;
    const code = `e2e_lock_${STAMP}`;
    const role = await adminCall<{ id: number }>(admin, endpoints.role.save.path, {
      name,
      code,
      menuIds: [130],
    });

    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/role');
    await findRoleRow(page, code, code);
    await page.getByTestId(`role-edit-${role.id}`).click();
    await expect.poll(() => page.getByTestId('role-name').inputValue(), { timeout: 15_000 }).toBe(name);

    const read = await adminCall<Record<string, unknown>>(admin, endpoints.role.detail.path, { id: role.id });
    await adminCall(admin, endpoints.role.update.path, { ...read, name: `${name} 改`, companyId: undefined });

    await page.getByTestId('role-remark').fill('备注');
    await page.getByTestId('role-submit').click();
    await page.getByTestId('role-reloaded').waitFor();
    await expect
      .poll(() => page.getByTestId('role-name').inputValue(), { timeout: 15_000 })
      .toBe(`${name} 改`);
    await page.getByTestId('role-remark').fill('备注');
    await page.getByTestId('role-submit').click();
    await page.getByTestId('role-dialog').waitFor({ state: 'detached' });

    const saved = await adminCall<{ name: string; remark: string | null }>(
      admin,
      endpoints.role.detail.path,
      {
        id: role.id,
      },
    );
    expect(saved).toMatchObject({ name: `${name} 改`, remark: '备注' });
    await context.close();
  });

  it('a page added in menu management appears in the sidebar and goes again when deleted', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/menu');
    await page.getByTestId('menu-add-child-100').click();
    await page.getByTestId('menu-dialog').waitFor();
    await page.getByTestId('menu-title-zh').fill(`测试页 ${STAMP}`);
    await page.getByTestId('menu-title-en').fill(`Test page ${STAMP}`);
    await page.getByTestId('menu-path').fill(`e2e${STAMP}`);
    await page.getByTestId('menu-component').fill('system/e2e/index');
    await page.getByTestId('menu-submit').click();
    await page.getByTestId('menu-dialog').waitFor({ state: 'detached' });
    const item = page.getByTestId('sidebar').getByTestId(`menu-/system/e2e${STAMP}`);
    await item.waitFor();

    const row = page
      .getByTestId('menu-list')
      .locator('tr[data-row-key]')
      .filter({ hasText: `测试页 ${STAMP}` });
    const id = await row.getAttribute('data-row-key');
    expect(Number(id)).toBeGreaterThanOrEqual(10_000);
    await page.getByTestId(`menu-delete-${id}`).click();
    // antd spaces two-character Chinese button texts ('删 除'): find the confirm by its kind.
    await page.locator('.ant-popconfirm .ant-btn-dangerous').click();
    await row.waitFor({ state: 'detached' });
    await item.waitFor({ state: 'detached' });
    await context.close();
  });

  it.runIf(SCREENSHOTS_ON).each([
    ['zh', 'desktop'],
    ['zh', 'mobile'],
    ['en', 'desktop'],
    ['en', 'mobile'],
  ] as const)(
    'screenshots %s %s',
    async (lang, size) => {
      const { context, page } = await newPage(browser, size === 'desktop' ? DESKTOP : MOBILE);
      const prefix = `${lang}-${size}`;
      await openSignedIn(page, '/system/role', { lang });
      await findRoleRow(page, STAMP, `e2e_copy_${STAMP}`);
      await page.getByTestId('role-search').locator('input').fill('');
      await page.getByTestId('role-search').locator('input').press('Enter');
      await page.getByTestId('role-table').locator('tr[data-row-key]').nth(2).waitFor();
      await screenshot(page, `${prefix}-roles`);

      await page.getByTestId(`role-edit-${copy!.id}`).click();
      await page.getByTestId('role-menu-121').waitFor();
      await screenshot(page, `${prefix}-role-dialog`);
      await page.keyboard.press('Escape');
      await page.getByTestId('role-dialog').waitFor({ state: 'detached' });

      await page.getByTestId(`role-copy-${copy!.id}`).click();
      await page.getByTestId('role-copy-dialog').waitFor();
      await screenshot(page, `${prefix}-role-copy`);
      await page.keyboard.press('Escape');
      await page.getByTestId('role-copy-dialog').waitFor({ state: 'detached' });

      await page.goto('/system/menu');
      await page.getByTestId('menu-list').locator('tr[data-row-key="130"]').waitFor();
      await screenshot(page, `${prefix}-menus`);
      await page.getByTestId('menu-add-child-130').click();
      await page.getByTestId('menu-perms').waitFor();
      await screenshot(page, `${prefix}-menu-dialog-button`);
      await page.keyboard.press('Escape');
      await page.getByTestId('menu-dialog').waitFor({ state: 'detached' });
      await page.getByTestId('menu-edit-130').click();
      await page.getByTestId('menu-component').waitFor();
      await screenshot(page, `${prefix}-menu-dialog-page`);
      await page.keyboard.press('Escape');
      await page.getByTestId('menu-dialog').waitFor({ state: 'detached' });

      await page.goto('/system/log');
      const first = page.getByTestId('oplog-table').locator('tr[data-row-key]').first();
      await first.waitFor();
      await screenshot(page, `${prefix}-oplog`);
      const copyRow = page
        .getByTestId('oplog-table')
        .locator('tr[data-row-key]')
        .filter({ hasText: `#${copy!.id}` })
        .first();
      await page.getByTestId(`oplog-detail-${await copyRow.getAttribute('data-row-key')}`).click();
      await page.getByTestId('oplog-drawer').waitFor();
      await screenshot(page, `${prefix}-oplog-detail`);
      await context.close();
    },
    120_000,
  );
});
