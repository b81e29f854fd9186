/**
 * State of a site screen: the chosen site (query `?siteId=`, else the first site of the picker,
 * written back to the URL), the site's data over HTTP (re-read every SITE_REFRESH_MS for cells,
 * curves, energy and alarms) and, live, each device's latest points from the `device:<id>`
 * channels (at most one update per device and second), laid over the HTTP reading by the shared
 * "newest value wins" rule (`useLiveOverlay`, shared/live/overlay.ts).
 */
import type { ScreenDevice, ScreenSiteData, ScreenSiteOption } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { isApiError } from '@/shared/api/errors';
import { type LiveStatus, useLiveOverlay, useLiveStatus } from '@/shared/live';
import { idParam } from '@/shared/routing';
import { fetchScreenSite, fetchScreenSites, SITE_REFRESH_MS } from './api';
import { SITE_PARAM } from './paths';

const NO_DEVICES: ScreenDevice[] = [];

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
  const sitesQuery = useQuery({
    queryKey: ['screen', 'sites'],
    queryFn: fetchScreenSites,
    staleTime: 60_000,
  });
  const sites = sitesQuery.data;
  const siteId = idParam(params.get(SITE_PARAM)) ?? sites?.[0]?.siteId ?? null;

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
  const devices = useLiveOverlay(data?.devices) ?? NO_DEVICES;
  const status = useLiveStatus();
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
