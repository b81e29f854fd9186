/**
 * dayjs follows the UI language (spec §4): 'zh-cn' or 'en'. Imported by the screens that show
 * dates (frame, cockpit) rather than at start-up, to keep dayjs out of the /login first load.
 */
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useTranslation } from 'react-i18next';

/** Set dayjs's global locale from the current UI language; re-runs when the language changes. */
export function useDayjsLocale(): void {
  const { i18n } = useTranslation();
  dayjs.locale(i18n.language.startsWith('en') ? 'en' : 'zh-cn');
}

export { dayjs };
