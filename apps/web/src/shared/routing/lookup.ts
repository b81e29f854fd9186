/**
 * Queries on the route table: which route a path opens, its breadcrumb, a directory's landing
 * page. Paths are matched whole, with react-router's `matchPath` (so `:param` segments work).
 */
import { matchPath } from 'react-router';
import { isExternalPath, resolvePath } from './build';
import { DASHBOARD_ROUTE } from './constant';
import { type AppRoute, NO_REDIRECT, type RouteEntry } from './types';

/** Every route of a forest with its ancestors, depth first (parents before children). */
export function flattenRoutes(routes: readonly AppRoute[]): RouteEntry[] {
  const out: RouteEntry[] = [];
  const walk = (nodes: readonly AppRoute[], parents: AppRoute[]) => {
    for (const route of nodes) {
      out.push({ route, parents });
      walk(route.children, [...parents, route]);
    }
  };
  walk(routes, []);
  return out;
}

/** The route whose path matches `pathname`, preferring pages over directories. */
export function findRoute(routes: readonly AppRoute[], pathname: string): RouteEntry | undefined {
  let found: RouteEntry | undefined;
  for (const entry of flattenRoutes(routes)) {
    if (entry.route.external) continue;
    if (!matchPath({ path: entry.route.path, end: true }, pathname)) continue;
    if (entry.route.component) return entry;
    found ??= entry;
  }
  return found;
}

/** Where a directory (or redirecting route) leads: its redirect, else its first visible page. */
export function landingPath(route: AppRoute): string | undefined {
  if (route.redirect && route.redirect !== NO_REDIRECT && !isExternalPath(route.redirect)) {
    return resolvePath(route.path, route.redirect);
  }
  for (const child of route.children) {
    if (child.external) continue;
    if (child.component && !child.hidden) return child.path;
  }
  for (const child of route.children) {
    if (child.external) continue;
    const inner = child.component ? child.path : landingPath(child);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * Breadcrumb of `pathname` (spec §2): the titled ancestors and the route itself, without those
 * that opt out; the dashboard first unless the page is the dashboard.
 */
export function breadcrumbOf(routes: readonly AppRoute[], pathname: string): AppRoute[] {
  const entry = findRoute(routes, pathname);
  if (!entry) return [];
  const chain = [...entry.parents, entry.route].filter((r) => r.title && r.breadcrumb);
  if (chain[0]?.path !== DASHBOARD_ROUTE.path) chain.unshift(DASHBOARD_ROUTE);
  return chain;
}
