/**
 * App-wide providers: just the router. i18n is initialised on import (shared/i18n); antd's
 * ConfigProvider and TanStack Query are provided by the frame and the pages that use them, so
 * the /login first load stays small (budget: 200 KB gzipped JS).
 */
import type { PropsWithChildren } from 'react';
import { BrowserRouter } from 'react-router';

/** Router around the app. */
export function Providers({ children }: PropsWithChildren) {
  return <BrowserRouter>{children}</BrowserRouter>;
}
