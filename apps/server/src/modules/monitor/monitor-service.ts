/**
 * Real-time data and history (docs/api.md "Real-time data and history") for
 * a company scope. Every site and device is looked up through the scope: outside it answers
 * as if it did not exist (3036 site, 3030 device).
 *
 * Sources: `device_latest` (latest values), the daily rollups' `last_ts` per point (when each
 * value was reported), raw `telemetry` (reporting interval, short ranges) and
 * `telemetry_rollup` (long ranges, energy per day from the PCS energy registers).
 */
import {
  type CompareData,
  checkTimeRange,
  clampRangeToNow,
  DEFAULT_REPORT_INTERVAL_MS,
  type DeviceType,
  type EnergyData,
  type EnergyRequest,
  ErrorCode,
  HISTORY_MAX_DAYS,
  type HistoryData,
  type HistorySeries,
  localDateStart,
  localDayStart,
  localTimeOf,
  MAX_SERIES_PER_REQUEST,
  type PickDevice,
  type PickOptions,
  type PickSite,
  POINT_NAME_PATTERN,
  pointOrder,
  REALTIME_TREND_MS,
  type RealtimeData,
  type SeriesKey,
  STALE_INTERVALS,
  type TimeRange,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql, requireSiteInScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';
import { dailyEnergySql } from '../../devices/daily-energy';
import { readSeries, type SeriesDevice, type SeriesRequest, type SourceChoice } from './history-query';

/** A device in scope with what the monitoring calls need. */
interface ScopedDevice extends SeriesDevice {
  siteId: number;
  siteName: string;
  model: string | null;
  online: boolean;
  offlineReason: RealtimeData['offlineReason'];
  points: Record<string, number>;
  latestTs: number | null;
}

const DAY_MS = 86_400_000;

/** Sorts point names: standard order of the device type first, then the rest by name. */
function sortPoints(names: string[], type: DeviceType): string[] {
  return [...names].sort((a, b) => pointOrder(a, type) - pointOrder(b, type) || a.localeCompare(b));
}

/** `YYYY-MM-DD` of instant `ms` in `tz`. */
function localDate(tz: string, ms: number): string {
  return localTimeOf(ms, tz).date;
}

/** UTC ms of local midnight on the first day of the month holding `ms` in `tz`. */
function localMonthStart(tz: string, ms: number): number {
  return localDateStart(`${localDate(tz, ms).slice(0, 7)}-01`, tz);
}

export class MonitorService {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sites in scope, and with `siteId` that site's devices (3036 when out of scope). */
  async options(scope: CompanyScope, siteId?: number): Promise<PickOptions> {
    const sites = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT s.id, s.code, s.name, s.timezone,
               coalesce((SELECT bool_or(g.online) FROM device g WHERE g.site_id = s.id AND g.gateway_id IS NULL), false) AS online
        FROM site s WHERE ${inScopeSql(scope, 's.company_id')} ORDER BY s.name, s.id`),
    ).map(
      (r): PickSite => ({
        id: Number(r.id),
        code: String(r.code),
        name: String(r.name),
        timezone: String(r.timezone),
        online: Boolean(r.online),
      }),
    );
    if (siteId === undefined) return { sites, devices: [] };
    if (!sites.some((s) => s.id === siteId)) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
    const devices = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT d.id, d.site_id, d.sn, d.type, d.model, coalesce(g.online, d.online) AS online,
               coalesce((SELECT array_agg(k) FROM jsonb_object_keys(l.points) k), '{}') AS points
        FROM device d LEFT JOIN device g ON g.id = d.gateway_id
        LEFT JOIN device_latest l ON l.device_id = d.id
        WHERE d.site_id = ${siteId} AND ${inScopeSql(scope, 'd.company_id')}
        ORDER BY d.gateway_id NULLS FIRST, d.type, d.sn`),
    ).map(
      (r): PickDevice => ({
        id: Number(r.id),
        siteId: Number(r.site_id),
        sn: String(r.sn),
        type: r.type as DeviceType,
        model: (r.model as string | null) ?? null,
        online: Boolean(r.online),
        points: sortPoints(r.points as string[], r.type as DeviceType),
      }),
    );
    return { sites, devices };
  }

  /** One device in scope (3030 otherwise), with its latest points. */
  private async device(scope: CompanyScope, deviceId: number): Promise<ScopedDevice> {
    const [r] = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT d.id, d.site_id, d.sn, d.type, d.model, s.name AS site_name, s.timezone,
               coalesce(g.online, d.online) AS online,
               CASE WHEN g.id IS NULL THEN d.offline_reason ELSE g.offline_reason END AS offline_reason,
               l.points, (extract(epoch FROM l.ts) * 1000)::float8 AS latest_ts
        FROM device d JOIN site s ON s.id = d.site_id LEFT JOIN device g ON g.id = d.gateway_id
        LEFT JOIN device_latest l ON l.device_id = d.id
        WHERE d.id = ${deviceId} AND ${inScopeSql(scope, 'd.company_id')}`),
    );
    if (!r) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    const online = Boolean(r.online);
    return {
      id: Number(r.id),
      siteId: Number(r.site_id),
      siteName: String(r.site_name),
      sn: String(r.sn),
      type: r.type as DeviceType,
      model: (r.model as string | null) ?? null,
      timezone: String(r.timezone),
      online,
      offlineReason: online ? null : ((r.offline_reason as RealtimeData['offlineReason']) ?? null),
      points: (r.points as Record<string, number> | null) ?? {},
      latestTs: r.latest_ts === null || r.latest_ts === undefined ? null : Math.round(Number(r.latest_ts)),
    };
  }

  /**
   * The device's reporting interval: the median gap between its last (up to 11) raw rows of the
   * last 6 hours, within 1 s–1 h; DEFAULT_REPORT_INTERVAL_MS when fewer than two rows.
   */
  private async reportingInterval(deviceId: number): Promise<number> {
    const ts = rowsOf<{ t: number }>(
      await this.db.execute(sql`
        SELECT (extract(epoch FROM ts) * 1000)::float8 AS t FROM telemetry
        WHERE device_id = ${deviceId} AND ts > to_timestamp(${(this.now() - 6 * 3_600_000) / 1000})
        ORDER BY ts DESC LIMIT 11`),
    ).map((r) => Number(r.t));
    if (ts.length < 2) return DEFAULT_REPORT_INTERVAL_MS;
    const gaps = ts
      .slice(1)
      .map((t, i) => ts[i]! - t)
      .sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)]!;
    return Math.round(Math.min(3_600_000, Math.max(1000, median)));
  }

  /**
   * Latest value and report time of every point of a device, the gateway's state and the stale
   * threshold (STALE_INTERVALS × reporting interval). Errors: 3030.
   */
  async realtime(scope: CompanyScope, deviceId: number): Promise<RealtimeData> {
    const d = await this.device(scope, deviceId);
    const names = sortPoints(Object.keys(d.points), d.type);
    const reported = new Map<string, number>();
    if (names.length > 0) {
      const rows = rowsOf<{ point: string; t: number }>(
        await this.db.execute(sql`
          SELECT p.point, (extract(epoch FROM r.last_ts) * 1000)::float8 AS t
          FROM jsonb_array_elements_text(${JSON.stringify(names)}::jsonb) AS p(point)
          CROSS JOIN LATERAL (
            SELECT last_ts FROM telemetry_rollup
            WHERE device_id = ${d.id} AND bucket_s = 86400 AND point = p.point
            ORDER BY bucket_start DESC LIMIT 1) r`),
      );
      for (const r of rows) reported.set(r.point, Math.round(Number(r.t)));
    }
    const intervalMs = await this.reportingInterval(d.id);
    const { points: _latest, latestTs, siteName, online, offlineReason, ...rest } = d;
    return {
      device: {
        id: rest.id,
        siteId: rest.siteId,
        sn: rest.sn,
        type: rest.type,
        model: rest.model,
        online,
        points: names,
      },
      siteName,
      online,
      offlineReason,
      intervalMs,
      staleAfterMs: STALE_INTERVALS * intervalMs,
      serverNow: this.now(),
      points: names.map((name) => ({
        name,
        value: d.points[name]!,
        ts: reported.get(name) ?? latestTs ?? 0,
      })),
    };
  }

  /** The range after the shared rule (3120–3122, at most HISTORY_MAX_DAYS), end clamped to now. */
  private range(range: TimeRange): TimeRange {
    const now = this.now();
    const issue = checkTimeRange(range, { maxDays: HISTORY_MAX_DAYS, nowMs: now });
    if (issue) throw new ApiError(issue.code, issue.params);
    return clampRangeToNow(range, now);
  }

  /** Devices in scope for these series, grouped per device (3123, 3124, 3030). */
  private async seriesRequests(scope: CompanyScope, keys: SeriesKey[]): Promise<SeriesRequest[]> {
    const unique = [...new Map(keys.map((k) => [`${k.deviceId}/${k.point}`, k])).values()];
    if (unique.length > MAX_SERIES_PER_REQUEST) {
      throw new ApiError(ErrorCode.HISTORY_TOO_MANY_SERIES, { max: MAX_SERIES_PER_REQUEST });
    }
    for (const k of unique) {
      if (!POINT_NAME_PATTERN.test(k.point))
        throw new ApiError(ErrorCode.HISTORY_POINT_INVALID, { point: k.point });
    }
    const byDevice = new Map<number, SeriesRequest>();
    for (const k of unique) {
      let req = byDevice.get(k.deviceId);
      if (!req) {
        req = { device: await this.device(scope, k.deviceId), points: [] };
        byDevice.set(k.deviceId, req);
      }
      req.points.push(k.point);
    }
    return [...byDevice.values()];
  }

  /** Put the series back in the order they were asked for. */
  private ordered(keys: SeriesKey[], series: HistorySeries[]): HistorySeries[] {
    const seen = new Set<string>();
    const out: HistorySeries[] = [];
    for (const k of keys) {
      const key = `${k.deviceId}/${k.point}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const s = series.find((x) => x.deviceId === k.deviceId && x.point === k.point);
      if (s) out.push(s);
    }
    return out;
  }

  /**
   * Series of points over a range; the server picks raw or rollup (history-query.ts).
   * Errors: 3120–3122 range, 3123 too many series, 3124 point name, 3030 device.
   */
  async history(
    scope: CompanyScope,
    input: { series: SeriesKey[] } & TimeRange,
    source?: SourceChoice,
  ): Promise<HistoryData> {
    const range = this.range(input);
    const requests = await this.seriesRequests(scope, input.series);
    const { resolution, series } = await readSeries(this.db, requests, range.startMs, range.endMs, source);
    return { resolution, ...range, series: this.ordered(input.series, series) };
  }

  /** A point over the last REALTIME_TREND_MS (the real-time page's trend). Errors: 3030, 3124. */
  async trend(scope: CompanyScope, deviceId: number, point: string): Promise<HistoryData> {
    const now = this.now();
    return this.history(scope, {
      series: [{ deviceId, point }],
      startMs: now - REALTIME_TREND_MS,
      endMs: now,
    });
  }

  /**
   * One point over two periods, at the resolution of the longer one. Errors as {@link history}.
   */
  async compare(
    scope: CompanyScope,
    input: { deviceId: number; point: string; a: TimeRange; b: TimeRange },
  ): Promise<CompareData> {
    const a = this.range(input.a);
    const b = this.range(input.b);
    const requests = await this.seriesRequests(scope, [{ deviceId: input.deviceId, point: input.point }]);
    const longer = b.endMs - b.startMs > a.endMs - a.startMs ? b : a;
    const picked = await readSeries(this.db, requests, longer.startMs, longer.endMs);
    const source: SourceChoice =
      picked.resolution === 'raw'
        ? { kind: 'raw' }
        : { kind: 'rollup', bucketS: Number(picked.resolution) as 900 | 3600 | 86400 };
    const other = longer === a ? b : a;
    const otherSeries = (await readSeries(this.db, requests, other.startMs, other.endMs, source)).series[0]!;
    const longerSeries = picked.series[0]!;
    return {
      resolution: picked.resolution,
      a: { ...a, series: longer === a ? longerSeries : otherSeries },
      b: { ...b, series: longer === a ? otherSeries : longerSeries },
    };
  }

  /**
   * Charged / discharged energy of the site's PCS (or one PCS) per site-local day or month:
   * per PCS and day by the shared daily rule ({@link dailyEnergySql}: the day's last register
   * reading − the previous site-local day's last, or the day's first; never below 0), as the
   * dashboard, export and screens; months sum their days. Periods without readings answer null.
   * Errors: 3036 site, 3030 device (not a PCS of the site), 3120–3122 range.
   */
  async energy(scope: CompanyScope, input: Omit<EnergyRequest, 'userInfo'>): Promise<EnergyData> {
    const range = this.range(input);
    const site = await requireSiteInScope(this.db, scope, input.siteId);
    const tz = site.timezone;
    if (input.deviceId !== undefined) {
      const [dev] = rowsOf<{ id: number }>(
        await this.db.execute(sql`
          SELECT id FROM device WHERE id = ${input.deviceId} AND site_id = ${site.id} AND type = 'pcs'
            AND ${inScopeSql(scope, 'company_id')}`),
      );
      if (!dev) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    }
    const month = input.granularity === 'month';
    const from = month ? localMonthStart(tz, range.startMs) : localDayStart(range.startMs, tz);
    const rows = rowsOf<{ point: string; t: number; kwh: number }>(
      await this.db.execute(sql`
        SELECT e.point, (extract(epoch FROM e.bucket_start) * 1000)::float8 AS t, sum(e.kwh) AS kwh
        FROM ${dailyEnergySql({
          devices: sql`SELECT d.id AS device_id, ${tz}::text AS timezone FROM device d
            WHERE d.site_id = ${site.id} AND d.type = 'pcs' AND ${inScopeSql(scope, 'd.company_id')}
            ${input.deviceId !== undefined ? sql`AND d.id = ${input.deviceId}` : sql``}`,
          points: ['e_charge_total_kwh', 'e_discharge_total_kwh'],
          from: sql`to_timestamp(${from / 1000})`,
          to: sql`to_timestamp(${range.endMs / 1000})`,
        })} e
        GROUP BY e.point, e.bucket_start ORDER BY e.bucket_start`),
    );
    const labelOf = (ms: number) => (month ? localDate(tz, ms).slice(0, 7) : localDate(tz, ms));
    const bars = new Map<string, EnergyData['bars'][number]>();
    for (let t = from; t < range.endMs; ) {
      bars.set(labelOf(t), { label: labelOf(t), startMs: t, chargeKwh: null, dischargeKwh: null });
      t = month ? localMonthStart(tz, t + 32 * DAY_MS) : localDayStart(t + 30 * 3_600_000, tz);
    }
    for (const r of rows) {
      const bar = bars.get(labelOf(Math.round(Number(r.t))));
      if (!bar) continue;
      const kwh = Number(r.kwh);
      if (r.point === 'e_charge_total_kwh') bar.chargeKwh = round((bar.chargeKwh ?? 0) + kwh);
      else bar.dischargeKwh = round((bar.dischargeKwh ?? 0) + kwh);
    }
    return { granularity: input.granularity, timezone: tz, bars: [...bars.values()] };
  }
}

/** Two decimals (kWh). */
function round(v: number): number {
  return Math.round(v * 100) / 100;
}
