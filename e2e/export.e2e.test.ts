/**
 * Data export in the browser (spec §5, §9): the form shows each rule's message —
 * a missing prerequisite, start and end more than 7 days apart, more than 10 entries, no data
 * selected — and a valid export of the demo site SHA-C001 downloads an xlsx whose name says what
 * and when and whose sheet holds the PCS's points.
 */
import { EXPORT_MAX_ENTRIES, type ExportSite, endpoints } from '@ess/contract';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  api,
  apiSignIn,
  chooseOption,
  MOBILE,
  openSignedIn,
  SCREENSHOTS_ON,
  screenshot,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** The demo agent running SHA-C001 (apps/server/src/demo/demo-fleet.ts). */
const AGENT = '华东储能运营有限公司';

/** The help text under a field of the form. */
function helpOf(page: Page, testId: string) {
  return page
    .locator('.ant-form-item')
    .filter({ has: page.getByTestId(testId) })
    .locator('.ant-form-item-explain');
}

/** YYYY-MM-DD of `ms` in Asia/Shanghai. */
function shanghaiDay(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 10);
}

/** "YYYY-MM-DD HH:mm" of `ms` in the browser's zone (the test machine's, as the page uses). */
function local(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

describe('data export', () => {
  let browser: Browser;
  /** A site of the demo agent with one EMS and 10 meters: 11 devices, one over the limit. */
  let bigSite: string;
  /** The test's own site and devices (meters first, then the EMS): deleted afterwards. */
  const created: { token: string; deviceIds: number[]; siteId?: number } = { token: '', deviceIds: [] };

  beforeAll(async () => {
    browser = await launchBrowser();
    const { token } = await apiSignIn(ADMIN.account, ADMIN.password);
    created.token = token;
    const companies = await api<{ list: { id: number; name: string; type: string }[] }>(
      endpoints.company.options.path,
      {},
      { token },
    );
    const agent = companies.data.list.find((c) => c.name === AGENT && c.type === 'agent');
    expect(agent, 'the demo agent exists').toBeDefined();
    bigSite = `E2E-EXP-${Date.now().toString(36).slice(-5).toUpperCase()}`;
    const saved = await api<{ id: number }>(
      endpoints.site.save.path,
      { code: bigSite, name: '导出测试站', companyId: agent!.id },
      { token },
    );
    expect(saved.code, saved.msg).toBe(0);
    const sites = await api<{ list: ExportSite[] }>(
      '/api-bms/export/sites',
      { agentId: agent!.id },
      { token },
    );
    const siteId = sites.data.list.find((s) => s.code === bigSite)!.id;
    created.siteId = siteId;
    const ems = await api<{ id: number }>(
      endpoints.device.save.path,
      { siteId, sn: `${bigSite}-EMS`, type: 'ems' },
      { token },
    );
    expect(ems.code, ems.msg).toBe(0);
    created.deviceIds.push(ems.data.id);
    for (let i = 0; i < EXPORT_MAX_ENTRIES; i += 1) {
      const meter = await api<{ id: number }>(
        endpoints.device.save.path,
        { siteId, sn: `${bigSite}-M${i}`, type: 'meter', gatewayId: ems.data.id },
        { token },
      );
      expect(meter.code, meter.msg).toBe(0);
      created.deviceIds.unshift(meter.data.id);
    }
  });
  afterAll(async () => {
    for (const id of created.deviceIds)
      await api(endpoints.device.delete.path, { id }, { token: created.token });
    if (created.siteId)
      await api(endpoints.site.delete.path, { id: created.siteId }, { token: created.token });
    await browser?.close();
  });

  it('each rule is said at its field; a valid export downloads <site>_raw_<first day>_<last day>.xlsx', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/export');
    await page.getByTestId('export-page').waitFor();

    // Prerequisites: the first waiting field names the missing one; Export names it at its field.
    await expect.poll(() => helpOf(page, 'export-time').innerText()).toBe('请先选择代理商');
    await page.getByTestId('export-submit').click();
    await expect.poll(() => helpOf(page, 'export-agent').innerText()).toBe('请先选择代理商');
    await page.locator('.ant-message').getByText('请先选择代理商').waitFor();

    await chooseOption(page, 'export-agent', AGENT);
    await expect.poll(() => helpOf(page, 'export-site').innerText()).toBe('请先选择时间');

    // More than 7 days apart.
    const now = Date.now();
    const inputs = page.getByTestId('export-time').locator('input');
    await inputs.nth(0).click();
    await inputs.nth(0).fill(local(now - 9 * 86_400_000));
    await inputs.nth(0).press('Enter');
    await inputs.nth(1).fill(local(now - 3_600_000));
    await inputs.nth(1).press('Enter');
    await expect
      .poll(() => helpOf(page, 'export-time').innerText())
      .toBe('开始时间和结束时间相差不能超过7天');
    await page.getByTestId('export-submit').click();
    await page.locator('.ant-message').getByText('开始时间和结束时间相差不能超过7天').waitFor();

    // A valid range: the last 7 days.
    await inputs.nth(0).click();
    await page.locator('.ant-picker-presets').getByText('最近7天').click();
    await expect.poll(() => helpOf(page, 'export-type').innerText()).toBe('请先选择站点再操作');

    // More than 10 entries.
    await chooseOption(page, 'export-site', bigSite);
    await page.getByTestId('export-type').getByText('原始数据').click();
    const devices = page.getByTestId('export-devices');
    await devices.click();
    for (const sn of [
      `${bigSite}-EMS`,
      ...Array.from({ length: EXPORT_MAX_ENTRIES }, (_, i) => `${bigSite}-M${i}`),
    ]) {
      await page
        .locator('.ant-select-dropdown:visible .ant-select-item-option')
        .filter({ hasText: sn })
        .click();
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => helpOf(page, 'export-devices').innerText()).toBe('最多只能导出10条');
    await page.getByTestId('export-submit').click();
    await page.locator('.ant-message').getByText('最多只能导出10条').waitFor();

    // Data to export must be selected.
    await chooseOption(page, 'export-site', 'SHA-C001');
    await expect.poll(() => helpOf(page, 'export-items').innerText()).toBe('请先选择储能设备');
    await chooseOption(page, 'export-devices', 'PCS', { multiple: true });
    await page.keyboard.press('Escape');
    await page.getByTestId('export-submit').click();
    await expect.poll(() => helpOf(page, 'export-items').innerText()).toBe('请选择要导出的数据');

    // A valid export.
    await page.getByTestId('export-items-all').click();
    const downloading = page.waitForEvent('download');
    await page.getByTestId('export-submit').click();
    const download = await downloading;
    const name = download.suggestedFilename();
    const end = Date.now();
    expect(name).toMatch(/^SHA-C001_raw_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.xlsx$/);
    expect([shanghaiDay(now), shanghaiDay(end)]).toContain(name.slice(-15, -5));
    expect([shanghaiDay(now - 7 * 86_400_000), shanghaiDay(end - 7 * 86_400_000)]).toContain(
      name.slice('SHA-C001_raw_'.length, 'SHA-C001_raw_'.length + 10),
    );
    await expect.poll(() => page.getByTestId('export-done').innerText()).toContain(name);
    if (SCREENSHOTS_ON) await screenshot(page, 'export-zh-1440');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile((await download.path())!);
    const sheet = workbook.worksheets[1]!;
    expect(sheet.name).toMatch(/^PCS-/);
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header[0]).toBe('时间 (Asia/Shanghai)');
    expect(header).toContain('有功功率 (kW)');
    // The demo fleet has been reporting since the server started.
    expect(sheet.actualRowCount).toBeGreaterThan(1);
    await context.close();
  }, 240_000);

  it('in English the rules read in English', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/export', { lang: 'en' });
    await page.getByTestId('export-page').waitFor();
    await expect.poll(() => helpOf(page, 'export-time').innerText()).toBe('Please choose the agent first');
    await chooseOption(page, 'export-agent', AGENT);
    await page.getByTestId('export-time').locator('input').nth(0).click();
    await page.locator('.ant-picker-presets').getByText('Last 7 days').click();
    await expect
      .poll(() => helpOf(page, 'export-type').innerText())
      .toBe('A site must be selected for actions');
    await page.getByTestId('export-submit').click();
    await page.locator('.ant-message').getByText('A site must be selected for actions').waitFor();
    if (SCREENSHOTS_ON) await screenshot(page, 'export-en-1440');
    await context.close();
  }, 120_000);

  it.runIf(SCREENSHOTS_ON)(
    'pictures at 390 px in zh and en',
    async () => {
      for (const lang of ['zh', 'en'] as const) {
        const { context, page } = await newPage(browser, MOBILE);
        await openSignedIn(page, '/export', { lang });
        await page.getByTestId('export-page').waitFor();
        // The first waiting field says what is missing; Export says it at the agent field.
        await page.getByTestId('export-submit').click();
        await screenshot(page, `export-${lang}-390`);
        await context.close();
      }
    },
    120_000,
  );
});
