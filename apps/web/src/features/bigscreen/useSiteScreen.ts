/**
 * State of a site screen: the chosen site (query `?siteId=`, else the first site of the picker,
 * written back to the URL), the site's data over HTTP (re-read every SITE_REFRESH_MS for cells,
 * curves, energy and alarms) and, live, each device's latest points from the `device:<id>`
 * channels (at most one update per device and second), merged over the HTTP reading when newer.
 */
import type { ScreenDevice, ScreenSiteData, ScreenSiteOption } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { isApiError } from '@/shared/api/errors';
import { type LiveStatus, liveConnection, useLiveStatus } from '@/shared/live';
import { fetchScreenSite, fetchScreenSites, SITE_REFRESH_MS } from './api';
import { SITE_PARAM } from './paths';

type Reading = { ts: number; points: Record<string, number> };

/** Latest live reading per device id of `ids` while mounted. */
export function useLiveDevices(ids: number[]): Map<number, Reading> {
  const [readings, setReadings] = useState<Map<number, Reading>>(() => new Map());
  const key = ids.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `ids`
  useEffect(() => {
    setReadings(new Map());
    const stops = ids.map((id) =>
      liveConnection.listen(`device:${id}`, (message) => {
        if (message.type !== 'device') return;
        setReadings((prev) => {
          const cur = prev.get(id);
          if (cur && cur.ts > message.ts) return prev;
          const next = new Map(prev);
          next.set(id, { ts: message.ts, points: { ...cur?.points, ...message.points } });
          return next;
        });
      }),
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, [key]);
  return readings;
}

export interface SiteScreen {
  sites: ScreenSiteOption[] | undefined;
  siteId: number | null;
  chooseSite: (id: number) => void;
  data: ScreenSiteData | undefined;
  /** Devices with their newest points (live over HTTP). */
  devices: ScreenDevice[];
  live: LiveStatus;
  loading: boolean;
  /** The error code of the site call (3036: not found / outside scope), or 'failed'. */
  error: number | 'failed' | null;
}

/** See the module comment; `refreshMs` overrides the HTTP re-read interval. */
export function useSiteScreen(refreshMs = SITE_REFRESH_MS): SiteScreen {
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get(SITE_PARAM));
  const sitesQuery = useQuery({
    queryKey: ['screen', 'sites'],
    queryFn: fetchScreenSites,
    staleTime: 60_000,
  });
  const sites = sitesQuery.data;
  const siteId = Number.isInteger(raw) && raw > 0 ? raw : (sites?.[0]?.siteId ?? null);

  useEffect(() => {
    if (siteId !== null && String(siteId) !== params.get(SITE_PARAM)) {
      const next = new URLSearchParams(params);
      next.set(SITE_PARAM, String(siteId));
      setParams(next, { replace: true });
    }
  }, [siteId, params, setParams]);

  const query = useQuery({
    queryKey: ['screen', 'site', siteId],
    queryFn: () => fetchScreenSite(siteId!),
    enabled: siteId !== null,
    refetchInterval: refreshMs,
    staleTime: 0,
  });
  const data = query.data?.site.id === siteId ? query.data : undefined;
  const ids = useMemo(() => data?.devices.map((d) => d.id) ?? [], [data]);
  const live = useLiveDevices(ids);
  const status = useLiveStatus();
  const devices = useMemo(
    () =>
      (data?.devices ?? []).map((d) => {
        const r = live.get(d.id);
        if (!r || (d.ts !== null && r.ts < d.ts)) return d;
        return { ...d, ts: r.ts, points: { ...d.points, ...r.points } };
      }),
    [data, live],
  );
  const error = query.error ? (isApiError(query.error) ? query.error.code : 'failed') : null;
  return {
    sites,
    siteId,
    chooseSite: (id) => {
      const next = new URLSearchParams(params);
      next.set(SITE_PARAM, String(id));
      setParams(next);
    },
    data,
    devices,
    live: status,
    loading: (siteId !== null && !data && query.isLoading) || sitesQuery.isLoading,
    error: sitesQuery.error ? 'failed' : error,
  };
}

/** The first device of a type, if any. */
export function deviceOf(devices: ScreenDevice[], type: ScreenDevice['type']): ScreenDevice | undefined {
  return devices.find((d) => d.type === type);
}
