/**
 * Routes (spec §2): the constant pages, the frame with the routes built from the menu, and the
 * catch-all to /404 — all behind the navigation guard. The frame and every page are lazily
 * loaded so /login stays small.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useMemo } from 'react';
import { Navigate, type RouteObject, useLocation, useRoutes } from 'react-router';
import { AuthGuard } from '@/features/auth';
import { BILL_PRINT_PATH } from '@/features/bill';
import { queryClient } from '@/shared/api/query';
import {
  type AppRoute,
  BIG_SCREEN_PATHS,
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
const SysScreen = lazy(() => import('@/features/bigscreen/pages/SysScreen'));
const PcsScreen = lazy(() => import('@/features/bigscreen/pages/PcsScreen'));
const BmsScreen = lazy(() => import('@/features/bigscreen/pages/BmsScreen'));
const DhxxScreen = lazy(() => import('@/features/bigscreen/pages/DhxxScreen'));
const SyfsysScreen = lazy(() => import('@/features/bigscreen/pages/SyfsysScreen'));
const BillPrintPage = lazy(() => import('@/features/bill/pages/BillPrintPage'));
const Frame = lazy(() => import('@/features/layout/Frame'));

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<PageLoading fullscreen />}>{children}</Suspense>;
}

/** A big screen outside the frame: its own access to the shared query client. */
function ScreenPage({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <Page>{children}</Page>
    </QueryClientProvider>
  );
}

/** Redirect to `to` keeping the query, so `/screen?siteId=7` opens `/screen/sys?siteId=7`. */
function RedirectWithQuery({ to }: { to: string }) {
  const { search } = useLocation();
  return <Navigate to={{ pathname: to, search }} replace />;
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
      { path: COCKPIT_PATH, element: <ScreenPage>{<CockpitPage />}</ScreenPage> },
      // Big screens (spec §2): full screen, outside the frame; the guard asks for a token.
      { path: '/screen', element: <RedirectWithQuery to={BIG_SCREEN_PATHS.sys} /> },
      { path: BIG_SCREEN_PATHS.sys, element: <ScreenPage>{<SysScreen />}</ScreenPage> },
      { path: BIG_SCREEN_PATHS.pcs, element: <ScreenPage>{<PcsScreen />}</ScreenPage> },
      { path: BIG_SCREEN_PATHS.bms, element: <ScreenPage>{<BmsScreen />}</ScreenPage> },
      { path: BIG_SCREEN_PATHS.dhxx, element: <ScreenPage>{<DhxxScreen />}</ScreenPage> },
      { path: '/syfscreen', element: <RedirectWithQuery to={BIG_SCREEN_PATHS.syfsys} /> },
      { path: BIG_SCREEN_PATHS.syfsys, element: <ScreenPage>{<SyfsysScreen />}</ScreenPage> },
      // A bill's printable A4 page (issue 17 item 5): outside the frame, a token is needed.
      { path: BILL_PRINT_PATH, element: <ScreenPage>{<BillPrintPage />}</ScreenPage> },
      { element: <Page>{<Frame />}</Page>, children: frameChildren(frameRoutes) },
      { path: '*', element: <Navigate to={NOT_FOUND_PATH} replace /> },
    ],
    [frameRoutes],
  );
  const element = useRoutes(routes);
  return <AuthGuard>{element}</AuthGuard>;
}
