/**
 * The console's route table (spec §2): constant routes plus the routes built from the user's
 * menu. Records carry what the sidebar, breadcrumb, tags, keep-alive and page title need; the
 * app turns them into react-router routes with the view registry.
 */
export interface AppRoute {
  /** Full path ('/system/menu'); for an external link, its URL. */
  path: string;
  /** View name: the menu's `vueName`, else 'menu-<id>' (spec §2); fixed for constant routes. */
  name: string;
  /** Title; 'router.*' titles are translation keys (spec §2), menu titles are shown as is. */
  title: string;
  /** @ant-design/icons name (see shared/icons). */
  icon: string | null;
  /** View registry key ('system/menu/index') for a page; null for directories and redirects. */
  component: string | null;
  /** 'noRedirect' (breadcrumb item not clickable), a path, or null. */
  redirect: string | null;
  /** Not shown in the sidebar. */
  hidden: boolean;
  /** Show as a group even with a single visible child. */
  alwaysShow: boolean;
  /** Keep the page mounted while the user is elsewhere (spec §2 'development', 'zdjk'). */
  keepAlive: boolean;
  /** Shown in the breadcrumb. */
  breadcrumb: boolean;
  /** Sidebar entry to highlight while this route is open, if not itself. */
  activeMenu: string | null;
  /** Opens in a new tab (path is an http(s) URL). */
  external: boolean;
  /** Menu entry id, for routes built from the server's menu. */
  menuId: number | null;
  /** Permission string of the entry, if any ('system:menu:list'). */
  perms: string | null;
  children: AppRoute[];
}

/** A route with the chain of its ancestors (outermost first). */
export interface RouteEntry {
  route: AppRoute;
  parents: AppRoute[];
}

/** Redirect value of a directory whose breadcrumb item is not clickable. */
export const NO_REDIRECT = 'noRedirect';
