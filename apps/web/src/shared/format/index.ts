/**
 * Numbers, units and times as the operator reads them, in the UI language's conventions
 * (design §4: SI units with the unit shown; times in the site's zone where it is known).
 *
 * Times: every function takes the IANA zone to show a UTC instant in (a site's zone, or a fleet
 * view's time base; the browser's when omitted). The screen's zone comes from its
 * `TimeBaseProvider` (./time-base.tsx, `useTimeBase()`), so one screen has one time base; the
 * UTC → local conversion behind the zone label is the contract's (local-time.ts).
 *
 * Every function takes `null`/`undefined` for "no reading" and renders it as {@link NO_VALUE}
 * — a missing reading is never shown as 0.
 */
import { type Lang, roundCny, roundKwh, utcOffsetText } from '@ess/contract';
import { currentLang, localeOf } from '../i18n';

/** Shown where a reading is missing. */
export const NO_VALUE = '—';

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(digits: number): Intl.NumberFormat {
  const locale = localeOf(currentLang());
  const key = `${locale}:${digits}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 });
    numberFormats.set(key, format);
  }
  return format;
}

/** `1234.56` → '1,234.6' (at most `digits` decimals); '—' for no value. */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NO_VALUE;
  // Avoid '-0' for tiny negative readings that round to zero.
  const rounded = Math.round(value * 10 ** digits) / 10 ** digits;
  return numberFormat(digits).format(rounded === 0 ? 0 : rounded);
}

/**
 * Decimals of money and energy as the console shows them (one rule for the bill, its print page,
 * revenue statistics, the ToU preview, the cockpit and the big screens):
 * - CNY: always two — money is kept to the fen (contract money/valuation.ts `roundCny`; a bill's
 *   lines and totals are sums of fen, so its printed columns add up as shown);
 * - price CNY/kWh: always four — the precision tariff notices publish energy prices in
 *   (e.g. 0.6512 元/kWh); the bill's print page lists it beside each line;
 * - kWh on a bill (energies, register readings): up to three — the Wh energies are kept to
 *   (`roundKwh`), so a register difference × multiplier can be checked on the page to the last
 *   digit. Statistics and live figures (revenue, dashboard, big screens) show energies with
 *   {@link formatQuantity} / {@link formatNumber} to 0.1 kWh or less, where the Wh is noise.
 */
export const CNY_DIGITS = 2;
export const PRICE_DIGITS = 4;
export const KWH_DIGITS = 3;

const fixedFormats = new Map<string, Intl.NumberFormat>();

function fixedFormat(lang: Lang, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${lang}|${JSON.stringify(options)}`;
  let format = fixedFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(localeOf(lang), options);
    fixedFormats.set(key, format);
  }
  return format;
}

const missing = (value: number | null | undefined): value is null | undefined =>
  value === null || value === undefined || !Number.isFinite(value);

/**
 * An amount in CNY for a column or a text that names the unit: `1234.5` → '1,234.50' (zh and en
 * alike), rounded to the fen half away from zero as the server does (`roundCny`); never '-0.00';
 * '—' for none. `lang`: the UI language unless given (the bill's print page passes its own).
 */
export function formatCny(value: number | null | undefined, lang: Lang = currentLang()): string {
  if (missing(value)) return NO_VALUE;
  return fixedFormat(lang, { minimumFractionDigits: CNY_DIGITS, maximumFractionDigits: CNY_DIGITS }).format(
    roundCny(value),
  );
}

/**
 * An amount in CNY with its currency sign, for a figure standing alone: `1234.5` → '¥1,234.50'
 * (zh) / 'CN¥1,234.50' (en: the sign English readers tell from the yen's); '—' for none.
 */
export function formatCnyAmount(value: number | null | undefined, lang: Lang = currentLang()): string {
  if (missing(value)) return NO_VALUE;
  return fixedFormat(lang, {
    style: 'currency',
    currency: 'CNY',
    minimumFractionDigits: CNY_DIGITS,
    maximumFractionDigits: CNY_DIGITS,
  }).format(roundCny(value));
}

/** An energy price in CNY/kWh (unit named by the caller): `0.6` → '0.6000'; '—' for none. */
export function formatPrice(value: number | null | undefined, lang: Lang = currentLang()): string {
  if (missing(value)) return NO_VALUE;
  // Half away from zero as written (0.31575 → 0.3158): cut binary noise at 15 significant digits first.
  const scaled = Number((Math.abs(value) * 10 ** PRICE_DIGITS).toPrecision(15));
  const rounded = (Math.sign(value) * Math.round(scaled)) / 10 ** PRICE_DIGITS;
  return fixedFormat(lang, {
    minimumFractionDigits: PRICE_DIGITS,
    maximumFractionDigits: PRICE_DIGITS,
  }).format(rounded === 0 ? 0 : rounded);
}

/**
 * An energy or a register reading in kWh (unit named by the caller) to the Wh:
 * `12345.6789` → '12,345.679', `40` → '40'; '—' for none.
 */
export function formatKwh(value: number | null | undefined, lang: Lang = currentLang()): string {
  if (missing(value)) return NO_VALUE;
  const rounded = roundKwh(value);
  return fixedFormat(lang, { maximumFractionDigits: KWH_DIGITS }).format(rounded === 0 ? 0 : rounded);
}

/** Units shown after figures (the same symbols in both languages). */
export type Unit = 'kW' | 'kWh' | '%';

/** `formatQuantity(12.34, 'kW')` → '12.3 kW'; '—' for no value. */
export function formatQuantity(value: number | null | undefined, unit: Unit, digits = 1): string {
  const text = formatNumber(value, digits);
  return text === NO_VALUE ? text : `${text} ${unit}`;
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter of the UI language in `timeZone` (the browser's for none or an unknown zone). */
function dateTimeFormat(options: Intl.DateTimeFormatOptions, timeZone?: string): Intl.DateTimeFormat {
  const locale = localeOf(currentLang());
  const key = `${locale}|${timeZone ?? ''}|${JSON.stringify(options)}`;
  let format = dateTimeFormats.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {
      format = new Intl.DateTimeFormat(locale, options);
    }
    dateTimeFormats.set(key, format);
  }
  return format;
}

/** UTC ms → '2026-11-21 14:05:09' style date and time in `timeZone` (default: the browser's). */
export function formatDateTime(ts: number | null | undefined, timeZone?: string): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat(
    {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    },
    timeZone,
  ).format(ts);
}

/** UTC ms → 'HH:mm:ss' in `timeZone` (default: the browser's). */
export function formatTime(ts: number | null | undefined, timeZone?: string, seconds = true): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat(
    { hour: '2-digit', minute: '2-digit', second: seconds ? '2-digit' : undefined, hourCycle: 'h23' },
    timeZone,
  ).format(ts);
}

/** UTC ms → '11/21 14:05' (month, day, hour, minute) in `timeZone` (default: the browser's). */
export function formatDayTime(ts: number | null | undefined, timeZone?: string): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat(
    { month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
    timeZone,
  ).format(ts);
}

/** UTC ms → '11/21' (month and day) in `timeZone` (default: the browser's). */
export function formatMonthDay(ts: number | null | undefined, timeZone?: string): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat({ month: '2-digit', day: '2-digit' }, timeZone).format(ts);
}

/** UTC ms → '2026/11' (year and month) in `timeZone` (default: the browser's). */
export function formatYearMonth(ts: number | null | undefined, timeZone?: string): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat({ year: 'numeric', month: '2-digit' }, timeZone).format(ts);
}

/** UTC ms → '2026年11月21日' / 'Nov 21, 2026' (the local date) in `timeZone` (default: the browser's). */
export function formatDate(ts: number | null | undefined, timeZone?: string): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  return dateTimeFormat({ dateStyle: 'medium' }, timeZone).format(ts);
}

/**
 * UTC ms → a short time for lists: 'HH:mm:ss' when it falls on today's date in `timeZone`
 * (default: the browser's), else '11/21 14:05'.
 */
export function formatShortDateTime(
  ts: number | null | undefined,
  timeZone?: string,
  now = Date.now(),
): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  const day = dateTimeFormat({ year: 'numeric', month: '2-digit', day: '2-digit' }, timeZone);
  if (day.format(ts) === day.format(now)) return formatTime(ts, timeZone);
  return formatDayTime(ts, timeZone);
}

/** The browser's IANA zone (e.g. 'UTC', 'Asia/Shanghai'). */
export function browserTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** 'Asia/Shanghai (UTC+8)': a zone with its offset at `at` (default: now). */
export function zoneLabel(timeZone: string, at = Date.now()): string {
  try {
    return `${timeZone} (${utcOffsetText(at, timeZone)})`;
  } catch {
    return timeZone;
  }
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** UTC ms → '3 分钟前' / '3 minutes ago' relative to `now`; '—' for no value. */
export function formatRelative(ts: number | null | undefined, now = Date.now()): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  const diff = ts - now;
  const format = new Intl.RelativeTimeFormat(localeOf(currentLang()), { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === 'second') {
      const amount = Math.round(diff / ms);
      return format.format(unit === 'second' && Math.abs(amount) < 10 ? 0 : amount, unit);
    }
  }
  return NO_VALUE;
}
