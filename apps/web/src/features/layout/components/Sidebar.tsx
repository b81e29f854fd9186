/**
 * Sidebar (spec §2): the menu tree as an inline antd Menu.
 *
 * - Hidden routes are not shown; a route with exactly one visible child (which has none of its
 *   own) shows that child directly unless `alwaysShow`; a route whose children are all hidden
 *   (a top-level page with its generated 'index') shows as one item.
 * - External links open in a new tab; internal ones navigate in the app.
 * - The active item is the route's `activeMenu`, else the current path; the groups on its way
 *   are opened on navigation.
 * Test hook: `sidebar` on the aside (set by the frame); items carry `data-testid="menu-<path>"`.
 */
import type { MenuProps } from 'antd';
import { Menu } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { translateTitle } from '@/shared/i18n';
import { menuIcon } from '@/shared/icons';
import { type AppRoute, findRoute, useRouteTable } from '@/shared/routing';

type Item = NonNullable<NonNullable<MenuProps['items']>[number]>;

function visibleChildren(route: AppRoute): AppRoute[] {
  return route.children.filter((c) => !c.hidden);
}

function leaf(route: AppRoute, icon: string | null): Item {
  return {
    key: route.path,
    icon: menuIcon(icon),
    label: translateTitle(route.title),
    title: translateTitle(route.title),
    'data-testid': `menu-${route.path}`,
  };
}

/** antd Menu items of a route (null when nothing is shown). */
export function menuItemOf(route: AppRoute): Item | null {
  if (route.hidden) return null;
  const showing = visibleChildren(route);
  const only = showing[0];
  if (showing.length === 1 && only && !route.alwaysShow && visibleChildren(only).length === 0) {
    return leaf(only, only.icon ?? route.icon);
  }
  if (showing.length === 0) {
    return route.component || route.external || route.children.length > 0 ? leaf(route, route.icon) : null;
  }
  const children = showing.map(menuItemOf).filter((i): i is Item => i !== null);
  if (children.length === 0) return null;
  return {
    key: route.path,
    icon: menuIcon(route.icon),
    label: translateTitle(route.title),
    children,
    'data-testid': `submenu-${route.path}`,
  } as Item;
}

/** The sidebar menu; `collapsed` shows icons only (desktop, closed). */
export function Sidebar({ collapsed }: { collapsed: boolean }) {
  const { i18n } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const frameRoutes = useRouteTable((s) => s.frameRoutes);

  // biome-ignore lint/correctness/useExhaustiveDependencies: titles depend on the language
  const items = useMemo(
    () => frameRoutes.map(menuItemOf).filter((i): i is Item => i !== null),
    [frameRoutes, i18n.language],
  );

  const entry = useMemo(() => findRoute(frameRoutes, pathname), [frameRoutes, pathname]);
  const selected = entry?.route.activeMenu ?? entry?.route.path ?? pathname;
  const ancestors = useMemo(() => (entry ? entry.parents.map((p) => p.path) : []), [entry]);

  const [openKeys, setOpenKeys] = useState<string[]>(ancestors);
  useEffect(() => {
    setOpenKeys((keys) => [...new Set([...keys, ...ancestors])]);
  }, [ancestors]);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    const target = String(key);
    if (/^(https?:|mailto:|tel:)/i.test(target)) {
      window.open(target, '_blank', 'noopener,noreferrer');
      return;
    }
    if (target !== pathname) navigate(target);
  };

  return (
    <Menu
      className="sidebar-menu"
      theme="dark"
      mode="inline"
      inlineCollapsed={collapsed}
      items={items}
      selectedKeys={[selected]}
      {...(collapsed ? {} : { openKeys, onOpenChange: (keys: string[]) => setOpenKeys(keys) })}
      onClick={onClick}
    />
  );
}
