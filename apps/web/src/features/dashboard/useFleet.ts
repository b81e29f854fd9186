/**
 * Fleet state of the dashboard: the HTTP overview (refetched every minute for the power curve
 * and the time base) overlaid with the live `fleet` channel, whose snapshots replace the
 * overview, the sites and the alarms (the newer of the two by `overview.updatedAt` wins).
 */
import type { AlarmRow, FleetOverview, FleetTimeBase, PowerCurve, SiteStatus } from '@ess/contract';
import { useQuery } from '@tanstack/react-query';
import { type LiveStatus, liveWins, useLiveChannel } from '@/shared/live';
import { CURVE_REFRESH_MS, fetchOverview } from './api';

export interface Fleet {
  overview: FleetOverview | undefined;
  sites: SiteStatus[] | undefined;
  alarms: AlarmRow[] | undefined;
  powerCurve: PowerCurve | undefined;
  /** Zone of the curve's day and of every time on the dashboard (contract `fleetTimeBase`). */
  timeBase: FleetTimeBase | undefined;
  live: LiveStatus;
  loading: boolean;
  failed: boolean;
  retry: () => void;
}

/** The dashboard's data; see the module comment. */
export function useFleet(): Fleet {
  const query = useQuery({
    queryKey: ['dashboard', 'overview'],
    queryFn: fetchOverview,
    refetchInterval: CURVE_REFRESH_MS,
    staleTime: 0,
  });
  const { data: live, status } = useLiveChannel('fleet');
  const http = query.data;
  const current = live && liveWins(live.overview.updatedAt, http?.overview.updatedAt) ? live : http;
  return {
    overview: current?.overview,
    sites: current?.sites,
    alarms: current?.alarms,
    powerCurve: http?.powerCurve,
    timeBase: http?.timeBase,
    live: status,
    loading: !current && query.isLoading,
    failed: !current && query.isError,
    retry: () => void query.refetch(),
  };
}
