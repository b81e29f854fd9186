/**
 * Menu → routes (spec §2).
 *
 * - A top-level entry whose component is 'Layout' is a directory inside the frame; its children
 *   resolve relative paths against it ('/system' + 'menu' → '/system/menu').
 * - A top-level page entry without children gets the frame plus one hidden child 'index'
 *   rendering its component, and redirects to '<path>/index'.
 * - Other entries load the view named by their component.
 * - View name: `vueName`, else 'menu-<id>'.
 * - Kept alive: entries whose path is 'development' or 'zdjk', or with `meta.keepAlive`.
 * - Paths starting with http(s) are external links (sidebar opens a new tab; no route).
 * - Buttons are permissions only and produce no route.
 */
import { KEEP_ALIVE_PATHS, LAYOUT_COMPONENT, type MenuItem } from '@ess/contract';
import { ROUTE_DEFAULTS } from './constant';
import type { AppRoute } from './types';

/** Component values that mean "no view of its own, just nest the children". */
const CONTAINER_COMPONENTS = new Set([LAYOUT_COMPONENT, 'ParentView', 'ParentLayout', '']);

/** True for an external link (http, https, mailto, tel). */
export function isExternalPath(path: string): boolean {
  return /^(https?:|mailto:|tel:)/i.test(path);
}

/** '/a//b/' → '/a/b'; always starts with '/'. */
export function normalisePath(path: string): string {
  const joined = `/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

/** Resolve `path` against `base` unless it is absolute or external. */
export function resolvePath(base: string, path: string): string {
  if (isExternalPath(path)) return path;
  if (path.startsWith('/')) return normalisePath(path);
  return normalisePath(`${base}/${path}`);
}

/**
 * The view registry key of a component string: no leading '/', no '.vue' / '.tsx' ending
 * ('/system/menu/index.vue' → 'system/menu/index').
 */
export function normaliseComponent(component: string): string {
  return component
    .trim()
    .replace(/^\/+/, '')
    .replace(/\.(vue|tsx?|jsx?)$/, '');
}

function isKeepAlive(item: MenuItem): boolean {
  const bare = item.path.replace(/^\/+|\/+$/g, '');
  return item.meta.keepAlive || KEEP_ALIVE_PATHS.includes(bare);
}

function isContainer(item: MenuItem): boolean {
  return item.component === null || CONTAINER_COMPONENTS.has(item.component.trim());
}

function toRoute(item: MenuItem, basePath: string): AppRoute {
  const path = resolvePath(basePath, item.path);
  const external = isExternalPath(path);
  return {
    ...ROUTE_DEFAULTS,
    path,
    name: item.vueName?.trim() || `menu-${item.id}`,
    title: item.meta.title || item.name,
    icon: item.meta.icon ?? item.icon,
    component: external || isContainer(item) ? null : normaliseComponent(item.component ?? ''),
    redirect: item.redirect,
    hidden: item.hidden,
    alwaysShow: item.alwaysShow,
    keepAlive: isKeepAlive(item),
    breadcrumb: item.meta.breadcrumb,
    activeMenu: item.meta.activeMenu,
    external,
    menuId: item.id,
    perms: item.perms,
    children: external
      ? []
      : item.children.filter((c) => c.type !== 'button').map((child) => toRoute(child, path)),
  };
}

/** The frame routes of a menu tree (top-level entries in order). */
export function routesFromMenu(menu: readonly MenuItem[]): AppRoute[] {
  return menu
    .filter((item) => item.type !== 'button')
    .map((item) => {
      const route = toRoute(item, '/');
      if (route.external || route.component === null || route.children.length > 0) return route;
      // Top-level page without children: frame + hidden 'index' child (spec §2).
      const indexPath = `${route.path === '/' ? '' : route.path}/index`;
      return {
        ...route,
        name: `${route.name}-frame`,
        component: null,
        redirect: indexPath,
        keepAlive: false,
        breadcrumb: false,
        children: [{ ...route, path: indexPath, hidden: true, activeMenu: route.activeMenu ?? route.path }],
      };
    });
}
