/**
 * Province outlines of the site map, computed at build time from the bundled GeoJSON
 * (data/china.json) by the `ess-map-outline` plugin of vite.config.ts, which serves the result
 * as the module `virtual:ess/china-outline`. The browser thus gets short SVG path strings, not the
 * GeoJSON (about 8 KB instead of 44 KB gzipped), and no map library.
 *
 * The projection is the one ECharts' `geo` component used for this map: plain longitude/latitude
 * with x shrunk by {@link ASPECT} (ECharts' default `aspectScale`), in units of 1/{@link UNITS}
 * degree of latitude. Rings are simplified (Douglas–Peucker, {@link TOLERANCE} units) and rounded
 * to whole units, so a unit is about one screen pixel when the whole country fills ~1000 px.
 * This file runs in Node (the plugin) and in the browser (`project`, `unproject`); it imports nothing.
 */

/** x = (longitude − {@link ORIGIN}[0]) × ASPECT × UNITS, y = ({@link ORIGIN}[1] − latitude) × UNITS. */
export const ASPECT = 0.75;
export const UNITS = 20;
export const TOLERANCE = 0.6;
/** Longitude and latitude of the projected origin (west and north of China). */
export const ORIGIN: readonly [number, number] = [73, 54];

export interface MapOutline {
  /** One entry per feature of the GeoJSON: its `properties.name` and an SVG path (`M… l… z`). */
  regions: { name: string; d: string }[];
  /** Bounding box of all paths in projected units: [minX, minY, maxX, maxY]. */
  bbox: [number, number, number, number];
}

/** Projected [x, y] of a WGS-84 position. */
export function project(longitude: number, latitude: number): [number, number] {
  return [(longitude - ORIGIN[0]) * ASPECT * UNITS, (ORIGIN[1] - latitude) * UNITS];
}

/** The WGS-84 [longitude, latitude] of projected [x, y]: the inverse of {@link project}. */
export function unproject(x: number, y: number): [number, number] {
  return [x / (ASPECT * UNITS) + ORIGIN[0], ORIGIN[1] - y / UNITS];
}

type Point = [number, number];

/** One ring of ECharts' compressed GeoJSON (`UTF8Encoding`: zigzag deltas as characters). */
function decodeRing(text: string, offsets: number[], scale: number): Point[] {
  const out: Point[] = [];
  let px = offsets[0] ?? 0;
  let py = offsets[1] ?? 0;
  for (let i = 0; i + 1 < text.length; i += 2) {
    let x = text.charCodeAt(i) - 64;
    let y = text.charCodeAt(i + 1) - 64;
    x = (x >> 1) ^ -(x & 1);
    y = (y >> 1) ^ -(y & 1);
    px += x;
    py += y;
    out.push([px / scale, py / scale]);
  }
  return out;
}

/** Douglas–Peucker: the points of `pts` that keep the ring within `tol` of the original. */
function simplify(pts: Point[], tol: number): Point[] {
  if (pts.length < 3) return pts;
  const keep = new Uint8Array(pts.length);
  keep[0] = 1;
  keep[pts.length - 1] = 1;
  const stack: [number, number][] = [[0, pts.length - 1]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    let max = 0;
    let at = -1;
    for (let i = a + 1; i < b; i++) {
      const [x, y] = pts[i]!;
      const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2));
      const d = Math.hypot(x - ax - t * dx, y - ay - t * dy);
      if (d > max) {
        max = d;
        at = i;
      }
    }
    if (max > tol) {
      keep[at] = 1;
      stack.push([a, at], [at, b]);
    }
  }
  return pts.filter((_, i) => keep[i]);
}

interface Geometry {
  type: string;
  coordinates: unknown;
  encodeOffsets?: unknown;
}

/** The rings (lon/lat) of a Polygon or MultiPolygon, plain or in ECharts' compressed encoding. */
function ringsOf(geometry: Geometry, scale: number): Point[][] {
  const polygons = (
    geometry.type === 'Polygon'
      ? [geometry.coordinates]
      : geometry.type === 'MultiPolygon'
        ? geometry.coordinates
        : []
  ) as unknown[][];
  const offsets = (
    geometry.type === 'Polygon' ? [geometry.encodeOffsets] : (geometry.encodeOffsets ?? [])
  ) as number[][][];
  return polygons.flatMap((rings, p) =>
    rings.map((ring, r) =>
      typeof ring === 'string' ? decodeRing(ring, offsets[p]?.[r] ?? [0, 0], scale) : (ring as Point[]),
    ),
  );
}

/**
 * What ECharts adds to a map named 'china' (echarts/lib/coord/geo/fix, Apache-2.0), kept so the
 * map looks as before: the South China Sea islands inset (lon/lat) when no feature is named
 * 南海诸岛, and the Diaoyu Islands with 台湾.
 */
const NANHAI = '南海诸岛';
const NANHAI_INSET: Point[][] = [
  [
    [0, 3.5],
    [7, 11.2],
    [15, 11.9],
    [30, 7],
    [42, 0.7],
    [52, 0.7],
    [56, 7.7],
    [59, 0.7],
    [64, 0.7],
    [64, 0],
    [5, 0],
    [0, 3.5],
  ],
  [
    [13, 16.1],
    [19, 14.7],
    [16, 21.7],
    [11, 23.1],
    [13, 16.1],
  ],
  [
    [12, 32.2],
    [14, 38.5],
    [15, 38.5],
    [13, 32.2],
    [12, 32.2],
  ],
  [
    [16, 47.6],
    [12, 53.2],
    [13, 53.2],
    [18, 47.6],
    [16, 47.6],
  ],
  [
    [6, 64.4],
    [8, 70],
    [9, 70],
    [8, 64.4],
    [6, 64.4],
  ],
  [
    [23, 82.6],
    [29, 79.8],
    [30, 79.8],
    [25, 82.6],
    [23, 82.6],
  ],
  [
    [37, 70.7],
    [43, 62.3],
    [44, 62.3],
    [39, 70.7],
    [37, 70.7],
  ],
  [
    [48, 51.1],
    [51, 45.5],
    [53, 45.5],
    [50, 51.1],
    [48, 51.1],
  ],
  [
    [51, 35],
    [51, 28.7],
    [53, 28.7],
    [53, 35],
    [51, 35],
  ],
  [
    [52, 22.4],
    [55, 17.5],
    [56, 17.5],
    [53, 22.4],
    [52, 22.4],
  ],
  [
    [58, 12.6],
    [62, 7],
    [63, 7],
    [60, 12.6],
    [58, 12.6],
  ],
  [
    [0, 3.5],
    [0, 93.1],
    [64, 93.1],
    [64, 0],
    [63, 0],
    [63, 92.4],
    [1, 92.4],
    [1, 3.5],
    [0, 3.5],
  ],
].map((ring) => ring.map(([x, y]): Point => [126 + x! / 10.5, 25 - (y! * 0.75) / 10.5]));
const DIAOYU: Point[] = [
  [123.45165252685547, 25.73527164402261],
  [123.49731445312499, 25.73527164402261],
  [123.49731445312499, 25.750734064600884],
  [123.45165252685547, 25.750734064600884],
];

/** Builds the outline of a GeoJSON FeatureCollection (plain or ECharts-compressed). */
export function buildOutline(geoJson: {
  features: { properties?: { name?: string }; geometry: Geometry | null }[];
  UTF8Scale?: number;
}): MapOutline {
  const scale = geoJson.UTF8Scale ?? 1024;
  const bbox: MapOutline['bbox'] = [Infinity, Infinity, -Infinity, -Infinity];
  const features = geoJson.features.flatMap((feature) => {
    if (!feature.geometry) return [];
    const name = feature.properties?.name ?? '';
    const rings = ringsOf(feature.geometry, scale);
    return [{ name, rings: name === '台湾' ? [...rings, DIAOYU] : rings }];
  });
  if (!features.some((f) => f.name === NANHAI)) features.push({ name: NANHAI, rings: NANHAI_INSET });
  const regions = features.flatMap(({ name, rings }) => {
    let d = '';
    for (const ring of rings) {
      if (ring.length === 0) continue;
      const projected = ring.map(([lon, lat]) => project(lon, lat));
      const points: Point[] = [];
      for (const [x, y] of simplify(projected, TOLERANCE)) {
        const q: Point = [Math.round(x), Math.round(y)];
        const last = points[points.length - 1];
        if (!last || last[0] !== q[0] || last[1] !== q[1]) points.push(q);
      }
      // Islands smaller than a unit would vanish: keep them as a one-unit square.
      if (points.length < 3) {
        const [x, y] = points[0]!;
        points.splice(0, points.length, [x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]);
      }
      let prev = points[0]!;
      d += `M${prev[0]} ${prev[1]}l`;
      for (let i = 1; i < points.length; i++) {
        const p = points[i]!;
        const dx = p[0] - prev[0];
        const dy = p[1] - prev[1];
        d += `${i > 1 && dx >= 0 ? ' ' : ''}${dx}${dy >= 0 ? ' ' : ''}${dy}`;
        prev = p;
      }
      d += 'z';
      for (const [x, y] of points) {
        bbox[0] = Math.min(bbox[0], x);
        bbox[1] = Math.min(bbox[1], y);
        bbox[2] = Math.max(bbox[2], x);
        bbox[3] = Math.max(bbox[3], y);
      }
    }
    return d ? [{ name, d }] : [];
  });
  return { regions, bbox };
}
