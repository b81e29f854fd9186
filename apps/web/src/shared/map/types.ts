/**
 * Types of the offline site map ({@link SiteMap}); kept apart from the component so that
 * importing them never pulls the map's code or outline into a chunk.
 */

/** Status of a site as the map colours it. */
export type SiteMapStatus = 'online' | 'offline' | 'alarm';

/** One site drawn on the map (coordinates in WGS-84 degrees, as stored on the site). */
export interface SiteMapPoint {
  /** Site id; passed back to `onSelect`. */
  id: number;
  /** Name shown in the tooltip (already in the UI language). */
  name: string;
  longitude: number;
  latitude: number;
  status: SiteMapStatus;
  /** Extra tooltip lines, plain text (escaped when drawn), e.g. "SOC 63 %". */
  details?: string[];
}

/** A WGS-84 position in degrees (east and north positive). */
export interface SiteMapPosition {
  longitude: number;
  latitude: number;
}

export interface SiteMapProps {
  sites: SiteMapPoint[];
  /** Translated status names for the tooltip and legend. */
  statusLabels: Record<SiteMapStatus, string>;
  /** The highlighted site (drawn with a ripple), if any. */
  selectedId?: number | null;
  /** Called with the site id when a point is clicked. */
  onSelect?: (id: number) => void;
  /**
   * Called with the WGS-84 position clicked (or tapped) where there is no site, rounded to
   * 0.0001° (about 11 m); without it such a click does nothing. A click on a site still selects it.
   */
  onPick?: (at: SiteMapPosition) => void;
  /** A picked position, drawn as a pin over the sites (e.g. the coordinates of a form). */
  picked?: SiteMapPosition | null;
  /** Statuses listed in the legend (default all three). */
  statuses?: readonly SiteMapStatus[];
  /** 'light' for the console, 'dark' for the big screens. */
  theme?: 'light' | 'dark';
  /** Shown if the map data cannot be loaded. */
  loadFailedText?: string;
  /** Accessible name of the map region. */
  ariaLabel?: string;
  className?: string;
  /** CSS height of the map (default 420px). */
  height?: number | string;
}

/** Point colours by status (shared with lists and legends so they match the map). */
export const SITE_STATUS_COLORS: Record<SiteMapStatus, string> = {
  online: '#52c41a',
  offline: '#8c8c8c',
  alarm: '#ff4d4f',
};
