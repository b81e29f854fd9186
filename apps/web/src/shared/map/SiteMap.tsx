/**
 * The offline site map: the bundled province-level map of China (outline.ts: SVG paths built at
 * build time from data/china.json) drawn on a canvas, sites as points coloured by status (online
 * green, offline grey, alarm red), a legend that hides and shows a status, a tooltip with the
 * site's name, status and the caller's detail lines, and a click (or tap) that selects a site.
 * The selected site gets a ripple. With `onPick`, a click (or tap) where there is no site picks
 * that position (longitude/latitude from the inverse projection, outline.ts `unproject`), and
 * `picked` is drawn as a pin. Zoom with the wheel or a pinch, pan by dragging; zoom and pan
 * survive live updates. At zoom 1 the map fills its box, as the ECharts map it replaces did.
 * No chart library: loaded lazily through `SiteMap` in ./index.ts.
 *
 * The container carries `data-ready` ("true" once the map is drawn), `data-points` (the number
 * of sites drawn) and `data-picked` ("lon,lat" of the pin drawn, if any) for tests and assistive
 * summaries.
 */

import outline from 'virtual:ess/china-outline';
import { type PointerEvent as ReactPointerEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { project, unproject } from './outline';
import {
  SITE_STATUS_COLORS,
  type SiteMapPoint,
  type SiteMapPosition,
  type SiteMapProps,
  type SiteMapStatus,
} from './types';
import './site-map.css';

const STATUSES: SiteMapStatus[] = ['online', 'alarm', 'offline'];

const THEMES = {
  light: { area: '#eef3fb', areaHover: '#dbe7fb', border: '#a9bdd8' },
  dark: { area: '#0d2a4d', areaHover: '#14406f', border: '#2f7bd1' },
} as const;

/** Room around the country inside the box (the legend sits in the bottom margin). */
const PAD = { top: 8, right: 8, bottom: 36, left: 8 };
const ZOOM_MIN = 0.8;
const ZOOM_MAX = 12;
/** Point radius by status (px), and the factor of the point under the pointer. */
const RADIUS = (status: SiteMapStatus) => (status === 'alarm' ? 6.5 : 5.5);
const HOVER_SCALE = 1.6;
const SELECTED_RADIUS = 8;
/** A press that moves less than this (px) is a click, not a pan. */
const CLICK_SLOP = 4;
/** The picked position's pin: head radius and the height of its tip below the head's centre (px). */
const PIN_RADIUS = 7;
const PIN_TIP = 15;
const PIN_COLOR = '#1677ff';
/** Picked positions are rounded to this many decimals of a degree (0.0001° ≈ 11 m). */
const PICK_DECIMALS = 4;

let regionPaths: Path2D[] | null = null;
function paths(): Path2D[] {
  regionPaths ??= outline.regions.map((r) => new Path2D(r.d));
  return regionPaths;
}

const placed = (s: SiteMapPoint) => Number.isFinite(s.longitude) && Number.isFinite(s.latitude);

/** True for a position on the globe (longitude −180–180, latitude −90–90). */
const onGlobe = (p: SiteMapPosition) =>
  Number.isFinite(p.longitude) &&
  Number.isFinite(p.latitude) &&
  Math.abs(p.longitude) <= 180 &&
  Math.abs(p.latitude) <= 90;

const roundDegrees = (v: number) => {
  const f = 10 ** PICK_DECIMALS;
  return Math.round(v * f) / f || 0;
};

/** A map pin with its tip at (x, y): a round head above, tangents down to the tip. */
function drawPin(ctx: CanvasRenderingContext2D, x: number, y: number) {
  const cy = y - PIN_TIP;
  const a = Math.acos(PIN_RADIUS / PIN_TIP);
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.arc(x, cy, PIN_RADIUS, Math.PI / 2 + a, Math.PI * 2.5 - a);
  ctx.closePath();
  ctx.fillStyle = PIN_COLOR;
  ctx.fill();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = '#fff';
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(x, cy, 2.5, 0, Math.PI * 2);
  ctx.fillStyle = '#fff';
  ctx.fill();
}

/** Zoom factor and the map point (projected units) at the centre of the box. */
interface View {
  k: number;
  cx: number;
  cy: number;
}

const [MIN_X, MIN_Y, MAX_X, MAX_Y] = outline.bbox;
const HOME: View = { k: 1, cx: (MIN_X + MAX_X) / 2, cy: (MIN_Y + MAX_Y) / 2 };

/**
 * Screen transform of `view` in a box of `w`×`h` CSS px: screen = origin + unit × scale. At zoom 1
 * the country fills the box (as the ECharts geo component with top/right/bottom/left did).
 */
function transformOf(view: View, w: number, h: number) {
  const boxW = Math.max(1, w - PAD.left - PAD.right);
  const boxH = Math.max(1, h - PAD.top - PAD.bottom);
  const sx = (boxW / (MAX_X - MIN_X)) * view.k;
  const sy = (boxH / (MAX_Y - MIN_Y)) * view.k;
  const midX = PAD.left + boxW / 2;
  const midY = PAD.top + boxH / 2;
  return { sx, sy, ox: midX - view.cx * sx, oy: midY - view.cy * sy, midX, midY };
}

interface Marker {
  site: SiteMapPoint;
  x: number;
  y: number;
}

interface Tip {
  site: SiteMapPoint;
  x: number;
  y: number;
}

/** The map; redraws when its props change and follows its container's size. */
export default function SiteMap(props: SiteMapProps) {
  const { sites, statusLabels, selectedId, onSelect, onPick, theme = 'light', statuses = STATUSES } = props;
  const picked = props.picked && onGlobe(props.picked) ? props.picked : null;
  const wrapRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<View>(HOME);
  const markersRef = useRef<Marker[]>([]);
  const hoverRegionRef = useRef(-1);
  const frameRef = useRef(0);
  /** The region paths in CSS px as last drawn (for hover tests). */
  const screenPathsRef = useRef<Path2D[]>([]);
  const [size, setSize] = useState({ w: 0, h: 0 });
  const [hidden, setHidden] = useState<ReadonlySet<SiteMapStatus>>(() => new Set());
  const [tip, setTip] = useState<Tip | null>(null);
  const [ready, setReady] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [tick, setTick] = useState(0);
  const redraw = () => setTick((n) => n + 1);

  const drawn = sites.filter(placed);
  const visible = drawn.filter((s) => !hidden.has(s.status));
  const hoverId = tip?.site.id;

  useLayoutEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    const measure = () => setSize({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // One draw per render that changed something; markers are kept for hit tests.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `tick` asks for a redraw (zoom, pan, hover)
  useEffect(() => {
    const canvas = canvasRef.current;
    const { w, h } = size;
    if (!canvas || w === 0 || h === 0) return;
    const ctx = canvas.getContext('2d');
    if (!ctx) {
      setReady('failed');
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const colors = THEMES[theme];
    const { sx, sy, ox, oy } = transformOf(viewRef.current, w, h);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.lineJoin = 'round';
    ctx.lineWidth = 0.8;
    ctx.strokeStyle = colors.border;
    const matrix = new DOMMatrix([sx, 0, 0, sy, ox, oy]);
    screenPathsRef.current = paths().map((path, i) => {
      const onScreen = new Path2D();
      onScreen.addPath(path, matrix);
      ctx.fillStyle = i === hoverRegionRef.current ? colors.areaHover : colors.area;
      ctx.fill(onScreen);
      ctx.stroke(onScreen);
      return onScreen;
    });

    const markers: Marker[] = visible.map((site) => {
      const [ux, uy] = project(site.longitude, site.latitude);
      return { site, x: ox + ux * sx, y: oy + uy * sy };
    });
    // Alarms over online over offline, the hovered point on top.
    const order = (m: Marker) => (m.site.id === hoverId ? 3 : m.site.status === 'alarm' ? 2 : 1);
    for (const m of [...markers].sort((a, b) => order(a) - order(b))) {
      const r =
        m.site.id === selectedId
          ? SELECTED_RADIUS
          : RADIUS(m.site.status) * (m.site.id === hoverId ? HOVER_SCALE : 1);
      ctx.beginPath();
      ctx.arc(m.x, m.y, r, 0, Math.PI * 2);
      ctx.fillStyle = SITE_STATUS_COLORS[m.site.status];
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = '#fff';
      ctx.stroke();
    }
    markersRef.current = markers;
    if (picked) {
      const [ux, uy] = project(picked.longitude, picked.latitude);
      drawPin(ctx, ox + ux * sx, oy + uy * sy);
    }
    setReady('ready');
  }, [size, theme, sites, hidden, selectedId, hoverId, tick, picked?.longitude, picked?.latitude]);

  useEffect(() => () => cancelAnimationFrame(frameRef.current), []);

  /** Pointer position in the wrapper's own CSS px (the big screens scale their stage). */
  const local = (e: { clientX: number; clientY: number }) => {
    const el = wrapRef.current!;
    const rect = el.getBoundingClientRect();
    const fx = el.clientWidth / (rect.width || 1);
    const fy = el.clientHeight / (rect.height || 1);
    return { x: (e.clientX - rect.left) * fx, y: (e.clientY - rect.top) * fy };
  };

  const markerAt = (x: number, y: number): Marker | undefined => {
    let best: Marker | undefined;
    let bestD = Infinity;
    for (const m of markersRef.current) {
      const d = Math.hypot(m.x - x, m.y - y);
      if (d <= RADIUS(m.site.status) + 3 && d < bestD) {
        best = m;
        bestD = d;
      }
    }
    return best;
  };

  const regionAt = (x: number, y: number): number => {
    const ctx = canvasRef.current?.getContext('2d');
    if (!ctx) return -1;
    const dpr = window.devicePixelRatio || 1;
    ctx.save();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const found = screenPathsRef.current.findIndex((p) => ctx.isPointInPath(p, x * dpr, y * dpr));
    ctx.restore();
    return found;
  };

  /** Zooms by `factor` keeping the map point under (x, y) where it is. */
  const zoomAt = (x: number, y: number, factor: number) => {
    const view = viewRef.current;
    const k = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, view.k * factor));
    if (k === view.k) return;
    const t = transformOf(view, size.w, size.h);
    const ux = (x - t.ox) / t.sx;
    const uy = (y - t.oy) / t.sy;
    const sx = (t.sx / view.k) * k;
    const sy = (t.sy / view.k) * k;
    viewRef.current = { k, cx: (t.midX - (x - ux * sx)) / sx, cy: (t.midY - (y - uy * sy)) / sy };
    schedule();
  };

  const panBy = (dx: number, dy: number) => {
    const view = viewRef.current;
    const { sx, sy } = transformOf(view, size.w, size.h);
    viewRef.current = { ...view, cx: view.cx - dx / sx, cy: view.cy - dy / sy };
    schedule();
  };

  const schedule = () => {
    cancelAnimationFrame(frameRef.current);
    frameRef.current = requestAnimationFrame(redraw);
  };

  // Wheel zoom needs a non-passive listener to keep the page from scrolling.
  // biome-ignore lint/correctness/useExhaustiveDependencies: handlers read refs and the current size
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const p = local(e);
      zoomAt(p.x, p.y, e.deltaY < 0 ? 1.2 : 1 / 1.2);
      setTip(null);
    };
    canvas.addEventListener('wheel', onWheel, { passive: false });
    return () => canvas.removeEventListener('wheel', onWheel);
  }, [size]);

  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const press = useRef<{ x: number; y: number; moved: boolean } | null>(null);

  const onPointerDown = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const p = local(e);
    pointers.current.set(e.pointerId, p);
    e.currentTarget.setPointerCapture(e.pointerId);
    press.current = pointers.current.size === 1 ? { ...p, moved: false } : null;
  };

  const onPointerMove = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const p = local(e);
    const prev = pointers.current.get(e.pointerId);
    if (prev) {
      if (pointers.current.size === 2) {
        const other = [...pointers.current.entries()].find(([id]) => id !== e.pointerId)?.[1];
        if (other) {
          const before = Math.hypot(prev.x - other.x, prev.y - other.y);
          const after = Math.hypot(p.x - other.x, p.y - other.y);
          if (before > 0) zoomAt((p.x + other.x) / 2, (p.y + other.y) / 2, after / before);
        }
      } else {
        if (press.current && Math.hypot(p.x - press.current.x, p.y - press.current.y) > CLICK_SLOP) {
          press.current.moved = true;
        }
        if (!press.current || press.current.moved) panBy(p.x - prev.x, p.y - prev.y);
      }
      pointers.current.set(e.pointerId, p);
      setTip(null);
      return;
    }
    if (e.pointerType !== 'mouse') return;
    const m = markerAt(p.x, p.y);
    e.currentTarget.style.cursor = m && onSelect ? 'pointer' : onPick ? 'crosshair' : 'default';
    setTip((cur) => (m ? { site: m.site, x: p.x, y: p.y } : cur ? null : cur));
    const region = m ? -1 : regionAt(p.x, p.y);
    if (region !== hoverRegionRef.current) {
      hoverRegionRef.current = region;
      schedule();
    }
  };

  const onPointerUp = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const p = local(e);
    pointers.current.delete(e.pointerId);
    const click = press.current && !press.current.moved;
    press.current = null;
    if (!click) return;
    const m = markerAt(p.x, p.y);
    if (!m) {
      setTip(null);
      if (onPick) {
        const { sx, sy, ox, oy } = transformOf(viewRef.current, size.w, size.h);
        const [longitude, latitude] = unproject((p.x - ox) / sx, (p.y - oy) / sy);
        const at = { longitude: roundDegrees(longitude), latitude: roundDegrees(latitude) };
        if (onGlobe(at)) onPick(at);
      }
      return;
    }
    if (e.pointerType !== 'mouse') setTip({ site: m.site, x: p.x, y: p.y });
    onSelect?.(m.site.id);
  };

  const onPointerLeave = () => {
    if (pointers.current.size > 0) return;
    setTip(null);
    if (hoverRegionRef.current !== -1) {
      hoverRegionRef.current = -1;
      schedule();
    }
  };

  // Keep the tooltip inside the map, beside the pointer.
  useLayoutEffect(() => {
    const el = tipRef.current;
    if (!el || !tip) return;
    const gap = 14;
    let x = tip.x + gap;
    let y = tip.y + gap;
    if (x + el.offsetWidth > size.w) x = Math.max(0, tip.x - gap - el.offsetWidth);
    if (y + el.offsetHeight > size.h) y = Math.max(0, tip.y - gap - el.offsetHeight);
    el.style.transform = `translate(${x}px, ${y}px)`;
  }, [tip, size]);

  const selected = visible.find((s) => s.id === selectedId);
  const selectedAt = selected
    ? (() => {
        const { sx, sy, ox, oy } = transformOf(viewRef.current, size.w, size.h);
        const [ux, uy] = project(selected.longitude, selected.latitude);
        return { x: ox + ux * sx, y: oy + uy * sy };
      })()
    : null;

  return (
    <div
      ref={wrapRef}
      className={['site-map-view', `site-map-view--${theme}`, props.className].filter(Boolean).join(' ')}
      data-ready={ready === 'ready' ? 'true' : 'false'}
      data-points={drawn.length}
      data-picked={picked ? `${picked.longitude},${picked.latitude}` : undefined}
      style={{ height: props.height ?? 420 }}
    >
      <canvas
        ref={canvasRef}
        className="site-map-view__canvas"
        role="img"
        aria-label={props.ariaLabel}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onPointerLeave={onPointerLeave}
      />
      {selected && selectedAt && (
        <span
          className="site-map-view__ripple"
          style={{
            left: selectedAt.x,
            top: selectedAt.y,
            color: SITE_STATUS_COLORS[selected.status],
          }}
        />
      )}
      <div className="site-map-view__legend">
        {statuses.map((status) => (
          <button
            key={status}
            type="button"
            className="site-map-view__legend-item"
            aria-pressed={!hidden.has(status)}
            onClick={() =>
              setHidden((cur) => {
                const next = new Set(cur);
                if (!next.delete(status)) next.add(status);
                return next;
              })
            }
          >
            <span
              className="site-map-view__dot"
              style={{ background: hidden.has(status) ? undefined : SITE_STATUS_COLORS[status] }}
            />
            {statusLabels[status]}
          </button>
        ))}
      </div>
      {tip && (
        <div
          ref={tipRef}
          className="site-map-view__tip"
          role="tooltip"
          style={{ borderColor: SITE_STATUS_COLORS[tip.site.status] }}
        >
          <b>{tip.site.name}</b>
          <div>
            <span
              className="site-map-view__dot"
              style={{ background: SITE_STATUS_COLORS[tip.site.status] }}
            />
            {statusLabels[tip.site.status]}
          </div>
          {tip.site.details?.map((line) => (
            <div key={line}>{line}</div>
          ))}
        </div>
      )}
      {ready === 'failed' && (
        <div className="site-map-view__failed">{props.loadFailedText ?? 'Map unavailable'}</div>
      )}
    </div>
  );
}
