/**
 * Registering sites and gateways as an operator does it (issue 14 items 1 and 2), in
 * /deviceconfig:
 * 1. The operator adds a site: it becomes the selection, "add device" names it and adds to it
 *    (not to the site selected before, a customer's demo site), and moving the gateway to
 *    another site is an explicit action that names from and to and lands in the operation log.
 * 2. The platform operator creates a site in a customer company (the site dialog's company
 *    field) and moves another of its sites there ("move to company", whose confirmation names
 *    both companies); the customer's employee, signing in, sees both.
 * Names are unique per run: the server is shared with the other e2e files. Screenshots of the
 * dialogs in zh/en at 1440 and 390 px with E2E_SCREENSHOTS=1 (.tmp/screenshots/
 * <lang>-<size>-site-*.png).
 */
import { endpoints, schemeFromTemplate, TOU_TEMPLATES } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  apiSignIn,
  chooseOption,
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

const stamp = Date.now().toString(36).slice(-5).toUpperCase();

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** The admin's API session, its user echo, and a call with it. */
async function adminApi() {
  const session = await apiSignIn('admin', 'admin123');
  const userInfo = { userId: session.userId, companyId: session.companyId };
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  const call = async (path: string, body: object): Promise<any> => {
    const answer = await api(path, { userInfo, ...body }, { token: session.token });
    if (answer.code !== 0) throw new Error(`${path} answered ${answer.code} ${answer.msg}`);
    return answer.data;
  };
  return { session, call };
}

type Call = Awaited<ReturnType<typeof adminApi>>['call'];

/** A ToU scheme of `companyId` (a template's tariff), assigned to its site `siteId`. */
async function runScheme(
  call: Call,
  companyId: number,
  name: string,
  siteId: number,
): Promise<{ id: number }> {
  const document = schemeFromTemplate(TOU_TEMPLATES[0]!, {
    year: new Date().getFullYear(),
    powerKw: 100,
    socMinPct: 10,
    socMaxPct: 90,
    lang: 'zh',
  });
  const scheme = await call(endpoints.tou.save.path, { companyId, name, document });
  await call(endpoints.tou.assign.path, { id: scheme.id, siteIds: [siteId] });
  return scheme;
}

let previousOwner: Promise<{ id: number; name: string }> | undefined;
/** A customer company that held a site before (its sites run its own ToU schemes). */
function previousCustomer(call: Call): Promise<{ id: number; name: string }> {
  const name = `E2E原客户-${stamp}`;
  previousOwner ??= call(endpoints.owner.save.path, { name }).then((r: { id: number }) => ({
    id: r.id,
    name,
  }));
  return previousOwner;
}

/** The name of the site the page shows (the header above the device table). */
const headerName = (page: Page) => page.getByTestId('site-header').locator('h2').innerText();

describe('registering a site and its gateway', () => {
  it('a new site becomes the selection, the gateway lands on it, and a move is explicit and logged', async () => {
    const { call } = await adminApi();
    const code = `REG-${stamp}`;
    const name = `登记测试站-${stamp}`;
    const sn = `EMS-REG-${stamp}`;
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/deviceconfig');
    // The demo fleet is listed and its first site selected, as an operator finds the page.
    await page.getByTestId('site-list').getByText('SHA-C001').first().waitFor();
    const before = await headerName(page);

    await page.getByTestId('site-add').click();
    await page.getByTestId('site-dialog').waitFor();
    await page.getByTestId('site-code').fill(code);
    await page.getByTestId('site-name').fill(name);
    if (SCREENSHOTS_ON) await screenshot(page, 'zh-1440-site-flow-add');
    await page.getByTestId('site-submit').click();
    await page.getByTestId('site-dialog').waitFor({ state: 'detached' });

    // The new site is the selection: the header and the list say so.
    await expect.poll(() => headerName(page)).toBe(name);
    expect(name).not.toBe(before);
    const active = page.getByTestId('site-list').locator('button[aria-pressed="true"]');
    await expect.poll(() => active.innerText()).toContain(code);
    const siteId = Number((await active.getAttribute('data-testid'))!.replace('site-item-', ''));

    // "Add device" names the site it adds to, and adds it there.
    await page.getByTestId('device-add').click();
    await page.getByTestId('device-dialog').waitFor();
    expect(await page.getByTestId('device-dialog-title').innerText()).toBe(`新增设备到“${name}”`);
    expect(await page.getByTestId('device-site').innerText()).toContain(`${name} (${code})`);
    if (SCREENSHOTS_ON) await screenshot(page, 'zh-1440-site-flow-device');
    await page.getByTestId('device-sn').fill(sn);
    await page.getByTestId('device-submit').click();
    await page.getByTestId('secret-value').waitFor();
    await page.getByTestId('secret-done').click();
    const row = page.getByTestId('device-table').locator('tr[data-row-key]', { hasText: sn });
    await row.waitFor();
    const deviceId = Number(await row.getAttribute('data-row-key'));
    const registered = await call(endpoints.device.pageList.path, { pageNum: 1, pageSize: 10, keyword: sn });
    expect(registered.list).toEqual([expect.objectContaining({ id: deviceId, siteId, siteName: name })]);

    // Moving the gateway to another site: explicit, naming from and to, then logged.
    const otherCode = `REG2-${stamp}`;
    const otherName = `登记目标站-${stamp}`;
    const other = await call(endpoints.site.save.path, { code: otherCode, name: otherName });
    await page.getByTestId(`device-move-${deviceId}`).click();
    await page.getByTestId('move-device-dialog').waitFor();
    expect(await page.getByTestId('move-device-from').innerText()).toContain(name);
    await chooseOption(page, 'move-device-site', otherCode, { search: otherCode });
    await expect
      .poll(() => page.getByTestId('move-device-confirm').innerText())
      .toContain(`将 ${sn} 从“${name}”移到“${otherName}”`);
    if (SCREENSHOTS_ON) await screenshot(page, 'zh-1440-site-flow-move-device');
    await page.getByTestId('move-device-submit').click();
    await toast(page, `已将 ${sn} 移到“${otherName}”`).waitFor();
    await expect.poll(() => row.count()).toBe(0);
    const moved = await call(endpoints.device.pageList.path, { pageNum: 1, pageSize: 10, keyword: sn });
    expect(moved.list).toEqual([expect.objectContaining({ id: deviceId, siteId: other.id })]);
    const log = await call(endpoints.log.pageList.path, {
      pageNum: 1,
      pageSize: 20,
      action: 'device.moveSite',
    });
    expect(log.list).toContainEqual(
      expect.objectContaining({ action: 'device.moveSite', targetId: String(deviceId), code: 0 }),
    );
    await context.close();
  }, 180_000);

  it('the platform operator puts sites into a customer company, whose employee then sees them', async () => {
    const { call } = await adminApi();
    const customer = `E2E客户-${stamp}`;
    const customerId = (await call(endpoints.owner.save.path, { name: customer })).id as number;
    const platformName = (
      (await call(endpoints.company.options.path, {})).list as { type: string; name: string }[]
    ).find((c) => c.type === 'platform')!.name;
    const roles = await call(endpoints.role.pageList.path, {
      pageNum: 1,
      pageSize: 50,
      companyId: customerId,
    });
    const adminRole = (roles.list as { id: number; isAdmin: boolean }[]).find((r) => r.isAdmin)!.id;
    const account = `e2e_cust_${stamp.toLowerCase()}`;
    const initial = 'start123';
    const password = 'cust4567';
    await call(endpoints.employee.save.path, {
      account,
      password: sha256Hex(initial),
      name: '客户运维',
      companyId: customerId,
      roleIds: [adminRole],
    });
    const first = await apiSignIn(account, initial);
    const changed = await api(
      endpoints.account.updatePassword.path,
      {
        userInfo: { userId: first.userId, companyId: first.companyId },
        oldPassword: sha256Hex(initial),
        newPassword: sha256Hex(password),
        confirmPassword: sha256Hex(password),
      },
      { token: first.token },
    );
    expect(changed.code, changed.msg).toBe(0);

    // A new site, created straight into the customer's company.
    const newCode = `CUST-${stamp}`;
    const newName = `客户新站-${stamp}`;
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/deviceconfig');
    await page.getByTestId('site-add').click();
    await page.getByTestId('site-dialog').waitFor();
    // The company field starts on the operator's own company.
    await page.getByTestId('site-company').getByText(platformName).waitFor();
    await chooseOption(page, 'site-company', customer, { search: customer });
    await page.getByTestId('site-code').fill(newCode);
    await page.getByTestId('site-name').fill(newName);
    await page.getByTestId('site-submit').click();
    await page.getByTestId('site-dialog').waitFor({ state: 'detached' });
    await expect.poll(() => headerName(page)).toBe(newName);
    expect(await page.getByTestId('site-header').innerText()).toContain(customer);

    // A site registered under another customer, running that customer's ToU scheme, moved to
    // this customer: the scheme is not one the new company may run, so the move takes it off.
    const previous = await previousCustomer(call);
    const movedCode = `MOVE-${stamp}`;
    const movedName = `待移交站-${stamp}`;
    const moved = await call(endpoints.site.save.path, {
      code: movedCode,
      name: movedName,
      companyId: previous.id,
    });
    const schemeName = `原客户电价-${stamp}`;
    const scheme = await runScheme(call, previous.id, schemeName, moved.id);
    await page.getByTestId('site-search').fill(movedCode);
    await page.getByTestId(`site-item-${moved.id}`).click();
    await expect.poll(() => headerName(page)).toBe(movedName);
    await page.getByTestId('site-move').click();
    await page.getByTestId('move-site-dialog').waitFor();
    await chooseOption(page, 'move-site-company', customer, { search: customer });
    await expect
      .poll(() => page.getByTestId('move-site-confirm').innerText())
      .toContain(`将站点“${movedName}”从“${previous.name}”移到“${customer}”`);
    expect(await page.getByTestId('move-site-scheme').innerText()).toContain(
      `电价方案“${schemeName}”不属于“${customer}”或其上级公司，将从站点移除`,
    );
    if (SCREENSHOTS_ON) await screenshot(page, 'zh-1440-site-flow-move-company');
    await page.getByTestId('move-site-submit').click();
    await toast(page, `站点“${movedName}”已移到“${customer}”`).waitFor();
    await expect.poll(() => page.getByTestId('site-header').innerText()).toContain(customer);
    const detail = await call(endpoints.tou.detail.path, { id: scheme.id });
    expect(detail.sites).toEqual([]);
    await context.close();

    // The customer's employee sees both sites on its own site configuration page.
    const own = await newPage(browser, DESKTOP);
    await signIn(own.page, { account, password, redirect: '/deviceconfig' });
    const list = own.page.getByTestId('site-list');
    await list.getByText(newCode).waitFor();
    await list.getByText(movedCode).waitFor();
    await own.context.close();
  }, 180_000);
});

describe.runIf(SCREENSHOTS_ON)('screenshots of site configuration with its dialogs', () => {
  for (const lang of ['zh', 'en'] as const) {
    for (const [size, viewport] of [
      ['1440', DESKTOP],
      ['390', MOBILE],
    ] as const) {
      it(`${lang} ${size} px`, async () => {
        const { context, page } = await newPage(browser, viewport);
        await openSignedIn(page, '/deviceconfig', { lang });
        const prefix = `${lang}-${size}-site`;
        await page.getByTestId('site-list').getByText('SHA-C001').first().waitFor();
        await page.getByTestId('device-table').locator('tr[data-row-key]').first().waitFor();
        await screenshot(page, `${prefix}-page`);
        await page.getByTestId('site-add').click();
        await page.getByTestId('site-dialog').waitFor();
        await screenshot(page, `${prefix}-add-dialog`);
        await page.keyboard.press('Escape');
        await page.getByTestId('site-dialog').waitFor({ state: 'detached' });
        await page.getByTestId('site-edit').click();
        await page.getByTestId('site-dialog').waitFor();
        await screenshot(page, `${prefix}-edit-dialog`);
        await page.keyboard.press('Escape');
        await page.getByTestId('site-dialog').waitFor({ state: 'detached' });
        await page.getByTestId('device-add').click();
        await page.getByTestId('device-dialog').waitFor();
        await screenshot(page, `${prefix}-device-dialog`);
        await page.keyboard.press('Escape');
        await page.getByTestId('device-dialog').waitFor({ state: 'detached' });
        const first = page.getByTestId('device-table').locator('tr[data-row-key]').first();
        const id = await first.getAttribute('data-row-key');
        await page.getByTestId(`device-edit-${id}`).click();
        await page.getByTestId('device-dialog').waitFor();
        await screenshot(page, `${prefix}-device-edit`);
        await page.keyboard.press('Escape');
        await page.getByTestId('device-dialog').waitFor({ state: 'detached' });
        await page.getByTestId(`device-move-${id}`).click();
        await page.getByTestId('move-device-dialog').waitFor();
        await page.getByTestId('move-device-site').click();
        await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click();
        await page.getByTestId('move-device-confirm').waitFor();
        await screenshot(page, `${prefix}-move-device`);
        await page.keyboard.press('Escape');
        await page.getByTestId('move-device-dialog').waitFor({ state: 'detached' });
        // A site of a previous customer running its scheme, moved to the customer created above.
        const { call } = await adminApi();
        const previous = await previousCustomer(call);
        const code = `SHOT-${lang}${size}-${stamp}`;
        const shot = await call(endpoints.site.save.path, {
          code,
          name: lang === 'zh' ? `截图站-${size}` : `Screenshot site ${size}`,
          companyId: previous.id,
        });
        await runScheme(call, previous.id, `${code}-ToU`, shot.id);
        await page.getByTestId('site-search').fill(code);
        await page.getByTestId(`site-item-${shot.id}`).click();
        await page.getByTestId('site-move').click();
        await page.getByTestId('move-site-dialog').waitFor();
        await chooseOption(page, 'move-site-company', `E2E客户-${stamp}`, { search: `E2E客户-${stamp}` });
        await page.getByTestId('move-site-scheme').waitFor();
        await screenshot(page, `${prefix}-move-company`);
        await context.close();
      }, 180_000);
    }
  }
});
