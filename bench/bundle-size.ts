/**
 * Benchmark: gzipped JavaScript the browser loads for a first visit of `/login` and of
 * `/dashboard` (signed in), `/zdjkshow` (signed in) and `/newscreen` (public cockpit), measured in headless Chromium against the built console
 * (design §6 budgets: ≤ 200 KB and ≤ 350 KB).
 */
import { gzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';

export interface BundleFigures {
  route: string;
  scripts: number;
  rawKb: number;
  gzipKb: number;
}

async function measure(
  browser: Browser,
  base: string,
  route: string,
  storageState?: string,
): Promise<BundleFigures> {
  const context = await browser.newContext({
    storageState: storageState ? JSON.parse(storageState) : undefined,
  });
  const page = await context.newPage();
  const pending: Promise<{ url: string; raw: number; gz: number }>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    const url = response.url();
    pending.push(
      response.body().then(
        (body) => ({ url, raw: body.length, gz: gzipSync(body).length }),
        () => ({ url, raw: 0, gz: 0 }),
      ),
    );
  });
  await page.goto(`${base}${route}`, { waitUntil: 'networkidle' });
  const sizes = await Promise.all(pending);
  await context.close();
  if (process.env.BENCH_BUNDLES_VERBOSE) {
    for (const s of [...sizes].sort((a, b) => b.gz - a.gz)) {
      console.log(`    ${route} ${(s.gz / 1024).toFixed(1).padStart(6)} KB  ${new URL(s.url).pathname}`);
    }
  }
  return {
    route,
    scripts: sizes.length,
    rawKb: Math.round(sizes.reduce((s, x) => s + x.raw, 0) / 102.4) / 10,
    gzipKb: Math.round(sizes.reduce((s, x) => s + x.gz, 0) / 102.4) / 10,
  };
}

/** Signs in through the login form, then measures fresh loads of /login and /dashboard. */
export async function benchBundles(base: string): Promise<BundleFigures[]> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const login = await measure(browser, base, '/login');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.locator('input:not([type=password])').first().fill('admin');
    await page.locator('input[type=password]').first().fill('admin123');
    await page.locator('button[type=submit]').first().click();
    await page.waitForURL(/\/dashboard/, { timeout: 30_000 });
    const state = JSON.stringify(await context.storageState());
    await context.close();
    const dashboard = await measure(browser, base, '/dashboard', state);
    // Issue 4: the site monitoring screen (signed in) and the public cockpit (no session).
    const zdjkshow = await measure(browser, base, '/zdjkshow', state);
    const newscreen = await measure(browser, base, '/newscreen');
    return [login, dashboard, zdjkshow, newscreen];
  } finally {
    await browser.close();
  }
}
