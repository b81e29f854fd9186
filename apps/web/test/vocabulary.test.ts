/**
 * One source for the names the server also knows: the operation log's
 * actions and target types and the device types come from @ess/contract
 * (`auditActionLabel`, `auditTargetLabel`, `deviceTypeLabel`), not from the console's locales.
 */
import { AUDIT_ACTIONS, auditActionLabel } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import enUS from '../src/shared/i18n/locales/en-US';
import zhCN from '../src/shared/i18n/locales/zh-CN';

describe('labels shared with the server', () => {
  it.each([
    ['zh-CN', zhCN],
    ['en-US', enUS],
  ] as const)('%s holds no copy of the audit or device-type names', (_, texts) => {
    const oplog = texts.oplog as Record<string, unknown>;
    for (const key of ['actions', 'verb', 'resource', 'actionFormat']) expect(oplog).not.toHaveProperty(key);
    expect(texts.devices as Record<string, unknown>).not.toHaveProperty('type');
  });

  it('names every recorded action in both languages (tou.push: 下发电价方案)', () => {
    expect(auditActionLabel('tou.push', 'zh')).toBe('下发电价方案');
    for (const action of AUDIT_ACTIONS) {
      expect(auditActionLabel(action, 'zh')).not.toBe(action);
      expect(auditActionLabel(action, 'en')).not.toBe(action);
    }
  });
});
