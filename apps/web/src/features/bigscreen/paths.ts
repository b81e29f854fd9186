/**
 * Routes of the big screens (spec §2): `/screen` → `/screen/sys`, children sys, pcs, bms, dhxx;
 * `/syfscreen` → `/syfscreen/syfsys`. The chosen site travels in the query `?siteId=`.
 */
export const SCREEN_KEYS = ['sys', 'pcs', 'bms', 'dhxx', 'syfsys'] as const;
export type ScreenKey = (typeof SCREEN_KEYS)[number];

/** The query parameter holding the chosen site. */
export const SITE_PARAM = 'siteId';
