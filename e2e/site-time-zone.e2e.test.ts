/**
 * One time base per screen, the site's (issue 14 item 5), with the browser in UTC and the demo
 * fleet in Asia/Shanghai (UTC+8): the real-time page shows a point's report time in Shanghai
 * time and says so; a site's monitoring detail and its big screen (clock, today's curve) are in
 * Shanghai time; the dashboard states its time base and its "today" curve ends near the current
 * hour of that zone — not 8 hours off, as when the browser's zone was used.
 */
import {
  type DashboardData,
  endpoints,
  localPartsOf,
  localTimeOf,
  type PickOptions,
  utcOffsetText,
} from '@ess/contract';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSignIn, chooseOption, openSignedIn } from './support/app';
import { launchBrowser, newPage } from './support/browser';

const TZ = 'Asia/Shanghai';
/** What the tag of a Shanghai site says: its zone and offset. */
const SHANGHAI = `${TZ} (${utcOffsetText(Date.now(), TZ)})`;

/** Minutes between two minutes of the day, across midnight. */
function minutesApart(a: number, b: number): number {
  const d = Math.abs(a - b) % 1440;
  return Math.min(d, 1440 - d);
}

/** Minute of the day of `HH:mm` (the first one in `text`). */
function minuteOf(text: string): number {
  const m = /(\d{2}):(\d{2})/.exec(text);
  if (!m) throw new Error(`no time in "${text}"`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Milliseconds between the wall clock of `text` ('2026/11/25 13:58:40') and now in `tz`. */
function wallClockLag(text: string, tz: string): number {
  const m = /(\d{4})\D(\d{1,2})\D(\d{1,2})\D+(\d{2}):(\d{2}):(\d{2})/.exec(text);
  if (!m) throw new Error(`no date and time in "${text}"`);
  const shown = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  const p = localPartsOf(Date.now(), tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - shown;
}

/** Minute of the day now in `tz`. */
const nowMinute = (tz: string) => localTimeOf(Date.now(), tz).minuteOfDay;

/**
 * Hover near the right end of a chart's plot (the newest point is the nearest there) and read
 * the time on the tooltip's first line.
 */
async function lastPointTooltip(chart: Locator): Promise<string> {
  const page = chart.page();
  // Drawn (a lazily loaded chart replaces its placeholder first).
  await chart.locator('canvas').first().waitFor({ timeout: 30_000 });
  const box = await chart.boundingBox();
  if (!box) throw new Error('chart not laid out');
  const tooltip = chart.locator('.chart-tooltip');
  const head = async () => {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width - 40, box.y + box.height / 2);
    return (await tooltip.isVisible()) ? (await tooltip.innerText()).trim().split('\n')[0]! : '';
  };
  // The text the poll saw: hovering again may find the tooltip between two redraws (empty).
  let seen = '';
  await expect
    .poll(
      async () => {
        seen = await head();
        return seen;
      },
      { timeout: 20_000, interval: 500 },
    )
    .toMatch(/\d{2}:\d{2}/);
  return seen;
}

describe('times of a Shanghai site with the browser in UTC', () => {
  let browser: Browser;
  let site: PickOptions['sites'][number];

  beforeAll(async () => {
    browser = await launchBrowser();
    const { token } = await apiSignIn('admin', 'admin123');
    const options = await api<PickOptions>(endpoints.monitor.realtimeOptions.path, {}, { token });
    const shanghai = options.data.sites.filter((s) => s.timezone === TZ && s.online);
    site = shanghai.find((s) => s.code.includes('-C')) ?? shanghai[0]!;
    expect(site).toBeDefined();
  });
  afterAll(async () => browser?.close());

  it('real-time data: a point’s report time is Shanghai time, and the page says so', async () => {
    const { context, page } = await newPage(browser, undefined, { timezoneId: 'UTC' });
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('UTC');
    await openSignedIn(page, '/realTimeShow');
    await page.getByTestId('realtime-table').waitFor();
    await chooseOption(page, 'realtime-site', site.name);
    await chooseOption(page, 'realtime-device', /^PCS/);
    const time = page.getByTestId('point-time-p_kw');
    await time.waitFor({ timeout: 30_000 });
    // The demo fleet reports every 2 s: the time shown is Shanghai's now, give or take a minute.
    await expect
      .poll(async () => Math.abs(wallClockLag(await time.innerText(), TZ)), { timeout: 20_000 })
      .toBeLessThan(60_000);
    const tag = page.getByTestId('zone-tag');
    expect(await tag.getAttribute('data-zone')).toBe(TZ);
    expect(await tag.innerText()).toBe(`站点时间 ${SHANGHAI}`);
    await context.close();
  });

  it('site monitoring: the detail’s update time is Shanghai time, with the zone named', async () => {
    const { context, page } = await newPage(browser, undefined, { timezoneId: 'UTC' });
    // The detail the operator drilled into (kept for the tab in session storage).
    await context.addInitScript((id) => sessionStorage.setItem('ess.zdjkshow.site', String(id)), site.id);
    await openSignedIn(page, '/zdjkshow');
    const detail = page.getByTestId('monitor-site-detail');
    await detail.waitFor({ timeout: 30_000 });
    const tag = detail.getByTestId('zone-tag');
    await tag.waitFor({ timeout: 30_000 });
    expect(await tag.innerText()).toBe(`站点时间 ${SHANGHAI}`);
    const updated = detail.getByTestId('live-indicator').locator('.live-indicator__time');
    await expect
      .poll(async () => minutesApart(minuteOf(await updated.innerText()), nowMinute(TZ)), { timeout: 30_000 })
      .toBeLessThanOrEqual(2);
    await context.close();
  });

  it('the site’s big screen: clock and today’s curve in Shanghai time', async () => {
    const { context, page } = await newPage(browser, undefined, { timezoneId: 'UTC' });
    await openSignedIn(page, '/dashboard');
    await page.goto(`/screen/sys?siteId=${site.id}`);
    const curve = page.getByTestId('sys-curve');
    await curve.waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => Number(await curve.getAttribute('data-points')), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await page.getByTestId('zone-tag').innerText()).toBe(`站点时间 ${SHANGHAI}`);
    const clock = page.getByTestId('screen-clock');
    expect(minutesApart(minuteOf(await clock.innerText()), nowMinute(TZ))).toBeLessThanOrEqual(1);
    // The newest 15-minute bucket of today starts within the last half hour, Shanghai time.
    const head = await lastPointTooltip(curve);
    expect(minutesApart(minuteOf(head), nowMinute(TZ))).toBeLessThanOrEqual(30);
    await context.close();
  });

  it('the dashboard states its time base, and its today curve ends near that zone’s current hour', async () => {
    const { context, page } = await newPage(browser, undefined, { timezoneId: 'UTC' });
    const session = await openSignedIn(page, '/dashboard');
    // The time base the server answers a browser in UTC with: the sites' zone when they share one.
    const answer = await api<DashboardData>(
      endpoints.dashboard.overview.path,
      { timezone: 'UTC' },
      { token: session.token },
    );
    const base = answer.data.timeBase;
    const tag = page.getByTestId('zone-tag');
    await tag.waitFor({ timeout: 30_000 });
    expect(await tag.getAttribute('data-zone')).toBe(base.timezone);
    expect(await tag.innerText()).toBe(
      `时间基准 ${base.timezone} (${utcOffsetText(Date.now(), base.timezone)})`,
    );
    const curve = page.getByTestId('power-curve');
    await expect.poll(() => curve.getAttribute('data-state'), { timeout: 30_000 }).toBe('chart');
    const head = await lastPointTooltip(curve.locator('.power-chart:has(canvas)'));
    expect(head).toMatch(/^\d{2}:\d{2}–\d{2}:\d{2}$/);
    expect(minutesApart(minuteOf(head), nowMinute(base.timezone))).toBeLessThanOrEqual(30);
    await context.close();
  });
});
