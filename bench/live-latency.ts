/**
 * Benchmark: device → browser latency (design §6: p95 ≤ 500 ms with 100 dashboards open).
 *
 * The server (embedded broker, live push over /ws) runs here; a child process
 * (bench/live-clients.ts) holds 100 authenticated dashboard sockets, each subscribed to `fleet`
 * and to the PCS channel of every bench site, and as the sites' gateways publishes telemetry for
 * a minute (each gateway every 2–3.5 s: ≥ 200 messages) whose PCS power is a unique marker. The
 * figure is publish → socket, for every (socket, message) pair.
 *
 * Then one real page: headless Chromium signs in, opens the real-time page (/realTimeShow) on a
 * bench site's PCS, and for each of a few markers the time from publish to the value appearing
 * in the page's DOM (a MutationObserver in the page notes the moment; page and bench share the
 * machine's clock).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIVE_MIN_INTERVAL_MS } from '@ess/contract';
import { and, eq, inArray } from 'drizzle-orm';
import { chromium, type Page } from 'playwright-core';
import { browserPasswordDigest } from '../apps/server/src/access/password';
import { seedIfEmpty } from '../apps/server/src/access/seed';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/core/config';
import { device } from '../apps/server/src/core/db/schema';
import { DeviceService } from '../apps/server/src/devices/device-service';
import { ensurePartitions } from '../apps/server/src/devices/telemetry-partitions';
import { registerBenchFleet } from './device-fleet';
import { freshDatabase } from './device-ingest';
import type { LivePlan, LiveResult } from './live-clients';
import { CHROMIUM_ARGS, percentile } from './stats';

export const SOCKETS = 100;
export const SITES = 10;
export const DURATION_MS = 60_000;
const BROWSER_SAMPLES = 10;

export interface LatencyFigures {
  label: string;
  published: number;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  missed: number;
  superseded: number;
  error?: string;
}

/**
 * The hub's former throttle, for comparison (`sharedRound`): one leading-edge round for
 * the whole hub, so every channel's change waits for the shared round.
 */
class SharedRound {
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  constructor(private readonly send: (channel: string) => void) {}
  mark(channel: string): void {
    this.due.add(channel);
    if (this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.last = Date.now();
        const due = [...this.due];
        this.due.clear();
        for (const c of due) this.send(c);
      },
      Math.max(0, this.last + LIVE_MIN_INTERVAL_MS - Date.now()),
    );
  }
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.due.clear();
  }
}

async function postJson(url: string, body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: Record<string, unknown> };
}

function summary(label: string, values: number[], extra: Partial<LatencyFigures> = {}): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    label,
    published: 0,
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? Number.NaN,
    missed: 0,
    superseded: 0,
    ...extra,
  };
}

/** Signs in through the login form and opens the real-time page on the PCS of `siteName`. */
async function openRealtime(page: Page, base: string, pcsSn: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.locator('input:not([type=password])').first().fill('admin');
  await page.locator('input[type=password]').first().fill('admin123');
  await page.locator('button[type=submit]').first().click();
  await page.waitForURL(/\/dashboard/, { timeout: 30_000 });
  await page.goto(`${base}/realTimeShow`);
  await page.getByTestId('realtime-table').waitFor({ timeout: 30_000 });
  // The first site is the first bench site; pick its PCS.
  await page.getByTestId('realtime-device').click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: pcsSn })
    .first()
    .click();
  await page.getByTestId('point-value-p_kw').waitFor({ timeout: 30_000 });
}

export async function benchLiveLatency(
  postgresUrl: string | undefined,
  options: { browser?: boolean; sharedRound?: boolean } = {},
): Promise<LatencyFigures[]> {
  const { database, url, drop } = await freshDatabase(postgresUrl);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ess-bench-live-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(url ? { DATABASE_URL: url } : {}),
  });
  await seedIfEmpty(database.db, { adminPassword: config.adminPassword, scryptLogN: config.auth.scryptLogN });
  const app = await buildApp({ config, db: database.db, logger: false, devices: false });
  await ensurePartitions(database.db, app.log);
  const devices = new DeviceService(database.db, app.log, { mqttPort: 0, mqttHost: '127.0.0.1' });
  await devices.start();
  if (options.sharedRound) {
    const hub = app.live as unknown as { throttle: unknown; flush(channel: string): Promise<void> };
    hub.throttle = new SharedRound((channel) => void hub.flush(channel));
  }
  app.live.start(devices);
  app.devices = devices;
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const child = fork(fileURLToPath(new URL('./live-clients.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.setMaxListeners(100);
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: { type: string; error?: string }) => {
        if (m.type === 'error') reject(new Error(m.error));
        else if (m.type === type) resolve(m as T);
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`socket process exited (${code})`)));
    });
  try {
    const terminalId = 'bench-live-terminal';
    const login = await postJson(`${base}/api-bms/user/login`, {
      account: 'admin',
      password: browserPasswordDigest(config.adminPassword),
      terminalId,
    });
    const companyList = login.data.companyList as { id: number }[];
    const info = await postJson(`${base}/api-bms/user/getUserInfo`, {
      userId: login.data.userId,
      companyId: companyList[0]!.id,
      terminalId,
      loginTicket: login.data.loginTicket,
    });
    const gateways = await registerBenchFleet(database.db, SITES, { companyId: companyList[0]!.id });
    await devices.directory.refresh();
    const pcsSns = gateways.map((g) => g.devices.find((d) => d.type === 'pcs')!.sn);
    const pcsRows = await database.db
      .select({ id: device.id, sn: device.sn })
      .from(device)
      .where(and(inArray(device.sn, pcsSns), eq(device.type, 'pcs')));
    const pcsIds = pcsSns.map((sn) => pcsRows.find((r) => r.sn === sn)!.id);
    const plan: LivePlan = {
      wsUrl: `${base.replace('http', 'ws')}/ws`,
      origin: base,
      token: String(info.data.token),
      mqttUrl: `mqtt://127.0.0.1:${devices.brokerAddress.port}`,
      gateways,
      pcsIds,
      sockets: SOCKETS,
      durationMs: Number(process.env.BENCH_LIVE_MS ?? DURATION_MS),
      minGapMs: 2_000,
      maxGapMs: 3_500,
    };
    const done = next<LiveResult>('done');
    child.send({ type: 'plan', plan });
    const result = await done;
    const figures = [
      summary(
        `${SOCKETS} sockets, ${database.engine}${options.sharedRound ? ', shared round' : ''}`,
        result.latencies,
        {
          published: result.published,
          missed: result.missed,
          superseded: result.superseded,
        },
      ),
    ];

    if (options.browser !== false) {
      figures.push(
        await browserLatency(base, pcsSns[0]!, (marker) => {
          const marked = next<{ marker: number; sentAt: number }>('marked');
          child.send({ type: 'mark', gateway: 0, marker });
          return marked;
        }).catch((err: Error) => ({
          ...summary('Chromium /realTimeShow DOM', []),
          error: String(err?.message ?? err).split('\n')[0] || String(err?.stack),
        })),
      );
    }
    return figures;
  } finally {
    child.send({ type: 'exit' });
    await new Promise((r) => setTimeout(r, 200));
    child.kill();
    await app.close();
    await devices.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Publish → DOM on the real-time page, BROWSER_SAMPLES times; `mark` publishes a marker. */
async function browserLatency(
  base: string,
  pcsSn: string,
  mark: (marker: number) => Promise<{ sentAt: number }>,
): Promise<LatencyFigures> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  try {
    // The console's CSP forbids eval, which playwright's polling needs; the page itself is unchanged.
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await mark(49.125); // the device has points to show
    await openRealtime(page, base, pcsSn).catch(async (err) => {
      if (process.env.BENCH_DEBUG) await page.screenshot({ path: '/tmp/bench-realtime.png' });
      throw err;
    });
    const seen: number[] = [];
    for (let k = 0; k < BROWSER_SAMPLES; k++) {
      await new Promise((r) => setTimeout(r, 1_200 + Math.random() * 800));
      // Arm an observer for the marker before it is published (no race with the update).
      const marker = 50.125 + k;
      // A string, not a function: tsx's helpers (__name) do not exist in the page.
      await page.evaluate(`(() => {
        const m = ${marker};
        window.__benchSeen = undefined;
        const matches = () => {
          const el = document.querySelector('[data-testid="point-value-p_kw"]');
          const text = el && el.textContent ? el.textContent.replace(/[^0-9.-]/g, '') : '';
          return text !== '' && Math.abs(Number(text) - m) < 1e-9;
        };
        const note = () => {
          if (window.__benchSeen === undefined && matches()) {
            window.__benchSeen = Date.now();
            observer.disconnect();
            clearInterval(timer);
          }
        };
        const observer = new MutationObserver(note);
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        const timer = setInterval(note, 5);
      })()`);
      const { sentAt } = await mark(marker);
      const seenAt = await page
        .waitForFunction('window.__benchSeen', undefined, {
          polling: 50,
          timeout: 10_000,
        })
        .then((h) => h.jsonValue() as Promise<number>)
        .catch((err: Error) => {
          if (process.env.BENCH_DEBUG) console.log(err.message.split('\n')[0]);
          return undefined;
        });
      if (seenAt !== undefined) seen.push(seenAt - sentAt);
      else if (process.env.BENCH_DEBUG)
        console.log('missed', marker, await page.getByTestId('point-value-p_kw').innerText());
    }
    return summary('Chromium /realTimeShow DOM', seen, {
      published: BROWSER_SAMPLES,
      missed: BROWSER_SAMPLES - seen.length,
    });
  } finally {
    await browser.close();
  }
}
