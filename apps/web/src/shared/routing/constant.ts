/**
 * Constant routes (spec §2): the public pages and the frame root with the dashboard.
 */
import type { AppRoute } from './types';

/** Defaults of a route record; spread and override. */
export const ROUTE_DEFAULTS: Omit<AppRoute, 'path' | 'name' | 'title'> = {
  icon: null,
  component: null,
  redirect: null,
  hidden: false,
  alwaysShow: false,
  keepAlive: false,
  breadcrumb: true,
  activeMenu: null,
  external: false,
  menuId: null,
  perms: null,
  children: [],
};

export const LOGIN_PATH = '/login';
export const NOT_FOUND_PATH = '/404';
export const COCKPIT_PATH = '/newscreen';
export const HOME_PATH = '/';
export const DASHBOARD_PATH = '/dashboard';

/** Big screens outside the frame (spec §2; a token is needed): `/screen/*` and `/syfscreen/*`. */
export const BIG_SCREEN_PATHS = {
  sys: '/screen/sys',
  pcs: '/screen/pcs',
  bms: '/screen/bms',
  dhxx: '/screen/dhxx',
  syfsys: '/syfscreen/syfsys',
} as const;

/** The dashboard: first breadcrumb of every frame page but itself (spec §2). */
export const DASHBOARD_ROUTE: AppRoute = {
  ...ROUTE_DEFAULTS,
  path: DASHBOARD_PATH,
  name: 'Dashboard',
  title: 'router.dashboard',
  icon: 'dashboard',
  component: 'dashboard/index',
};

/** '/': the frame, redirecting to the dashboard (spec §2). */
export const FRAME_ROOT: AppRoute = {
  ...ROUTE_DEFAULTS,
  path: HOME_PATH,
  name: 'Root',
  title: '',
  redirect: DASHBOARD_PATH,
  children: [DASHBOARD_ROUTE],
};

/** Pages outside the frame, for titles (spec §2: /login, /404, /newscreen). */
export const PUBLIC_ROUTES: AppRoute[] = [
  { ...ROUTE_DEFAULTS, path: LOGIN_PATH, name: 'Login', title: 'router.login', hidden: true },
  { ...ROUTE_DEFAULTS, path: NOT_FOUND_PATH, name: 'NotFound', title: 'router.notFound', hidden: true },
  { ...ROUTE_DEFAULTS, path: COCKPIT_PATH, name: 'Cockpit', title: 'router.cockpit', hidden: true },
  ...(['sys', 'pcs', 'bms', 'dhxx', 'syfsys'] as const).map((key) => ({
    ...ROUTE_DEFAULTS,
    path: BIG_SCREEN_PATHS[key],
    name: `Screen-${key}`,
    title: `router.screen_${key}`,
    hidden: true,
  })),
];

/** Paths reachable without a token (spec §2 guard). */
export const TOKENLESS_PATHS: readonly string[] = [LOGIN_PATH, COCKPIT_PATH];
