/**
 * The operation log screen names every action and target type of the contract's audit
 * vocabulary: a ToU push and an alarm acknowledgement (both refused here:
 * unknown site, unknown alarm; refusals are logged too) show as '下发电价方案' / '确认告警' with
 * their target types, not as raw keys, and the filters offer and apply them; in English the
 * same entry reads 'Push ToU scheme'.
 */
import { auditActionLabel, auditTargetLabel, INT4_MAX, touEndpoints } from '@ess/contract';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type ApiSession, api, apiSignIn, chooseOption, openSignedIn } from './support/app';
import { launchBrowser, newPage } from './support/browser';

describe('operation log: the audit vocabulary', () => {
  let browser: Browser;
  let admin: ApiSession;

  beforeAll(async () => {
    browser = await launchBrowser();
    admin = await apiSignIn(ADMIN.account, ADMIN.password);
    const userInfo = { userId: admin.userId, companyId: admin.companyId };
    // Refused calls (no such site / alarm) are logged like accepted ones.
    const push = await api(touEndpoints.push.path, { userInfo, siteId: INT4_MAX }, { token: admin.token });
    expect(push.code).not.toBe(0);
    const ack = await api('/api-bms/alarm/ack', { userInfo, ids: [INT4_MAX] }, { token: admin.token });
    expect(ack.code).not.toBe(0);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows and filters tou.push by its Chinese name, with its target type', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/log', { lang: 'zh' });
    const pushLabel = auditActionLabel('tou.push', 'zh');
    expect(pushLabel).toBe('下发电价方案');

    await chooseOption(page, 'oplog-filter-action', pushLabel, { search: pushLabel });
    const row = page.getByTestId('oplog-table').locator('tr[data-row-key]').first();
    // Until the filtered page arrives the previous one stays in view.
    await expect.poll(() => row.innerText()).toContain(pushLabel);
    const text = await row.innerText();
    expect(text).toContain(pushLabel);
    expect(text).toContain(auditTargetLabel('site', 'zh'));
    expect(text).toContain(ADMIN.account);
    expect(text).not.toContain('tou.push');
    expect(await row.locator('.oplog-action').getAttribute('title')).toBe('tou.push');

    // The target filter offers the new target types too.
    await page.getByTestId('oplog-reset').click();
    await chooseOption(page, 'oplog-filter-target', auditTargetLabel('alarm', 'zh'), {
      search: auditTargetLabel('alarm', 'zh'),
    });
    const ackRow = page.getByTestId('oplog-table').locator('tr[data-row-key]').first();
    await expect.poll(() => ackRow.innerText()).toContain(auditActionLabel('alarm.ack', 'zh'));
    await context.close();
  });

  it('reads the same entry in English', async () => {
    const { context, page } = await newPage(browser);
    await openSignedIn(page, '/system/log', { lang: 'en' });
    await chooseOption(page, 'oplog-filter-action', 'Push ToU scheme', { search: 'Push ToU scheme' });
    const row = page.getByTestId('oplog-table').locator('tr[data-row-key]').first();
    await expect.poll(() => row.innerText()).toContain('Push ToU scheme');
    await context.close();
  });
});
