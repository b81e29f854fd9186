/**
 * Offline map of China with sites as points (ECharts `geo` + scatter; boundary data bundled,
 * see data/README.md). `SiteMap` is lazy: ECharts and the ~44 KB (gzipped) boundary data load
 * only when a map is rendered. Code that already runs in a lazy chunk and draws its own ECharts
 * map can call `registerChinaMap()` from '@/shared/map/registerChinaMap' and use
 * `geo: { map: CHINA_MAP }`.
 */
import { lazy } from 'react';

export type { SiteMapPoint, SiteMapProps, SiteMapStatus } from './types';
export { SITE_STATUS_COLORS } from './types';

/** The site map component (lazy; wrap it in `<Suspense>`). Props: {@link SiteMapProps}. */
export const SiteMap = lazy(() => import('./SiteMap'));
