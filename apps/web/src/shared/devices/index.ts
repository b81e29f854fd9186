/**
 * Device display helpers used by several features (devices, monitor data, export, screens):
 * the device type label (the contract's `deviceTypeLabel`, one source for console and server)
 * and its tag colour.
 */
import { type DeviceType, deviceTypeLabel } from '@ess/contract';
import type { TFunction } from 'i18next';
import { currentLang } from '../i18n';

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

/**
 * 'EMS', '电表' / 'Meter', … in the UI language (contract `DEVICE_TYPE_LABELS`). Takes the
 * caller's `t` so that it is called where the language is followed (a component re-rendered by
 * `useTranslation`); an unknown type answers itself.
 */
export function typeLabel(_t: TFunction, type: string): string {
  return deviceTypeLabel(type, currentLang());
}
