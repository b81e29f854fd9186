/**
 * Display helpers of real-time data and history: point labels (translated where the point is
 * standard, docs/device-protocol.md "Points"), units from the name, and the time ranges of the
 * range picker (browser-local calendar: a day runs from local midnight).
 */
import { type DeviceType, type PickDevice, pointLabel, pointUnit, type TimeRange } from '@ess/contract';
import type { Dayjs } from 'dayjs';
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

export const RANGE_KINDS = ['day', 'week', 'month', 'year', 'custom'] as const;
export type RangeKind = (typeof RANGE_KINDS)[number];

/**
 * The range of a preset around `anchor` (a picked day): the day; the 7 days ending with it; its
 * calendar month; its calendar year. Start inclusive, end exclusive, UTC ms.
 */
export function presetRange(kind: Exclude<RangeKind, 'custom'>, anchor: Dayjs): TimeRange {
  const day = anchor.startOf('day');
  switch (kind) {
    case 'day':
      return { startMs: day.valueOf(), endMs: day.add(1, 'day').valueOf() };
    case 'week':
      return { startMs: day.subtract(6, 'day').valueOf(), endMs: day.add(1, 'day').valueOf() };
    case 'month':
      return {
        startMs: day.startOf('month').valueOf(),
        endMs: day.startOf('month').add(1, 'month').valueOf(),
      };
    case 'year':
      return { startMs: day.startOf('year').valueOf(), endMs: day.startOf('year').add(1, 'year').valueOf() };
  }
}

/** A custom range of whole days: from the first day's midnight to the day after the last. */
export function customRange(from: Dayjs, to: Dayjs): TimeRange {
  return { startMs: from.startOf('day').valueOf(), endMs: to.startOf('day').add(1, 'day').valueOf() };
}
