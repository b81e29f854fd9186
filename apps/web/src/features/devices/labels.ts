/**
 * Display helpers of the registry: site connection status. (Device type labels and colours
 * are shared: `@/shared/devices`.)
 */
import type { SiteRow } from '@ess/contract';

/** How a site is connected: every gateway online, some, none, or no gateway registered yet. */
export type SiteLink = 'online' | 'partial' | 'offline' | 'none';

export function siteLink(site: Pick<SiteRow, 'gateways' | 'onlineGateways'>): SiteLink {
  if (site.gateways === 0) return 'none';
  if (site.onlineGateways === 0) return 'offline';
  return site.onlineGateways >= site.gateways ? 'online' : 'partial';
}
