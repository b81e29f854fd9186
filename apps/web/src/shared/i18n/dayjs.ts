/**
 * dayjs follows the UI language (spec §4): 'zh-cn' or 'en'. Imported by the screens that show
 * dates (frame, cockpit) rather than at start-up, to keep dayjs out of the /login first load.
 */
import { localPartsOf } from '@ess/contract';
import dayjs, { type Dayjs } from 'dayjs';
import 'dayjs/locale/zh-cn';
import utc from 'dayjs/plugin/utc';
import { useTranslation } from 'react-i18next';

dayjs.extend(utc);

/**
 * Set dayjs's global locale from the current UI language; re-runs when the language changes.
 * Returns the locale name ('en' | 'zh-cn') for dayjs objects made before the switch, which keep
 * the locale they were made with: `time.locale(locale).format(…)`.
 */
export function useDayjsLocale(): string {
  const { i18n } = useTranslation();
  const locale = i18n.language.startsWith('en') ? 'en' : 'zh-cn';
  dayjs.locale(locale);
  return locale;
}

/**
 * A dayjs that reads as the wall clock of instant `ms` in `timeZone` (the browser's when
 * undefined), for formatting with dayjs patterns only (`wallClock(now, site.timezone).format(…)`):
 * its fields are the contract's local time of the instant (local-time.ts, the one conversion),
 * held in UTC mode so no daylight-saving gap of the browser's own zone can move them.
 */
export function wallClock(ms: number, timeZone?: string): Dayjs {
  if (!timeZone) return dayjs(ms);
  const p = localPartsOf(ms, timeZone);
  return dayjs.utc(Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second));
}

export { dayjs };
