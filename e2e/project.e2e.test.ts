/**
 * Issue 17 item 1 in the browser: the administrator sees the demo fleet's projects at
 * /project/list (a self-investment and a leasing one, in operation), creates a project from a
 * free demo site: the investors' ratios first do not add up to 100 % (the contract's rule says so
 * in the form, naming the sum, nothing sent), then do; the site's meter (listed unticked, no CT/PT)
 * is ticked as a storage meter and gets CT 40; a click on the offline map where there is no site
 * fills longitude/latitude (west and north of a second click lower right, inside China) and
 * draws the pin there, and the project is saved with them. Saved, the
 * detail page opens with the bound site (its live figures from the server), the meter and the
 * history; the status goes to "under construction" (asked first), the tag and the history follow.
 * Then list, form and detail in zh and en at 1440 and 390 px (no horizontal overflow; pictures in
 * .tmp/screenshots, looked at, not compared).
 */
import { endpoints, type Page as ListPage, type ProjectDetail, type ProjectRow } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  chooseOption,
  DESKTOP,
  MOBILE,
  openSignedIn,
  recordCalls,
  screenshot,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const NAME = 'E2E 园区储能项目';

let browser: Browser;
let session: ApiSession;
let projectId = 0;

const call = <T>(path: string, body: object) =>
  api<T>(
    path,
    { userInfo: { userId: session.userId, companyId: session.companyId }, ...body },
    { token: session.token },
  );

async function projects(name?: string): Promise<ProjectRow[]> {
  const res = await call<ListPage<ProjectRow>>(endpoints.project.pageList.path, {
    pageNum: 1,
    pageSize: 50,
    ...(name ? { name } : {}),
  });
  expect(res.code, res.msg).toBe(0);
  return res.data.list;
}

/** The input of an antd field whose test id sits on the input or on its wrapper. */
function input(page: Page, testId: string) {
  return page.locator(`input[data-testid="${testId}"], [data-testid="${testId}"] input`).first();
}

/** Nothing wider than the window. */
async function noOverflow(page: Page, name: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect.soft(scrollWidth, `${name}: wider than the window`).toBeLessThanOrEqual(innerWidth);
}

/**
 * Clicks the form's map twice where there is no site (40 % / 40 % of the canvas, then 60 % / 60 %)
 * and checks what the operator sees: both fields filled each time with a position inside China,
 * the second east and south of the first, the pin drawn where the fields say. Returns the last
 * [longitude, latitude].
 */
async function pickOnMap(page: Page): Promise<[number, number]> {
  const map = page.getByTestId('project-form-map');
  await map.locator('[data-ready="true"]').waitFor();
  const canvas = map.locator('canvas');
  const box = await canvas.boundingBox();
  expect(box, 'the map has a size').not.toBeNull();
  const fields = async (): Promise<[number, number]> => [
    Number(await input(page, 'project-form-longitude').inputValue()),
    Number(await input(page, 'project-form-latitude').inputValue()),
  ];
  const picks: [number, number][] = [];
  for (const f of [0.4, 0.6]) {
    const before = await input(page, 'project-form-longitude').inputValue();
    await canvas.click({ position: { x: box!.width * f, y: box!.height * f } });
    await expect.poll(() => input(page, 'project-form-longitude').inputValue()).not.toBe(before);
    const [lon, lat] = await fields();
    // Mainland China spans about 73–135 °E and 18–54 °N.
    expect(lon).toBeGreaterThan(73);
    expect(lon).toBeLessThan(135);
    expect(lat).toBeGreaterThan(18);
    expect(lat).toBeLessThan(54);
    await expect.poll(() => map.locator('[data-picked]').getAttribute('data-picked')).toBe(`${lon},${lat}`);
    picks.push([lon, lat]);
  }
  const [first, second] = picks as [[number, number], [number, number]];
  expect(second[0], 'lower right is further east').toBeGreaterThan(first[0]);
  expect(second[1], 'lower right is further south').toBeLessThan(first[1]);
  return second;
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
});

afterAll(async () => {
  await browser?.close();
});

describe('projects', () => {
  it('lists the demo projects, creates one from a demo site, opens it and changes its status', async () => {
    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: 'Asia/Shanghai' });
    onTestFailed(() => screenshot(page, 'project-zh-flow-failed'));
    await openSignedIn(page, '/project/list', { lang: 'zh' });
    // The demo fleet's projects: one self-investment, one leasing, both in operation.
    const demo = (await projects()).filter((p) => p.name.endsWith('（演示）'));
    expect(demo.map((p) => p.incomeMode).sort()).toEqual(['leasing', 'self_investment']);
    for (const p of demo) {
      const tag = page.getByTestId(`project-status-${p.id}`);
      await expect.poll(() => tag.getAttribute('data-status')).toBe('in_operation');
      expect(await tag.innerText()).toBe('运行中');
      expect(await page.getByTestId(`project-sites-${p.id}`).innerText()).toBe('1');
    }
    await screenshot(page, 'project-list-zh-desktop');

    const saves = recordCalls(page, endpoints.project.save.path);
    await page.getByTestId('project-add').click();
    await page.getByTestId('project-form').waitFor();
    await input(page, 'project-form-name').fill(NAME);
    await input(page, 'project-form-address').fill('上海市浦东新区');
    const picked = await pickOnMap(page);
    await input(page, 'project-form-owner-share').fill('30');
    await chooseOption(page, 'project-investor-0', /投资/);
    await input(page, 'project-ratio-0').fill('60');
    // A free demo site (the demo projects hold the C&I ones); its meters appear below, not
    // declared as storage meters (no CT/PT) until ticked.
    await chooseOption(page, 'project-form-sites', /./, { multiple: true });
    await input(page, 'project-form-address').click();
    const storage = page.locator('[data-testid^="project-meter-storage-"]').first();
    await storage.waitFor();
    expect(await storage.isChecked()).toBe(false);
    expect(await page.locator('input[data-testid^="project-meter-ct-"]').count()).toBe(0);
    expect(await page.getByTestId('project-meter-hint').innerText()).toContain('不是储能计量表');
    await storage.check();
    const ct = page.locator('input[data-testid^="project-meter-ct-"]').first();
    await ct.waitFor();
    await ct.fill('40');
    await expect.poll(() => page.getByTestId('project-form-sum').innerText()).toBe('比例合计：90.00%');
    await page.getByTestId('project-form-submit').click();
    await expect
      .poll(() => page.getByTestId('project-form-error').innerText())
      .toBe('业主与投资方比例之和须为 100%，当前为 90.00%');
    expect(saves).toEqual([]);
    await screenshot(page, 'project-form-zh-desktop');

    await input(page, 'project-ratio-0').fill('70');
    await expect.poll(() => page.getByTestId('project-form-sum').innerText()).toBe('比例合计：100.00%');
    await page.getByTestId('project-form-submit').click();
    await page.getByTestId('project-detail').waitFor();
    expect(saves).toHaveLength(1);
    const [created] = await projects(NAME);
    expect(created).toMatchObject({ status: 'to_be_started', incomeMode: 'self_investment', siteCount: 1 });
    projectId = created!.id;
    expect(page.url()).toContain(`/project/detail?id=${projectId}`);
    const detail = await call<ProjectDetail>(endpoints.project.detail.path, { id: projectId });
    const [bound] = detail.data.sites;
    expect(bound).toMatchObject({ boundTo: null });
    // The picked position was saved.
    expect([detail.data.longitude, detail.data.latitude]).toEqual(picked);
    // The ticked meter is the one declared storage meter, with its CT.
    expect(detail.data.meters.map((m) => [m.ctRatio, m.ptRatio])).toEqual([[40, 1]]);
    // The bound site with the server's live figures; the meter with its CT.
    await expect
      .poll(() => page.getByTestId(`project-site-${bound!.siteId}`).innerText())
      .toBe(bound!.siteName);
    expect(await page.getByTestId('project-sites').innerText()).toContain('今日放电');
    expect(await page.getByTestId('project-meters').innerText()).toContain('40');
    expect(await page.getByTestId('project-detail-name').innerText()).toBe(NAME);
    await expect.poll(() => page.getByTestId('project-history-item').count()).toBe(2);

    // Status: to be started → under construction, asked first.
    await page.getByTestId('project-to-under_construction').click();
    await page.getByTestId('project-to-ok-under_construction').click();
    const tag = page.getByTestId('project-detail-status');
    await expect.poll(() => tag.getAttribute('data-status')).toBe('under_construction');
    expect(await tag.innerText()).toBe('建设中');
    await expect
      .poll(() => page.getByTestId('project-history-item').first().getAttribute('data-action'))
      .toBe('status');
    expect(await page.getByTestId('project-history-item').first().innerText()).toContain('待启动 → 建设中');
    // In operation comes next; ended stays possible, "to be started" does not come back.
    expect(await page.getByTestId('project-to-in_operation').count()).toBe(1);
    expect(await page.getByTestId('project-to-to_be_started').count()).toBe(0);
    await screenshot(page, 'project-detail-zh-desktop');
    await context.close();
  });

  for (const lang of ['zh', 'en'] as const) {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', MOBILE],
    ] as const) {
      it(`list, form and detail in ${lang} at ${viewport.width} px`, async () => {
        expect(projectId, 'the flow test created the project').toBeGreaterThan(0);
        const { page, context } = await newPage(browser, viewport, { timezoneId: 'Asia/Shanghai' });
        onTestFailed(() => screenshot(page, `project-${lang}-${size}-failed`));
        await openSignedIn(page, '/project/list', { lang });
        await page.getByTestId(`project-status-${projectId}`).waitFor();
        await noOverflow(page, `list ${lang} ${size}`);
        await screenshot(page, `project-list-${lang}-${size}`);
        await page.getByTestId(`project-edit-${projectId}`).click();
        await page.getByTestId('project-form').waitFor();
        await expect.poll(() => input(page, 'project-form-name').inputValue()).toBe(NAME);
        await screenshot(page, `project-form-${lang}-${size}`);
        // Editing: the declared meter is ticked with its CT; the hint says what is not one.
        const storage = page.locator('[data-testid^="project-meter-storage-"]').first();
        await storage.scrollIntoViewIfNeeded();
        expect(await storage.isChecked()).toBe(true);
        expect(await page.locator('input[data-testid^="project-meter-ct-"]').first().inputValue()).toBe('40');
        await screenshot(page, `project-form-meters-${lang}-${size}`);
        await page.keyboard.press('Escape');
        await page.getByTestId('project-form').waitFor({ state: 'detached' });
        await page.getByTestId(`project-name-${projectId}`).click();
        await page.getByTestId('project-detail').waitFor();
        await page.getByTestId('project-history-item').first().waitFor();
        const status = await page.getByTestId('project-detail-status').innerText();
        expect(status).toBe(lang === 'zh' ? '建设中' : 'Under construction');
        await noOverflow(page, `detail ${lang} ${size}`);
        await screenshot(page, `project-detail-${lang}-${size}`);
        await page.getByTestId('project-sites').scrollIntoViewIfNeeded();
        await screenshot(page, `project-detail-sites-${lang}-${size}`);
        await context.close();
      });
    }
  }
});
