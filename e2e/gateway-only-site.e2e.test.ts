/**
 * A gateway-only site in the browser (issue 14, items 4 and 6), as the operator did it: a site
 * and its gateway registered through the API, the gateway connected with an MQTT client and
 * reporting its own points as README's "Connect a device" example does (an EMS entry with
 * `soc_pct`), then site monitoring opened. The site list shows its SOC, the site shows it in its
 * figures and the gateway's own points on an EMS panel (not "no devices"), each point labelled in
 * Chinese and, after the language switch, in English — `load_kw` and `pv_kw` included.
 * Screenshots of this site and of a demo site at 1440 and 390 px in both languages with
 * E2E_SCREENSHOTS=1.
 */
import { endpoints, type SiteMonitorList } from '@ess/contract';
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

interface Secret {
  sn: string;
  secret: string;
  mqttPort: number;
}

describe('a gateway-only site', () => {
  let browser: Browser;
  let session: ApiSession;
  let client: mqtt.MqttClient;
  let gateway: Secret & { id: number };
  let siteId: number | undefined;
  let msg = 0;
  const code = `GWO-${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const name = `网关直报站 ${code}`;

  /** The gateway reports its own points (QoS 1: acknowledged once stored). */
  const report = (points: Record<string, number>) =>
    client.publishAsync(
      `ess/v1/${gateway.sn}/telemetry`,
      JSON.stringify({
        v: 1,
        id: String(++msg),
        ts: Date.now(),
        devices: [{ sn: gateway.sn, type: 'ems', points }],
      }),
      { qos: 1 },
    );

  beforeAll(async () => {
    browser = await launchBrowser();
    session = await apiSignIn(ADMIN.account, ADMIN.password);
    const site = await api<{ id: number }>(
      endpoints.site.save.path,
      { code, name },
      { token: session.token },
    );
    expect(site.code, site.msg).toBe(0);
    siteId = site.data.id;
    const saved = await api<{ id: number; secret: Secret }>(
      endpoints.device.save.path,
      { siteId, sn: `EMS-${code}`, type: 'ems' },
      { token: session.token },
    );
    expect(saved.code, saved.msg).toBe(0);
    gateway = { ...saved.data.secret, id: saved.data.id };
    client = await mqtt.connectAsync(`mqtt://127.0.0.1:${gateway.mqttPort}`, {
      clientId: gateway.sn,
      username: gateway.sn,
      password: gateway.secret,
    });
    // README "Connect a device": a retained birth, then the EMS's own SOC.
    await client.publishAsync(
      `ess/v1/${gateway.sn}/status`,
      JSON.stringify({ v: 1, ts: Date.now(), online: true }),
      { qos: 1, retain: true },
    );
    await report({ soc_pct: 57 });
  });

  afterAll(async () => {
    await client?.endAsync();
    if (session && gateway) {
      await api(endpoints.device.delete.path, { id: gateway.id }, { token: session.token });
    }
    if (session && siteId) await api(endpoints.site.delete.path, { id: siteId }, { token: session.token });
    await browser?.close();
  });

  /** Opens site monitoring and drills into the gateway-only site. */
  async function openSite(page: Page, lang: 'zh' | 'en' = 'zh') {
    await openSignedIn(page, '/zdjkshow', { lang });
    const row = page.getByTestId(`monitor-site-${siteId}`);
    await row.waitFor({ timeout: 30_000 });
    await row.getByRole('button', { name }).click();
    await expect
      .poll(() => page.getByTestId('monitor-site-detail').getAttribute('data-site-id'))
      .toBe(String(siteId));
    const panel = page.getByTestId(`panel-ems-${gateway.id}`);
    await panel.waitFor();
    return panel;
  }

  it('shows the SOC the gateway reported in the list and the site, and the gateway on an EMS panel', async () => {
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/zdjkshow');
    const row = page.getByTestId(`monitor-site-${siteId}`);
    await row.waitFor({ timeout: 30_000 });
    // The SOC column of the list (3rd cell).
    await expect
      .poll(() => row.locator('td').nth(2).innerText(), { timeout: 30_000 })
      .toMatch(/^57(\.0)? %$/);

    await row.getByRole('button', { name }).click();
    const detail = page.getByTestId('monitor-site-detail');
    await detail.waitFor();
    await expect.poll(() => page.getByTestId('site-figure-soc').innerText()).toMatch(/57(\.0)? %$/);
    const panel = page.getByTestId(`panel-ems-${gateway.id}`);
    await panel.waitFor();
    expect(await panel.innerText()).toContain(gateway.sn);
    expect(await panel.getByTestId('reading-soc_pct').innerText()).toMatch(/^系统SOC\s+57(\.0)? %$/);
    expect(await detail.getByText('该站点暂无设备').count()).toBe(0);

    // Its site load and PV power arrive live, labelled (not their raw keys).
    await report({ soc_pct: 56.5, load_kw: 12.3, pv_kw: 4.5 });
    await expect
      .poll(() => panel.getByTestId('reading-load_kw').innerText(), { timeout: 30_000 })
      .toMatch(/^负荷功率\s+12\.3 kW$/);
    expect(await panel.getByTestId('reading-pv_kw').innerText()).toMatch(/^光伏功率\s+4\.5 kW$/);
    expect(await panel.innerText()).not.toMatch(/load_kw|pv_kw|soc_pct/);
    await expect.poll(() => page.getByTestId('site-figure-soc').innerText()).toMatch(/56\.5 %$/);
    if (SCREENSHOTS_ON) await screenshot(page, 'gateway-only-site-zh-1440');
    await context.close();
  });

  it('reads in English: the EMS panel labels its points', async () => {
    await report({ soc_pct: 56.5, load_kw: 12.3, pv_kw: 4.5 });
    const { context, page } = await newPage(browser, DESKTOP);
    const panel = await openSite(page, 'en');
    await expect.poll(() => panel.getByTestId('reading-soc_pct').innerText()).toMatch(/^System SOC\s+\d/);
    expect(await panel.getByTestId('reading-load_kw').innerText()).toMatch(/^Load power\s+[\d.]+ kW$/);
    expect(await panel.getByTestId('reading-pv_kw').innerText()).toMatch(/^PV power\s+[\d.]+ kW$/);
    expect(await page.getByTestId('site-figure-soc').innerText()).toMatch(/\d+\.\d %/);
    if (SCREENSHOTS_ON) await screenshot(page, 'gateway-only-site-en-1440');
    await context.close();
  });

  it.runIf(SCREENSHOTS_ON)(
    'screenshots: this site at 390 px, a demo site at 1440 and 390 px',
    async () => {
      for (const lang of ['zh', 'en'] as const) {
        const { context, page } = await newPage(browser, MOBILE);
        const panel = await openSite(page, lang);
        await screenshot(page, `gateway-only-site-${lang}-390`);
        await panel.scrollIntoViewIfNeeded();
        await screenshot(page, `gateway-only-site-${lang}-390-panel`);
        await context.close();
      }
      const list = await api<SiteMonitorList>(endpoints.siteMonitor.sites.path, {}, { token: session.token });
      const demo = list.data.sites.find((s) => s.code.startsWith('SHA-')) ?? list.data.sites[0]!;
      for (const [viewport, size] of [
        [DESKTOP, 1440],
        [MOBILE, 390],
      ] as const) {
        for (const lang of ['zh', 'en'] as const) {
          const { context, page } = await newPage(browser, viewport);
          await openSignedIn(page, '/zdjkshow', { lang });
          const row = page.getByTestId(`monitor-site-${demo.siteId}`);
          await row.waitFor({ timeout: 30_000 });
          await row.getByRole('button', { name: demo.name }).click();
          await expect
            .poll(() => page.getByTestId('monitor-site-detail').getAttribute('data-site-id'))
            .toBe(String(demo.siteId));
          const ems = page.locator('[data-testid^="panel-ems-"]').first();
          await ems.getByTestId('reading-load_kw').waitFor({ timeout: 30_000 });
          await screenshot(page, `demo-site-${lang}-${size}`);
          await ems.scrollIntoViewIfNeeded();
          await screenshot(page, `demo-site-${lang}-${size}-ems`);
          await context.close();
        }
      }
    },
    240_000,
  );
});
