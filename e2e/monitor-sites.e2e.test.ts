/**
 * Site monitoring (/zdjkshow) in the browser on the simulated demo fleet: the
 * offline map draws every site with coordinates and the list shows every site the admin may
 * see (as the server lists them), search narrows the list; a site drilled into shows its energy
 * flow and BMS values, which change while the page is open; the language switch turns the
 * page into English. Screenshots at 1440 px and 390 px in both languages with E2E_SCREENSHOTS=1.
 */
import { endpoints, type SiteMonitorList } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, MOBILE, openSignedIn, SCREENSHOTS_ON, screenshot, switchLanguageReloaded } from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** The search box (antd may put the test id on the input or on its wrapper). */
const SEARCH = 'input[data-testid="monitor-search"], [data-testid="monitor-search"] input';

describe('site monitoring', () => {
  let browser: Browser;
  let sites: SiteMonitorList['sites'] | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  /** The list as the server answers it to the admin (the page must show the same sites). */
  async function serverSites(page: Page): Promise<SiteMonitorList['sites']> {
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem('ess.session') ?? '{}').token as string,
    );
    const answer = await api<SiteMonitorList>(endpoints.siteMonitor.sites.path, {}, { token });
    expect(answer.code, answer.msg).toBe(0);
    return answer.data.sites;
  }

  /** A demo site with a BMS reporting (the demo fleet gives every site one). */
  async function demoSite(page: Page) {
    sites ??= await serverSites(page);
    return sites.find((s) => s.code.startsWith('SHA-') && s.latitude !== null) ?? sites[0]!;
  }

  it('shows the demo sites on the map and in the list; search narrows the list', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/zdjkshow');
    await page.getByTestId('site-monitor').waitFor();
    const sites = await serverSites(page);
    const placed = sites.filter((s) => s.latitude !== null && s.longitude !== null);
    expect(placed.length).toBeGreaterThanOrEqual(4);

    const map = page.locator('[data-testid="site-map-wrap"] > div');
    await expect.poll(() => map.getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
    expect(await map.getAttribute('data-points')).toBe(String(placed.length));
    // The map is drawn on a canvas of the map's size.
    const canvas = map.locator('canvas').first();
    await canvas.waitFor();
    expect((await canvas.boundingBox())!.width).toBeGreaterThan(300);

    const list = page.getByTestId('monitor-site-list');
    for (const s of sites) await list.getByTestId(`monitor-site-${s.siteId}`).waitFor();
    expect(await page.getByTestId('monitor-summary-total').innerText()).toContain(String(sites.length));
    await list.getByText('在线').first().waitFor({ timeout: 30_000 });

    const target = await demoSite(page);
    await page.locator(SEARCH).fill(target.code);
    await expect.poll(() => list.locator('tbody tr.monitor-list__row').count()).toBe(1);
    await list.getByTestId(`monitor-site-${target.siteId}`).waitFor();
    await page.locator(SEARCH).fill('');
    // Sorting by SOC, highest first: the rows follow the server's SOC values.
    await page.getByTestId('monitor-sort-soc').locator('button').click();
    await page.getByTestId('monitor-sort-soc').locator('button').click();
    expect(await page.getByTestId('monitor-sort-soc').getAttribute('aria-sort')).toBe('descending');
    const socs = await list.evaluate((el) =>
      Array.from(el.querySelectorAll('tbody tr')).map(
        (tr) => (tr as Element).querySelectorAll('td')[2]?.textContent ?? '',
      ),
    );
    const values = socs.map((text) => Number.parseFloat(text)).filter((v) => !Number.isNaN(v));
    expect(values.length).toBeGreaterThanOrEqual(4);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    await expect.poll(() => list.locator('tbody tr.monitor-list__row').count()).toBe(sites.length);

    if (SCREENSHOTS_ON) {
      await page.locator('[data-testid="live-indicator"][data-status="live"]').waitFor({ timeout: 30_000 });
      await screenshot(page, 'monitor-sites-zh-1440');
    }
    await context.close();
  });

  it('drills into a site: energy flow and BMS values change live; the language switch works', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/zdjkshow');
    const target = await demoSite(page);
    await page.getByTestId(`monitor-site-${target.siteId}`).click();
    const detail = page.getByTestId('monitor-site-detail');
    await detail.waitFor();
    expect(await detail.getAttribute('data-site-id')).toBe(String(target.siteId));
    await detail.getByText(target.name).first().waitFor();

    const flow = page.getByTestId('energy-flow');
    await flow.waitFor();
    await expect
      .poll(() => page.getByTestId('flow-battery-kw').textContent(), { timeout: 30_000 })
      .toMatch(/kW$/);
    await expect
      .poll(() => page.getByTestId('flow-grid-kw').textContent(), { timeout: 30_000 })
      .toMatch(/kW$/);
    const direction = await page.getByTestId('flow-battery').getAttribute('data-direction');
    expect(direction).toMatch(/^(to-bus|from-bus|idle)$/);
    expect(await page.getByTestId('flow-battery-arrow').count()).toBe(direction === 'idle' ? 0 : 1);

    const bms = page.locator('[data-testid^="panel-bms-"]').first();
    await bms.waitFor();
    await expect
      .poll(() => bms.getByTestId('reading-soc_pct').innerText(), { timeout: 30_000 })
      .toMatch(/%$/);
    await expect.poll(() => bms.getByTestId('reading-u_cell_max').innerText()).toMatch(/V · #\d+$/);
    expect(await bms.getByTestId('reading-u_cell_diff').innerText()).toMatch(/mV$/);
    await page.locator('[data-testid^="panel-pcs-"]').first().waitFor();

    // Live: the demo site reports every 2 s; values on screen follow without a reload.
    const before = `${await flow.textContent()}|${await bms.innerText()}`;
    await expect
      .poll(async () => `${await flow.textContent()}|${await bms.innerText()}`, {
        timeout: 30_000,
        interval: 500,
      })
      .not.toBe(before);

    if (SCREENSHOTS_ON) await screenshot(page, 'monitor-site-zh-1440');

    // The switch reloads the page (spec); the open site survives the reload.
    await switchLanguageReloaded(page, 'en');
    await page.getByTestId('monitor-site-detail').waitFor();
    await detail.getByText('Energy flow').first().waitFor();
    await bms.getByText('Highest cell voltage').waitFor();
    await expect.poll(() => bms.getByTestId('reading-u_cell_max').innerText()).toMatch(/V · cell #\d+$/);
    if (SCREENSHOTS_ON) await screenshot(page, 'monitor-site-en-1440');

    await page.getByTestId('monitor-back').click();
    const list = page.getByTestId('monitor-site-list');
    await list.getByText('Active alarms').first().waitFor();
    await list
      .getByText(/^(Online|Alarm|Offline)$/)
      .first()
      .waitFor();
    if (SCREENSHOTS_ON) {
      const map = page.locator('[data-testid="site-map-wrap"] > div');
      await expect.poll(() => map.getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
      await screenshot(page, 'monitor-sites-en-1440');
    }
    await context.close();
  });

  it.runIf(SCREENSHOTS_ON)('is usable at 390 px in both languages', async () => {
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await newPage(browser, MOBILE);
      try {
        await openSignedIn(page, '/zdjkshow', { lang });
      } catch (err) {
        await page.screenshot({ path: '.tmp/screenshots/monitor-debug.png' });
        throw err;
      }
      const map = page.locator('[data-testid="site-map-wrap"] > div');
      await expect.poll(() => map.getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
      await page.getByTestId('monitor-site-list').waitFor();
      await screenshot(page, `monitor-sites-${lang}-390`);
      await page.getByTestId(`monitor-site-${(await demoSite(page)).siteId}`).click();
      await page.locator('[data-testid^="panel-bms-"]').first().waitFor();
      await expect
        .poll(() => page.getByTestId('flow-battery-kw').textContent(), { timeout: 30_000 })
        .toMatch(/kW$/);
      await screenshot(page, `monitor-site-${lang}-390`);
      await page.locator('[data-testid^="panel-bms-"]').first().scrollIntoViewIfNeeded();
      await screenshot(page, `monitor-site-${lang}-390-panels`);
      await context.close();
    }
  });
});
