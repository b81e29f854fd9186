/**
 * Issue 16 in the browser: the administrator uploads a small firmware package for the demo
 * PCS through /firmware (a progress bar while it goes out; an aborted upload leaves nothing),
 * checks the SHA-256 the server computed against the file's own, publishes it, starts an
 * upgrade batch on one demo PCS from /upgradeRecord (the wizard lists the other device types'
 * exclusions), watches the record's detail reach success live (from-version → to-version, the
 * timeline) and finds the new firmware version in site configuration (/deviceconfig).
 * The simulated fleet (apps/simulator) really downloads the package over HTTP, verifies it and
 * reboots with the new version. Then the three screens in zh and en at 1440 and 390 px: no
 * horizontal overflow at 390 px; pictures in .tmp/screenshots (looked at, not compared).
 */
import { createHash } from 'node:crypto';
import {
  type DeviceRow,
  endpoints,
  type FirmwarePackage,
  type Page as ListPage,
  type SiteRow,
} from '@ess/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  ADMIN,
  type ApiSession,
  api,
  apiSignIn,
  chooseOption,
  DESKTOP,
  MOBILE,
  openSignedIn,
  screenshot,
} from './support/app';
import { launchBrowser, newPage } from './support/browser';

/** Download, verify, install and reboot of a small package on a busy machine. */
const UPGRADE_WAIT_MS = 120_000;
const VERSION = 'PCS-1.7.0-e2e';
const NAME = 'PCS 主控固件';

let browser: Browser;
let session: ApiSession;
/** The demo PCS upgraded and its site. */
let pcs: { id: number; sn: string; firmware: string | null; site: SiteRow };
let packageId = 0;
let batchId = 0;

const call = <T>(path: string, body: object) =>
  api<T>(
    path,
    { userInfo: { userId: session.userId, companyId: session.companyId }, ...body },
    { token: session.token },
  );

/** A firmware image of `bytes` bytes (not all zeros, so its SHA-256 is its own). */
function image(bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = (i * 131 + 7) % 251;
  return buf;
}

async function packagesNamed(version: string): Promise<FirmwarePackage[]> {
  const res = await call<ListPage<FirmwarePackage>>(endpoints.firmware.pageList.path, {
    pageNum: 1,
    pageSize: 50,
    keyword: version,
  });
  expect(res.code, res.msg).toBe(0);
  return res.data.list;
}

/** The package uploads the page sends (their query strings). */
function recordUploads(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (req.method() === 'POST' && url.pathname === endpoints.firmware.upload.path) seen.push(url.search);
  });
  return seen;
}

/** Fills the upload form (not the file). */
async function fillUpload(page: Page, version: string): Promise<void> {
  await page.getByTestId('firmware-upload-name').fill(NAME);
  await page.getByTestId('firmware-upload-version').fill(version);
  await chooseOption(page, 'firmware-upload-type', 'PCS');
  await page.getByTestId('firmware-upload-note-zh').fill('修复并网时的功率波动；提升效率。');
  await page
    .getByTestId('firmware-upload-note-en')
    .fill('Fixes power ripple when grid-tied; better efficiency.');
}

async function noOverflow(page: Page, name: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect.soft(scrollWidth, `${name}: wider than the window`).toBeLessThanOrEqual(innerWidth);
}

beforeAll(async () => {
  browser = await launchBrowser();
  session = await apiSignIn(ADMIN.account, ADMIN.password);
  // The demo fleet registers its sites at start; a PCS is reachable once its gateway connected.
  for (const deadline = Date.now() + 60_000; ; ) {
    const res = await call<ListPage<DeviceRow>>(endpoints.device.pageList.path, {
      pageNum: 1,
      pageSize: 100,
      type: 'pcs',
    });
    const device = res.data?.list.find((d) => d.type === 'pcs' && d.online && d.firmwareVersion);
    if (device) {
      const sites = await call<ListPage<SiteRow>>(endpoints.site.pageList.path, {
        pageNum: 1,
        pageSize: 100,
      });
      const site = sites.data.list.find((s) => s.id === device.siteId)!;
      pcs = { id: device.id, sn: device.sn, firmware: device.firmwareVersion, site };
      break;
    }
    if (Date.now() > deadline) throw new Error('no online demo PCS within 60 s');
    await new Promise((r) => setTimeout(r, 500));
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('firmware upgrade', () => {
  it('an upload shows its progress; aborted, nothing is stored', async () => {
    const { page, context } = await newPage(browser);
    onTestFailed(() => screenshot(page, 'firmware-abort-failed'));
    await openSignedIn(page, '/firmware', { lang: 'zh' });
    await page.getByTestId('firmware-page').waitFor();
    await page.getByTestId('firmware-upload').click();
    await fillUpload(page, 'PCS-1.7.0-aborted');
    // A slow link: 2 MiB at 128 KiB/s takes ~16 s, long enough to see the bar and abort.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 128 * 1024,
    });
    await page
      .getByTestId('firmware-upload-dialog')
      .locator('input[type=file]')
      .setInputFiles({
        name: 'pcs-aborted.bin',
        mimeType: 'application/octet-stream',
        buffer: image(2 * 1024 * 1024),
      });
    await page.getByTestId('firmware-upload-chosen').waitFor();
    await page.getByTestId('firmware-upload-submit').click();
    const progress = page.getByTestId('firmware-upload-progress');
    await expect
      .poll(async () => Number(await progress.getAttribute('data-percent').catch(() => '0')))
      .toBeGreaterThan(0);
    expect(Number(await progress.getAttribute('data-percent'))).toBeLessThan(100);
    await screenshot(page, 'firmware-zh-desktop-uploading');
    await page.getByTestId('firmware-upload-abort').click();
    await expect.poll(() => page.getByTestId('firmware-upload-error').innerText()).toContain('上传已中止');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    // The server kept nothing of it.
    expect(await packagesNamed('PCS-1.7.0-aborted')).toEqual([]);
    await context.close();
  }, 120_000);

  it(
    'uploads, publishes, upgrades a demo PCS in a batch and sees the new version in site configuration',
    async () => {
      const { page, context } = await newPage(browser);
      onTestFailed(() => screenshot(page, 'firmware-upgrade-failed'));
      const file = image(96 * 1024);
      const sha = createHash('sha256').update(file).digest('hex');

      // Upload: the server's SHA-256 is the file's.
      await openSignedIn(page, '/firmware', { lang: 'zh' });
      await page.getByTestId('firmware-upload').click();
      await fillUpload(page, VERSION);
      await page
        .getByTestId('firmware-upload-dialog')
        .locator('input[type=file]')
        .setInputFiles({ name: 'pcs-1.7.0.bin', mimeType: 'application/octet-stream', buffer: file });
      await screenshot(page, 'firmware-zh-desktop-upload');
      // A version with a space is refused at the field; nothing is sent.
      const uploads = recordUploads(page);
      await page.getByTestId('firmware-upload-version').fill('1.7 beta');
      await page.getByTestId('firmware-upload-submit').click();
      const fieldError = page.getByTestId('firmware-upload-dialog').locator('.ant-form-item-explain-error');
      await expect.poll(() => fieldError.first().innerText()).toContain('版本号为1–64位字母、数字');
      await screenshot(page, 'firmware-zh-desktop-upload-error');
      expect(uploads).toEqual([]);
      await page.getByTestId('firmware-upload-version').fill(VERSION);
      await page.getByTestId('firmware-upload-submit').click();
      await page.getByTestId('firmware-upload-dialog').waitFor({ state: 'detached' });
      expect(uploads).toHaveLength(1);
      const [pkg] = await packagesNamed(VERSION);
      expect(pkg).toMatchObject({ sha256: sha, sizeBytes: file.length, state: 'unused', deviceType: 'pcs' });
      packageId = pkg!.id;
      const row = page.getByTestId('firmware-table').locator(`tr[data-row-key="${packageId}"]`);
      await expect
        .poll(() => page.getByTestId(`firmware-sha-${packageId}`).getAttribute('data-sha'))
        .toBe(sha);
      expect(await page.getByTestId(`firmware-state-${packageId}`).innerText()).toBe('未使用');
      expect(await row.innerText()).toContain('96 KiB');

      // The same version again for PCS: the server's refusal, in the dialog, in Chinese.
      await page.getByTestId('firmware-upload').click();
      await fillUpload(page, VERSION);
      await page
        .getByTestId('firmware-upload-dialog')
        .locator('input[type=file]')
        .setInputFiles({ name: 'pcs-again.bin', mimeType: 'application/octet-stream', buffer: image(1024) });
      await page.getByTestId('firmware-upload-submit').click();
      await expect
        .poll(() => page.getByTestId('firmware-upload-error').innerText())
        .toBe(`该设备类型已有版本为${VERSION}的固件包`);
      await page.keyboard.press('Escape');
      await page.getByTestId('firmware-upload-dialog').waitFor({ state: 'detached' });
      expect(await packagesNamed(VERSION)).toHaveLength(1);

      // Publish, confirmed.
      await page.getByTestId(`firmware-publish-${packageId}`).click();
      await page.getByTestId(`firmware-publish-ok-${packageId}`).click();
      await expect
        .poll(() => page.getByTestId(`firmware-state-${packageId}`).getAttribute('data-state'))
        .toBe('published');
      expect(await page.getByTestId(`firmware-state-${packageId}`).innerText()).toBe('已发布');
      await page.getByTestId(`firmware-view-${packageId}`).click();
      await expect.poll(() => page.getByTestId('firmware-note-en').innerText()).toContain('power ripple');
      expect(await page.getByTestId('firmware-drawer-sha').innerText()).toContain(sha);
      await screenshot(page, 'firmware-zh-desktop-drawer');
      await page.keyboard.press('Escape');
      await page.getByTestId('firmware-drawer').waitFor({ state: 'detached' });
      await screenshot(page, 'firmware-zh-desktop-list');

      // A batch: the package, one demo PCS (devices of other types are listed as excluded), one wave.
      await page.goto('/upgradeRecord');
      await page.getByTestId('upgrade-page').waitFor();
      await page.getByTestId('upgrade-new').click();
      await chooseOption(page, 'upgrade-wizard-package', VERSION);
      await page.getByTestId('upgrade-wizard-next').click();
      const candidates = page.getByTestId('upgrade-candidates');
      const candidate = candidates.locator(`tr[data-row-key="${pcs.id}"]`);
      await candidate.waitFor();
      expect(await candidate.getAttribute('data-exclusion')).toBe('none');
      await candidate.locator('.ant-checkbox-input').check();
      await expect.poll(() => page.getByTestId('upgrade-chosen').getAttribute('data-count')).toBe('1');
      await screenshot(page, 'upgrade-zh-desktop-wizard-devices');
      await page.getByTestId('upgrade-wizard-next').click();
      const firstWave = page
        .locator(
          'input[data-testid="upgrade-field-firstWaveSize"], [data-testid="upgrade-field-firstWaveSize"] input',
        )
        .first();
      await expect.poll(() => firstWave.inputValue()).toBe('1');
      await screenshot(page, 'upgrade-zh-desktop-wizard-rollout');
      await page.getByTestId('upgrade-wizard-create').click();

      // The record's detail opens and follows the device live until it runs the new version.
      await page.waitForURL(/\/upgradeRecordDetail\?id=\d+$/);
      batchId = Number(new URL(page.url()).searchParams.get('id'));
      const detail = page.getByTestId('upgrade-detail');
      await detail.waitFor();
      const state = page.getByTestId(`upgrade-device-state-${pcs.id}`);
      const seen = new Set<string>();
      await expect
        .poll(
          async () => {
            const s = (await state.getAttribute('data-state')) ?? '';
            seen.add(s);
            return s;
          },
          { timeout: UPGRADE_WAIT_MS, interval: 250 },
        )
        .toBe('success');
      expect(await state.innerText()).toBe('升级成功');
      expect(
        (await page.getByTestId(`upgrade-device-version-${pcs.id}`).innerText()).replace(/\s+/g, ' '),
      ).toBe(`${pcs.firmware} → ${VERSION}`);
      await expect.poll(() => detail.getAttribute('data-state'), { timeout: 30_000 }).toBe('finished');
      expect(await page.getByTestId('upgrade-detail-progress').getAttribute('data-success')).toBe('1');
      // The timeline lists the phases the device went through, in order, ending in success.
      await page
        .getByTestId('upgrade-devices')
        .locator(`tr[data-row-key="${pcs.id}"] .ant-table-row-expand-icon`)
        .click();
      const timeline = (await page.getByTestId(`upgrade-timeline-${pcs.id}`).innerText()).replace(
        /\s+/g,
        ' ',
      );
      const order = ['下载中', '已下载', '校验中', '安装中', '重启中', '升级成功'].map((s) =>
        timeline.indexOf(s),
      );
      expect(order.every((i) => i >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      await screenshot(page, 'upgrade-zh-desktop-detail');

      // The records list shows the batch finished with its operator.
      await page.goto('/upgradeRecord');
      const record = page.getByTestId('upgrade-table').locator(`tr[data-row-key="${batchId}"]`);
      await record.waitFor();
      expect(await page.getByTestId(`upgrade-state-${batchId}`).getAttribute('data-state')).toBe('finished');
      expect(await page.getByTestId(`upgrade-progress-${batchId}`).getAttribute('data-done-pct')).toBe('100');
      expect(await record.innerText()).toContain(VERSION);
      await screenshot(page, 'upgrade-zh-desktop-records');

      // Site configuration: the PCS now reports the new firmware.
      await page.goto('/deviceconfig');
      await page.getByTestId('site-list').getByText(pcs.site.code).first().click();
      const deviceRow = page.getByTestId('device-table').locator(`tr[data-row-key="${pcs.id}"]`);
      await expect.poll(() => deviceRow.innerText(), { timeout: 30_000 }).toContain(`固件 ${VERSION}`);
      await screenshot(page, 'firmware-zh-desktop-deviceconfig');
      await context.close();
    },
    UPGRADE_WAIT_MS + 120_000,
  );

  it.each([
    ['zh', 'desktop'],
    ['en', 'desktop'],
    ['zh', 'mobile'],
    ['en', 'mobile'],
  ] as const)(
    'the three screens in %s, %s',
    async (lang, size) => {
      expect(batchId, 'the upgrade test ran first').toBeGreaterThan(0);
      const { page, context } = await newPage(browser, size === 'desktop' ? DESKTOP : MOBILE);
      const name = `${lang}-${size}`;
      onTestFailed(() => screenshot(page, `firmware-${name}-failed`));
      await openSignedIn(page, '/firmware', { lang });
      await page.getByTestId(`firmware-state-${packageId}`).waitFor();
      await noOverflow(page, 'firmware');
      await screenshot(page, `firmware-${name}-list`);
      await page.getByTestId(`firmware-view-${packageId}`).click();
      await page.getByTestId('firmware-drawer').waitFor();
      await screenshot(page, `firmware-${name}-drawer`);
      await page.keyboard.press('Escape');
      await page.getByTestId('firmware-drawer').waitFor({ state: 'detached' });

      await page.goto('/upgradeRecord');
      await page.getByTestId(`upgrade-progress-${batchId}`).waitFor();
      await noOverflow(page, 'upgradeRecord');
      await screenshot(page, `upgrade-${name}-records`);
      await page.getByTestId('upgrade-new').click();
      await chooseOption(page, 'upgrade-wizard-package', VERSION);
      await page.getByTestId('upgrade-wizard-next').click();
      await page.getByTestId('upgrade-candidates').locator(`tr[data-row-key="${pcs.id}"]`).waitFor();
      await screenshot(page, `upgrade-${name}-wizard`);
      await page.keyboard.press('Escape');
      await page.getByTestId('upgrade-wizard').waitFor({ state: 'detached' });

      await page.getByTestId(`upgrade-open-${batchId}`).click();
      await page.waitForURL(`**/upgradeRecordDetail?id=${batchId}`);
      await page.getByTestId(`upgrade-device-state-${pcs.id}`).waitFor();
      const expected = lang === 'zh' ? '升级成功' : 'Upgraded';
      expect(await page.getByTestId(`upgrade-device-state-${pcs.id}`).innerText()).toBe(expected);
      await noOverflow(page, 'upgradeRecordDetail');
      await screenshot(page, `upgrade-${name}-detail`);
      await context.close();
    },
    120_000,
  );
});
