/**
 * Company invitations in the console (issue 13 item 9; docs/api.md "Adding an existing
 * account"): the administrator of an agent company adds the account of a platform employee; the
 * answer says nothing about the account, and the employee's company pick is unchanged. Signed in,
 * the employee finds a badge on the user menu and "公司邀请（1）" in it; accepting there says so,
 * the item goes, and the company is offered at the next sign-in. Screenshot of the dialog
 * (.tmp/screenshots/account-invitations-zh-1440.png) with E2E_SCREENSHOTS=1.
 * Names are unique per run: the server is shared with the other e2e files.
 */
import { endpoints } from '@ess/contract';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  chooseUserMenu,
  SCREENSHOTS_ON,
  screenshot,
  sha256Hex,
  signIn,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const STAMP = Date.now().toString(36).slice(-6);
const AGENT = `E2E邀请代理商-${STAMP}`;
const PASSWORD = 'own-pass-1';

let browser: Browser;
let agentId = 0;
let invitee = '';

/** A call that must succeed; answers its data. */
async function ok<T>(session: ApiSession, path: string, body: object): Promise<T> {
  const answer = await api<T>(path, body, { token: session.token });
  expect(answer.code, `${path}: ${answer.msg}`).toBe(0);
  return answer.data;
}

/** An employee added by `by`, who then replaces the initial password with {@link PASSWORD}. */
async function addEmployee(
  by: ApiSession,
  body: { account: string } & Record<string, unknown>,
): Promise<ApiSession> {
  await ok(by, endpoints.employee.save.path, { password: sha256Hex('initial-1'), ...body });
  const first = await apiSignIn(body.account, 'initial-1');
  await ok(first, endpoints.account.updatePassword.path, {
    oldPassword: sha256Hex('initial-1'),
    newPassword: sha256Hex(PASSWORD),
    confirmPassword: sha256Hex(PASSWORD),
  });
  return apiSignIn(body.account, PASSWORD);
}

beforeAll(async () => {
  browser = await launchBrowser();
  const admin = await apiSignIn(ADMIN.account, ADMIN.password);
  agentId = (
    await ok<{ id: number }>(admin, endpoints.agent.save.path, {
      name: AGENT,
      phone: `139${String(Date.now()).slice(-8)}`,
    })
  ).id;
  const roles = await ok<{ list: { id: number; isAdmin: boolean }[] }>(admin, endpoints.role.pageList.path, {
    companyId: agentId,
    pageSize: 50,
  });
  const agentAdmin = await addEmployee(admin, {
    account: `e2e-inviter-${STAMP}`,
    name: `邀请人 ${STAMP}`,
    companyId: agentId,
    roleIds: roles.list.filter((r) => r.isAdmin).map((r) => r.id),
  });
  // A platform employee with the employee list, unknown to the agent.
  const role = await ok<{ id: number }>(admin, endpoints.role.save.path, {
    name: `E2E 受邀角色 ${STAMP}`,
    code: `e2e_invited_${STAMP}`,
    menuIds: [120],
  });
  invitee = `e2e-invitee-${STAMP}`;
  await addEmployee(admin, { account: invitee, name: `受邀员工 ${STAMP}`, roleIds: [role.id] });

  // The agent's administrator adds that account: an answer like any other.
  const saved = await ok<Record<string, unknown>>(agentAdmin, endpoints.employee.save.path, {
    account: invitee,
    password: sha256Hex('not-used-1'),
    name: `受邀员工 ${STAMP}`,
  });
  expect(Object.keys(saved)).toEqual(['id']);
});

afterAll(async () => {
  await browser?.close();
});

/** The companies offered at sign-in to the invitee. */
async function companiesAtSignIn(): Promise<number[]> {
  const login = await api<{ companyList: { id: number }[] }>(endpoints.user.login.path, {
    account: invitee,
    password: sha256Hex(PASSWORD),
    terminalId: `e2e-${STAMP}-pick`,
  });
  expect(login.code).toBe(0);
  return login.data.companyList.map((c) => c.id);
}

describe('company invitations', () => {
  it('the invitee accepts from the user menu; the company joins the pick', async () => {
    expect(await companiesAtSignIn()).not.toContain(agentId);
    const { page, context } = await newPage(browser);
    await signIn(page, { account: invitee, password: PASSWORD });
    await page.getByTestId('user-dropdown').locator('.ant-badge-count').filter({ hasText: '1' }).waitFor();

    const dialog = page.getByTestId('invitations-dialog');
    await chooseUserMenu(page, '公司邀请（1）', dialog);
    await dialog.getByTestId(`invitation-${agentId}`).filter({ hasText: AGENT }).waitFor();
    if (SCREENSHOTS_ON) await screenshot(page, 'account-invitations-zh-1440');
    await dialog.getByTestId(`invitation-accept-${agentId}`).click();
    await toast(page, `已接受“${AGENT}”的邀请`).waitFor();
    await dialog.waitFor({ state: 'detached' });

    // The item and the badge are gone; the next sign-in offers the agent.
    await page.getByTestId('user-dropdown').click();
    await page.getByRole('menuitem', { name: '修改密码' }).waitFor();
    expect(await page.getByRole('menuitem', { name: '公司邀请' }).count()).toBe(0);
    await page.getByTestId('user-dropdown').locator('.ant-badge-count').waitFor({ state: 'hidden' });
    expect(await companiesAtSignIn()).toContain(agentId);
    await context.close();
  });
});
