/**
 * The site map's projection (apps/web/src/shared/map/outline.ts): `unproject` is the inverse of
 * `project`, so a click on the map gives back the longitude/latitude a site drawn there has —
 * checked at Shanghai, Urumqi and Sanya — and east is right, north is up.
 */
import { describe, expect, it } from 'vitest';
import { project, unproject } from '../src/shared/map/outline';

describe('map projection', () => {
  it('gives back the position of a projected point', () => {
    for (const [lon, lat] of [
      [121.4737, 31.2304],
      [87.6168, 43.8256],
      [109.5119, 18.2528],
    ] as const) {
      const [x, y] = project(lon, lat);
      const [lon2, lat2] = unproject(x, y);
      expect(lon2).toBeCloseTo(lon, 9);
      expect(lat2).toBeCloseTo(lat, 9);
    }
  });

  it('puts east to the right and north up (screen y grows downwards)', () => {
    const [x1, y1] = project(100, 30);
    const [x2, y2] = project(110, 40);
    expect(x2).toBeGreaterThan(x1);
    expect(y2).toBeLessThan(y1);
    const [lon, lat] = unproject(x1 + 1, y1 + 1);
    expect(lon).toBeGreaterThan(100);
    expect(lat).toBeLessThan(30);
  });
});
