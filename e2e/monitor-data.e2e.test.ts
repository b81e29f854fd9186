/**
 * Real-time data (/realTimeShow) and history (/history), in the browser
 * on the simulated demo fleet: the real-time table lists a PCS's points with translated names,
 * units and report times, its values change live and are not marked stale, a point opens its
 * last hour as a chart; history draws power + SOC of a demo site for today with the resolution
 * the server chose, shows energy bars, refuses a future range with the translated message; the
 * language switch turns both pages into English. Screenshots at 1440 px and 390 px with
 * E2E_SCREENSHOTS=1.
 */
import { endpoints, type PickOptions } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  apiSignIn,
  chooseOption,
  MOBILE,
  openSignedIn,
  SCREENSHOTS_ON,
  screenshot,
  switchLanguageReloaded,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

/**
 * Pick tomorrow as the history day. The picked day starts as the site's today (its zone's, which
 * may be a day ahead of the browser's); tomorrow is the cell after it, or the first of the next
 * week's row when it ends its row.
 */
async function pickTomorrow(page: Page): Promise<void> {
  await page.getByTestId('history-range-anchor').click();
  await page.locator('.ant-picker-dropdown:visible .ant-picker-cell-selected').waitFor();
  await page
    .locator(
      '.ant-picker-dropdown:visible .ant-picker-cell-selected + td, ' +
        '.ant-picker-dropdown:visible tr:has(.ant-picker-cell-selected) + tr > td:first-child',
    )
    .first()
    .click();
}

describe('real-time data and history', () => {
  let browser: Browser;
  /**
   * An online demo C&I site (it has a PCS and history). Not the list's first: other browser files
   * register sites of their own (a gateway and a meter only) on the same server, and their codes
   * may sort first.
   */
  let site: PickOptions['sites'][number];

  beforeAll(async () => {
    browser = await launchBrowser();
    const { token } = await apiSignIn('admin', 'admin123');
    const options = await api<PickOptions>(endpoints.monitor.realtimeOptions.path, {}, { token });
    const online = options.data.sites.filter((s) => s.online && !s.code.startsWith('E2E'));
    site = online.find((s) => s.code.includes('-C')) ?? online[0]!;
    expect(site, 'an online demo site').toBeDefined();
  });
  afterAll(async () => browser?.close());

  it('real-time: a PCS’s points with names, units and times change live; a point opens its trend; English', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/realTimeShow');
    const table = page.getByTestId('realtime-table');
    await table.waitFor();
    await chooseOption(page, 'realtime-site', site.name);
    await chooseOption(page, 'realtime-device', /^PCS/);
    const power = page.getByTestId('point-value-p_kw');
    await power.waitFor({ timeout: 30_000 });
    const row = page.getByTestId('point-p_kw');
    await row.getByText('有功功率').waitFor();
    await row.getByText('kW', { exact: true }).waitFor();
    await page.getByTestId('point-e_charge_total_kwh').getByText('累计充电量').waitFor();
    expect(await row.getAttribute('data-stale')).toBe('false');
    await page.getByTestId('realtime-summary').getByText('网关在线').waitFor();

    // Live: the demo fleet reports every few seconds; the value and its time follow.
    const before = await row.innerText();
    await expect.poll(() => row.innerText(), { timeout: 30_000, interval: 500 }).not.toBe(before);
    if (SCREENSHOTS_ON) await screenshot(page, 'realtime-zh-1440');

    await row.click();
    const trend = page.getByTestId('realtime-trend');
    await expect.poll(() => trend.getAttribute('data-state'), { timeout: 30_000 }).toBe('chart');
    expect(Number(await trend.getByTestId('series-chart').getAttribute('data-points'))).toBeGreaterThan(1);
    if (SCREENSHOTS_ON) await screenshot(page, 'realtime-trend-zh-1440');
    await page.keyboard.press('Escape');

    // The reload keeps the picked device (it is in the address).
    const picked = await page.getByTestId('realtime-device').innerText();
    await switchLanguageReloaded(page, 'en');
    await row.getByText('Active power').waitFor();
    expect(await page.getByTestId('realtime-device').innerText()).toBe(picked);
    expect(picked).toMatch(/PCS/);
    await table.getByText('Reported at').waitFor();
    await page.getByTestId('realtime-summary').getByText('Gateway online').waitFor();
    if (SCREENSHOTS_ON) await screenshot(page, 'realtime-en-1440');
    await context.close();
  });

  it('history: power + SOC of a demo site today, energy bars, a future range refused; English', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/history');
    await chooseOption(page, 'history-site', site.name);
    const resolution = page.getByTestId('history-resolution');
    await resolution.waitFor({ timeout: 30_000 });
    expect(await resolution.getAttribute('data-resolution')).toMatch(/^(raw|900)$/);
    const chart = page.getByTestId('series-chart');
    await chart.waitFor();
    expect(await chart.getAttribute('data-series')).toBe('2');
    expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(2);
    await page.getByTestId('history-stats').getByText('SOC').first().waitFor();
    if (SCREENSHOTS_ON) await screenshot(page, 'history-zh-1440');

    // Tomorrow as the day: refused before sending, with the server's message.
    await pickTomorrow(page);
    await page.getByTestId('history-range-error').getByText('开始时间不能晚于当前时间').waitFor();
    expect(await page.getByTestId('history-query').isDisabled()).toBe(true);

    await page.getByTestId('history-tab-energy').click();
    const energy = page.getByTestId('energy-chart').or(page.getByTestId('energy-empty'));
    await energy.first().waitFor({ timeout: 30_000 });
    if (SCREENSHOTS_ON) await screenshot(page, 'history-energy-zh-1440');

    await page.getByTestId('history-tab-compare').click();
    await page.getByTestId('compare-resolution').waitFor({ timeout: 30_000 });

    // The reload keeps the picked site and tab (they live in the address), in English.
    await switchLanguageReloaded(page, 'en');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('compare');
    await page.getByTestId('history-site').getByText(site.name).waitFor();
    await page.getByTestId('compare-resolution').waitFor({ timeout: 30_000 });
    await page.getByTestId('history-tab-curves').getByText('Curves').click();
    await page.getByTestId('history-stats').getByText('Average').first().waitFor({ timeout: 30_000 });
    // The curves' chart (the compare tab's stays mounted, hidden) is drawn with its points.
    const curves = page.locator('.ant-tabs-content-active [data-testid="series-chart"]');
    await expect.poll(async () => Number(await curves.getAttribute('data-points'))).toBeGreaterThan(2);
    if (SCREENSHOTS_ON) await screenshot(page, 'history-en-1440');
    await pickTomorrow(page);
    await page
      .getByTestId('history-range-error')
      .getByText('The time range cannot start in the future')
      .waitFor();
    expect(await page.getByTestId('history-query').isDisabled()).toBe(true);
    await context.close();
  });

  it.runIf(SCREENSHOTS_ON)('is usable at 390 px in both languages', async () => {
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await newPage(browser, MOBILE);
      await openSignedIn(page, '/realTimeShow', { lang });
      await page
        .getByTestId('realtime-table')
        .locator('tbody tr[data-stale]')
        .first()
        .waitFor({ timeout: 30_000 });
      await screenshot(page, `realtime-${lang}-390`);
      await page.goto('/history');
      await page.getByTestId('series-chart').waitFor({ timeout: 30_000 });
      await screenshot(page, `history-${lang}-390`);
      await context.close();
    }
  });
});
