/**
 * The operation log's closed vocabulary (audit-vocabulary.ts) and the device
 * type names (device/protocol.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ACTION_LABELS,
  AUDIT_ACTIONS,
  AUDIT_TARGET_LABELS,
  AUDIT_TARGET_TYPES,
  auditActionLabel,
  auditTargetLabel,
  isAuditAction,
} from '../src/audit-vocabulary';
import { DEVICE_TYPES, deviceTypeLabel } from '../src/device/protocol';
import type { Lang } from '../src/lang';

const LANGS: Lang[] = ['zh', 'en'];
const HAN = /\p{Script=Han}/u;

describe('audit actions', () => {
  it('are `<resource>.<verb>` keys, each once', () => {
    for (const action of AUDIT_ACTIONS) expect(action).toMatch(/^[a-z]+\.[a-zA-Z]+$/);
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
  });

  it.each(AUDIT_ACTIONS)('%s has a Chinese and an English name', (action) => {
    const zh = auditActionLabel(action, 'zh');
    const en = auditActionLabel(action, 'en');
    expect(zh.trim()).not.toBe('');
    expect(en.trim()).not.toBe('');
    expect(zh).not.toBe(action);
    expect(en).not.toBe(action);
    expect(zh).toMatch(HAN);
    expect(en).not.toMatch(HAN);
  });

  it('gives distinct actions distinct names in each language', () => {
    for (const lang of LANGS) {
      const names = AUDIT_ACTIONS.map((a) => auditActionLabel(a, lang));
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('has no label without an action', () => {
    expect(Object.keys(AUDIT_ACTION_LABELS).sort()).toEqual([...AUDIT_ACTIONS].sort());
  });

  it('keeps the console’s wordings', () => {
    expect(auditActionLabel('role.update', 'zh')).toBe('修改角色');
    expect(auditActionLabel('role.update', 'en')).toBe('Update role');
    expect(auditActionLabel('owner.status', 'zh')).toBe('启用/禁用用户公司');
    expect(auditActionLabel('construction.save', 'en')).toBe('Add construction party');
    expect(auditActionLabel('tou.push', 'zh')).toBe('下发电价方案');
    expect(auditActionLabel('tou.push', 'en')).toBe('Push ToU scheme');
    expect(auditActionLabel('user.login', 'zh')).toBe('登录');
  });

  it('answers an unknown action with its key', () => {
    expect(isAuditAction('role.fly')).toBe(false);
    expect(isAuditAction('toString')).toBe(false);
    expect(auditActionLabel('role.fly', 'zh')).toBe('role.fly');
  });
});

describe('audit target types', () => {
  it.each(AUDIT_TARGET_TYPES)('%s has a Chinese and an English name', (type) => {
    expect(auditTargetLabel(type, 'zh')).toMatch(HAN);
    expect(auditTargetLabel(type, 'en').trim()).not.toBe('');
    expect(auditTargetLabel(type, 'en')).not.toMatch(HAN);
  });

  it('has no label without a type, and answers an unknown type with itself', () => {
    expect(Object.keys(AUDIT_TARGET_LABELS).sort()).toEqual([...AUDIT_TARGET_TYPES].sort());
    expect(auditTargetLabel('planet', 'en')).toBe('planet');
  });
});

describe('device type names', () => {
  it.each(DEVICE_TYPES)('%s has a name in both languages', (type) => {
    for (const lang of LANGS) {
      expect(deviceTypeLabel(type, lang).trim()).not.toBe('');
      expect(deviceTypeLabel(type, lang)).not.toBe(type);
    }
  });

  it('uses the console’s words and keeps the standard abbreviations', () => {
    expect(deviceTypeLabel('meter', 'zh')).toBe('电表');
    expect(deviceTypeLabel('env_sensor', 'en')).toBe('Environment sensor');
    expect(deviceTypeLabel('pcs', 'zh')).toBe('PCS');
  });

  it('answers an unknown type with itself', () => {
    expect(deviceTypeLabel('windmill', 'zh')).toBe('windmill');
  });
});
