/**
 * Console menu pages `bigscreen/{cockpit,sys,pcs,bms,dhxx,syfsys}/index` (migration 0008):
 * one click on the menu entry opens the wall display itself — this view replaces the location
 * with the full-screen route (outside the frame; the screen's "Open console" link and the
 * browser's Back return). Decision in docs/architecture.md "Big screens".
 */

import { Navigate, useLocation } from 'react-router';
import { BIG_SCREEN_PATHS, COCKPIT_PATH } from '@/shared/routing';
import type { ScreenKey } from '../paths';

/** The view of one menu page: redirects to its screen, keeping the query (e.g. `?siteId=`). */
export function screenLauncher(screen: ScreenKey | 'cockpit') {
  return function ScreenLauncher() {
    const { search } = useLocation();
    const to = screen === 'cockpit' ? COCKPIT_PATH : BIG_SCREEN_PATHS[screen];
    return <Navigate to={`${to}${search}`} replace />;
  };
}

export const launcherViews = {
  cockpit: screenLauncher('cockpit'),
  sys: screenLauncher('sys'),
  pcs: screenLauncher('pcs'),
  bms: screenLauncher('bms'),
  dhxx: screenLauncher('dhxx'),
  syfsys: screenLauncher('syfsys'),
};
