/**
 * Offline map of China with sites as points (canvas; outlines built at build time from the
 * bundled GeoJSON, see outline.ts and data/README.md; no chart library). `SiteMap` is lazy: its
 * code and the ~9 KB (gzipped) outline load only when a map is rendered; if that chunk cannot be
 * loaded, the map shows its `loadFailedText`.
 */
import { lazy } from 'react';
import type { SiteMapProps } from './types';

export type { SiteMapPoint, SiteMapPosition, SiteMapProps, SiteMapStatus } from './types';
export { SITE_STATUS_COLORS } from './types';

function Unavailable(props: SiteMapProps) {
  return (
    <div
      className={props.className}
      data-ready="false"
      style={{ display: 'grid', placeItems: 'center', height: props.height ?? 420, color: '#8c8c8c' }}
    >
      {props.loadFailedText ?? 'Map unavailable'}
    </div>
  );
}

/** The site map component (lazy; wrap it in `<Suspense>`). Props: {@link SiteMapProps}. */
export const SiteMap = lazy(() => import('./SiteMap').catch(() => ({ default: Unavailable })));
