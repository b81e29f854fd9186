/**
 * Languages of the console (spec §9): Chinese is the default, English the fallback.
 * The server's menu call takes 'cn' for Chinese ('zh' is sent as 'cn').
 */
export type Lang = 'zh' | 'en';
export type ServerLanguage = 'cn' | 'en';

export const DEFAULT_LANG: Lang = 'zh';
export const FALLBACK_LANG: Lang = 'en';

/** 'zh' → 'cn', 'en' → 'en' (spec §9). */
export function toServerLanguage(lang: Lang): ServerLanguage {
  return lang === 'zh' ? 'cn' : 'en';
}

/** 'cn' → 'zh', 'en' → 'en'. */
export function fromServerLanguage(language: ServerLanguage): Lang {
  return language === 'cn' ? 'zh' : 'en';
}

/**
 * The language of an `Accept-Language` header value: English when its first tag is English,
 * otherwise the default, Chinese.
 */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  if (!header) return DEFAULT_LANG;
  const first = header.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('en') ? 'en' : DEFAULT_LANG;
}
