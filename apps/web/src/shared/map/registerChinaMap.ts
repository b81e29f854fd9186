/**
 * Registers the bundled province-level map of China with ECharts under the name
 * {@link CHINA_MAP}. The GeoJSON (see ./data/README.md: source echarts@4.9.0, Apache-2.0,
 * ~44 KB gzipped) is fetched by a dynamic import, so only a page that shows a map downloads it.
 * No tile server or network map service is used: the map works offline.
 */
import { registerMap } from 'echarts/core';

/** The map name to use in `geo.map` / `series.map` after {@link registerChinaMap} resolved. */
export const CHINA_MAP = 'china';

let pending: Promise<void> | null = null;

/**
 * Loads and registers the map once; later calls return the same promise. Rejects if the chunk
 * cannot be loaded (then the next call tries again).
 */
export function registerChinaMap(): Promise<void> {
  if (!pending) {
    pending = import('./data/china.json')
      .then((mod) => {
        const geoJson = (mod as { default: unknown }).default;
        registerMap(CHINA_MAP, geoJson as Parameters<typeof registerMap>[1]);
      })
      .catch((err: unknown) => {
        pending = null;
        throw err;
      });
  }
  return pending;
}
