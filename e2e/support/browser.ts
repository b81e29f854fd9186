/**
 * Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core
 * (Playwright cannot download its own browser here), with the flags this network needs.
 */
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}

/**
 * The server of this test file: with files run side by side each worker has its own
 * (global-setup.ts), chosen by the worker's `VITEST_POOL_ID` (1 … maxWorkers, never two running
 * files with the same one).
 */
export function baseUrl(): string {
  const urls = inject('baseUrls') ?? [inject('baseUrl')];
  const poolId = Number(process.env.VITEST_POOL_ID ?? '1');
  return urls[(Math.max(1, poolId) - 1) % urls.length]!;
}

/**
 * A fresh browser context (own cookies and storage) at a given window size; `timezoneId` sets
 * the browser's zone (default: the machine's).
 */
export async function newPage(
  browser: Browser,
  viewport = { width: 1440, height: 900 },
  options: { timezoneId?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  // Reduced motion: the console then turns antd's animations off (shared/ui/AntdProvider.tsx), so
  // no click lands on a dialog, menu or confirm still opening (clicks were lost that way beside a
  // CPU hog).
  const context = await browser.newContext({
    viewport,
    baseURL: baseUrl(),
    locale: 'zh-CN',
    reducedMotion: 'reduce',
    timezoneId: options.timezoneId,
  });
  const page = await context.newPage();
  return { context, page };
}
