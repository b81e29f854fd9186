/**
 * Data of the site monitoring page: the HTTP site list overlaid with the live `fleet` channel
 * (its per-site figures replace those of the list; the map status is derived again with the
 * contract's `siteMonitorStatus`), and one site's detail overlaid with the `device:<id>`
 * channels of its devices (pushed points laid over the device's points by the shared "newest
 * value wins" rule, `useLiveOverlay` / `liveWins` of shared/live, and the panels rebuilt with the
 * contract's `buildSitePanels`, the function the server uses).
 */
import {
  buildSitePanels,
  type SiteMonitorDetail,
  type SiteMonitorSite,
  siteMonitorStatus,
} from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { type LiveStatus, liveWins, useLiveChannel, useLiveOverlay } from '@/shared/live';
import { fetchMonitorSite, fetchMonitorSites } from './api';

/** Position and address change rarely: the list is fetched again this often for new sites. */
const LIST_REFRESH_MS = 60_000;

export interface MonitorSites {
  sites: SiteMonitorSite[] | undefined;
  updatedAt: number | undefined;
  live: LiveStatus;
  loading: boolean;
  failed: boolean;
  retry: () => void;
}

/** The sites of the map and list, live. */
export function useMonitorSites(): MonitorSites {
  const query = useQuery({
    queryKey: ['siteMonitor', 'sites'],
    queryFn: fetchMonitorSites,
    refetchInterval: LIST_REFRESH_MS,
    staleTime: 0,
  });
  const { data: fleet, status } = useLiveChannel('fleet');
  const http = query.data;
  const sites = useMemo(() => {
    if (!http) return undefined;
    if (!fleet || !liveWins(fleet.overview.updatedAt, http.updatedAt)) return http.sites;
    const byId = new Map(fleet.sites.map((s) => [s.siteId, s]));
    return http.sites.map((s) => {
      const live = byId.get(s.siteId);
      return live ? { ...s, ...live, status: siteMonitorStatus(live) } : s;
    });
  }, [http, fleet]);
  const updatedAt =
    fleet && http && liveWins(fleet.overview.updatedAt, http.updatedAt)
      ? fleet.overview.updatedAt
      : http?.updatedAt;
  return {
    sites,
    updatedAt,
    live: status,
    loading: !http && query.isLoading,
    failed: !http && query.isError,
    retry: () => void query.refetch(),
  };
}

export interface MonitorSiteDetail {
  detail: SiteMonitorDetail | undefined;
  /** Time of the newest reading received (HTTP or live), UTC ms. */
  updatedAt: number | undefined;
  live: LiveStatus;
  loading: boolean;
  error: unknown;
  retry: () => void;
}

/** One site's detail, live; `site` figures follow the fleet list passed in. */
export function useMonitorSiteDetail(siteId: number, site: SiteMonitorSite | undefined): MonitorSiteDetail {
  const query = useQuery({
    queryKey: ['siteMonitor', 'site', siteId],
    queryFn: () => fetchMonitorSite(siteId),
    staleTime: 0,
    retry: false,
  });
  const { status } = useLiveChannel('fleet');
  const devices = useLiveOverlay(query.data?.devices);

  const detail = useMemo((): SiteMonitorDetail | undefined => {
    if (!query.data || !devices) return query.data;
    return { site: site ?? query.data.site, devices, panels: buildSitePanels(devices) };
  }, [query.data, devices, site]);
  const updatedAt = detail?.devices.reduce<number | undefined>(
    (max, d) => (d.ts !== null && (max === undefined || d.ts > max) ? d.ts : max),
    undefined,
  );
  return {
    detail,
    updatedAt,
    live: status,
    loading: query.isLoading,
    error: query.error,
    retry: () => void query.refetch(),
  };
}
