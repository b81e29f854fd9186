/**
 * Screenshots for a person to look at (not assertions): every screen of issue 2 and the ToU
 * screens of issue 6 (/timetariff, /chargestrategy) in Chinese and
 * English at 1440×900 and 390×844, saved as .tmp/screenshots/<lang>-<size>-<screen>.png.
 * The waits only make sure each screen has its content before the picture is taken.
 */
import { RegistryPath, schemeFromTemplate, TOU_TEMPLATES, TouPath } from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  ADMIN,
  api,
  apiSignIn,
  chooseUserMenu,
  DESKTOP,
  MOBILE,
  openSignedIn,
  screenshot,
  useLanguage,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

let browser: Browser;

/**
 * The ToU screens need a scheme with a site: the Shanghai July 2025 template (standard strategy,
 * 100 kW, SOC 5–95 %) assigned to the demo site SHA-C001, whose simulated EMS applies it.
 */
async function prepareTouScheme(): Promise<void> {
  const session = await apiSignIn(ADMIN.account, ADMIN.password);
  const userInfo = { userId: session.userId, companyId: session.companyId };
  const template = TOU_TEMPLATES.find((x) => x.id.startsWith('CN-SH-2025-07'))!;
  const document = schemeFromTemplate(template, {
    year: new Date().getFullYear(),
    powerKw: 100,
    socMinPct: 5,
    socMaxPct: 95,
    lang: 'zh',
  });
  const saved = await api<{ id: number }>(
    TouPath.save,
    { userInfo, name: '上海 2025-07 工商业分时电价', document },
    { token: session.token },
  );
  if (saved.code !== 0) throw new Error(`tou/save answered ${saved.code} ${saved.msg}`);
  const sites = await api<{ list: { id: number; code: string }[] }>(
    RegistryPath.sitePageList,
    { userInfo, pageNum: 1, pageSize: 50, keyword: 'SHA-C001' },
    { token: session.token },
  );
  const siteIds = sites.data.list.filter((s) => s.code === 'SHA-C001').map((s) => s.id);
  const assigned = await api(
    TouPath.assign,
    { userInfo, id: saved.data.id, siteIds },
    { token: session.token },
  );
  if (assigned.code !== 0) throw new Error(`tou/assign answered ${assigned.code} ${assigned.msg}`);
}

beforeAll(async () => {
  browser = await launchBrowser();
  await prepareTouScheme();
});

afterAll(async () => {
  await browser?.close();
});

const TEXT = {
  zh: { password: '修改密码', email: '邮件订阅', submit: '登录', calendar: '日历' },
  en: { password: 'Change password', email: 'E-mail subscription', submit: 'Sign in', calendar: 'Calendar' },
} as const;

async function shoot(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
}

const VARIANTS = [
  ['zh', 'desktop'],
  ['zh', 'mobile'],
  ['en', 'desktop'],
  ['en', 'mobile'],
] as const;

// One variant after another (about 15 s each): four browser pages at once on a two-core
// machine made each slow enough to time out.
describe('screenshots', () => {
  it.each(VARIANTS)(
    '%s %s: every screen',
    async (lang, size) => {
      const { page, context } = await newPage(browser, size === 'desktop' ? DESKTOP : MOBILE);
      const prefix = `${lang}-${size}`;
      const text = TEXT[lang];
      await useLanguage(page, lang);
      // No blinking caret in the pictures.
      await context.addInitScript(() => {
        addEventListener('DOMContentLoaded', () => {
          const style = document.createElement('style');
          style.textContent = '*, *::before, *::after { caret-color: transparent !important; }';
          document.head.append(style);
        });
      });

      await page.goto('/newscreen');
      await page.getByTestId('cockpit-clock').waitFor();
      await shoot(page, `${prefix}-newscreen`);

      await page.goto('/login');
      await page.getByTestId('login-form').waitFor();
      await shoot(page, `${prefix}-login`);
      await page.getByTestId('login-password').fill('12345');
      await page.getByRole('button', { name: text.submit, exact: true }).click();
      await page.getByTestId('login-password-error').waitFor();
      await shoot(page, `${prefix}-login-errors`);

      await openSignedIn(page);
      await page.getByTestId('dashboard-profile').waitFor();
      await page.getByTestId('dashboard').locator('.ant-skeleton').first().waitFor({ state: 'detached' });
      await shoot(page, `${prefix}-dashboard`);

      if (size === 'mobile') {
        await page.getByTestId('hamburger').click();
        await page.getByTestId('sidebar-backdrop').waitFor();
        await page.getByTestId('sidebar').getByRole('menuitem').first().waitFor();
        await shoot(page, `${prefix}-sidebar-open`);
        await page.getByTestId('sidebar-backdrop').click({ position: { x: 360, y: 400 } });
        await page.getByTestId('sidebar-backdrop').waitFor({ state: 'detached' });
      }

      await page.goto('/system/menu');
      await page.getByTestId('menu-list').locator('tr[data-row-key="101"]').waitFor();
      await shoot(page, `${prefix}-menu-list`);

      await page.getByTestId('user-dropdown').click();
      await page.getByRole('menuitem', { name: text.password }).waitFor();
      await shoot(page, `${prefix}-user-dropdown`);
      await page.getByRole('menuitem', { name: text.password }).click();
      const passwordDialog = page.getByRole('dialog', { name: text.password });
      await passwordDialog.getByTestId('password-dialog').waitFor();
      await shoot(page, `${prefix}-password-dialog`);
      await passwordDialog.getByTestId('password-new').fill('abc');
      await passwordDialog.getByTestId('password-confirm').fill('abd');
      await passwordDialog.getByTestId('password-submit').click();
      await passwordDialog.locator('.ant-form-item-explain-error').nth(2).waitFor();
      await shoot(page, `${prefix}-password-dialog-errors`);
      await page.keyboard.press('Escape');
      await passwordDialog.waitFor({ state: 'hidden' });

      const emailDialog = page.getByRole('dialog', { name: text.email });
      await chooseUserMenu(page, text.email, emailDialog.getByTestId('email-dialog'));
      await shoot(page, `${prefix}-email-dialog`);
      await page.keyboard.press('Escape');
      await emailDialog.waitFor({ state: 'hidden' });

      await page.goto('/timetariff');
      await page.getByTestId('timeline-block-0').waitFor();
      await shoot(page, `${prefix}-timetariff`);
      await page.getByRole('tab', { name: text.calendar }).click();
      await page.getByTestId('calendar-selected').waitFor();
      await shoot(page, `${prefix}-timetariff-calendar`);

      await page.goto('/chargestrategy');
      await page.getByTestId('push-table').locator('[data-state]').first().waitFor();
      await page.getByTestId('preview-net').waitFor();
      await shoot(page, `${prefix}-chargestrategy`);
      await page.getByTestId('sites-panel').scrollIntoViewIfNeeded();
      await shoot(page, `${prefix}-chargestrategy-sites`);
      await page.getByTestId('soc-chart').scrollIntoViewIfNeeded();
      await shoot(page, `${prefix}-chargestrategy-preview`);

      await page.goto('/no-such-page');
      await page.getByTestId('not-found').waitFor();
      await shoot(page, `${prefix}-404`);

      await context.close();
    },
    90_000,
  );
});
