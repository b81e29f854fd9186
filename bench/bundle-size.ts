/**
 * Benchmark: JavaScript bytes the server actually sends for a first visit of `/login`,
 * `/dashboard` (signed in), `/zdjkshow` (signed in) and `/newscreen` (public cockpit) (design §6:
 * ≤ 200 KB and ≤ 350 KB gzipped).
 *
 * Headless Chromium loads each route against the built console and records every script of the
 * first load (entry, module preloads, dynamic imports up to network idle). Each script is then
 * requested again from the running server with `accept-encoding: gzip, br` over plain node:http
 * (which does not decode), and the bytes on the wire are summed: the body as served, checked
 * against its content-length. A script that cannot be read fails the benchmark. The gzip -6
 * size of each body is shown beside it (what a compressing proxy would send).
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './stats';

export interface BundleFigures {
  route: string;
  scripts: number;
  /** Bytes on the wire, as served. */
  servedKb: number;
  /** Decoded size. */
  rawKb: number;
  /** gzip -6 of the decoded scripts, for reference. */
  gzipKb: number;
  /** Content encodings the server used (`identity` = none). */
  encodings: string[];
}

interface Served {
  url: string;
  wire: number;
  raw: number;
  gz: number;
  encoding: string;
}

/** One script as the server sends it to a browser that accepts gzip and brotli. */
function fetchServed(url: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200) {
          reject(new Error(`script ${url} answered HTTP ${res.statusCode}`));
          return;
        }
        const body = Buffer.concat(chunks);
        const declared = res.headers['content-length'];
        if (declared !== undefined && Number(declared) !== body.length) {
          reject(new Error(`script ${url}: content-length ${declared} but ${body.length} bytes received`));
          return;
        }
        const encoding = String(res.headers['content-encoding'] ?? 'identity');
        let decoded: Buffer;
        try {
          decoded =
            encoding === 'gzip'
              ? gunzipSync(body)
              : encoding === 'br'
                ? brotliDecompressSync(body)
                : encoding === 'identity'
                  ? body
                  : (() => {
                      throw new Error(`unknown content-encoding ${encoding}`);
                    })();
        } catch (err) {
          reject(new Error(`script ${url} could not be decoded: ${(err as Error).message}`));
          return;
        }
        if (decoded.length === 0) {
          reject(new Error(`script ${url} is empty`));
          return;
        }
        resolve({ url, wire: body.length, raw: decoded.length, gz: gzipSync(decoded).length, encoding });
      });
    });
    req.on('error', (err) => reject(new Error(`script ${url} could not be read: ${err.message}`)));
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
  });
}

const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

async function measure(browser: Browser, base: string, route: string, storageState?: string) {
  const context = await browser.newContext({
    storageState: storageState ? JSON.parse(storageState) : undefined,
  });
  const page = await context.newPage();
  const urls = new Set<string>();
  const failed: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') urls.add(request.url());
  });
  page.on('requestfailed', (request) => {
    if (request.resourceType() === 'script')
      failed.push(`${request.url()} (${request.failure()?.errorText})`);
  });
  await page.goto(`${base}${route}`, { waitUntil: 'networkidle' });
  await context.close();
  if (failed.length > 0) throw new Error(`${route}: scripts failed to load: ${failed.join(', ')}`);
  if (urls.size === 0) throw new Error(`${route}: no script loaded (is the console built?)`);
  const sizes = await Promise.all([...urls].map(fetchServed));
  if (process.env.BENCH_BUNDLES_VERBOSE) {
    for (const s of [...sizes].sort((a, b) => b.wire - a.wire)) {
      console.log(
        `    ${route} ${kb(s.wire).toFixed(1).padStart(7)} KB served (${s.encoding}), ${kb(s.gz).toFixed(1)} KB gzip  ${new URL(s.url).pathname}`,
      );
    }
  }
  return {
    route,
    scripts: sizes.length,
    servedKb: kb(sizes.reduce((s, x) => s + x.wire, 0)),
    rawKb: kb(sizes.reduce((s, x) => s + x.raw, 0)),
    gzipKb: kb(sizes.reduce((s, x) => s + x.gz, 0)),
    encodings: [...new Set(sizes.map((s) => s.encoding))],
  } satisfies BundleFigures;
}

/** Signs in through the login form, then measures fresh loads of each route. */
export async function benchBundles(base: string): Promise<BundleFigures[]> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
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
    // The site monitoring screen (signed in) and the public cockpit (no session).
    const zdjkshow = await measure(browser, base, '/zdjkshow', state);
    const newscreen = await measure(browser, base, '/newscreen');
    return [login, dashboard, zdjkshow, newscreen];
  } finally {
    await browser.close();
  }
}
