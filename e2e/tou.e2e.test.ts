/**
 * ToU issue in the browser: an operator creates a scheme from the Shanghai July 2025 C&I
 * template on /timetariff, breaks a daily plan in each way the rules forbid and sees each
 * message at its field (overlap, gap, last end not 00:00, missing price, price 0, missing
 * strategy), fixes it and saves; the screen reads in English after the language switch; on
 * /chargestrategy the scheme is assigned to the demo site SHA-C001, whose simulated EMS
 * applies it ("已生效"), and the arbitrage preview shows the day's figures; the strategy
 * comparison shows time order, price-aware and the optimal LP plan with the gain (a degradation
 * cost lowers the nets), and the optimal plan is put into the daily plan, saved and applied by the
 * EMS again; zh/en pictures at 1440 and 390 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  chooseOption,
  openSignedIn,
  SCREENSHOTS_ON,
  screenshot,
  switchLanguageReloaded,
  toast,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const SUFFIX = Date.now().toString(36).slice(-5).toUpperCase();
const SCHEME = `上海分时 E2E ${SUFFIX}`;

/** The texts of the issues shown under one field of period `i`. */
function fieldIssues(page: Page, i: number, field: string) {
  return page.getByTestId(`period-issues-${i}-${field}`);
}

/** Type into a period's text or number input (replacing what is there). */
async function typeInto(page: Page, testId: string, text: string): Promise<void> {
  const input = page.getByTestId(testId);
  await input.fill(text);
  await input.blur();
}

async function chooseScheme(page: Page, name: string): Promise<void> {
  await page.getByTestId('scheme-select').click();
  await page.locator('.ant-select-dropdown:visible').getByText(name, { exact: true }).click();
  await expect.poll(() => page.getByTestId('scheme-select').innerText()).toContain(name);
}

describe('ToU schemes', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('creates a scheme from the Shanghai template, shows each rule at its field, saves, and reads in English', async () => {
    const { context, page } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'tou-failed-timetariff'));
    await openSignedIn(page, '/timetariff');
    await page.getByTestId('timetariff').waitFor();

    // An empty scheme: one off-peak period 00:00–00:00 that still needs its price.
    await page.getByTestId('scheme-add').click();
    await page.getByTestId('scheme-name').fill(`空白方案 ${SUFFIX}`);
    await page.getByTestId('scheme-create-submit').click();
    await page.getByTestId('scheme-state').getByText('新方案，尚未保存').waitFor();
    expect(await page.getByTestId('period-end-0').inputValue()).toBe('00:00');
    await fieldIssues(page, 0, 'price').getByText('每个时段都需要峰谷类型和电价').waitFor();
    await page.getByTestId('scheme-save').click();
    await toast(page, '还有 1 个问题，请按提示修改后再保存').waitFor();

    await page.getByTestId('scheme-template').click();
    const dialog = page.getByTestId('template-dialog');
    await dialog.waitFor();
    await page.getByTestId('template-select').click();
    await page.keyboard.type('上海');
    await page
      .locator('.ant-select-dropdown:visible')
      .getByText(/^上海 2025-07/)
      .click();
    const facts = page.getByTestId('template-facts');
    await facts.getByText('一般工商业及其他 两部制 10 千伏').waitFor();
    expect(await facts.innerText()).toContain('2025-07');
    expect(await facts.innerText()).toContain('沪发改价管〔2022〕50号');
    expect(await page.getByTestId('template-year').inputValue()).toBe(String(new Date().getFullYear()));
    expect(await page.getByTestId('template-power').inputValue()).toBe('100');
    await page.getByTestId('template-name').fill(SCHEME);
    if (SCREENSHOTS_ON) await screenshot(page, 'tou-template-dialog');
    await page.getByTestId('template-submit').click();
    // Starting another scheme asks before the unsaved one is dropped.
    await page.getByText('当前方案有未保存的修改，继续将丢失这些修改。').waitFor();
    await page.getByRole('button', { name: '放弃修改' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('scheme-state').getByText('新方案，尚未保存').waitFor();

    // The July–August plan: 00–06 off-peak, 06–08 shoulder, 08–12 peak, 12–14 sharp, 14–15 peak, …, 22–24 off-peak.
    await page.getByTestId('timeline-block-3').getByText('尖峰').waitFor();
    expect(await page.getByTestId('timeline-action-0').innerText()).toContain('充电');
    expect(await page.getByTestId('timeline-action-3').getAttribute('data-action')).toBe('discharge');
    expect(await page.locator('[data-testid="issue-summary"]').count()).toBe(0);

    // The boundary 06:00 | 06:00 moves in 15-minute steps with the keyboard …
    await page.getByTestId('timeline-handle-0').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('period-end-0').inputValue()).toBe('06:15');
    expect(await page.getByTestId('period-start-1').inputValue()).toBe('06:15');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByTestId('period-end-0').inputValue()).toBe('06:00');
    // … and the boundary 08:00 by dragging it to about 09:05, which snaps to 09:00.
    const track = (await page.getByTestId('timeline').locator('.tou-timeline__track').boundingBox())!;
    const handle = (await page.getByTestId('timeline-handle-1').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(track.x + (track.width * 545) / 1440, handle.y + 10, { steps: 5 });
    await page.mouse.up();
    expect(await page.getByTestId('period-end-1').inputValue()).toBe('09:00');
    expect(await page.getByTestId('period-start-2').inputValue()).toBe('09:00');
    await typeInto(page, 'period-end-1', '08:00');
    await typeInto(page, 'period-start-2', '08:00');

    // Overlap: period 3 starts before period 2 ends.
    await typeInto(page, 'period-start-2', '07:00');
    await fieldIssues(page, 2, 'start').getByText('时段不能重叠或冲突').waitFor();
    // Gap: it starts after period 2 ends.
    await typeInto(page, 'period-start-2', '09:00');
    await fieldIssues(page, 2, 'start').getByText('时段须从00:00开始且首尾相接，不能有空档').waitFor();
    await typeInto(page, 'period-start-2', '08:00');
    // The last period ends at 00:00, not 24:00 or 23:00.
    await typeInto(page, 'period-end-8', '24:00');
    await fieldIssues(page, 8, 'end').getByText('日计划最后一个时段的结束时间必须为00:00').waitFor();
    await typeInto(page, 'period-end-8', '23:00');
    await fieldIssues(page, 8, 'end').getByText('日计划最后一个时段的结束时间必须为00:00').waitFor();
    // Missing price, then a price of 0.
    await page.getByTestId('period-price-3').fill('');
    await page.getByTestId('period-price-3').blur();
    await fieldIssues(page, 3, 'price').getByText('每个时段都需要峰谷类型和电价').waitFor();
    await typeInto(page, 'period-price-3', '0');
    await fieldIssues(page, 3, 'price').getByText('数字必须大于0').waitFor();
    // Missing strategy.
    await page.getByTestId('period-action-4').hover();
    await page.getByTestId('period-action-4').locator('.ant-select-clear').click();
    await fieldIssues(page, 4, 'action').getByText('每个时段都需要配置策略').waitFor();
    await expect.poll(() => page.getByTestId('timeline-action-4').getAttribute('data-action')).toBe('');

    // The summary lists each issue with where it is; saving is refused in the browser.
    const summary = page.getByTestId('issue-summary');
    await summary.getByText('方案中有 3 个问题').waitFor();
    expect(await summary.innerText()).toContain('日计划「7–8月（尖峰 12–14 时）」第 9 个时段');
    if (SCREENSHOTS_ON) await screenshot(page, 'tou-timetariff-errors');
    await page.getByTestId('scheme-save').click();
    await toast(page, '还有 3 个问题，请按提示修改后再保存').waitFor();

    // Fix everything and save.
    await typeInto(page, 'period-end-8', '00:00');
    await typeInto(page, 'period-price-3', '1.4352');
    await chooseOption(page, 'period-action-4', '放电', { exact: true });
    await summary.waitFor({ state: 'detached' });
    expect(await page.getByTestId('period-table').getByTestId('field-issue').count()).toBe(0);
    await page.getByTestId('scheme-save').click();
    await toast(page, '电价方案已保存').waitFor();
    await page.getByTestId('scheme-state').getByText('已保存').waitFor();

    // A daily plan in use cannot be deleted: the rule's message instead.
    await page.getByTestId('daily-plan-delete').click();
    await toast(page, '日计划被周计划或例外计划引用，不能删除').waitFor();
    expect(await page.getByTestId('daily-plan-list').locator('li').count()).toBe(4);
    if (SCREENSHOTS_ON) {
      for (const tab of ['周计划', '年计划']) {
        await page.getByRole('tab', { name: tab }).click();
        await screenshot(page, `tou-timetariff-${tab === '周计划' ? 'weekly' : 'yearly'}`);
      }
    }

    // The calendar says which plan runs each day: July of the template's year is the summer plan.
    await page.getByRole('tab', { name: '日历' }).click();
    await page.getByTestId('tou-calendar').waitFor();
    await page.getByTestId('calendar-selected').getByText('年计划').waitFor();

    // English after the language switch (the page reloads).
    await switchLanguageReloaded(page, 'en');
    await page.getByRole('tab', { name: 'Daily plans' }).waitFor();
    await chooseScheme(page, SCHEME);
    await page.getByTestId('scheme-state').getByText('Saved').waitFor();
    await page.getByTestId('timeline-block-0').getByText('Off-peak').waitFor();
    // On a phone every tier name on the timeline is whole, shortened or left out — never cut.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() =>
        page
          .locator('.tou-block__label')
          .evaluateAll((labels) =>
            labels
              .filter((l) => l.textContent !== '' && l.scrollWidth > l.clientWidth + 1)
              .map((l) => l.textContent),
          ),
      )
      .toEqual([]);
    const shown = await page.locator('.tou-block__label').allInnerTexts();
    const names = ['Sharp', 'Peak', 'Shoulder', 'Off-peak', 'Shp', 'Pk', 'Sh', 'Off', ''];
    expect(shown.filter((text) => !names.includes(text))).toEqual([]);
    expect(shown).toContain('Sh');
    await page.setViewportSize({ width: 1440, height: 900 });
    await typeInto(page, 'period-price-0', '0');
    await fieldIssues(page, 0, 'price').getByText('Number must be greater than 0').waitFor();
    await page.getByTestId('issue-summary').getByText('1 issue(s) in this scheme').waitFor();
    await page.getByTestId('scheme-state').getByText('Unsaved changes').waitFor();
    await context.close();
  });

  it('assigns the scheme to the demo site on /chargestrategy and sees it applied by its EMS', async () => {
    const { context, page } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'tou-failed-chargestrategy'));
    await openSignedIn(page, '/chargestrategy', { lang: 'zh' });
    await page.getByTestId('chargestrategy').waitFor();
    await chooseScheme(page, SCHEME);
    await page.getByTestId('period-action-0').getByText('充电').waitFor();
    await page.getByTestId('apply-standard').waitFor();

    await page.getByTestId('sites-assign').click();
    const dialog = page.getByTestId('assign-dialog');
    await dialog.waitFor();
    await dialog.locator('.ant-transfer-list-search input').first().fill('SHA-C001');
    await dialog.getByText(/SHA-C001/).click();
    await dialog.locator('button:has(.anticon-right)').click();
    await dialog
      .locator('.ant-transfer-section')
      .nth(1)
      .getByText(/SHA-C001/)
      .waitFor();
    await page.getByTestId('assign-submit').click();
    await toast(page, '站点分配已更新，方案将下发到这些站点').waitFor();

    const state = page.getByTestId('push-table').locator('[data-state]').first();
    await expect
      .poll(() => state.getAttribute('data-state'), { timeout: 45_000, interval: 1000 })
      .toBe('applied');
    expect(await state.innerText()).toContain('已生效');

    // The preview of the assigned site's day under the plan of today.
    const preview = page.getByTestId('arbitrage-preview');
    await preview.getByTestId('preview-net').waitFor();
    expect(await preview.getByTestId('preview-net').innerText()).toMatch(/\d/);
    expect(await preview.getByTestId('preview-periods').locator('tbody tr').count()).toBeGreaterThan(3);
    if (SCREENSHOTS_ON) await screenshot(page, 'tou-chargestrategy-applied');
    await context.close();
  });

  // Three plans solved by the server and a push the simulated EMS applies: over a minute on a busy
  // two-core machine (26 s on a quiet one), hence its own time limit.
  it('compares time order, price-aware and optimal, then saves the optimal plan and the EMS applies it', async () => {
    const { context, page } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'tou-failed-optimal'));
    await openSignedIn(page, '/chargestrategy', { lang: 'zh' });
    await page.getByTestId('chargestrategy').waitFor();
    await chooseScheme(page, SCHEME);
    const compare = page.getByTestId('strategy-comparison');
    await compare.getByTestId('compare-net-optimal').waitFor({ timeout: 30_000 });
    const net = async (key: string) =>
      Number((await compare.getByTestId(`compare-net-${key}`).innerText()).replace(/[^\d.-]/g, ''));
    const [timeOrder, priceAware, optimal] = [
      await net('timeOrder'),
      await net('priceAware'),
      await net('optimal'),
    ];
    // The optimum is at least the price-aware net, which is at least the time-order one.
    expect(priceAware).toBeGreaterThanOrEqual(timeOrder);
    expect(optimal).toBeGreaterThanOrEqual(priceAware - 0.01);
    expect(await compare.getByTestId('compare-row-optimal').innerText()).toContain('最优（线性规划）');
    expect(await compare.getByTestId('compare-gain-optimal').innerText()).toMatch(
      /^\+[\d,.]+ \(\+[\d.]+ %\)$/,
    );
    await compare
      .getByTestId('optimal-lp')
      .getByText(/线性规划最优值/)
      .waitFor();
    await compare.getByTestId('strategy-soc-chart').waitFor();

    // A degradation cost per kWh cycled is paid on every kWh discharged: the nets fall.
    await compare.getByTestId('compare-degradation').fill('0.1');
    await compare.getByTestId('compare-degradation').blur();
    await expect.poll(() => net('priceAware')).toBeLessThan(priceAware);
    await expect.poll(() => net('optimal'), { timeout: 30_000 }).toBeLessThan(optimal);
    if (SCREENSHOTS_ON) {
      await compare.scrollIntoViewIfNeeded();
      await screenshot(page, 'tou-strategy-compare-zh-1440');
    }

    // Use the optimal plan, save the scheme: the site's EMS applies the new version.
    // The preview's daily plan: the one of the chosen date (today).
    const planName = await page.getByTestId('preview-plan').locator('strong').innerText();
    await compare.getByTestId('optimal-apply').click();
    await toast(page, `已将最优计划填入“${planName}”，保存方案后生效，并可下发到站点`).waitFor();
    await page.getByTestId('scheme-save').click();
    await toast(page, '电价方案已保存').waitFor();
    const state = page.getByTestId('push-table').locator('[data-state]').first();
    await expect
      .poll(() => state.getAttribute('data-state'), { timeout: 45_000, interval: 1000 })
      .toBe('applied');
    // The saved plan is the optimal one: after a reload the comparison's optimum equals the plan's own preview.
    await page.reload();
    await chooseScheme(page, SCHEME);
    await page.getByTestId('arbitrage-preview').getByTestId('preview-net').waitFor();
    await compare.getByTestId('compare-net-optimal').waitFor({ timeout: 30_000 });
    const previewNet = Number((await page.getByTestId('preview-net').innerText()).replace(/[^\d.-]/g, ''));
    expect(Math.abs(previewNet - (await net('optimal')))).toBeLessThanOrEqual(
      Math.abs(optimal) * 0.005 + 0.01,
    );
    await context.close();

    // English and the phone width.
    for (const [lang, width] of [
      ['en', 1440],
      ['zh', 390],
      ['en', 390],
    ] as const) {
      const { context: c, page: p } = await newPage(browser, { width, height: width === 390 ? 844 : 900 });
      await openSignedIn(p, '/chargestrategy', { lang });
      await chooseScheme(p, SCHEME);
      const box = p.getByTestId('strategy-comparison');
      await box.getByTestId('compare-net-optimal').waitFor({ timeout: 30_000 });
      if (lang === 'en') expect(await box.innerText()).toContain('Optimal (LP)');
      await box.getByTestId('strategy-soc-chart').waitFor();
      // Nothing wider than the page.
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      if (SCREENSHOTS_ON) {
        await box.scrollIntoViewIfNeeded();
        await screenshot(p, `tou-strategy-compare-${lang}-${width}`);
      }
      await c.close();
    }
  }, 120_000);
});
