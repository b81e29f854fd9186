/**
 * Helpers for the console's browser tests: sign-in through the login page, calls to the real
 * server (to prepare or check state), and screenshots.
 *
 * The server is shared by every e2e file (one per run, files one after another), so a file that
 * changes shared state (the admin's password, e-mail) restores it itself.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import { baseUrl } from './browser';

export const ADMIN = { account: 'admin', password: 'admin123' } as const;

/** Where screenshots go (not assertions; looked at by a person). */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../.tmp/screenshots');

export const MOBILE = { width: 390, height: 844 } as const;

/**
 * The picture-only tests of the organisation screens run with `E2E_SCREENSHOTS=1`
 * (`npm run screenshots`); `npm test` and CI skip them to stay fast. `screenshots.e2e.test.ts`
 * always checks every screen at 390 px in both languages and takes pictures only then.
 */
export const SCREENSHOTS_ON = process.env.E2E_SCREENSHOTS === '1';
export const DESKTOP = { width: 1440, height: 900 } as const;

/** What the browser sends as the password: lower-case hex SHA-256 (spec §5). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

/** POST a JSON body to the real server, as the console does. */
export async function api<T = unknown>(
  apiPath: string,
  body: object,
  options: { token?: string; lang?: 'zh-CN' | 'en-US' } = {},
): Promise<Envelope<T>> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Accept-Language': options.lang ?? 'zh-CN',
  };
  if (options.token) headers['X-Token'] = options.token;
  const res = await fetch(`${baseUrl()}${apiPath}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return (await res.json()) as Envelope<T>;
}

export interface ApiSession {
  token: string;
  refreshToken: string;
  tokenExpiresAt: number;
  userId: number;
  companyId: number;
  terminalId: string;
}

/** A session opened through the API (handshake steps 1–3), for preparing or restoring state. */
export async function apiSignIn(account: string, password: string): Promise<ApiSession> {
  const terminalId = `e2e-${Math.random().toString(36).slice(2, 14)}`;
  const login = await api<{ userId: number; companyList: { id: number }[]; loginTicket: string }>(
    '/api-bms/user/login',
    { account, password: sha256Hex(password), terminalId },
  );
  if (login.code !== 0) throw new Error(`user/login answered ${login.code} ${login.msg}`);
  const companyId = login.data.companyList[0]!.id;
  const info = await api<{ token: string; refreshToken: string; tokenExpiresAt: number }>(
    '/api-bms/user/getUserInfo',
    { userId: login.data.userId, companyId, terminalId, loginTicket: login.data.loginTicket },
  );
  if (info.code !== 0) throw new Error(`user/getUserInfo answered ${info.code} ${info.msg}`);
  const { token, refreshToken, tokenExpiresAt } = info.data;
  return { token, refreshToken, tokenExpiresAt, userId: login.data.userId, companyId, terminalId };
}

let shared: Promise<ApiSession> | null = null;

/**
 * Open `path` already signed in as the admin: a session opened through the API is stored in
 * the page's local storage before its first load, as a previous sign-in in this browser would
 * have left it (so the console restores it: user info and menu fetched with the token).
 * Tests about signing in itself use {@link signIn}.
 *
 * By default the tests of one file share one server session (each still gets its own browser
 * context, storage and cookies); `fresh` opens a session of its own, for tests that end it.
 * `ready` is the test id waited for once the page has loaded (default `main`, the console's
 * layout; a page outside it, e.g. a big screen, names its own).
 */
export async function openSignedIn(
  page: Page,
  path = '/dashboard',
  options: { lang?: 'zh' | 'en'; fresh?: boolean; ready?: string } = {},
): Promise<ApiSession> {
  let session: ApiSession;
  if (options.fresh) session = await apiSignIn(ADMIN.account, ADMIN.password);
  else {
    shared ??= apiSignIn(ADMIN.account, ADMIN.password);
    session = await shared;
  }
  const { terminalId, ...credentials } = session;
  await page.context().addInitScript(
    ({ credentials, terminalId, lang }) => {
      if (sessionStorage.getItem('e2e.seeded')) return;
      sessionStorage.setItem('e2e.seeded', '1');
      localStorage.setItem('ess.session', JSON.stringify(credentials));
      localStorage.setItem('ess.terminalId', terminalId);
      if (lang) localStorage.setItem('ess.language', lang);
    },
    { credentials, terminalId, lang: options.lang },
  );
  await page.goto(path);
  await page.getByTestId(options.ready ?? 'main').waitFor();
  return session;
}

/** Fill the login form and submit (no waiting for the outcome). */
export async function submitLogin(page: Page, account: string, password: string): Promise<void> {
  await page.getByTestId('login-account').fill(account);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

/**
 * Sign in through /login (optionally in English) and wait for the dashboard.
 * `lang` is stored before the first load, as a previous language switch would have.
 */
export async function signIn(
  page: Page,
  options: { lang?: 'zh' | 'en'; account?: string; password?: string; redirect?: string } = {},
): Promise<void> {
  if (options.lang === 'en') await useLanguage(page, 'en');
  const target = options.redirect ? `/login?redirect=${encodeURIComponent(options.redirect)}` : '/login';
  await page.goto(target);
  await submitLogin(page, options.account ?? ADMIN.account, options.password ?? ADMIN.password);
  await page.waitForURL(options.redirect ? `**${options.redirect}` : '**/dashboard');
  await page.getByTestId('main').waitFor();
}

/** Store a language choice before the page loads (what the language switch keeps). */
export async function useLanguage(page: Page, lang: 'zh' | 'en'): Promise<void> {
  await page.context().addInitScript((l) => {
    if (!sessionStorage.getItem('e2e.lang')) {
      localStorage.setItem('ess.language', l);
      sessionStorage.setItem('e2e.lang', '1');
    }
  }, lang);
}

/**
 * Switch the language with the navbar switch while signed in and wait until the page has
 * reloaded in it (spec §4: the switch reloads after re-fetching the menu). A mark on the window
 * tells the reloaded document from the old one, so nothing is checked on the old page that the
 * reload then throws away (a page's own state — a picked day, an open dialog — does not survive).
 */
export async function switchLanguageReloaded(page: Page, lang: 'zh' | 'en'): Promise<void> {
  await page.evaluate(() => Object.assign(window, { e2eBeforeLanguageSwitch: true }));
  await page.getByTestId('language-switch').click();
  await page.getByTestId(`lang-option-${lang}`).click();
  await page.waitForFunction(() => !('e2eBeforeLanguageSwitch' in window), undefined, { timeout: 30_000 });
  await page.waitForLoadState('load');
}

/**
 * Every antd message (toast) text the page shows from now on, across reloads, in the order shown.
 * For a toast the page may reload away before a locator sees it (the language switch shows its
 * message, then reloads after 800 ms).
 */
export async function recordToasts(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction('e2eToastSeen', (text: string) => {
    seen.push(text);
  });
  const watch = () => {
    const report = () => {
      for (const n of Array.from(document.querySelectorAll<HTMLElement>('.ant-message-notice'))) {
        const text = n.textContent ?? '';
        if (text && n.dataset.e2eSeen !== text) {
          n.dataset.e2eSeen = text;
          (window as unknown as { e2eToastSeen: (t: string) => void }).e2eToastSeen(text);
        }
      }
    };
    new MutationObserver(report).observe(document, { childList: true, subtree: true, characterData: true });
    report();
  };
  await page.addInitScript(watch);
  await page.evaluate(watch);
  return seen;
}

/** The visible antd message (toast) with this text. */
export function toast(page: Page, text: string) {
  return page.locator('.ant-message-notice').filter({ hasText: text });
}

/** Collect the JSON bodies the page posts to one API path. */
export function recordCalls(page: Page, apiPath: string): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  page.on('request', (req: Request) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === apiPath) {
      bodies.push((req.postDataJSON() ?? {}) as Record<string, unknown>);
    }
  });
  return bodies;
}

/** Value of a cookie of the page's context, if set. */
export async function cookie(page: Page, name: string): Promise<string | undefined> {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === name)?.value;
}

/**
 * Save a window screenshot as `<name>.png` in {@link SCREENSHOT_DIR} once every finite CSS
 * animation and transition has ended (dialogs zoomed in, the drawer slid in, menus faded in).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await settled(page);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Waits until every finite CSS animation and transition of the page has ended. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity),
  );
}

/**
 * Chooses an option of the antd Select whose `data-testid` is `testId`: waits until no other
 * dropdown is open (a closing one would take the click), opens this one, types `search` into it
 * when given, and clicks the first enabled option whose text contains `label` (equals it with
 * `exact`). A single select is then waited on until its dropdown has closed; a `multiple` one
 * stays open for more choices (the caller closes it, e.g. with Escape).
 */
export async function chooseOption(
  page: Page,
  testId: string,
  label: string | RegExp,
  options: { search?: string; exact?: boolean; multiple?: boolean } = {},
): Promise<void> {
  const openDropdowns = () => page.locator('.ant-select-dropdown:visible').count();
  await expect.poll(openDropdowns).toBe(0);
  const select = page.getByTestId(testId);
  await select.click();
  if (options.search !== undefined) await select.locator('input').fill(options.search);
  const enabled = page.locator(
    '.ant-select-dropdown:visible .ant-select-item-option:not(.ant-select-item-option-disabled)',
  );
  const matching =
    options.exact && typeof label === 'string'
      ? enabled.filter({ has: page.getByText(label, { exact: true }) })
      : enabled.filter({ hasText: label });
  await matching.first().click();
  if (!options.multiple) await expect.poll(openDropdowns).toBe(0);
}

/**
 * Opens the user dropdown and chooses `item`, then waits for `until`: a locator that becomes
 * visible (e.g. the dialog it opens) or a condition that becomes true (e.g. a call was made).
 * Under load the dropdown's opening animation can swallow the click; it is tried again, up to
 * five times, before the last error is thrown.
 */
export async function chooseUserMenu(
  page: Page,
  item: string,
  until: Locator | (() => boolean | Promise<boolean>),
): Promise<void> {
  const reached = () => (typeof until === 'function' ? until() : until.isVisible());
  const waitUntil = async () => {
    if (typeof until !== 'function') return until.waitFor({ timeout: 8_000 });
    const end = Date.now() + 8_000;
    while (!(await until())) {
      if (Date.now() > end) throw new Error(`choosing '${item}' had no effect within 8 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  for (let attempt = 1; ; attempt++) {
    // An earlier attempt's choice may have taken effect late (a slow reload after logout).
    if (attempt > 1 && (await reached())) return;
    try {
      await page.getByTestId('user-dropdown').click({ timeout: 5_000 });
      await page.getByRole('menuitem', { name: item }).click({ timeout: 5_000 });
      await waitUntil();
      return;
    } catch (err) {
      if (attempt === 5) throw err;
      await page.keyboard.press('Escape');
    }
  }
}
