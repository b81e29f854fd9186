/**
 * Alarms in the browser: a gateway registered through the API publishes an
 * alarm over MQTT to the server's embedded broker while /alarm is open; the active list shows
 * it without a reload (live), level and translated alarm type; the operator acknowledges it after
 * the confirmation and sees who and when; the history shows the EMS coming online and the alarm
 * raised, then cleared; English after the language switch. The mail outbox keeps the alarm mail
 * to the subscribed administrator (no SMTP in the tests) with the alarm's text.
 */
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  DESKTOP,
  MOBILE,
  openSignedIn,
  screenshot,
  switchLanguageReloaded,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

interface Secret {
  id: number;
  sn: string;
  secret: string;
  mqttPort: number;
}

describe('alarms', () => {
  let browser: Browser;
  let session: ApiSession;
  let gateway: Secret;
  let client: mqtt.MqttClient;
  let savedEmail: { email: string | null; isSubAlarm: 'Y' | 'N' };
  const code = `ALM-${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const content = `Cell 12 at 3.66 V ${code}`;
  let msg = 0;
  /** The test's own site: deleted afterwards so later files see only the demo fleet. */
  let siteId: number | undefined;

  const publishEvent = async (kind: 'produce' | 'disappear', text: string) => {
    const payload = {
      v: 1,
      id: `e-${++msg}`,
      ts: Date.now(),
      events: [
        {
          deviceSn: gateway.sn,
          kind,
          code: 'bms.cell_overvoltage',
          level: 'fault',
          content: text,
          value: 3.66,
        },
      ],
    };
    await client.publishAsync(`ess/v1/${gateway.sn}/event`, JSON.stringify(payload), { qos: 1 });
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    session = await apiSignIn(ADMIN.account, ADMIN.password);
    const token = session.token;
    const current = await api<{ email: string | null; isSubAlarm: 'Y' | 'N' }>(
      '/api-bms/employee/getEmail',
      {},
      { token },
    );
    savedEmail = current.data;
    // The administrator subscribes (in English) so that the alarm is mailed to the outbox.
    const sub = await api(
      '/api-bms/employee/updateEmail',
      { email: 'ops-e2e@example.com', isSubAlarm: 'Y' },
      { token, lang: 'en-US' },
    );
    expect(sub.code).toBe(0);
    const site = await api<{ id: number }>(
      '/api-bms/site/save',
      { code, name: `告警测试站 ${code}` },
      { token },
    );
    expect(site.code).toBe(0);
    siteId = site.data.id;
    const saved = await api<{ id: number; secret: Secret }>(
      '/api-bms/device/save',
      { siteId: site.data.id, sn: `EMS-${code}`, type: 'ems' },
      { token },
    );
    expect(saved.code).toBe(0);
    gateway = { ...saved.data.secret, id: saved.data.id };
    client = await mqtt.connectAsync(`mqtt://127.0.0.1:${gateway.mqttPort}`, {
      username: gateway.sn,
      password: gateway.secret,
      clientId: gateway.sn,
    });
    await client.publishAsync(
      `ess/v1/${gateway.sn}/status`,
      JSON.stringify({ v: 1, ts: Date.now(), online: true, firmware: 'EMS-e2e', model: 'e2e' }),
      { qos: 1, retain: true },
    );
  });

  afterAll(async () => {
    await client?.endAsync();
    if (session && gateway) await api('/api-bms/device/delete', { id: gateway.id }, { token: session.token });
    if (session && siteId) await api('/api-bms/site/delete', { id: siteId }, { token: session.token });
    if (savedEmail?.email) {
      await api(
        '/api-bms/employee/updateEmail',
        { email: savedEmail.email, isSubAlarm: savedEmail.isSubAlarm },
        { token: session.token },
      );
    } else if (session) {
      await api(
        '/api-bms/employee/updateEmail',
        { email: 'admin@example.com', isSubAlarm: 'N' },
        { token: session.token },
      );
    }
    await browser?.close();
  });

  it('a new alarm appears live, is acknowledged with who and when, and reads in English', async () => {
    const { context, page } = await newPage(browser, DESKTOP);
    await openSignedIn(page, '/alarm');
    const table = page.getByTestId('alarm-table-active');
    await table.waitFor();
    await publishEvent('produce', content);
    const row = table.locator('tr', { hasText: content });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.innerText()).toContain('电芯过压');
    expect(await row.locator('[data-level="fault"]').innerText()).toBe('故障');
    expect(await row.innerText()).toContain(gateway.sn);

    const listed = await api<{ list: { id: number }[] }>(
      '/api-bms/alarm/activeList',
      { keyword: code },
      { token: session.token },
    );
    const id = listed.data.list[0]!.id;
    await row.getByTestId(`alarm-ack-${id}`).click();
    // antd spaces two-character Chinese button texts ("确 认"): the confirm's primary button.
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    const info = page.getByTestId(`alarm-ackinfo-${id}`);
    await info.waitFor();
    expect(await info.innerText()).toMatch(/admin[\s\S]*\d{4}/);
    await expect.poll(() => page.getByTestId(`alarm-ack-${id}`).count()).toBe(0);
    await screenshot(page, 'alarms-active-zh-1440');

    // The switch reloads the page in the new language (spec §4).
    await switchLanguageReloaded(page, 'en');
    await page.getByText('Active alarms').first().waitFor();
    await table.locator('tr', { hasText: content }).waitFor();
    const en = await table.locator('tr', { hasText: content }).innerText();
    expect(en).toContain('Cell overvoltage');
    expect(en).toContain('Fault');
    await screenshot(page, 'alarms-active-en-1440');

    await page.getByTestId('alarm-tab-history').click();
    const history = page.getByTestId('alarm-table-history');
    await history.locator('tr', { hasText: content }).first().waitFor();
    expect(await history.locator('tr', { hasText: content }).first().innerText()).toContain('Raised');
    await history.locator('tr', { hasText: gateway.sn }).filter({ hasText: 'Online' }).first().waitFor();
    await screenshot(page, 'alarms-history-en-1440');

    // Cleared by the device: gone from the active list, "Cleared" in the history.
    await publishEvent('disappear', `Cell 12 back at 3.58 V ${code}`);
    await expect
      .poll(
        async () =>
          (
            await api<{ total: number }>(
              '/api-bms/alarm/historyList',
              { keyword: `back at 3.58 V ${code}` },
              { token: session.token },
            )
          ).data.total,
        { timeout: 15_000 },
      )
      .toBe(1);
    await page.getByTestId('alarm-refresh').click();
    await history
      .locator('tr', { hasText: `back at 3.58 V ${code}` })
      .first()
      .waitFor({ timeout: 15_000 });
    expect(
      await history
        .locator('tr', { hasText: `back at 3.58 V ${code}` })
        .first()
        .innerText(),
    ).toContain('Cleared');
    await page.getByTestId('alarm-tab-active').click();
    await expect.poll(() => table.locator('tr', { hasText: content }).count(), { timeout: 15_000 }).toBe(0);
    await context.close();
  });

  it('the outbox keeps the alarm mail to the subscriber, with its text', async () => {
    const { context, page } = await newPage(browser, MOBILE);
    await openSignedIn(page, '/mailOutbox', { lang: 'en' });
    await page.getByTestId('outbox-smtp-off').waitFor();
    await page.getByTestId('outbox-filter-keyword').locator('input').fill('ops-e2e@example.com');
    await page.getByTestId('outbox-filter-keyword').locator('input').press('Enter');
    const table = page.getByTestId('outbox-table');
    // The job gathers alarms for 10 s before it writes the mail.
    await expect
      .poll(
        async () => {
          await page.getByTestId('outbox-refresh').click();
          return table.locator('tr', { hasText: 'ops-e2e@example.com' }).count();
        },
        { timeout: 45_000, interval: 3_000 },
      )
      .toBeGreaterThan(0);
    const row = table.locator('tr', { hasText: 'ops-e2e@example.com' }).first();
    expect(await row.innerText()).toContain('Queued');
    await row.getByRole('button', { name: 'View' }).click();
    const body = page.getByTestId('outbox-mail-body');
    await body.waitFor();
    expect(await body.innerText()).toContain(content);
    await screenshot(page, 'outbox-mail-en-390');
    await context.close();
  });
});
