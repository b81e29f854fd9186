/**
 * dayjs follows the UI language (spec §4): 'zh-cn' or 'en'. Imported by the screens that show
 * dates (frame, cockpit) rather than at start-up, to keep dayjs out of the /login first load.
 */
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useTranslation } from 'react-i18next';

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

export { dayjs };
