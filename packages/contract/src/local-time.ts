/**
 * Wall-clock fields of an instant in an IANA time zone (a site's, e.g. `Asia/Shanghai`): the one
 * place the console, the server and the ToU resolution turn UTC ms into local date and time.
 *
 * Read with `Intl.DateTimeFormat` (one cached formatter per zone), never with fixed offsets, so
 * daylight-saving days come out right: on the spring-forward day the skipped hour belongs to no
 * instant, on the fall-back day the repeated hour is met twice (design §4).
 */

/** Local calendar and clock fields of an instant. */
export interface LocalParts {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
  /** 0–23 */
  hour: number;
  /** 0–59 */
  minute: number;
  /** 0–59 */
  second: number;
}

/** Local date and minute of the day of an instant. */
export interface LocalTime {
  /** Local date, `YYYY-MM-DD`. */
  date: string;
  /** Minutes since local midnight, 0–1439 (wall clock). */
  minuteOfDay: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Local fields of instant `ms` (UTC ms) in `timeZone`. Throws a RangeError for a zone `Intl`
 * does not know (zones are checked where they are entered: `timezoneSchema`).
 */
export function localPartsOf(ms: number, timeZone: string): LocalParts {
  const p: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(ms)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return { year: p.year!, month: p.month!, day: p.day!, hour: p.hour!, minute: p.minute!, second: p.second! };
}

/** Offset of `timeZone` from UTC at instant `ms`, in ms (local − UTC: Asia/Shanghai → +8 h). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const p = localPartsOf(ms, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

const pad2 = (v: number) => String(v).padStart(2, '0');

/** `YYYY-MM-DD` of local fields. */
export function isoDateOf(parts: LocalParts): string {
  return `${parts.year}-${pad2(parts.month)}-${pad2(parts.day)}`;
}

/** `YYYY-MM-DD HH:mm:ss` of instant `ms` in `timeZone`, e.g. `2026-07-01 14:03:22`. */
export function localDateTimeText(ms: number, timeZone: string): string {
  const p = localPartsOf(ms, timeZone);
  return `${isoDateOf(p)} ${pad2(p.hour)}:${pad2(p.minute)}:${pad2(p.second)}`;
}

/** Local wall-clock date and minute of instant `ms` (UTC ms) in IANA zone `timeZone`. */
export function localTimeOf(ms: number, timeZone: string): LocalTime {
  const p = localPartsOf(ms, timeZone);
  return { date: isoDateOf(p), minuteOfDay: p.hour * 60 + p.minute };
}
