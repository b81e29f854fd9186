/**
 * The operational overview (spec §2 `/dashboard`, devices issue) for a company scope: fleet
 * KPIs, today's power curve from the 15-minute rollups, per-site status and the latest alarms.
 *
 * Sign convention (design §4): PCS/battery power + = discharging, − = charging; grid meter
 * power + = import. Which devices provide a site's SOC, power, energy, capacity and rated power:
 * the contract's site-figure rule (./site-figures.ts; BMS, PCS, meter, PV first, else what the
 * gateway reports itself). Today's energy from those registers: the shared daily rule of
 * ./daily-energy.ts ({@link dailyEnergySql}). Active alarms: rows of `alarm` not cleared
 * ({@link activeAlarmsSql}).
 */
import {
  type AlarmRow,
  type DashboardData,
  type FleetOverview,
  type FleetTimeBase,
  fleetTimeBase,
  type PowerCurve,
  type SiteStatus,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql } from '../access/company-scope';
import type { Db } from '../core/db/database';
import { numOrNull, numOrZero, rowsOf } from '../core/db/rows';
import { activeAlarmsSql } from './active-alarms';
import { dailyEnergySql } from './daily-energy';
import { figureSourcesSql, siteCapacityKwhSql, siteRatedPowerKwSql } from './site-figures';

/**
 * The fleet figures of a company scope (sites with online state, SOC, power, today's kWh; the
 * fleet power curve), shared by the dashboard, the big screens, site monitoring and the live hub.
 */
export class FleetSnapshot {
  constructor(private readonly db: Db) {}

  /**
   * Everything the dashboard shows; `callerZone` (IANA, the browser's) is the time base when the
   * sites in scope do not share one ({@link timeBase}).
   */
  async dashboard(scope: CompanyScope, callerZone?: string): Promise<DashboardData> {
    const timeBase = await this.timeBase(scope, callerZone);
    return {
      ...(await this.snapshot(scope)),
      timeBase,
      powerCurve: await this.powerCurve(scope, timeBase.timezone),
    };
  }

  /**
   * The time base of the scope's fleet views (contract `fleetTimeBase`): the sites' zone when
   * they all share one, else `callerZone` (UTC when none).
   */
  async timeBase(scope: CompanyScope, callerZone?: string): Promise<FleetTimeBase> {
    const zones = rowsOf<{ timezone: string }>(
      await this.db.execute(sql`
        SELECT DISTINCT timezone FROM site WHERE ${inScopeSql(scope, 'company_id')} LIMIT 2`),
    );
    return fleetTimeBase(
      zones.map((z) => String(z.timezone)),
      callerZone,
    );
  }

  /** What the live push sends on the `fleet` channel: KPIs, sites and latest alarms (no curve, no time base). */
  async snapshot(scope: CompanyScope): Promise<Omit<DashboardData, 'powerCurve' | 'timeBase'>> {
    const sites = await this.sites(scope);
    return { overview: await this.overview(scope, sites), sites, alarms: await this.alarms(scope) };
  }

  /** Fleet KPIs, built from the per-site figures plus device counts. */
  async overview(scope: CompanyScope, sites?: SiteStatus[]): Promise<FleetOverview> {
    const perSite = sites ?? (await this.sites(scope));
    const counts = rowsOf<{ devices: number; online: number; offline: number }>(
      await this.db.execute(sql`
        SELECT count(*)::int AS devices,
               count(*) FILTER (WHERE gateway_id IS NULL AND online)::int AS online,
               count(*) FILTER (WHERE gateway_id IS NULL AND NOT online)::int AS offline
        FROM device WHERE ${inScopeSql(scope, 'company_id')}`),
    )[0];
    const socWeighted = perSite.filter((s) => s.socPct !== null && s.online && s.capacityKwh > 0);
    const weight = socWeighted.reduce((n, s) => n + s.capacityKwh, 0);
    const power = perSite.map((s) => (s.online ? (s.batteryPowerKw ?? 0) : 0));
    return {
      sites: perSite.length,
      devices: numOrZero(counts?.devices),
      gatewaysOnline: numOrZero(counts?.online),
      gatewaysOffline: numOrZero(counts?.offline),
      capacityKwh: round(perSite.reduce((n, s) => n + s.capacityKwh, 0)),
      ratedPowerKw: round(perSite.reduce((n, s) => n + s.ratedPowerKw, 0)),
      batteryPowerKw: round(power.reduce((n, p) => n + p, 0)),
      chargingPowerKw: round(-power.filter((p) => p < 0).reduce((n, p) => n + p, 0)),
      dischargingPowerKw: round(power.filter((p) => p > 0).reduce((n, p) => n + p, 0)),
      todayChargeKwh: round(perSite.reduce((n, s) => n + s.todayChargeKwh, 0)),
      todayDischargeKwh: round(perSite.reduce((n, s) => n + s.todayDischargeKwh, 0)),
      fleetSocPct:
        weight > 0
          ? round(socWeighted.reduce((n, s) => n + (s.socPct ?? 0) * s.capacityKwh, 0) / weight)
          : null,
      updatedAt: Date.now(),
    };
  }

  /**
   * One row per site in scope (ordered by id), or only `siteId` when given (none when it is
   * outside the scope). SOC (capacity-weighted), battery and grid power, today's kWh, capacity
   * and rated power from the devices the site-figure rule names ({@link figureSourcesSql});
   * today's kWh by {@link dailyEnergySql}; active alarms from `alarm` ({@link activeAlarmsSql}).
   */
  async sites(scope: CompanyScope, siteId?: number): Promise<SiteStatus[]> {
    const result = await this.db.execute(sql`
      WITH s AS (
        SELECT s.id, s.code, s.name, s.timezone, c.name AS company_name
        FROM site s JOIN company c ON c.id = s.company_id
        WHERE ${inScopeSql(scope, 's.company_id')} ${siteId === undefined ? sql`` : sql`AND s.id = ${siteId}`}
      ),
      gw AS (
        SELECT d.site_id, bool_or(d.online) AS online, max(d.last_seen_at) AS last_seen_at,
               (array_agg(d.offline_reason ORDER BY d.status_changed_at DESC NULLS LAST))[1] AS offline_reason
        FROM device d JOIN s ON s.id = d.site_id WHERE d.gateway_id IS NULL GROUP BY d.site_id
      ),
      src AS ${figureSourcesSql(sql`SELECT id FROM s`)},
      dev AS (
        SELECT src.site_id,
               sum((l.points->>src.point)::float8) FILTER (WHERE src.figure = 'batteryKw') AS battery_kw,
               sum((l.points->>src.point)::float8) FILTER (WHERE src.figure = 'gridKw') AS grid_kw,
               sum((l.points->>src.point)::float8 * coalesce(d.capacity_kwh, 1)) FILTER (WHERE src.figure = 'socPct')
                 / nullif(sum(coalesce(d.capacity_kwh, 1)) FILTER (WHERE src.figure = 'socPct'), 0) AS soc
        FROM src JOIN device d ON d.id = src.device_id
        JOIN device_latest l ON l.device_id = src.device_id AND l.points ? src.point
        GROUP BY src.site_id
      ),
      energy AS (
        SELECT src.site_id, src.figure, sum(e.kwh) AS kwh
        FROM ${dailyEnergySql({
          devices: sql`SELECT DISTINCT src.device_id, s.timezone FROM src JOIN s ON s.id = src.site_id
                       WHERE src.figure IN ('chargeTotalKwh', 'dischargeTotalKwh')`,
          points: ['e_charge_total_kwh', 'e_discharge_total_kwh'],
          from: sql`date_trunc('day', now() AT TIME ZONE dv.timezone) AT TIME ZONE dv.timezone`,
        })} e
        JOIN src ON src.device_id = e.device_id AND src.point = e.point
             AND src.figure IN ('chargeTotalKwh', 'dischargeTotalKwh')
        GROUP BY src.site_id, src.figure
      ),
      active AS (
        SELECT x.site_id, count(*)::int AS n
        FROM ${activeAlarmsSql(sql`a.site_id IN (SELECT id FROM s)`)} x GROUP BY x.site_id
      )
      SELECT s.id, s.code, s.name, s.company_name,
             coalesce(gw.online, false) AS online, gw.offline_reason,
             (extract(epoch FROM gw.last_seen_at) * 1000)::bigint AS last_seen_at,
             ${siteCapacityKwhSql(sql`s.id`)} AS capacity_kwh, ${siteRatedPowerKwSql(sql`s.id`)} AS rated_power_kw,
             dev.battery_kw, dev.grid_kw, dev.soc,
             (SELECT kwh FROM energy e WHERE e.site_id = s.id AND e.figure = 'chargeTotalKwh') AS charge_kwh,
             (SELECT kwh FROM energy e WHERE e.site_id = s.id AND e.figure = 'dischargeTotalKwh') AS discharge_kwh,
             coalesce(active.n, 0) AS active_alarms
      FROM s LEFT JOIN gw ON gw.site_id = s.id LEFT JOIN dev ON dev.site_id = s.id
      LEFT JOIN active ON active.site_id = s.id
      ORDER BY s.id`);
    return rowsOf<Record<string, unknown>>(result).map((r) => ({
      siteId: numOrZero(r.id),
      code: String(r.code),
      name: String(r.name),
      companyName: String(r.company_name),
      online: Boolean(r.online),
      offlineReason: (r.offline_reason ?? null) as SiteStatus['offlineReason'],
      lastSeenAt: numOrNull(r.last_seen_at),
      capacityKwh: round(numOrZero(r.capacity_kwh)),
      ratedPowerKw: round(numOrZero(r.rated_power_kw)),
      socPct: r.soc === null || r.soc === undefined ? null : round(Number(r.soc)),
      batteryPowerKw:
        r.battery_kw === null || r.battery_kw === undefined ? null : round(Number(r.battery_kw)),
      gridPowerKw: r.grid_kw === null || r.grid_kw === undefined ? null : round(Number(r.grid_kw)),
      todayChargeKwh: round(Math.max(0, numOrZero(r.charge_kwh))),
      todayDischargeKwh: round(Math.max(0, numOrZero(r.discharge_kwh))),
      activeAlarms: numOrZero(r.active_alarms),
    }));
  }

  /**
   * Today's 15-minute averages summed over the fleet, "today" being the local day of `timezone`
   * (the fleet's time base, {@link timeBase}) from its midnight: battery, grid and PV
   * power of each site from the devices the site-figure rule names ({@link figureSourcesSql}).
   */
  async powerCurve(scope: CompanyScope, timezone: string): Promise<PowerCurve> {
    const result = await this.db.execute(sql`
      SELECT (extract(epoch FROM r.bucket_start) * 1000)::bigint AS ts,
             sum(r.sum / r.n) FILTER (WHERE src.figure = 'batteryKw') AS battery,
             sum(r.sum / r.n) FILTER (WHERE src.figure = 'gridKw') AS grid,
             sum(r.sum / r.n) FILTER (WHERE src.figure = 'pvKw') AS pv
      FROM ${figureSourcesSql(sql`SELECT id FROM site WHERE ${inScopeSql(scope, 'company_id')}`, ['batteryKw', 'gridKw', 'pvKw'])} src
      JOIN telemetry_rollup r ON r.device_id = src.device_id AND r.point = src.point
      WHERE r.bucket_s = 900
        AND r.bucket_start >= date_trunc('day', now() AT TIME ZONE ${timezone}) AT TIME ZONE ${timezone}
      GROUP BY r.bucket_start ORDER BY r.bucket_start`);
    const rows = rowsOf<Record<string, unknown>>(result);
    const curve: PowerCurve = { ts: [], batteryKw: [], gridKw: [], pvKw: [], loadKw: [] };
    for (const r of rows) {
      const battery = numOrNull(r.battery);
      const grid = numOrNull(r.grid);
      const pv = numOrNull(r.pv);
      curve.ts.push(numOrZero(r.ts));
      curve.batteryKw.push(battery === null ? null : round(battery));
      curve.gridKw.push(grid === null ? null : round(grid));
      curve.pvKw.push(pv === null ? null : round(pv));
      curve.loadKw.push(
        grid === null && battery === null ? null : round((grid ?? 0) + (pv ?? 0) + (battery ?? 0)),
      );
    }
    return curve;
  }

  /** The newest alarm events in scope. */
  async alarms(scope: CompanyScope, limit = 20): Promise<AlarmRow[]> {
    const result = await this.db.execute(sql`
      SELECT a.id, a.site_id, s.name AS site_name, d.sn, (extract(epoch FROM a.ts) * 1000)::bigint AS ts,
             a.kind, a.code, a.level, a.content
      FROM alarm_event a JOIN site s ON s.id = a.site_id JOIN device d ON d.id = a.device_id
      WHERE ${inScopeSql(scope, 'a.company_id')}
      ORDER BY a.ts DESC, a.id DESC LIMIT ${limit}`);
    return rowsOf<Record<string, unknown>>(result).map((r) => ({
      id: numOrZero(r.id),
      siteId: numOrZero(r.site_id),
      siteName: String(r.site_name),
      deviceSn: String(r.sn),
      ts: numOrZero(r.ts),
      kind: r.kind as AlarmRow['kind'],
      code: String(r.code),
      level: r.level as AlarmRow['level'],
      content: String(r.content),
    }));
  }
}

/** Two decimals: kW and kWh are shown with at most that. */
function round(v: number): number {
  return Math.round(v * 100) / 100;
}
