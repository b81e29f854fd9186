/**
 * Numbers, units and times as the operator reads them, in the UI language's conventions
 * (design §4: SI units with the unit shown; times in the site's zone where it is known).
 *
 * Every function takes `null`/`undefined` for "no reading" and renders it as {@link NO_VALUE}
 * — a missing reading is never shown as 0.
 */
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

/** Units shown after figures (the same symbols in both languages). */
export type Unit = 'kW' | 'kWh' | '%';

/** `formatQuantity(12.34, 'kW')` → '12.3 kW'; '—' for no value. */
export function formatQuantity(value: number | null | undefined, unit: Unit, digits = 1): string {
  const text = formatNumber(value, digits);
  return text === NO_VALUE ? text : `${text} ${unit}`;
}

function dateTimeFormat(options: Intl.DateTimeFormatOptions, timeZone?: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(localeOf(currentLang()), { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat(localeOf(currentLang()), options);
  }
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

/**
 * UTC ms → a short time for lists: 'HH:mm:ss' when it is today in the browser's zone, else
 * 'MM-DD HH:mm'.
 */
export function formatShortDateTime(ts: number | null | undefined, now = Date.now()): string {
  if (ts === null || ts === undefined) return NO_VALUE;
  if (new Date(ts).toDateString() === new Date(now).toDateString()) return formatTime(ts);
  return dateTimeFormat({
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ts);
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
