/**
 * Helpers of the history tabs: series keys (`<deviceId>:<point>`) for the pickers, the series
 * picker's options, the "power + SOC" preset and the resolution's label.
 */
import { figureSourceOf, type HistoryResolution, type PickDevice, type SeriesKey } from '@ess/contract';
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

/**
 * "Power + SOC": the site's battery power and SOC as the site figures take them (contract
 * `figureSourceOf`: PCS and BMS, else the gateway's own points), from the first device of the
 * source type that has reported the point.
 */
export function powerAndSoc(devices: PickDevice[]): SeriesKey[] {
  const out: SeriesKey[] = [];
  const types = devices.map((d) => d.type);
  for (const figure of ['batteryKw', 'socPct'] as const) {
    const source = figureSourceOf(types, figure);
    const device = source && devices.find((d) => d.type === source.type && d.points.includes(source.point));
    if (source && device) out.push({ deviceId: device.id, point: source.point });
  }
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
