/**
 * Navigation guard (spec §2):
 * - with a token, /login redirects to the `redirect` query (or '/');
 * - with a token and no routes loaded yet (page reload), the latest user info and menu are
 *   fetched and the routes added; with no menu the user is logged out to /login; on failure the
 *   token is reset and the user goes to /login ("Verification failed, please Login again.");
 * - without a token only /login and /newscreen are allowed; anything else redirects to
 *   /login?redirect=<path>;
 * - the page title is the route title plus the system name.
 */
import { type PropsWithChildren, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { showError } from '@/shared/feedback';
import { pageTitle } from '@/shared/i18n';
import {
  COCKPIT_PATH,
  findRoute,
  HOME_PATH,
  LOGIN_PATH,
  PUBLIC_ROUTES,
  TOKENLESS_PATHS,
  useRouteTable,
} from '@/shared/routing';
import { useCredentials } from '@/shared/storage/session';
import { PageLoading } from '@/shared/ui/PageLoading';
import { resetAll, restoreSession } from '../session';

/**
 * The in-app path a `redirect` query may send to: a same-origin path, never back to /login.
 * Anything else (absent, '//host', 'https://…') gives '/'.
 */
export function safeRedirect(raw: string | null): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return HOME_PATH;
  if (raw === LOGIN_PATH || raw.startsWith(`${LOGIN_PATH}?`)) return HOME_PATH;
  return raw;
}

function usePageTitle(pathname: string): void {
  const { i18n } = useTranslation();
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the title also changes with the language
  useEffect(() => {
    const entry = findRoute([...PUBLIC_ROUTES, ...frameRoutes], pathname);
    document.title = pageTitle(entry?.route.title);
  }, [pathname, frameRoutes, i18n.language]);
}

/** Renders `children` when the guard lets the current location through (see module doc). */
export function AuthGuard({ children }: PropsWithChildren) {
  const { t } = useTranslation();
  const location = useLocation();
  const token = useCredentials((c) => c.token);
  const loaded = useRouteTable((s) => s.loaded);
  const { pathname } = location;
  const needsRestore = Boolean(token) && !loaded && pathname !== LOGIN_PATH && pathname !== COCKPIT_PATH;

  usePageTitle(pathname);

  useEffect(() => {
    if (!needsRestore) return;
    restoreSession().catch(() => {
      resetAll();
      showError(t('login.verifyFailed'));
    });
  }, [needsRestore, t]);

  if (!token) {
    if (TOKENLESS_PATHS.includes(pathname)) return children;
    const target = `${pathname}${location.search}`;
    const query = pathname === HOME_PATH ? '' : `?redirect=${encodeURIComponent(target)}`;
    return <Navigate to={`${LOGIN_PATH}${query}`} replace />;
  }
  if (pathname === LOGIN_PATH) {
    return <Navigate to={safeRedirect(new URLSearchParams(location.search).get('redirect'))} replace />;
  }
  if (pathname === COCKPIT_PATH) return children;
  if (!loaded) return <PageLoading fullscreen />;
  return children;
}
