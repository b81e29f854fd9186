/**
 * Issue 17 meter swap in the browser: a project over a site of its own declaring the site's meter a
 * storage meter (CT 40, secondary side; made through the API) — in its detail the administrator
 * opens "更换电表" on the meter, sees the site's zone next to the time field, records a swap two
 * hours ago (site-local) with the old meter's final readings (above anything the simulated meter
 * has counted), the new meter's initial ones, CT 50 and the serials, and sees it listed with both
 * serials, the new CT and a delete button; the server holds the swap and the meter's new CT. A
 * swap in the future is refused in the form with the server's text (7004), nothing written.
 */
import { endpoints, localDateTimeText, type ProjectDetail, type ProjectSiteOption } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
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
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

let browser: Browser;
let session: ApiSession;
/** The project and meter of the first test, for the screenshot walk. */
let recorded: { projectId: number; meterId: number; siteId: number } | undefined;

const call = <T>(path: string, body: object) =>
  api<T>(
    path,
    { userInfo: { userId: session.userId, companyId: session.companyId }, ...body },
    { token: session.token },
  );

/** The input of an antd field whose test id sits on the input or on its wrapper. */
function input(page: Page, testId: string) {
  return page.locator(`input[data-testid="${testId}"], [data-testid="${testId}"] input`).first();
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
});

afterAll(async () => {
  await browser?.close();
});

describe('meter swap', () => {
  it('records a swap of a storage meter from the project detail and lists it', async () => {
    // A site of its own with a gateway and a meter, registered through the API: the e2e files
    // share one server, and the others bind the free demo sites in an order this file cannot know.
    const code = `E2E-SWAP-${Date.now().toString(36).toUpperCase()}`;
    const site = await call(endpoints.site.save.path, {
      code,
      name: 'E2E 换表站',
      companyId: session.companyId,
    });
    expect(site.code, site.msg).toBe(0);
    const siteId = (await call<ProjectSiteOption[]>(endpoints.project.siteOptions.path, {})).data.find(
      (s) => s.code === code,
    )?.id;
    expect(siteId, 'the registered site is offered to projects').toBeDefined();
    const ems = await call<{ id: number }>(endpoints.device.save.path, {
      siteId,
      sn: `${code}-EMS`,
      type: 'ems',
    });
    expect(ems.code, ems.msg).toBe(0);
    const meterDevice = await call<{ id: number }>(endpoints.device.save.path, {
      siteId,
      sn: `${code}-MTR`,
      type: 'meter',
      gatewayId: ems.data.id,
    });
    expect(meterDevice.code, meterDevice.msg).toBe(0);
    const options = await call<ProjectSiteOption[]>(endpoints.project.siteOptions.path, {});
    const free = options.data.find((s) => s.code === code && s.meters.length > 0);
    expect(free, 'the registered site with its meter').toBeDefined();
    const meterId = free!.meters[0]!.deviceId;
    const meterSn = `${code}-MTR`;
    const investors = (
      await call<{ list: { id: number; type: string }[] }>(endpoints.company.options.path, {})
    ).data.list.filter((c) => c.type === 'investor');
    const saved = await call<{ id: number }>(endpoints.project.save.path, {
      name: 'E2E 换表项目',
      contractStart: '2026-01-01',
      contractYears: 10,
      incomeMode: 'self_investment',
      ownerSharePct: 50,
      investors: [{ companyId: investors[0]!.id, ratioPct: 50 }],
      siteIds: [free!.id],
      meters: [{ deviceId: meterId, ctRatio: 40, ptRatio: 1, readsSecondary: true }],
    });
    expect(saved.code, saved.msg).toBe(0);
    const id = saved.data.id;

    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: 'Asia/Shanghai' });
    onTestFailed(() => screenshot(page, 'meter-swap-failed'));
    await openSignedIn(page, `/project/detail?id=${id}`, { lang: 'zh' });
    await page.getByTestId(`project-meter-swap-${meterId}`).click();
    await page.getByTestId('meter-swap-form').waitFor();
    expect(await page.getByTestId('meter-swap-form').innerText()).toContain(free!.timezone);

    // In the future: the server's refusal in place, nothing written.
    await input(page, 'meter-swap-time').fill('2099-01-01 08:00');
    await input(page, 'meter-swap-old-import').fill('99999999');
    await input(page, 'meter-swap-old-export').fill('99999999');
    await input(page, 'meter-swap-new-import').fill('0');
    await input(page, 'meter-swap-new-export').fill('0');
    await input(page, 'meter-swap-old-serial').fill('OLD-E2E-1');
    await input(page, 'meter-swap-new-serial').fill('NEW-E2E-2');
    await page.getByTestId('meter-swap-ok').click();
    await expect
      .poll(() => page.getByTestId('meter-swap-error').innerText())
      .toBe('换表时间不能晚于当前时间');

    // Two hours ago at the site.
    const at = localDateTimeText(Date.now() - 2 * 3_600_000, free!.timezone).slice(0, 16);
    await input(page, 'meter-swap-time').fill(at);
    await page.locator('.ant-modal input.ant-input-number-input').nth(4).fill('50');
    await page.getByTestId('meter-swap-ok').click();
    const item = page.getByTestId('meter-swap-item').first();
    await item.waitFor();
    const text = await item.innerText();
    expect(text).toContain(at);
    expect(text).toContain('OLD-E2E-1');
    expect(text).toContain('NEW-E2E-2');
    expect(text).toContain('CT 50');
    expect(await page.getByTestId('meter-swap-item').count()).toBe(1);
    expect(await page.locator('[data-testid^="meter-swap-delete-"]').count()).toBe(1);
    await screenshot(page, 'project-meter-swap-zh-desktop');
    // The history words the swap (was the raw JSON of the entry).
    const logged = page.locator('[data-testid="project-history-item"][data-action="meter_swap"]');
    await expect
      .poll(() => logged.innerText())
      .toContain(
        `${meterSn} · ${at} ${free!.timezone}：旧表 OLD-E2E-1（正向 99999999 / 反向 99999999 kWh，CT 40 · PT 1，二次侧） → 新表 NEW-E2E-2（正向 0 / 反向 0 kWh，CT 50 · PT 1，二次侧）`,
      );
    expect(await logged.innerText()).not.toContain('{');

    const detail = await call<ProjectDetail>(endpoints.project.detail.path, { id });
    const [meter] = detail.data.meters;
    expect(meter).toMatchObject({ ctRatio: 50 });
    expect(meter!.swaps.map((s) => [s.swappedAt, s.oldCtRatio, s.newSerial])).toEqual([
      [at, 40, 'NEW-E2E-2'],
    ]);
    recorded = { projectId: id, meterId, siteId: free!.id };
    await context.close();
  });

  it('site monitoring tags the declared storage meter (it is not the site’s grid meter)', async () => {
    expect(recorded, 'the first test declared the meter').toBeDefined();
    const { meterId, siteId } = recorded!;
    const { page, context } = await newPage(browser, DESKTOP);
    onTestFailed(() => screenshot(page, 'storage-meter-tag-failed'));
    // The detail the operator drilled into (kept for the tab in session storage).
    await context.addInitScript((id) => sessionStorage.setItem('ess.zdjkshow.site', String(id)), siteId);
    await openSignedIn(page, '/zdjkshow', { lang: 'zh' });
    const tag = page.getByTestId(`panel-meter-${meterId}`).getByTestId(`storage-meter-${meterId}`);
    await tag.waitFor({ timeout: 30_000 });
    expect(await tag.innerText()).toBe('储能计量表');
    if (SCREENSHOTS_ON) {
      await tag.scrollIntoViewIfNeeded();
      await screenshot(page, 'site-monitor-storage-meter-zh-1440');
    }
    await context.close();
  });

  it.runIf(SCREENSHOTS_ON)('the swap list and dialog in zh and en at 1440 and 390 px', async () => {
    expect(recorded, 'the first test recorded a swap').toBeDefined();
    const { projectId, meterId } = recorded!;
    for (const lang of ['zh', 'en'] as const) {
      for (const [size, viewport] of [
        ['1440', DESKTOP],
        ['390', MOBILE],
      ] as const) {
        const { page, context } = await newPage(browser, viewport, { timezoneId: 'Asia/Shanghai' });
        await openSignedIn(page, `/project/detail?id=${projectId}`, { lang });
        await page.getByTestId('meter-swap-item').first().waitFor();
        await page.getByTestId('meter-swap-item').first().scrollIntoViewIfNeeded();
        await screenshot(page, `project-meter-swap-list-${lang}-${size}`);
        await page.getByTestId(`project-meter-swap-${meterId}`).click();
        await page.getByTestId('meter-swap-form').waitFor();
        await screenshot(page, `project-meter-swap-dialog-${lang}-${size}`);
        await context.close();
      }
    }
  });
});
