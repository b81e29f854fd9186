/**
 * Issue 15 item 4 in the browser: the administrator opens Parameter configuration from the menu,
 * picks the air conditioner of a demo site, changes its cooling start value, confirms the change
 * (the dialog lists it old → new with the unit) and sees it applied by the simulated cabinet —
 * the key's state, what the device runs, the history row — and the cabinet's own telemetry
 * follow. A value out of the spec's range shows the spec's message at the field and sends
 * nothing. The simulated EMS answers set_params with the contract's validator (apps/simulator).
 * Screenshots at 1440 and 390 px (looked at, not compared).
 */
import { endpoints, type ParamsDeviceResponse, type ParamsTreeSite, type RealtimeData } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  MOBILE,
  openSignedIn,
  recordCalls,
  screenshot,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** The device's answer and the delivery round trip on a busy machine. */
const APPLIED_WAIT_MS = 30_000;

let browser: Browser;
let session: ApiSession;
/** The demo air conditioner used, its site and its cooling start before the test. */
let ac: { deviceId: number; sn: string; siteId: number };
let before: number | null = null;

const call = <T>(path: string, body: object) =>
  api<T>(
    path,
    { userInfo: { userId: session.userId, companyId: session.companyId }, ...body },
    { token: session.token },
  );

async function detail(): Promise<ParamsDeviceResponse> {
  const res = await call<ParamsDeviceResponse>(endpoints.params.detail.path, { deviceId: ac.deviceId });
  expect(res.code, res.msg).toBe(0);
  return res.data;
}

const coolingStart = (d: ParamsDeviceResponse) => d.params.find((r) => r.key === 'cooling_start_c')!;

/** Fills a number field as a person types: select what is there, type the new text, leave it. */
async function typeInto(page: Page, key: string, text: string): Promise<void> {
  const input = page.getByTestId(`param-input-${key}`);
  await input.click();
  await input.press('ControlOrMeta+a');
  await input.pressSequentially(text);
  await input.press('Tab');
}

/** Opens the screen through the sidebar (Devices → Parameter configuration) and picks the AC. */
async function openAc(page: Page, lang: 'zh' | 'en', mobile = false): Promise<void> {
  await openSignedIn(page, '/dashboard', { lang });
  const names = lang === 'zh' ? ['设备管理', '参数配置'] : ['Devices', 'Parameter configuration'];
  if (mobile) await page.getByTestId('hamburger').click();
  const sidebar = page.getByTestId('sidebar');
  await sidebar.getByText(names[0]!, { exact: true }).click();
  await sidebar.getByText(names[1]!, { exact: true }).click();
  await page.waitForURL('**/paramsconfig');
  await page.getByTestId('paramsconfig').waitFor();
  if (mobile)
    await page
      .getByTestId('sidebar-backdrop')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
  await page.getByTestId(`params-tree-device-${ac.deviceId}`).click();
  const panel = page.getByTestId('params-device');
  await expect.poll(() => panel.getAttribute('data-device-id')).toBe(String(ac.deviceId));
  await page.getByTestId('param-row-cooling_start_c').waitFor();
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
  // The demo fleet registers its sites at start; its air conditioners are in the tree once their
  // gateways have connected.
  let sites: ParamsTreeSite[] = [];
  const hasAc = () => sites.some((s) => s.devices.some((d) => d.type === 'air_conditioner' && d.online));
  for (const deadline = Date.now() + 60_000; !hasAc(); ) {
    if (Date.now() > deadline) throw new Error('no online demo air conditioner in params/tree within 60 s');
    const res = await call<{ sites: ParamsTreeSite[] }>(endpoints.params.tree.path, {});
    sites = res.data?.sites ?? [];
    if (!hasAc()) await new Promise((r) => setTimeout(r, 500));
  }
  const site = sites.find((s) => s.devices.some((d) => d.type === 'air_conditioner' && d.online))!;
  const device = site.devices.find((d) => d.type === 'air_conditioner' && d.online)!;
  ac = { deviceId: device.deviceId, sn: device.sn, siteId: site.siteId };
  const row = coolingStart(await detail());
  before = (row.desired ?? row.reported) as number | null;
});

afterAll(async () => {
  // Leave the demo cabinet as it was for the files that follow.
  if (session && ac && typeof before === 'number') {
    await call(endpoints.params.set.path, { deviceId: ac.deviceId, values: { cooling_start_c: before } });
  }
  await browser?.close();
});

describe('parameter configuration', () => {
  it('a cooling start of 45 °C shows the spec’s message at the field and sends nothing', async () => {
    const { page, context } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'params-range-failed'));
    const sets = recordCalls(page, endpoints.params.set.path);
    await openAc(page, 'zh');

    await typeInto(page, 'cooling_start_c', '45');
    const error = page.getByTestId('param-error-cooling_start_c');
    await expect.poll(() => error.innerText()).toBe('制冷开启温度应在25.0到40.0之间');
    expect(await page.getByTestId('param-row-cooling_start_c').getAttribute('data-edited')).toBe('true');
    expect(await page.getByTestId('params-send').isDisabled()).toBe(true);
    await page.getByTestId('params-blocked').waitFor();
    await screenshot(page, 'params-zh-desktop-range');

    // The same in English, on a phone.
    const phone = await newPage(browser, MOBILE);
    await openAc(phone.page, 'en', true);
    await typeInto(phone.page, 'cooling_start_c', '24.9');
    await expect
      .poll(() => phone.page.getByTestId('param-error-cooling_start_c').innerText())
      .toBe('Cooling start temperature must be between 25.0 and 40.0');
    expect(await phone.page.getByTestId('params-send').isDisabled()).toBe(true);
    const { scrollWidth, innerWidth } = await phone.page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    await screenshot(phone.page, 'params-en-mobile-range');
    await phone.context.close();

    expect(sets).toEqual([]);
    expect(coolingStart(await detail()).desired ?? coolingStart(await detail()).reported).toBe(before);
    await context.close();
  }, 120_000);

  it('changes the cooling start of a demo cabinet, confirms, and sees it applied and followed', async () => {
    const { page, context } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'params-apply-failed'));
    await openAc(page, 'zh');
    const target = before === 30 ? 31 : 30;

    await typeInto(page, 'cooling_start_c', String(target));
    await expect.poll(() => page.getByTestId('params-change-count').getAttribute('data-count')).toBe('1');
    expect(await page.getByTestId('param-error-cooling_start_c').count()).toBe(0);
    await page.getByTestId('params-send').click();
    const row = page.getByTestId('params-confirm-row-cooling_start_c');
    await row.waitFor();
    expect((await row.innerText()).replace(/\s+/g, ' ')).toBe(
      `制冷开启温度 ${before === null ? '—' : `${before.toFixed(1)} °C`} ${target.toFixed(1)} °C`,
    );
    expect(await page.getByTestId('params-confirm').locator('li').count()).toBe(1);
    await screenshot(page, 'params-zh-desktop-confirm');
    await page.getByTestId('params-confirm-ok').click();

    // The simulated cabinet answers: applied, and what it runs is the new value.
    const state = page.getByTestId('param-state-cooling_start_c');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: APPLIED_WAIT_MS }).toBe('applied');
    expect(await state.innerText()).toMatch(/^已生效\s+(\d{2}:\d{2}:\d{2}|\d{2}\/\d{2} \d{2}:\d{2})$/);
    await expect
      .poll(() => page.getByTestId('param-reported-cooling_start_c').innerText())
      .toContain(`${target.toFixed(1)} °C`);
    expect(await page.getByTestId('params-change-count').getAttribute('data-count')).toBe('0');
    await screenshot(page, 'params-zh-desktop-applied');

    // The history says who changed what, and the device's answer.
    await page.getByRole('tab', { name: '修改记录' }).click();
    const history = page.getByTestId('params-history');
    const first = history.locator('tbody tr.ant-table-row').first();
    await expect.poll(() => first.innerText(), { timeout: APPLIED_WAIT_MS }).toContain('已生效');
    const text = (await first.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('制冷开启温度');
    expect(text).toContain(`→ ${target.toFixed(1)} °C`);
    expect(text).toContain('人工修改');
    await screenshot(page, 'params-zh-desktop-history');

    // The cabinet runs it: its reported cooling start point follows.
    await expect
      .poll(
        async () => {
          const res = await call<RealtimeData>(endpoints.monitor.realtime.path, { deviceId: ac.deviceId });
          return res.data?.points.find((p) => p.name === 'cooling_start_c')?.value;
        },
        { timeout: APPLIED_WAIT_MS },
      )
      .toBe(target);
    await context.close();
  }, 120_000);
});
