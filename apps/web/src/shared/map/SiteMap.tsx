/**
 * The offline site map: the bundled province-level map of China (registerChinaMap) as an
 * ECharts `geo` component, sites as scatter points coloured by status (online green, offline
 * grey, alarm red), a tooltip with the site's name, status and the caller's detail lines, and a
 * click that selects a site. The selected site gets a ripple. Zoom and pan with wheel/drag.
 * Only `echarts/core` with Geo, Scatter, EffectScatter, Tooltip, Legend and the canvas renderer
 * is bundled. Loaded lazily through `SiteMap` in ./index.ts.
 *
 * The container carries `data-ready` ("true" once the map is drawn) and `data-points` (the number
 * of sites drawn) for tests and assistive summaries.
 */
import {
  EffectScatterChart,
  type EffectScatterSeriesOption,
  ScatterChart,
  type ScatterSeriesOption,
} from 'echarts/charts';
import {
  GeoComponent,
  type GeoComponentOption,
  LegendComponent,
  type LegendComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, init, use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef, useState } from 'react';
import { CHINA_MAP, registerChinaMap } from './registerChinaMap';
import { SITE_STATUS_COLORS, type SiteMapPoint, type SiteMapProps, type SiteMapStatus } from './types';

use([GeoComponent, ScatterChart, EffectScatterChart, TooltipComponent, LegendComponent, CanvasRenderer]);

type Option = ComposeOption<
  | GeoComponentOption
  | ScatterSeriesOption
  | EffectScatterSeriesOption
  | TooltipComponentOption
  | LegendComponentOption
>;

const STATUSES: SiteMapStatus[] = ['online', 'alarm', 'offline'];

const THEMES = {
  light: {
    area: '#eef3fb',
    areaHover: '#dbe7fb',
    border: '#a9bdd8',
    legend: '#595959',
  },
  dark: {
    area: '#0d2a4d',
    areaHover: '#14406f',
    border: '#2f7bd1',
    legend: '#c9d6ea',
  },
} as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface PointDatum {
  id: number;
  name: string;
  value: [number, number];
  status: SiteMapStatus;
  details: string[];
}

function toDatum(site: SiteMapPoint): PointDatum {
  return {
    id: site.id,
    name: site.name,
    value: [site.longitude, site.latitude],
    status: site.status,
    details: site.details ?? [],
  };
}

function buildOption(props: SiteMapProps): Option {
  const theme = THEMES[props.theme ?? 'light'];
  const sites = props.sites.filter((s) => Number.isFinite(s.longitude) && Number.isFinite(s.latitude));
  const selected = sites.find((s) => s.id === props.selectedId);
  const series: Option['series'] = STATUSES.map(
    (status): ScatterSeriesOption => ({
      type: 'scatter',
      coordinateSystem: 'geo',
      name: props.statusLabels[status],
      data: sites.filter((s) => s.status === status).map(toDatum),
      symbolSize: status === 'alarm' ? 13 : 11,
      itemStyle: { color: SITE_STATUS_COLORS[status], borderColor: '#fff', borderWidth: 1 },
      emphasis: { scale: 1.6 },
      cursor: props.onSelect ? 'pointer' : 'default',
      z: status === 'alarm' ? 4 : 3,
    }),
  );
  if (selected) {
    series.push({
      type: 'effectScatter',
      coordinateSystem: 'geo',
      name: '__selected',
      data: [toDatum(selected)],
      symbolSize: 16,
      rippleEffect: { brushType: 'stroke', scale: 3 },
      itemStyle: { color: SITE_STATUS_COLORS[selected.status] },
      z: 5,
    });
  }
  return {
    animation: false,
    legend: {
      bottom: 4,
      left: 8,
      orient: 'horizontal',
      data: STATUSES.map((s) => props.statusLabels[s]),
      textStyle: { color: theme.legend },
      itemWidth: 10,
      itemHeight: 10,
    },
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (params) => {
        const p = params as { data?: PointDatum; componentType?: string };
        const d = p.data;
        if (!d || !Array.isArray(d.value)) return '';
        const dot = `<span style="display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:6px;background:${SITE_STATUS_COLORS[d.status]}"></span>`;
        return [
          `<b>${escapeHtml(d.name)}</b>`,
          `${dot}${escapeHtml(props.statusLabels[d.status])}`,
          ...d.details.map(escapeHtml),
        ].join('<br/>');
      },
    },
    geo: {
      map: CHINA_MAP,
      roam: true,
      scaleLimit: { min: 0.8, max: 12 },
      // Fit the whole country into the box, leaving room for the legend below.
      top: 8,
      bottom: 36,
      left: 8,
      right: 8,
      label: { show: false },
      silent: false,
      tooltip: { show: false },
      itemStyle: { areaColor: theme.area, borderColor: theme.border, borderWidth: 0.8 },
      emphasis: { label: { show: false }, itemStyle: { areaColor: theme.areaHover } },
      select: { disabled: true },
    },
    series,
  };
}

/** The map; redraws when its props change and follows its container's size. */
export default function SiteMap(props: SiteMapProps) {
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<ReturnType<typeof init> | null>(null);
  const onSelectRef = useRef(props.onSelect);
  onSelectRef.current = props.onSelect;
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');

  useEffect(() => {
    let cancelled = false;
    registerChinaMap().then(
      () => !cancelled && setState('ready'),
      () => !cancelled && setState('failed'),
    );
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    const el = ref.current;
    if (state !== 'ready' || !el) return;
    const chart = init(el, undefined, { renderer: 'canvas' });
    chartRef.current = chart;
    chart.on('click', (params) => {
      const data = params.data as PointDatum | undefined;
      if (params.componentType === 'series' && data && typeof data.id === 'number') {
        onSelectRef.current?.(data.id);
      }
    });
    const observer = new ResizeObserver(() => chart.resize());
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.dispose();
      chartRef.current = null;
    };
  }, [state]);

  useEffect(() => {
    if (state !== 'ready') return;
    // Merge (not replace) so the user's zoom and pan on the geo component survive live updates.
    chartRef.current?.setOption(buildOption(props), { replaceMerge: ['series'] });
  });

  const drawn = props.sites.filter((s) => Number.isFinite(s.longitude) && Number.isFinite(s.latitude)).length;
  return (
    <div
      className={props.className}
      role="img"
      aria-label={props.ariaLabel}
      data-ready={state === 'ready' ? 'true' : 'false'}
      data-points={drawn}
      style={{ position: 'relative', width: '100%', height: props.height ?? 420 }}
    >
      <div ref={ref} style={{ position: 'absolute', inset: 0 }} />
      {state === 'failed' && (
        <div
          style={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', color: '#8c8c8c' }}
        >
          {props.loadFailedText ?? 'Map unavailable'}
        </div>
      )}
    </div>
  );
}
