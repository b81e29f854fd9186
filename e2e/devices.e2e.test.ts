/**
 * Devices issue in the browser: the dashboard follows the simulated demo fleet live, and an
 * operator registers a site and a gateway in /deviceconfig and sees its MQTT secret once.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSignedIn } from './support/app';
import { launchBrowser, newPage } from './support/browser';

describe('devices and live data', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('the dashboard shows the demo fleet and its values change while the page is open', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/dashboard');
    await page.locator('[data-testid="live-indicator"][data-status="live"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('kpi-sites').innerText(), { timeout: 30_000 }).toContain('4');
    const table = page.getByTestId('site-status-table');
    await table.getByText('在线').first().waitFor({ timeout: 30_000 });
    const first = await table.innerText();
    // The demo sites report every 2 s and the page receives at most one update a second.
    await expect.poll(() => table.innerText(), { timeout: 30_000, interval: 500 }).not.toBe(first);
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
    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    expect(await secret.innerText()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId('secret-command').innerText()).toContain(`-u EMS-${code}`);
    await page.getByTestId('secret-done').click();
    await page.getByTestId('device-table').getByText(`EMS-${code}`).waitFor();
    await context.close();
  });
});
