/**
 * Big screens in the browser, at 1920×1080 against the demo fleet (4 sites
 * reporting every 2 s):
 * - /newscreen without a token shows the installation's aggregates and nothing per site (no
 *   site name, code or SN on the page, only the public call made), and its figures follow the
 *   fleet; signed in it adds the caller's sites and the top list;
 * - each site screen shows a demo site's values that change while it is open, remembers the
 *   site in `?siteId=`, and switches language;
 * - the console's menu entries open the screens; without a token the screens ask to sign in.
 * Screenshots of every screen in zh and en go to .tmp/screenshots (bigscreen-*.png).
 */
import { endpoints, type ScreenSiteData, type ScreenSiteOption } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  api,
  apiSignIn,
  openSignedIn,
  recordCalls,
  screenshot,
  switchLanguageReloaded,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const WALL = { width: 1920, height: 1080 };

/** Text of a screen's body (the header's clock ticks every second and is left out). */
const bodyText = (page: Page) => page.locator('.stage__body').innerText();

describe('big screens', () => {
  let browser: Browser;
  let sites: ScreenSiteOption[];
  let allSites: ScreenSiteOption[];
  let secrets: string[];

  beforeAll(async () => {
    browser = await launchBrowser();
    const session = await apiSignIn(ADMIN.account, ADMIN.password);
    // Other files' sites (registered by their tests, in an order vitest chooses) are there too:
    // the screens are checked on the demo fleet's four, and no site may show without a token.
    allSites = (await api<ScreenSiteOption[]>(endpoints.screen.sites.path, {}, { token: session.token }))
      .data;
    sites = allSites.filter((s) => /^[A-Z]{3}-[CHS]\d{3}$/.test(s.code));
    expect(sites.length).toBe(4);
    // Everything that names a site or a device: none of it may show without a token.
    secrets = [];
    for (const s of allSites) {
      secrets.push(s.name, s.code);
      const site = (
        await api<ScreenSiteData>(endpoints.screen.site.path, { siteId: s.siteId }, { token: session.token })
      ).data;
      secrets.push(...site.devices.map((d) => d.sn), site.site.companyName);
    }
  });
  afterAll(async () => browser?.close());

  it('the cockpit without a token shows the aggregates, live, and no site names', async () => {
    const { context, page } = await newPage(browser, WALL);
    const privateCalls = recordCalls(page, endpoints.screen.cockpit.path);
    const publicCalls = recordCalls(page, endpoints.screen.cockpitPublic.path);
    await page.goto('/newscreen');
    await page.getByTestId('cockpit').waitFor();
    await expect
      .poll(() => page.getByTestId('cockpit-sites').innerText(), { timeout: 30_000 })
      .toMatch(new RegExp(`/ ${allSites.length}\\b`));
    expect(await page.getByTestId('cockpit-mode').getAttribute('data-mode')).toBe('public');
    expect(await page.getByTestId('cockpit-capacity').innerText()).toMatch(/\d/);
    expect(await page.getByTestId('cockpit-link').innerText()).toBe('登录');
    await page.getByTestId('cockpit-top-login').waitFor();
    await page.locator('[data-testid="cockpit-map"][data-points]:not([data-points="0"])').waitFor();
    await page.locator('[data-testid="cockpit-map"] [data-ready="true"]').waitFor({ timeout: 30_000 });
    const text = await page.getByTestId('cockpit').innerText();
    for (const secret of secrets) expect(text, secret).not.toContain(secret);
    // The map's own tooltip data is not on the page either: the answer held no names.
    const html = await page.content();
    for (const secret of secrets) expect(html, secret).not.toContain(secret);
    expect(privateCalls).toHaveLength(0);
    expect(publicCalls.length).toBeGreaterThan(0);
    // Live: the figures are re-read every 10 s, and the stage says when they were taken. (The
    // figures themselves may stand still for minutes: an idle ToU period, a battery at its SOC
    // limit.)
    const updated = page.getByTestId('cockpit-updated');
    const first = await updated.innerText();
    expect(first).toMatch(/^更新于 \d{2}:\d{2}:\d{2}$/);
    await expect.poll(() => updated.innerText(), { timeout: 40_000, interval: 1000 }).not.toBe(first);
    expect(publicCalls.length).toBeGreaterThan(1);
    await screenshot(page, 'bigscreen-newscreen-public-zh');

    await page.getByTestId('language-switch').click();
    await page.getByTestId('lang-option-en').click();
    await page.getByRole('heading', { name: 'Energy-storage operations cockpit' }).waitFor();
    await page.getByText('Sites online / total').waitFor();
    expect(await page.getByTestId('cockpit-link').innerText()).toBe('Sign in');
    await page.locator('[data-testid="cockpit-map"][data-points]:not([data-points="0"])').waitFor();
    await page.locator('[data-testid="cockpit-map"] [data-ready="true"]').waitFor({ timeout: 30_000 });
    await screenshot(page, 'bigscreen-newscreen-public-en');
    await context.close();
  });

  it('the cockpit signed in adds the caller’s sites and the top list', async () => {
    const { context, page } = await newPage(browser, WALL);
    await openSignedIn(page, '/newscreen', { ready: 'cockpit' });
    await expect
      .poll(() => page.getByTestId('cockpit-mode').getAttribute('data-mode'), { timeout: 30_000 })
      .toBe('private');
    await expect
      .poll(() => page.getByTestId('cockpit-map').getAttribute('data-points'), { timeout: 30_000 })
      .toBe('4');
    await page.locator('[data-testid="cockpit-map"] [data-ready="true"]').waitFor({ timeout: 30_000 });
    const top = page.getByTestId('cockpit-top');
    await top.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('cockpit-link').innerText()).toBe('进入控制台');
    await screenshot(page, 'bigscreen-newscreen-private-zh');
    await context.close();
  });

  const SCREENS = [
    { key: 'sys', path: '/screen/sys', ready: 'sys-battery-kw', en: 'Storage system overview' },
    { key: 'pcs', path: '/screen/pcs', ready: 'pcs-p-kw', en: 'PCS converter monitor' },
    { key: 'bms', path: '/screen/bms', ready: 'bms-soc', en: 'BMS battery monitor' },
    { key: 'dhxx', path: '/screen/dhxx', ready: 'env-temp', en: 'Environment monitor' },
    { key: 'syfsys', path: '/syfscreen/syfsys', ready: 'syf-devices', en: 'System information' },
  ] as const;

  for (const screen of SCREENS) {
    it(`${screen.path} shows a demo site's values that change, in zh and en`, async () => {
      const { context, page } = await newPage(browser, WALL);
      const site = sites.find((s) => s.code.includes('-C')) ?? sites[0]!;
      await openSignedIn(page, `${screen.path}?siteId=${site.siteId}`, { ready: 'screen-site-picker' });
      await page.getByTestId(screen.ready).waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('screen-site-picker').inputValue()).toBe(String(site.siteId));
      await expect.poll(() => page.getByTestId(screen.ready).innerText(), { timeout: 30_000 }).toMatch(/\d/);
      if (screen.key === 'bms') {
        await page.getByTestId('bms-heat-u').waitFor();
        await page.getByTestId('bms-heat-t').waitFor();
        expect(Number(await page.getByTestId('bms-heat-u').getAttribute('data-cells'))).toBeGreaterThan(10);
        expect(await page.getByTestId('bms-extremes').innerText()).toMatch(/#\d+/);
      }
      await page.locator('[data-testid="screen-live"][data-status="live"]').waitFor({ timeout: 30_000 });
      const first = await bodyText(page);
      await expect.poll(() => bodyText(page), { timeout: 30_000, interval: 500 }).not.toBe(first);
      await screenshot(page, `bigscreen-${screen.key}-zh`);

      await switchLanguageReloaded(page, 'en');
      await page.getByRole('heading', { name: screen.en }).waitFor({ timeout: 30_000 });
      await page.getByTestId(screen.ready).waitFor({ timeout: 30_000 });
      expect(new URL(page.url()).searchParams.get('siteId')).toBe(String(site.siteId));
      await page.waitForTimeout(1500);
      await screenshot(page, `bigscreen-${screen.key}-en`);
      // Back to Chinese for the other tests of this browser's storage (each test has its own).
      await context.close();
    });
  }

  it('the site picker changes the site and keeps it in the URL; tabs and the short addresses carry it', async () => {
    const { context, page } = await newPage(browser, WALL);
    await openSignedIn(page, '/screen', { ready: 'screen-site-picker' });
    await page.waitForURL(/\/screen\/sys\?siteId=\d+/);
    const other = sites[sites.length - 1]!;
    await page.getByTestId('screen-site-picker').selectOption(String(other.siteId));
    await page.waitForURL(new RegExp(`siteId=${other.siteId}`));
    await page.getByRole('heading', { name: other.name }).waitFor({ timeout: 30_000 });
    await page.getByTestId('screen-tab-pcs').click();
    await page.waitForURL(new RegExp(`/screen/pcs\\?siteId=${other.siteId}`));
    await page.getByTestId('pcs-p-kw').waitFor();
    // The short addresses keep the chosen site.
    await page.goto(`/syfscreen?siteId=${other.siteId}`);
    await page.waitForURL(new RegExp(`/syfscreen/syfsys\\?siteId=${other.siteId}`));
    await page.getByRole('heading', { name: other.name }).waitFor({ timeout: 30_000 });
    await page.goto(`/screen?siteId=${other.siteId}`);
    await page.waitForURL(new RegExp(`/screen/sys\\?siteId=${other.siteId}`));
    await context.close();
  });

  it('the console menu entries open the screens; without a token the screens ask to sign in', async () => {
    const { context, page } = await newPage(browser, WALL);
    await openSignedIn(page, '/dashboard');
    await page.goto('/bigscreen/bms');
    await page.waitForURL(/\/screen\/bms/);
    await page.getByTestId('bms-soc').waitFor({ timeout: 30_000 });
    await page.goto('/bigscreen/cockpit');
    await page.waitForURL(/\/newscreen$/);
    await context.close();

    const anon = await newPage(browser, WALL);
    await anon.page.goto('/screen/pcs');
    await anon.page.waitForURL(/\/login\?redirect=%2Fscreen%2Fpcs/);
    await anon.context.close();
  });
});
