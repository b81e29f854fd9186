/**
 * Wall-clock fields of an instant in an IANA time zone (a site's, e.g. `Asia/Shanghai`): the one
 * place the console, the server and the ToU resolution turn UTC ms into local date and time.
 *
 * Read with `Intl.DateTimeFormat` (one cached formatter per zone), never with fixed offsets, so
 * daylight-saving days come out right: on the spring-forward day the skipped hour belongs to no
 * instant, on the fall-back day the repeated hour is met twice (design §4). The way back, from a
 * local calendar day to the instant it starts, is {@link localDateStart} (a day lasts 23 or 25
 * hours on a daylight-saving day), and the time base of a fleet-wide screen is
 * {@link fleetTimeBase}.
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

/** `date` (`YYYY-MM-DD`) moved by `days` calendar days: `addDays('2026-02-28', 1)` → `'2026-03-01'`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(Date.UTC(y!, m! - 1, d! + days));
  return `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`;
}

const dayStarts = new Map<string, number>();

/** The first day (`YYYY-MM-01`) of the month after `month` (`YYYY-MM`): calendar arithmetic, no zone. */
export function nextMonthStart(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${pad2(m + 1)}-01`;
}

/**
 * UTC ms at which local calendar day `date` (`YYYY-MM-DD`) begins in `timeZone`: its local
 * midnight, the offset taken at midnight itself, so a daylight-saving day (Europe/Berlin
 * 2026-03-29: 23 h, 2026-10-25: 25 h) starts and ends where PostgreSQL's
 * `date_trunc('day', ts AT TIME ZONE tz) AT TIME ZONE tz` puts it. Cached per zone and day.
 */
export function localDateStart(date: string, timeZone: string): number {
  const key = `${timeZone}|${date}`;
  const cached = dayStarts.get(key);
  if (cached !== undefined) return cached;
  const [y, m, d] = date.split('-').map(Number);
  const wallMidnight = Date.UTC(y!, m! - 1, d!);
  let start = wallMidnight - zoneOffsetMs(wallMidnight, timeZone);
  start = wallMidnight - zoneOffsetMs(start, timeZone); // the offset at midnight itself (DST days)
  if (dayStarts.size > 10_000) dayStarts.clear();
  dayStarts.set(key, start);
  return start;
}

/**
 * UTC ms of the local wall-clock time `date` (`YYYY-MM-DD`) `time` (`HH:mm` or `HH:mm:ss`) in
 * `timeZone`, the offset taken at that instant (as {@link localDateStart} does for midnight):
 * `localDateTimeMs('2025-07-15', '10:30', 'Asia/Shanghai')` → 2025-07-15T02:30Z. A wall time that a
 * daylight-saving change skips or repeats gets one of the offsets around it.
 */
export function localDateTimeMs(date: string, time: string, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm, ss] = time.split(':').map(Number);
  const wall = Date.UTC(y!, m! - 1, d!, hh!, mm!, ss ?? 0);
  const guess = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(guess, timeZone);
}

/** UTC ms of local midnight, in `timeZone`, of the day holding instant `ms`. */
export function localDayStart(ms: number, timeZone: string): number {
  return localDateStart(localTimeOf(ms, timeZone).date, timeZone);
}

/** The local day holding instant `ms` in `timeZone`: its date and its bounds (UTC ms, end exclusive). */
export interface LocalDay {
  date: string;
  startMs: number;
  /** Start of the next local day: 24 h after `startMs`, 23 or 25 h on a daylight-saving day. */
  endMs: number;
}

/** The local day of instant `ms` in `timeZone` ("today" of a site when `ms` is now). */
export function localDayOf(ms: number, timeZone: string): LocalDay {
  const date = localTimeOf(ms, timeZone).date;
  return { date, startMs: localDateStart(date, timeZone), endMs: localDateStart(addDays(date, 1), timeZone) };
}

/** Offset of `timeZone` at instant `ms` as text: `UTC+8`, `UTC+5:30`, `UTC-3`, `UTC`. */
export function utcOffsetText(ms: number, timeZone: string): string {
  const minutes = Math.round(zoneOffsetMs(ms, timeZone) / 60_000);
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const hm = abs % 60 ? `${Math.floor(abs / 60)}:${pad2(abs % 60)}` : String(abs / 60);
  return `UTC${minutes < 0 ? '-' : '+'}${hm}`;
}

/**
 * Where the times of a fleet-wide screen (dashboard, cockpit, site-monitoring list) come from:
 * - `sites`: every site in view has this zone, so its clock and its "today" are the sites' own;
 * - `caller`: the sites are in several zones (or there are none): the zone the caller named
 *   (the console sends the browser's), UTC when it named none.
 * Each site's own figures ("today's kWh" of a site) stay in the site's zone either way.
 */
export interface FleetTimeBase {
  timezone: string;
  basis: 'sites' | 'caller';
}

/** The time base of a fleet view (see {@link FleetTimeBase}) from the zones of its sites. */
export function fleetTimeBase(siteZones: readonly string[], callerZone?: string | null): FleetTimeBase {
  const zones = new Set(siteZones);
  if (zones.size === 1) return { timezone: [...zones][0]!, basis: 'sites' };
  return { timezone: callerZone || 'UTC', basis: 'caller' };
}
