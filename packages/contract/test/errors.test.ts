/**
 * Error catalogue (spec §8).
 */
import { describe, expect, it } from 'vitest';
import {
  CLEAR_SESSION_CODES,
  ErrorCode,
  errorCatalogue,
  errorMessage,
  isKnownCode,
  RELOGIN_CONFIRM_CODES,
  SUCCESS,
} from '../src/errors';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Every code spec §8 numbers. */
const SPEC_CODES = [
  -100,
  -101,
  -102,
  ...range(2000, 2007),
  ...range(3030, 3035),
  3060,
  3061,
  5000,
  ...range(5031, 5033),
  ...range(5050, 5056),
  5080,
  5081,
  ...range(6000, 6004),
  7000,
  7001,
  7030,
  9996,
  9997,
  9999,
  50008,
  50012,
  50014,
];

describe('error catalogue', () => {
  it('success is code 0 and not in the catalogue', () => {
    expect(SUCCESS).toBe(0);
    expect(isKnownCode(0)).toBe(false);
  });

  it('has every code of spec §8', () => {
    for (const code of SPEC_CODES) expect(isKnownCode(code), String(code)).toBe(true);
  });

  it('every entry has non-empty, distinct zh and en texts', () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(entry.zh.trim(), code).not.toBe('');
      expect(entry.en.trim(), code).not.toBe('');
      expect(entry.zh, code).not.toBe(entry.en);
      expect(entry.zh, code).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('every ErrorCode value is in the catalogue and every catalogue code is an ErrorCode', () => {
    const values = Object.values(ErrorCode) as number[];
    for (const code of values) expect(isKnownCode(code), String(code)).toBe(true);
    expect(
      Object.keys(errorCatalogue)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it('has the spec’s meanings for a sample of codes', () => {
    expect(errorCatalogue[-100].en).toBe('Request parameter error');
    expect(errorCatalogue[5080].en).toBe('Incorrect account or password');
    expect(errorCatalogue[5052].zh).toBe('账号已禁用，无法登录');
    expect(errorCatalogue[9999].en).toMatch(/^Token invalid/);
  });

  it('groups the session codes as spec §8 says', () => {
    expect([...CLEAR_SESSION_CODES].sort()).toEqual([-102, 9999]);
    expect([...RELOGIN_CONFIRM_CODES].sort()).toEqual([50008, 50012, 50014]);
  });
});

describe('errorMessage', () => {
  it('answers the text in the language asked', () => {
    expect(errorMessage(5080, 'zh')).toBe('账号或密码错误');
    expect(errorMessage(5080, 'en')).toBe('Incorrect account or password');
  });

  it('fills {minutes}', () => {
    expect(errorMessage(5082, 'zh', { minutes: 15 })).toBe('登录失败次数过多，请15分钟后再试');
    expect(errorMessage(5082, 'en', { minutes: '3' })).toBe(
      'Too many failed sign-in attempts, try again in 3 minute(s)',
    );
  });

  it('leaves a placeholder without a value as it is, and ignores extra values', () => {
    expect(errorMessage(5082, 'en')).toContain('{minutes}');
    expect(errorMessage(5080, 'en', { minutes: 1 })).toBe('Incorrect account or password');
  });

  it('answers 错误 / Error for an unknown code', () => {
    expect(errorMessage(12345, 'zh')).toBe('错误');
    expect(errorMessage(12345, 'en')).toBe('Error');
    expect(errorMessage(0, 'en')).toBe('Error');
  });

  it('does not treat inherited object keys as codes', () => {
    expect(isKnownCode('constructor' as unknown as number)).toBe(false);
    expect(errorMessage('toString' as unknown as number, 'en')).toBe('Error');
  });
});
