/**
 * Transparent debugging (issue 15 item 5, `/deviceDebugging`): the administrator opens a
 * session on a demo gateway and
 * - reads the EMS's SOC through a Modbus frame (port `internal`, unit 1, function 04, register 0,
 *   count 1; the simulator's register map stores it in 0.1 %) and sees the decoded register,
 *   which agrees with the SOC the server reports for the site (within a tolerance: it moves);
 * - types a malformed hex frame: the contract's message is at the field and nothing is sent;
 * - sends a write (function 06): a second confirmation is asked; cancelled, nothing is sent;
 *   confirmed, it goes out with `confirmWrite: true` and its answer (here the exception "illegal
 *   data address": register 9999 does not exist, so the demo site is left as it was) is logged;
 * - closes the session.
 * In Chinese at 1440 px and in English at 390 px (no horizontal scrolling).
 */
import { MODBUS_EXCEPTIONS, modbusMessages } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import enUS from '../apps/web/src/shared/i18n/locales/en-US';
import zhCN from '../apps/web/src/shared/i18n/locales/zh-CN';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  chooseOption,
  DESKTOP,
  MOBILE,
  openSignedIn,
  recordCalls,
  SCREENSHOTS_ON,
  screenshot,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

const TEXTS = { zh: zhCN.debugging, en: enUS.debugging } as const;
const GATEWAY_SN = 'EMS-SUZ-C002-01';
const SEND_PATH = '/api-bms/debug/send';

let browser: Browser;
let session: ApiSession;
let gateway: { id: number; siteId: number };

/** The SOC (%) the server reports for the gateway's site now (monitor/siteDetail). */
async function reportedSocPct(): Promise<number> {
  const detail = await api<{ site: { socPct: number | null } }>(
    '/api-bms/monitor/siteDetail',
    { siteId: gateway.siteId },
    { token: session.token },
  );
  expect(detail.code).toBe(0);
  expect(detail.data.site.socPct).not.toBeNull();
  return detail.data.site.socPct!;
}

/** Fills an antd InputNumber by its test id (the id sits on the input or its wrapper). */
async function fillNumber(page: Page, testId: string, value: number): Promise<void> {
  const input = page.locator(`input[data-testid="${testId}"], [data-testid="${testId}"] input`).first();
  await input.fill(String(value));
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
  const list = await api<{ list: { id: number; siteId: number; sn: string }[] }>(
    '/api-bms/device/pageList',
    { pageNum: 1, pageSize: 50, keyword: GATEWAY_SN },
    { token: session.token },
  );
  expect(list.code).toBe(0);
  const found = list.data.list.find((d) => d.sn === GATEWAY_SN);
  expect(found, `demo gateway ${GATEWAY_SN}`).toBeDefined();
  gateway = found!;
});

afterAll(async () => {
  await browser?.close();
});

describe('transparent debugging', () => {
  it.each([
    ['zh', DESKTOP],
    ['en', MOBILE],
  ] as const)(
    '%s: reads SOC through a Modbus frame, refuses malformed hex at the field, confirms a write',
    async (lang, viewport) => {
      const t = TEXTS[lang];
      const { context, page } = await newPage(browser, viewport);
      const sent = recordCalls(page, SEND_PATH);
      await openSignedIn(page, '/deviceDebugging', { lang });

      // The gateway list, then the session view of the demo gateway.
      await page.getByTestId(`debug-open-${gateway.id}`).click();
      await page.waitForURL(`**/deviceDebugging?debug=${gateway.id}`);
      await expect
        .poll(() => page.getByTestId('debug-session-state').getAttribute('data-state'))
        .toBe('open');
      await expect.poll(() => page.getByTestId('debug-session-by').textContent()).toBeTruthy();
      await page.getByTestId('debug-countdown').waitFor();
      expect(Number(await page.getByTestId('debug-countdown').getAttribute('data-left-ms'))).toBeGreaterThan(
        0,
      );

      // Read SOC: internal port, unit 1, function 04, register 0, count 1.
      await chooseOption(page, 'debug-port', t.port.internal);
      await fillNumber(page, 'debug-address', 1);
      await chooseOption(page, 'debug-fn', t.composer.fnName['4']);
      await fillNumber(page, 'debug-register', 0);
      await fillNumber(page, 'debug-count', 1);
      await expect
        .poll(() => page.getByTestId('debug-preview').textContent())
        .toContain('01 04 00 00 00 01 31 CA');
      await page.getByTestId('debug-send').click();
      const read = page.locator('[data-testid^="debug-frame-"][data-write="false"]').filter({
        has: page.getByTestId('debug-frame-registers'),
      });
      await read.first().waitFor();
      const raw = Number(await read.first().getByTestId('debug-register-unsigned').first().textContent());
      const soc = await reportedSocPct();
      // Stored in 0.1 %; the simulated battery moves between the read and the report.
      expect(Math.abs(raw / 10 - soc)).toBeLessThanOrEqual(2);
      expect(await read.first().getByTestId('debug-frame-tx').textContent()).toContain('01 04 00 00 00 01');
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        port: 'internal',
        frame: { kind: 'modbus', request: { fn: 4, address: 1, register: 0, count: 1 } },
        confirmWrite: false,
      });
      if (SCREENSHOTS_ON) await screenshot(page, `${lang}-debugging-read`);

      // Malformed hex: the message at the field, nothing sent.
      await page.getByTestId('debug-mode').getByText(t.composer.hex, { exact: true }).click();
      await page.getByTestId('debug-hex').fill('01 0G 00');
      const hexError = page.locator('[data-field="hex"]');
      await expect
        .poll(() => hexError.textContent())
        .toBe(modbusMessages.hexMalformed[lang].replace('{position}', '5').replace('{char}', 'G'));
      await page.getByTestId('debug-send').click();
      if (SCREENSHOTS_ON) await screenshot(page, `${lang}-debugging-hex-error`);
      // A valid frame sent next is the only new call: the malformed one never left.
      await page.getByTestId('debug-hex').fill('01 04 00 00 00 01 31 CA');
      await expect.poll(() => hexError.count()).toBe(0);
      await page.getByTestId('debug-send').click();
      await expect.poll(() => sent.length).toBe(2);
      expect(sent[1]).toMatchObject({ frame: { kind: 'hex', hex: '01 04 00 00 00 01 31 CA' } });

      // A write asks a second confirmation: cancelled, nothing goes out.
      await page.getByTestId('debug-mode').getByText(t.composer.modbus, { exact: true }).click();
      await chooseOption(page, 'debug-fn', t.composer.fnName['6']);
      await fillNumber(page, 'debug-register', 9999);
      await fillNumber(page, 'debug-value', 1);
      await page.getByTestId('debug-send').click();
      const confirm = page.locator('.ant-modal-confirm').filter({ hasText: t.confirm.title });
      await confirm.waitFor();
      expect(await confirm.textContent()).toContain('9999');
      if (SCREENSHOTS_ON) await screenshot(page, `${lang}-debugging-confirm`);
      await confirm.locator('.ant-modal-confirm-btns .ant-btn:not(.ant-btn-primary)').click();
      await confirm.waitFor({ state: 'detached' });
      expect(sent).toHaveLength(2);
      // Confirmed, it goes out with confirmWrite and the device's answer is logged.
      await page.getByTestId('debug-send').click();
      await confirm.waitFor();
      await confirm.locator('.ant-modal-confirm-btns .ant-btn-primary').click();
      await expect.poll(() => sent.length).toBe(3);
      expect(sent[2]).toMatchObject({
        frame: { kind: 'modbus', request: { fn: 6, register: 9999, value: 1 } },
        confirmWrite: true,
      });
      const write = page.locator('[data-testid^="debug-frame-"][data-write="true"]').first();
      await expect
        .poll(() => write.getByTestId('debug-frame-exception').textContent())
        .toContain(MODBUS_EXCEPTIONS[2]![lang]);

      if (viewport === MOBILE) {
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      }
      if (SCREENSHOTS_ON) await screenshot(page, `${lang}-debugging-session`);

      // Closing ends the session (the server answers 3044 to its frames afterwards).
      await page.getByTestId('debug-close').click();
      await expect
        .poll(() => page.getByTestId('debug-session-state').getAttribute('data-state'))
        .toBe('ended');
      await page.getByTestId('debug-reopen').waitFor();
      await context.close();
    },
    90_000,
  );
});
