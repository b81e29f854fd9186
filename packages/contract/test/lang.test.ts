/**
 * Languages (spec §9): zh default, en fallback, 'zh' sent to the server as 'cn'.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LANG,
  FALLBACK_LANG,
  fromServerLanguage,
  langFromAcceptLanguage,
  toServerLanguage,
} from '../src/lang';

describe('languages', () => {
  it('defaults to zh with en as fallback', () => {
    expect(DEFAULT_LANG).toBe('zh');
    expect(FALLBACK_LANG).toBe('en');
  });

  it("sends 'zh' as 'cn' and 'en' as 'en', and reads them back", () => {
    expect(toServerLanguage('zh')).toBe('cn');
    expect(toServerLanguage('en')).toBe('en');
    expect(fromServerLanguage('cn')).toBe('zh');
    expect(fromServerLanguage('en')).toBe('en');
    for (const lang of ['zh', 'en'] as const) expect(fromServerLanguage(toServerLanguage(lang))).toBe(lang);
  });

  it.each([
    [undefined, 'zh'],
    ['', 'zh'],
    ['zh-CN,zh;q=0.9', 'zh'],
    ['en', 'en'],
    ['en-US,en;q=0.9', 'en'],
    ['EN-gb', 'en'],
    [' en-US , zh', 'en'],
    ['fr-FR,en;q=0.8', 'zh'],
    ['zh-TW,en;q=0.9', 'zh'],
    ['*', 'zh'],
  ])('Accept-Language %j reads as %s', (header, lang) => {
    expect(langFromAcceptLanguage(header)).toBe(lang);
  });
});
