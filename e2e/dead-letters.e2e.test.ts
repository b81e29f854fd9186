/**
 * Monitoring → Dead letters (issue 13): a gateway publishes two readings whose rollup overflows
 * over MQTT to the server's embedded broker; the second is refused by the database and becomes a
 * dead letter. The administrator finds it by the gateway's SN — time with its site's zone named,
 * kind, error and SQLSTATE — and expands the row to read the message; in Chinese and English, at
 * 390 px without horizontal scrolling.
 */
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type ApiSession, api, apiSignIn, MOBILE, openSignedIn, screenshot } from './support/app';
import { launchBrowser, newPage } from './support/browser';

describe('dead letters', () => {
  let browser: Browser;
  let session: ApiSession;
  const code = `DL-${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const gatewaySn = `EMS-${code}`;
  let siteId: number | undefined;
  let gatewayId: number | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    session = await apiSignIn(ADMIN.account, ADMIN.password);
    const { token } = session;
    const site = await api<{ id: number }>(
      '/api-bms/site/save',
      { code, name: `死信测试站 ${code}` },
      { token },
    );
    expect(site.code).toBe(0);
    siteId = site.data.id;
    const saved = await api<{ id: number; secret: { sn: string; secret: string; mqttPort: number } }>(
      '/api-bms/device/save',
      { siteId, sn: gatewaySn, type: 'ems' },
      { token },
    );
    expect(saved.code).toBe(0);
    gatewayId = saved.data.id;
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${saved.data.secret.mqttPort}`, {
      username: gatewaySn,
      password: saved.data.secret.secret,
      clientId: gatewaySn,
    });
    const ts = Date.now() - 60_000;
    for (const [i, id] of ['huge-1', 'huge-2'].entries()) {
      const message = {
        v: 1,
        id,
        ts: ts + i * 1000,
        devices: [{ sn: gatewaySn, type: 'ems', points: { big_x: 1.7e308 } }],
      };
      // Acknowledged once settled: stored (the first) or dead-lettered (the second).
      await client.publishAsync(`ess/v1/${gatewaySn}/telemetry`, JSON.stringify(message), { qos: 1 });
    }
    await client.endAsync();
  });

  afterAll(async () => {
    const token = session?.token;
    if (gatewayId) await api('/api-bms/device/delete', { id: gatewayId }, { token });
    if (siteId) await api('/api-bms/site/delete', { id: siteId }, { token });
    await browser?.close();
  });

  it.each(['zh', 'en'] as const)(
    '%s: the refused reading is listed with its error and message',
    async (lang) => {
      const { context, page } = await newPage(browser, MOBILE);
      await openSignedIn(page, '/deadLetter', { lang });
      await page.getByTestId('dead-letter-page').waitFor();
      await page.getByTestId('dead-letter-filter-keyword').locator('input').fill(gatewaySn);
      await page.getByTestId('dead-letter-filter-keyword').locator('input').press('Enter');
      const row = page.getByTestId('dead-letter-table').locator('tr', { hasText: gatewaySn });
      await expect.poll(() => row.count()).toBe(1);
      const text = await row.innerText();
      expect(text).toContain('Asia/Shanghai');
      expect(text).toContain('SQLSTATE 22003');
      expect(text).toContain(lang === 'zh' ? '遥测' : 'Telemetry');
      await row.getByRole('button').first().click();
      const payload = page.locator('[data-testid^="dead-letter-payload-"]');
      await payload.waitFor();
      expect(await payload.innerText()).toContain('"id": "huge-2"');
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      await screenshot(page, `dead-letters-${lang}-390`);
      await context.close();
    },
  );
});
