/**
 * Helpers of the history tabs: series keys (`<deviceId>:<point>`) for the pickers, the series
 * picker's options, the "power + SOC" preset and the resolution's label.
 */
import type { HistoryResolution, PickDevice, SeriesKey } from '@ess/contract';
import type { TFunction } from 'i18next';
import { typeLabel } from '@/shared/devices';
import { seriesTitle } from '../model';

/** Picker value of a series: `<deviceId>:<point>`. */
export const keyOf = (k: SeriesKey) => `${k.deviceId}:${k.point}`;
/** The series of a picker value. */
export const parseKey = (v: string): SeriesKey => {
  const i = v.indexOf(':');
  return { deviceId: Number(v.slice(0, i)), point: v.slice(i + 1) };
};

/** The series picker's options: each device of the site with its points. */
export function seriesOptions(t: TFunction, devices: PickDevice[]) {
  return devices
    .filter((d) => d.points.length > 0)
    .map((d) => ({
      label: `${typeLabel(t, d.type)} · ${d.sn}`,
      title: d.sn,
      options: d.points.map((p) => ({
        value: keyOf({ deviceId: d.id, point: p }),
        label: seriesTitle(d, p),
      })),
    }));
}

/** "Power + SOC": the first PCS's power and the first BMS's SOC (else the EMS's SOC). */
export function powerAndSoc(devices: PickDevice[]): SeriesKey[] {
  const out: SeriesKey[] = [];
  const pcs = devices.find((d) => d.type === 'pcs' && d.points.includes('p_kw'));
  if (pcs) out.push({ deviceId: pcs.id, point: 'p_kw' });
  const soc =
    devices.find((d) => d.type === 'bms' && d.points.includes('soc_pct')) ??
    devices.find((d) => d.points.includes('soc_pct'));
  if (soc) out.push({ deviceId: soc.id, point: 'soc_pct' });
  return out;
}

export function resolutionText(t: TFunction, r: HistoryResolution): string {
  const key = {
    raw: 'monitorData.history.resolution.raw',
    '900': 'monitorData.history.resolution.900',
    '3600': 'monitorData.history.resolution.3600',
    '86400': 'monitorData.history.resolution.86400',
  } as const;
  return t(key[r]);
}
