/**
 * Breadcrumb (spec §2): the dashboard first unless on the dashboard, then the titled routes on
 * the way to the page. Items whose redirect is 'noRedirect', and the last item, are not links.
 * Test hook: `breadcrumb`.
 */
import { Breadcrumb } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { translateTitle } from '@/shared/i18n';
import { breadcrumbOf, landingPath, NO_REDIRECT, useRouteTable } from '@/shared/routing';

/** Breadcrumb of the current location. */
export function Breadcrumbs() {
  const { i18n } = useTranslation();
  const { pathname } = useLocation();
  const frameRoutes = useRouteTable((s) => s.frameRoutes);
  const chain = useMemo(() => breadcrumbOf(frameRoutes, pathname), [frameRoutes, pathname]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: titles depend on the language
  const items = useMemo(
    () =>
      chain.map((route, index) => {
        const title = translateTitle(route.title);
        const clickable = index < chain.length - 1 && route.redirect !== NO_REDIRECT;
        return {
          key: route.path,
          title: clickable ? (
            <Link to={route.component ? route.path : (landingPath(route) ?? route.path)}>{title}</Link>
          ) : (
            <span className="breadcrumb__static">{title}</span>
          ),
        };
      }),
    [chain, i18n.language],
  );

  return <Breadcrumb className="navbar__breadcrumb" items={items} data-testid="breadcrumb" />;
}
