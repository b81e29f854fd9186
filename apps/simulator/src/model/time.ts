/**
 * Local wall-clock fields of a UTC instant in an IANA time zone (the site's, e.g.
 * `Asia/Shanghai`). Pure: the instant is passed in, never read from the system clock.
 *
 * The zone offset comes from `Intl.DateTimeFormat` and is cached per zone and UTC hour (zone
 * offsets only change on hour boundaries in practice), so stepping a fleet costs one Intl call
 * per site per simulated hour. The offset itself is the contract's `zoneOffsetMs`, the conversion the
 * server and the console use.
 */
import { zoneOffsetMs } from '@ess/contract';

export interface LocalTime {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
  /** 0 Sunday … 6 Saturday */
  weekday: number;
  /** 1–366 */
  dayOfYear: number;
  /** Minutes since local midnight, fractional (0 ≤ x < 1440). */
  minuteOfDay: number;
  /** Whole local days since 1970-01-01 (changes at local midnight). */
  dayIndex: number;
  /** Zone offset, ms (local = UTC + offset). */
  offsetMs: number;
}

const offsets = new Map<string, number>();

/** Offset of `timeZone` from UTC at instant `ms`, in ms, read once per zone and UTC hour. */
function hourlyZoneOffsetMs(timeZone: string, ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  const key = `${timeZone}|${hour}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const offset = zoneOffsetMs(hour * 3_600_000, timeZone);
  if (offsets.size > 50_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** Local calendar and clock fields of UTC instant `ms` in `timeZone`. */
export function localTime(timeZone: string, ms: number): LocalTime {
  const offsetMs = hourlyZoneOffsetMs(timeZone, ms);
  const local = ms + offsetMs;
  const d = new Date(local);
  const year = d.getUTCFullYear();
  const dayIndex = Math.floor(local / 86_400_000);
  const startOfYear = Date.UTC(year, 0, 1) / 86_400_000;
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: d.getUTCDay(),
    dayOfYear: dayIndex - startOfYear + 1,
    minuteOfDay: (local - dayIndex * 86_400_000) / 60_000,
    dayIndex,
    offsetMs,
  };
}
