/**
 * Big-screen feature: the site screens (/screen/sys|pcs|bms|dhxx, /syfscreen/syfsys) and their
 * console menu launchers, loaded by the app as lazy pages. What other features use: the
 * cockpit calls (the cockpit feature shows them on the same stage). The stage kit itself is
 * shared: `@/shared/screen`.
 */
export { COCKPIT_REFRESH_MS, fetchCockpit, fetchPublicCockpit } from './api';
