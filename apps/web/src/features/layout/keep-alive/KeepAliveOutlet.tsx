/**
 * The frame's outlet with keep-alive and transitions (spec §2).
 *
 * - Pages whose route is kept alive ('development', 'zdjk', `meta.keepAlive`) stay mounted once
 *   visited: while the user is elsewhere they sit in a hidden React `<Activity>`, which keeps
 *   their state (typed input, scroll, fetched data) and pauses their effects. They are dropped
 *   when their tag is closed.
 * - Every other page is keyed by its path, so it mounts fresh and fades in on each visit.
 */
import { Activity, type ReactNode, useMemo, useRef } from 'react';
import { useLocation, useOutlet } from 'react-router';
import { findRoute, useRouteTable } from '@/shared/routing';
import { useTags } from '../tags/store';

/** Drop-in for react-router `<Outlet />` inside the frame. */
export function KeepAliveOutlet() {
  const outlet = useOutlet();
  const { pathname } = useLocation();
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  const views = useTags((s) => s.views);
  const keepAlive = useMemo(
    () => findRoute(frameRoutes, pathname)?.route.keepAlive ?? false,
    [frameRoutes, pathname],
  );
  const cacheRef = useRef(new Map<string, ReactNode>());
  const cache = cacheRef.current;

  if (keepAlive && outlet) cache.set(pathname, outlet);
  for (const key of [...cache.keys()]) {
    const stillOpen = views.some((v) => v.path === key && v.keepAlive);
    if (key !== pathname && !stillOpen) cache.delete(key);
  }

  return (
    <>
      {[...cache.entries()].map(([key, element]) => (
        <Activity key={`ka:${key}`} mode={key === pathname ? 'visible' : 'hidden'} name={key}>
          <div className="page-view page-view--fade" data-keep-alive={key}>
            {element}
          </div>
        </Activity>
      ))}
      {!keepAlive && (
        <div key={`pg:${pathname}`} className="page-view page-view--fade">
          {outlet}
        </div>
      )}
    </>
  );
}
