/**
 * Devices issue in the browser: the dashboard follows the simulated demo fleet live, and an
 * operator registers a site and a gateway in /deviceconfig and sees its MQTT secret once.
 */
import { endpoints } from '@ess/contract';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, api, apiSignIn, openSignedIn, SCREENSHOTS_ON, screenshot } from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** SOC, battery power and grid power of each site row, by site id: values only, no clock. */
async function siteValues(table: Locator): Promise<Record<string, string[]>> {
  return table
    .locator('tbody tr[data-testid^="site-status-"]')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [
          row.getAttribute('data-testid'),
          [2, 3, 4].map((i) => (row.children[i] as HTMLElement).innerText.trim()),
        ]),
      ),
    );
}

describe('devices and live data', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('the dashboard shows the demo fleet and its values change while the page is open', async () => {
    // Other files share the server and may add sites: the expected count is the registry's.
    const session = await apiSignIn(ADMIN.account, ADMIN.password);
    const sites = await api<{ total: number }>(
      endpoints.site.pageList.path,
      { userInfo: { userId: session.userId, companyId: session.companyId }, pageNum: 1, pageSize: 1 },
      { token: session.token },
    );
    expect(sites.data.total).toBeGreaterThanOrEqual(4); // the demo fleet (DEMO_SITES=4)

    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/dashboard');
    await page.locator('[data-testid="live-indicator"][data-status="live"]').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.getByTestId('kpi-sites').innerText(), { timeout: 30_000 })
      .toBe(String(sites.data.total));
    const table = page.getByTestId('site-status-table');
    await table.getByText('在线').first().waitFor({ timeout: 30_000 });
    const first = await siteValues(table);
    expect(Object.keys(first)).toHaveLength(sites.data.total);
    // The demo sites report every 2 s and the page receives at most one update a second.
    await expect.poll(() => siteValues(table), { timeout: 30_000, interval: 500 }).not.toEqual(first);
    await context.close();
  });

  it('an operator registers a site and a gateway and sees its MQTT secret once', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/deviceconfig');
    await page.getByTestId('site-list').getByText('SHA-C001').first().waitFor();
    const code = `E2E-${Date.now().toString(36).slice(-5).toUpperCase()}`;
    await page.getByTestId('site-add').click();
    await page.getByTestId('site-code').fill(code);
    await page.getByTestId('site-name').fill('端到端测试站');
    await page.getByTestId('site-submit').click();
    await page.getByTestId('site-list').getByText(code).first().click();

    await page.getByTestId('device-add').click();
    await page.getByTestId('device-sn').fill(`EMS-${code}`);
    await page.getByTestId('device-address').fill('300.1.1.1');
    await page.getByTestId('device-address').blur();
    await page.getByText('请输入正确的IP地址').waitFor();
    await page.getByTestId('device-address').fill('192.168.10.5');
    await page.getByTestId('device-submit').click();
    const secretValue = page.getByTestId('secret-value');
    await secretValue.waitFor();
    const secret = await secretValue.innerText();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const command = await page.getByTestId('secret-command').innerText();
    expect(command).toContain(`-u EMS-${code} -P ${secret}`);
    // The embedded broker offers TLS: the dialog shows its port and fingerprint, hands out the
    // certificate, and the ready command trusts it.
    expect(await page.getByTestId('secret-tlsPort').innerText()).toMatch(/^\d+$/);
    expect(await page.getByTestId('secret-fingerprint').innerText()).toMatch(
      /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/,
    );
    expect(command).toMatch(/^mosquitto_pub --cafile ess-mqtt-ca\.pem -h \S+ -p \d+ /);
    await page.getByTestId('secret-ca-download').waitFor();
    if (SCREENSHOTS_ON) await screenshot(page, 'device-secret-zh-1440');
    await page.getByTestId('secret-done').click();
    const row = page.getByTestId('device-table').locator('tr[data-row-key]', { hasText: `EMS-${code}` });
    await row.waitFor();
    await page.getByTestId('secret-dialog').waitFor({ state: 'hidden' });

    // Once closed, the secret is nowhere: not in the page, not kept in the browser's storage.
    const anywhere = () =>
      page.evaluate(
        (s) =>
          [
            document.documentElement.outerHTML,
            JSON.stringify(localStorage),
            JSON.stringify(sessionStorage),
          ].some((text) => text.includes(s)),
        secret,
      );
    expect(await anywhere()).toBe(false);
    // Opening the device again shows its settings, not its secret (only a reset issues a new one).
    const id = await row.getAttribute('data-row-key');
    await page.getByTestId(`device-edit-${id}`).click();
    await expect.poll(() => page.getByTestId('device-sn').inputValue()).toBe(`EMS-${code}`);
    expect(await anywhere()).toBe(false);
    expect(await page.getByTestId('secret-dialog').count()).toBe(0);
    await context.close();
  });
});
