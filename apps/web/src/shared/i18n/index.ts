/**
 * i18n of the console (spec §9: Chinese default, English fallback).
 *
 * - i18next resources are keyed `zh-CN` and `en-US`; the contract's `Lang` ('zh' | 'en') is the
 *   app-level name of a language, {@link localeOf} maps it to the resource / HTTP tag.
 * - The chosen language is kept in local storage (`ess.language`) and survives logout.
 * - The Chinese texts are part of the first load; the English ones are their own chunk, loaded
 *   before the first render when English is the stored language ({@link i18nReady}) or when the
 *   user switches to it ({@link changeLang}). Keys of both are the same (type `Resources`).
 * - Validation and error texts come from @ess/contract (see {@link validationText},
 *   {@link catalogueText}); everything else from the resources here.
 */
import {
  DEFAULT_LANG,
  errorMessage,
  FALLBACK_LANG,
  type Lang,
  type ValidationMessageKey,
  validationMessages,
} from '@ess/contract';
import i18n, { type ParseKeys } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LocalKey } from '../storage/keys';
import { readLocal, writeLocal } from '../storage/local';
import zhCN from './locales/zh-CN';

export type Locale = 'zh-CN' | 'en-US';
export type TranslationKey = ParseKeys;

const LANGUAGE_KEY = LocalKey.language;

/** 'zh' → 'zh-CN', 'en' → 'en-US': the i18next resource key and the `Accept-Language` tag. */
export function localeOf(lang: Lang): Locale {
  return lang === 'en' ? 'en-US' : 'zh-CN';
}

function langOfLocale(locale: string | undefined): Lang {
  return locale?.toLowerCase().startsWith('en') ? 'en' : 'zh';
}

/** The language stored by the last switch, or the default (Chinese). */
export function storedLang(): Lang {
  const stored = readLocal(LANGUAGE_KEY);
  return stored === 'zh' || stored === 'en' ? stored : DEFAULT_LANG;
}

void i18n.use(initReactI18next).init({
  resources: { 'zh-CN': { translation: zhCN } },
  lng: localeOf(storedLang()),
  fallbackLng: localeOf(FALLBACK_LANG),
  supportedLngs: ['zh-CN', 'en-US'],
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
document.documentElement.lang = localeOf(storedLang());

/** Adds the texts of `locale` to i18next unless they are there (English: a lazy chunk). */
async function loadLocale(locale: Locale): Promise<void> {
  if (i18n.hasResourceBundle(locale, 'translation')) return;
  const { default: texts } = await import('./locales/en-US');
  i18n.addResourceBundle(locale, 'translation', texts);
}

/**
 * Settles once the stored language's texts are loaded: the entry renders after it. Should the
 * English chunk fail to load, the console starts in Chinese rather than not at all.
 */
export const i18nReady: Promise<void> = loadLocale(localeOf(storedLang())).catch(async () => {
  document.documentElement.lang = localeOf(DEFAULT_LANG);
  await i18n.changeLanguage(localeOf(DEFAULT_LANG));
});

/** The current UI language. */
export function currentLang(): Lang {
  return langOfLocale(i18n.language);
}

/** Switch the UI language and remember it (spec §4 "sets the locale, stores it"). */
export async function changeLang(lang: Lang): Promise<void> {
  await loadLocale(localeOf(lang));
  writeLocal(LANGUAGE_KEY, lang);
  document.documentElement.lang = localeOf(lang);
  await i18n.changeLanguage(localeOf(lang));
}

/** The text of a shared validation rule in the current language (spec §5). */
export function validationText(key: ValidationMessageKey): string {
  return validationMessages[key][currentLang()];
}

/**
 * The catalogue text of an answer code in the current language, its `{placeholders}` filled from
 * `params` (e.g. `{maxDays}`); 'Error' for unknown codes (spec §8).
 */
export function catalogueText(code: number, params?: Record<string, string | number>): string {
  return errorMessage(code, currentLang(), params);
}

/**
 * A route title for display: titles starting with 'router.' are translation keys (spec §2),
 * anything else (menu titles from the server, already in the right language) is shown as is.
 */
export function translateTitle(title: string | null | undefined): string {
  if (!title) return '';
  if (title.startsWith('router.') && i18n.exists(title)) return i18n.t(title as TranslationKey);
  return title;
}

/** Browser tab title: route title + ' - ' + system name (spec §2). */
export function pageTitle(title: string | null | undefined): string {
  const name = i18n.t('app.name');
  const shown = translateTitle(title);
  return shown ? `${shown} - ${name}` : name;
}

export { i18n };
