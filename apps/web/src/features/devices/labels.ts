/**
 * Display helpers of the registry: device type labels, site connection status.
 */
import type { DeviceType, SiteRow } from '@ess/contract';
import type { TFunction } from 'i18next';

/** Tag colour per device type (antd preset colours). */
export const TYPE_COLOR: Record<DeviceType, string> = {
  ems: 'geekblue',
  pcs: 'purple',
  bms: 'green',
  meter: 'gold',
  pv: 'orange',
  air_conditioner: 'cyan',
  env_sensor: 'lime',
};

/** 'EMS', '电表' / 'Meter', … */
export function typeLabel(t: TFunction, type: DeviceType): string {
  return t(`devices.type.${type}`);
}

/** How a site is connected: every gateway online, some, none, or no gateway registered yet. */
export type SiteLink = 'online' | 'partial' | 'offline' | 'none';

export function siteLink(site: Pick<SiteRow, 'gateways' | 'onlineGateways'>): SiteLink {
  if (site.gateways === 0) return 'none';
  if (site.onlineGateways === 0) return 'offline';
  return site.onlineGateways >= site.gateways ? 'online' : 'partial';
}
