/**
 * Routes (spec §2): the constant pages, the frame with the routes built from the menu, and the
 * catch-all to /404 — all behind the navigation guard. The frame and every page are lazily
 * loaded so /login stays small.
 */
import { lazy, type ReactNode, Suspense, useMemo } from 'react';
import { Navigate, type RouteObject, useRoutes } from 'react-router';
import { AuthGuard } from '@/features/auth';
import {
  type AppRoute,
  COCKPIT_PATH,
  flattenRoutes,
  LOGIN_PATH,
  landingPath,
  NOT_FOUND_PATH,
  useRouteTable,
} from '@/shared/routing';
import { PageLoading } from '@/shared/ui/PageLoading';
import { RouteView } from './views';

const LoginPage = lazy(() => import('@/features/auth/pages/LoginPage'));
const NotFoundPage = lazy(() => import('@/features/errors/NotFoundPage'));
const CockpitPage = lazy(() => import('@/features/cockpit/CockpitPage'));
const Frame = lazy(() => import('@/features/layout/Frame'));

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<PageLoading fullscreen />}>{children}</Suspense>;
}

/** react-router routes of the frame: a view per page, a redirect per directory. */
export function frameChildren(frameRoutes: readonly AppRoute[]): RouteObject[] {
  const out: RouteObject[] = [];
  const seen = new Set<string>();
  for (const { route } of flattenRoutes(frameRoutes)) {
    if (route.external || seen.has(route.path)) continue;
    seen.add(route.path);
    if (route.component) {
      out.push({ path: route.path, element: <RouteView component={route.component} /> });
    } else {
      out.push({ path: route.path, element: <Navigate to={landingPath(route) ?? NOT_FOUND_PATH} replace /> });
    }
  }
  return out;
}

/** Every route of the console, rebuilt when the menu routes change, behind the guard. */
export function AppRoutes() {
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  const routes = useMemo<RouteObject[]>(
    () => [
      { path: LOGIN_PATH, element: <Page>{<LoginPage />}</Page> },
      { path: NOT_FOUND_PATH, element: <Page>{<NotFoundPage />}</Page> },
      { path: COCKPIT_PATH, element: <Page>{<CockpitPage />}</Page> },
      { element: <Page>{<Frame />}</Page>, children: frameChildren(frameRoutes) },
      { path: '*', element: <Navigate to={NOT_FOUND_PATH} replace /> },
    ],
    [frameRoutes],
  );
  const element = useRoutes(routes);
  return <AuthGuard>{element}</AuthGuard>;
}
