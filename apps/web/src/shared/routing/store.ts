/**
 * The route table in state (spec §3 "routes"): the frame routes (constant root + the user's
 * menu). `loaded` tells the guard whether the menu has been fetched since the page loaded.
 * Reset by logout together with the session (spec §4).
 */
import type { MenuItem } from '@ess/contract';
import { create } from 'zustand';
import { routesFromMenu } from './build';
import { FRAME_ROOT } from './constant';
import type { AppRoute } from './types';

interface RouteTableState {
  /** Constant frame root first, then the menu's routes. */
  frameRoutes: AppRoute[];
  /** The menu the routes were built from (titles in the language it was fetched in). */
  menu: MenuItem[];
  loaded: boolean;
  /** Build the routes from a menu tree (spec §2 "routes added"). */
  setMenu: (menu: MenuItem[]) => void;
  /** Forget the menu routes (spec §4 "route table" reset). */
  reset: () => void;
}

/** Zustand store of the route table; `useRouteTable.getState()` outside React. */
export const useRouteTable = create<RouteTableState>((set) => ({
  frameRoutes: [FRAME_ROOT],
  menu: [],
  loaded: false,
  setMenu: (menu) => set({ menu, frameRoutes: [FRAME_ROOT, ...routesFromMenu(menu)], loaded: true }),
  reset: () => set({ menu: [], frameRoutes: [FRAME_ROOT], loaded: false }),
}));
