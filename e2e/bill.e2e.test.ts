/**
 * Issue 17 item 5 in the browser: an operator checks, settles, exports and prints a monthly bill
 * at /project/bill. The demo fleet comes with projects in operation (demo-projects.ts) whose past
 * is written and priced per ToU period at start (here 2 days of it: global-setup's
 * DEMO_HISTORY_DAYS), after which the demo drafts last month's bills of projects with a site bound
 * in it. The test bills the month holding the demo's written past ("draft now" through the API
 * until the stored periods are in: on the 1st or 2nd of a month that is last month, otherwise the
 * month so far), the running month (the same one except on the 1st or 2nd) and last month (ended;
 * the demo projects have no site bound in it, so a project over a free demo site bound from its
 * first day — `endedMonthBill`), then in the browser (Asia/Shanghai):
 *  - the list shows the draft; its detail shows the lines, and a line's expanded periods show
 *    (end − start register) × multiplier = kWh with the registers of the stored periods — the test
 *    re-adds them itself and compares with the line's kWh and the check tag ("一致"); the detail
 *    names the drafter (the signed-in employee, not "employee N") and the demand line of the demo's
 *    max-demand tariff shows the month's maximum demand without and with storage (kW) and the change;
 *  - the running month's draft is marked 本月至今 and cannot be settled yet: the settle button is
 *    disabled with its reason (账单月份尚未结束…) in the list and the detail, and the API answers 7064;
 *  - last month's bill (ended) is settled (确认结算): the state becomes 已结算; a second settle from
 *    a page that still shows the draft is refused with the zh text "电费已结算" (7060), and the API
 *    answers 7060 too;
 *  - export xlsx of that bill: the download arrives, named bill-<project>-<month>-v1.xlsx, and holds
 *    the project's name;
 *  - its print page opens in a tab of its own: A4 sheet, net benefit as on the detail, a
 *    signature line per party plus the operator;
 *  - "draft now" of a month in which no site was bound to the project shows the refusal
 *    该月项目没有绑定站点，无法生成账单 (7065) and drafts nothing;
 *  - pictures zh/en at 1440 and 390 px (list, detail, print page) in .tmp/screenshots, looked at;
 *    no horizontal overflow of the list at 390 px.
 */
import {
  type BillDetail,
  ErrorCode,
  endpoints,
  errorMessage,
  type Page as ListPage,
  localTimeOf,
  type ProjectDetail,
  type ProjectRow,
  type ProjectSiteOption,
  previousMonth,
} from '@ess/contract';
import ExcelJS from 'exceljs';
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
  screenshot,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const ZONE = 'Asia/Shanghai';
/** The demo's past and its ToU periods are written in the background after the server answers. */
const DATA_WAIT_MS = 180_000;

let browser: Browser;
let session: ApiSession;
let target: ProjectRow;
/** The month holding the demo's written past, and its bill (lines checked, pictures). */
let month = '';
let bill: BillDetail;
/** The month holding today: a month-to-date draft (`bill` when it is the same month). */
let running: BillDetail;
/** Last month (ended): settled, exported and printed. */
let ended: BillDetail;
/** The project of `ended`: the target itself when its written past is in last month. */
let endedProject: { id: number; name: string };

const call = <T>(path: string, body: object, lang: 'zh-CN' | 'en-US' = 'zh-CN') =>
  api<T>(
    path,
    { userInfo: { userId: session.userId, companyId: session.companyId }, ...body },
    { token: session.token, lang },
  );

/** zh-CN numbers as the console shows kWh and registers (≤ 3 decimals, grouped). */
const kwhText = (v: number) => new Intl.NumberFormat('zh-CN', { maximumFractionDigits: 3 }).format(v);
const cnyText = (v: number) =>
  new Intl.NumberFormat('zh-CN', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v);

/** Nothing wider than the window (the list's phone rows wrap). */
async function noOverflow(page: Page, name: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect.soft(scrollWidth, `${name}: wider than the window`).toBeLessThanOrEqual(innerWidth);
}

/** Opens /project/bill filtered to a project (default the target), showing bill `id` (default the written past's). */
async function openList(
  page: Page,
  lang: 'zh' | 'en',
  id = bill.id,
  projectName = target.name,
): Promise<void> {
  await openSignedIn(page, '/project/bill', { lang });
  await page.getByTestId('bill-page').waitFor();
  await chooseOption(page, 'bill-filter-project', projectName);
  await page.getByTestId(`bill-state-${id}`).waitFor();
}

/** Drafts (or re-drafts) the target's `m` through the API and reads it back. */
async function draftDetail(m: string): Promise<BillDetail> {
  const drafted = await call<{ id: number }>(endpoints.bill.draft.path, { projectId: target.id, month: m });
  expect(drafted.code, drafted.msg).toBe(0);
  const detail = await call<BillDetail>(endpoints.bill.detail.path, { id: drafted.data.id });
  expect(detail.code, detail.msg).toBe(0);
  return detail.data;
}

/**
 * A bill of the ended month `m` with a site bound in it. The demo's projects are bound from its
 * written past (2 days), so their last month has no site bound and cannot be billed (7065): a free
 * demo site gets a scheme of its own billed from `m`'s first day (a copy of the first scheme) and
 * a project (the target's investors and shares) bound from that day. Its days before the written
 * past have no stored periods, so its lines hold 0 kWh; the maintenance/premium are deducted.
 */
async function endedMonthBill(m: string): Promise<BillDetail> {
  const from = `${m}-01`;
  const options = await call<ProjectSiteOption[]>(endpoints.project.siteOptions.path, {});
  expect(options.code, options.msg).toBe(0);
  // The last free one: the project test binds the first free site of the list.
  const free = options.data.filter((o) => o.projectId === null).at(-1);
  expect(free, 'a free demo site').toBeDefined();
  const schemes = await call<ListPage<{ id: number }>>(endpoints.tou.pageList.path, {
    pageNum: 1,
    pageSize: 1,
  });
  const scheme = await call<{ document: unknown; twoPart: unknown }>(endpoints.tou.detail.path, {
    id: schemes.data.list[0]!.id,
  });
  const saved = await call<{ id: number }>(endpoints.tou.save.path, {
    companyId: free!.companyId,
    name: `E2E 上月账单电价 ${m}`,
    document: scheme.data.document,
    twoPart: scheme.data.twoPart ?? null,
  });
  expect(saved.code, saved.msg).toBe(0);
  const assigned = await call(endpoints.tou.assign.path, {
    id: saved.data.id,
    siteIds: [free!.id],
    effectiveFrom: from,
  });
  expect(assigned.code, assigned.msg).toBe(0);
  const source = (await call<ProjectDetail>(endpoints.project.detail.path, { id: target.id })).data;
  const project = await call<{ id: number }>(endpoints.project.save.path, {
    companyId: free!.companyId,
    name: `E2E 上月账单项目 ${m}`,
    contractStart: from,
    contractYears: 1,
    incomeMode: source.incomeMode,
    ownerSharePct: source.ownerSharePct,
    rentBasis: source.rentBasis,
    rentCny: source.rentCny,
    capacityKwh: source.capacityKwh,
    maintenanceCnyPerMonth: source.maintenanceCnyPerMonth,
    insuranceCnyPerMonth: source.insuranceCnyPerMonth,
    costBearer: source.costBearer,
    investors: source.investors.map((i) => ({ companyId: i.companyId, ratioPct: i.ratioPct })),
    siteIds: [free!.id],
    boundFrom: from,
  });
  expect(project.code, project.msg).toBe(0);
  endedProject = { id: project.data.id, name: `E2E 上月账单项目 ${m}` };
  const drafted = await call<{ id: number }>(endpoints.bill.draft.path, {
    projectId: project.data.id,
    month: m,
  });
  expect(drafted.code, drafted.msg).toBe(0);
  const detail = await call<BillDetail>(endpoints.bill.detail.path, { id: drafted.data.id });
  expect(detail.code, detail.msg).toBe(0);
  return detail.data;
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
  // A demo project in operation with a bound site, the self-investment one first.
  const projects = await call<ListPage<ProjectRow>>(endpoints.project.pageList.path, {
    pageNum: 1,
    pageSize: 100,
  });
  expect(projects.code, projects.msg).toBe(0);
  const demo = projects.data.list
    .filter((p) => p.status === 'in_operation' && p.siteCount > 0 && p.name.includes('演示'))
    .sort((a, b) =>
      a.incomeMode === b.incomeMode ? a.id - b.id : a.incomeMode === 'self_investment' ? -1 : 1,
    );
  expect(demo.length, 'the demo fleet has a project in operation').toBeGreaterThan(0);
  target = demo[0]!;
  // The month holding the demo's written past (yesterday, site time).
  month = localTimeOf(Date.now() - 30 * 3_600_000, ZONE).date.slice(0, 7);
  // Draft now until the stored periods are in (the demo writes and prices its past in the background).
  const deadline = Date.now() + DATA_WAIT_MS;
  for (;;) {
    bill = await draftDetail(month);
    if (bill.document.lines.some((l) => (l.periods?.length ?? 0) > 0 && l.dischargedKwh + l.chargedKwh > 0))
      break;
    if (Date.now() > deadline)
      throw new Error(`no priced periods for ${target.name} ${month} within ${DATA_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 3_000));
  }
  // The running month (a month-to-date draft) and last month (ended).
  const today = localTimeOf(Date.now(), ZONE).date;
  running = today.slice(0, 7) === month ? bill : await draftDetail(today.slice(0, 7));
  endedProject = { id: target.id, name: target.name };
  ended = previousMonth(today) === month ? bill : await endedMonthBill(previousMonth(today));
  expect(ended.state).toBe('draft');
}, DATA_WAIT_MS + 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('monthly bills', () => {
  it('a line checks against its readings (month holding the written past)', async () => {
    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: ZONE });
    onTestFailed(() => screenshot(page, 'bill-failed'));
    await openList(page, 'zh');
    expect(await page.getByTestId(`bill-state-${bill.id}`).getAttribute('data-state')).toBe('draft');
    await expect
      .poll(() => page.getByTestId(`bill-net-${bill.id}`).innerText())
      .toBe(cnyText(bill.netBenefitCny));
    await screenshot(page, 'bill-zh-1440');

    // The detail: a line re-added from its periods' registers.
    await page.getByTestId(`bill-detail-${bill.id}`).click();
    await page.getByTestId('bill-lines').waitFor();
    const index = bill.document.lines.findIndex(
      (l) => (l.periods?.length ?? 0) > 0 && l.dischargedKwh + l.chargedKwh > 0,
    );
    const line = bill.document.lines[index]!;
    const row = page.locator(`[data-testid="bill-lines"] tr[data-row-key="${index}"]`);
    await expect.poll(() => row.innerText()).toContain(kwhText(line.chargedKwh));
    expect(await row.innerText()).toContain(kwhText(line.dischargedKwh));
    expect(await row.innerText()).toContain(`×${kwhText(line.multiplier)}`);
    expect(await page.getByTestId(`bill-line-check-${index}`).getAttribute('data-agrees')).toBe('true');
    expect(await page.getByTestId(`bill-line-check-${index}`).innerText()).toBe('一致');
    // Expand it: each register period reads (end − start) × multiplier = kWh.
    await row.locator('.ant-table-row-expand-icon').click();
    const periods = page.getByTestId(`bill-periods-${index}`);
    await periods.waitFor();
    const shown = await periods.innerText();
    let charged = 0;
    let discharged = 0;
    for (const p of line.periods!) {
      charged += p.chargedKwh;
      discharged += p.dischargedKwh;
      if (p.source !== 'registers') continue;
      // the reading difference × multiplier is the period's energy (to the Wh)
      expect(
        Math.abs((p.dischargeEnd! - p.dischargeStart!) * line.multiplier - p.dischargedKwh),
      ).toBeLessThan(0.002);
      expect(Math.abs((p.chargeEnd! - p.chargeStart!) * line.multiplier - p.chargedKwh)).toBeLessThan(0.002);
    }
    const first =
      line.periods!.find((p) => p.source === 'registers' && p.dischargedKwh > 0) ?? line.periods![0]!;
    if (first.source === 'registers') {
      expect(shown).toContain(
        `(${kwhText(first.dischargeEnd!)} − ${kwhText(first.dischargeStart!)}) × ${kwhText(line.multiplier)} = ${kwhText(first.dischargedKwh)} kWh`,
      );
    }
    expect(Math.abs(charged - line.chargedKwh)).toBeLessThan(0.002);
    expect(Math.abs(discharged - line.dischargedKwh)).toBeLessThan(0.002);
    // The amount is kWh × price to the fen.
    expect(line.valueCny).toBeCloseTo(Math.round(line.dischargedKwh * line.priceCnyPerKwh * 100) / 100, 2);
    expect(await page.getByTestId('bill-total-net').innerText()).toBe(
      cnyText(bill.document.totals.netBenefitCny),
    );
    // Drafted by the signed-in employee, by name (not "employee N").
    expect(bill.createdBy).toBeTruthy();
    expect(bill.createdBy).not.toMatch(/^employee \d+$/);
    expect(await page.getByTestId('bill-drawer-drafted').innerText()).toContain(bill.createdBy!);
    // The demo's Shanghai project is on a max-demand two-part tariff (demo-projects.ts): the demand
    // line shows the month's maximum demand without and with storage, in kW, and the change.
    const demand = bill.document.demand[0]!;
    expect(demand.measuredKw).not.toBeNull();
    const demandText = await page.getByTestId('bill-demand').innerText();
    expect(demandText).toContain(`${kwhText(demand.baselineKw!)} kW`);
    expect(demandText).toContain(`${kwhText(demand.measuredKw!)} kW`);
    expect(demandText).toContain(cnyText(demand.changeCny));
    await screenshot(page, 'bill-detail-zh-1440');
    await context.close();
  });

  it('the running month is month to date: settling disabled with its reason, refused by the API (7064)', async () => {
    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: ZONE });
    onTestFailed(() => screenshot(page, 'bill-mtd-failed'));
    await openList(page, 'zh', running.id);
    expect(await page.getByTestId(`bill-mtd-${running.id}`).innerText()).toBe('本月至今');
    const listSettle = page.getByTestId(`bill-confirm-${running.id}`);
    expect(await listSettle.isDisabled(), 'settle in the list is disabled').toBe(true);
    await listSettle.hover({ force: true });
    await page
      .locator('.ant-tooltip:visible')
      .filter({ hasText: `账单月份尚未结束，${running.month} 的最后一天过后（各站点当地时间）才能结算` })
      .waitFor();
    await page.getByTestId(`bill-detail-${running.id}`).click();
    await page.getByTestId('bill-drawer-mtd').waitFor();
    const mtd = await page.getByTestId('bill-drawer-mtd').innerText();
    expect(mtd).toContain(`账单月份尚未结束，${running.month} 的最后一天过后（各站点当地时间）才能结算`);
    // The preview deducts the contract's monthly costs whole, and says so.
    expect(mtd).toContain('运维费和保险费按整月扣除');
    expect(await page.getByTestId('bill-drawer-confirm').isDisabled()).toBe(true);
    await screenshot(page, 'bill-mtd-zh-1440');
    const refused = await call(endpoints.bill.confirm.path, { id: running.id });
    expect(refused.code).toBe(ErrorCode.BILL_MONTH_NOT_ENDED);
    expect(refused.msg).toBe('账单月份尚未结束，月末后才能结算');
    const after = await call<BillDetail>(endpoints.bill.detail.path, { id: running.id });
    expect(after.data.state).toBe('draft');
    await context.close();
  });

  it('draft now of a month in which no site was bound is refused with its text (7065), nothing drafted', async () => {
    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: ZONE });
    onTestFailed(() => screenshot(page, 'bill-unbound-failed'));
    // Two months back: before the demo's binding, which starts at its written past (days ago).
    const unbound = previousMonth(`${previousMonth(localTimeOf(Date.now(), ZONE).date)}-01`);
    const [binding] = (await call<ProjectDetail>(endpoints.project.detail.path, { id: target.id })).data
      .sites;
    expect(binding!.boundFrom > `${unbound}-31`).toBe(true);
    await openList(page, 'zh');
    await page.getByTestId('bill-draft').click();
    await page.getByTestId('bill-draft-dialog').waitFor();
    await chooseOption(page, 'bill-draft-project', target.name);
    await chooseOption(page, 'bill-draft-month', unbound);
    await page.getByTestId('bill-draft-submit').click();
    await toast(page, '该月项目没有绑定站点，无法生成账单').waitFor();
    const list = await call<ListPage<{ month: string }>>(endpoints.bill.pageList.path, {
      pageNum: 1,
      pageSize: 100,
      projectId: target.id,
    });
    expect(list.data.list.map((b) => b.month)).not.toContain(unbound);
    await context.close();
  });

  it('last month (ended) settled once (a second settle: 电费已结算); exported; printed', async () => {
    const { page, context } = await newPage(browser, DESKTOP, { timezoneId: ZONE });
    onTestFailed(() => screenshot(page, 'bill-settle-failed'));
    await openList(page, 'zh', ended.id, endedProject.name);
    expect(await page.locator(`[data-testid="bill-mtd-${ended.id}"]`).count()).toBe(0);

    // A second page that still shows the draft (for the second settle below).
    const stale = await context.newPage();
    await stale.goto('/project/bill');
    await stale.getByTestId('bill-page').waitFor();
    await stale.getByTestId(`bill-confirm-${ended.id}`).waitFor();

    await page.getByTestId(`bill-detail-${ended.id}`).click();
    await page.getByTestId('bill-drawer-state').waitFor();
    expect(await page.locator('[data-testid="bill-drawer-mtd"]').count()).toBe(0);
    expect(await page.getByTestId('bill-total-net').innerText()).toBe(
      cnyText(ended.document.totals.netBenefitCny),
    );

    // Export: the download arrives and holds the bill.
    const downloading = page.waitForEvent('download');
    await page.getByTestId('bill-drawer-export').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(
      `bill-${endedProject.id}-${ended.month}-v${ended.version}.xlsx`,
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile((await download.path())!);
    const cells = workbook.worksheets[0]!.getSheetValues().flat().map(String).join('|');
    expect(cells).toContain(endedProject.name);

    // Settle.
    await page.getByTestId('bill-drawer-confirm').click();
    await page.getByTestId('bill-drawer-confirm-ok').click();
    await expect
      .poll(() => page.getByTestId('bill-drawer-state').getAttribute('data-state'))
      .toBe('confirmed');
    expect(await page.getByTestId('bill-drawer-state').innerText()).toBe('已结算');
    await expect.poll(() => page.locator('[data-testid="bill-drawer-confirm"]').count()).toBe(0);

    // A second settle from the page that still shows the draft: 电费已结算.
    await stale.getByTestId(`bill-confirm-${ended.id}`).click();
    await stale.getByTestId(`bill-confirm-ok-${ended.id}`).click();
    await toast(stale, '电费已结算').waitFor();
    await expect
      .poll(() => stale.getByTestId(`bill-state-${ended.id}`).getAttribute('data-state'))
      .toBe('confirmed');
    const again = await call(endpoints.bill.confirm.path, { id: ended.id });
    expect(again.code).toBe(ErrorCode.SETTLEMENT_ALREADY_DONE);
    expect(again.msg).toBe(errorMessage(ErrorCode.SETTLEMENT_ALREADY_DONE, 'zh'));
    expect(again.msg).toBe('电费已结算');
    await stale.close();

    // The print page in a tab of its own.
    const opening = context.waitForEvent('page');
    await page.getByTestId('bill-drawer-print').click();
    const print = await opening;
    await print.getByTestId('bill-print-sheet').waitFor();
    expect(await print.getByTestId('bill-print-sheet').getAttribute('data-state')).toBe('confirmed');
    expect(await print.getByTestId('bill-print-net').innerText()).toBe(
      cnyText(ended.document.totals.netBenefitCny),
    );
    expect(await print.getByTestId('bill-print-sign').count()).toBe(ended.document.parties.length + 1);
    expect(await print.locator('h1').innerText()).toBe('电费结算单');
    await screenshot(print, 'bill-print-zh-1440');
    await print.emulateMedia({ media: 'print' });
    expect(await print.getByTestId('bill-print-button').isVisible()).toBe(false);
    await print.close();
    await context.close();
  });

  for (const lang of ['zh', 'en'] as const) {
    it(`pictures in ${lang} at 1440 and 390 px`, async () => {
      for (const [size, viewport] of [
        ['1440', DESKTOP],
        ['390', MOBILE],
      ] as const) {
        const { page, context } = await newPage(browser, viewport, { timezoneId: ZONE });
        onTestFailed(() => screenshot(page, `bill-${lang}-${size}-failed`));
        await openList(page, lang);
        if (size === '390') await noOverflow(page, `bill list ${lang} 390`);
        await screenshot(page, `bill-${lang}-${size}`);
        await page.getByTestId(`bill-detail-${bill.id}`).click();
        await page.getByTestId('bill-lines').waitFor();
        await screenshot(page, `bill-detail-${lang}-${size}`);
        const print = await context.newPage();
        await print.goto(`/project/bill/print?id=${bill.id}`);
        await print.getByTestId('bill-print-sheet').waitFor();
        expect(await print.locator('h1').innerText()).toBe(
          lang === 'zh' ? '电费结算单' : 'Monthly electricity bill',
        );
        await screenshot(print, `bill-print-${lang}-${size}`);
        await context.close();
      }
    });
  }
});
