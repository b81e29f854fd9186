/** Type-checks translation keys against the Chinese resources. */
import 'i18next';
import type { Resources } from './locales/zh-CN';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Resources };
    returnNull: false;
  }
}
