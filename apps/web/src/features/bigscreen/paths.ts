/**
 * Routes of the big screens (spec §2): `/screen` → `/screen/sys`, children sys, pcs, bms, dhxx;
 * `/syfscreen` → `/syfscreen/syfsys`. The chosen site travels in the query `?siteId=`.
 */
import { BIG_SCREEN_PATHS } from '@/shared/routing';

export const SCREEN_ROOT = '/screen';
export const SYF_ROOT = '/syfscreen';

export const SCREEN_KEYS = ['sys', 'pcs', 'bms', 'dhxx', 'syfsys'] as const;
export type ScreenKey = (typeof SCREEN_KEYS)[number];

export const SCREEN_PATHS: Record<ScreenKey, string> = BIG_SCREEN_PATHS;

/** The query parameter holding the chosen site. */
export const SITE_PARAM = 'siteId';
