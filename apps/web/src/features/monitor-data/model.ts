/**
 * Display helpers of real-time data and history: point labels (translated where the point is
 * standard, docs/device-protocol.md "Points") and units from the name. The pickers' time ranges
 * (on the site's calendar) are in ./ranges.ts.
 */
import { type DeviceType, type PickDevice, pointLabel, pointUnit } from '@ess/contract';
import { currentLang } from '@/shared/i18n';

/** 'Active power (kW)' / '有功功率 (kW)'; non-standard points keep their raw name. */
export function pointTitle(name: string, type: DeviceType): string {
  const unit = pointUnit(name, type);
  const label = pointLabel(name, type, currentLang());
  return unit ? `${label} (${unit})` : label;
}

/** '<SN> · <label>' for a series of a device. */
export function seriesTitle(device: Pick<PickDevice, 'sn' | 'type'>, point: string): string {
  return `${device.sn} · ${pointTitle(point, device.type)}`;
}
