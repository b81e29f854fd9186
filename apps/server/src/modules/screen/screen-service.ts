/**
 * Data of the big screens (contract api/screen.ts, docs/api.md "Big screens").
 *
 * - `publicCockpit()`: aggregates of the whole installation for `/newscreen` without a token.
 *   Built field by field from the figures below, so nothing per site (names, codes, SNs,
 *   companies, exact positions) can slip into it; single-flight, refreshed at most every
 *   {@link PUBLIC_CACHE_MS} after the previous build settled.
 * - `cockpit(scope)`: the same aggregates for the caller's companies plus its sites.
 * - `sites(scope)`, `site(scope, id)`: site picker and one site's screen data (3036 outside scope).
 *
 * Which devices provide a site's SOC, power, charge/discharge energy, capacity and rated power:
 * the contract's site-figure rule (devices/site-figures.ts, {@link figureSourcesSql}; the
 * gateway's own points where the site has no BMS, PCS, meter or PV device), as on the dashboard
 * and site monitoring. Energy per site and local day: the shared daily rule of
 * devices/daily-energy.ts ({@link dailyEnergySql}), as on the dashboard, history and export.
 * Active alarms: rows of `alarm` not cleared ({@link activeAlarmsSql}), as on the alarms page.
 * Revenue (today and this month so far, site-local): the one money rule (contract
 * money/valuation.ts) over the energy per ToU period of the sites' storage meters and the tariff
 * of each day (devices/tier-energy.ts `revenueSoFar`), as on revenue statistics; a site without a
 * tariff that day is not valued.
 */
import {
  type AlarmLevel,
  type CockpitAggregates,
  type CockpitData,
  type CockpitSite,
  type DeviceType,
  ErrorCode,
  type MapCell,
  type OfflineReason,
  PUBLIC_MAP_CELL_DEG,
  type ScreenDevice,
  type ScreenSiteData,
  type ScreenSiteOption,
  type SiteCurve,
  type SiteStatus,
  siteLoadKw,
  siteRatings,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql, scopeIncludes } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { numOrNull, numOrZero, rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';
import { activeAlarmsSql } from '../../devices/active-alarms';
import { dailyEnergySql, ENERGY_POINTS } from '../../devices/daily-energy';
import type { FleetSnapshot } from '../../devices/fleet-snapshot';
import { figureSourcesSql, isStorageMeterSql } from '../../devices/site-figures';
import { revenueSoFar } from '../../devices/tier-energy';

/** The public answer is computed at most this often (a wall display polls; so may anyone). */
export const PUBLIC_CACHE_MS = 5000;

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

interface SiteEnergy {
  todayCharge: number;
  todayDischarge: number;
  monthCharge: number;
  monthDischarge: number;
  todayRevenue: number;
  monthRevenue: number;
  byScheme: boolean;
}

interface SiteExtra {
  latitude: number | null;
  longitude: number | null;
}

/** The public answer of one requested zone: the last one and when its build settled, the build under way. */
interface PublicEntry {
  last: { at: number; value: CockpitAggregates } | null;
  build: Promise<CockpitAggregates> | null;
}

export class ScreenService {
  /**
   * Public answers per zone the caller named ('' for none): the zone matters only to the time
   * base when the sites do not share one; zones are IANA names Intl knows, so this stays small.
   */
  private readonly publicEntries = new Map<string, PublicEntry>();

  constructor(
    private readonly db: Db,
    private readonly fleet: FleetSnapshot,
    /** The clock revenue is computed at (tests pass a fixed one). */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The public cockpit: aggregates of every site, nothing per site. Single-flight: at most one
   * build runs at a time; the last answer is served while a refresh runs, and a refresh starts
   * only once the last build settled at least {@link PUBLIC_CACHE_MS} ago. The very first call(s)
   * wait for the first build; a failed build keeps the previous answer (or rejects when none).
   * `callerZone`: the time base when the sites do not share a zone (`FleetSnapshot.timeBase`);
   * each zone named has its own answer.
   */
  publicCockpit(callerZone?: string): Promise<CockpitAggregates> {
    const key = callerZone ?? '';
    let entry = this.publicEntries.get(key);
    if (!entry) {
      entry = { last: null, build: null };
      this.publicEntries.set(key, entry);
    }
    const current = entry;
    const last = current.last;
    if (last && Date.now() - last.at < PUBLIC_CACHE_MS) return Promise.resolve(last.value);
    if (!current.build) {
      const build = this.build({ all: true }, callerZone).then(({ aggregates }) => {
        current.last = { at: Date.now(), value: aggregates };
        return aggregates;
      });
      current.build = build;
      build.then(
        () => {
          if (current.build === build) current.build = null;
        },
        () => {
          if (current.build === build) current.build = null;
        },
      );
    }
    return last ? Promise.resolve(last.value) : current.build;
  }

  /** The signed-in cockpit: the scope's aggregates, its sites and the top sites (`callerZone` as above). */
  async cockpit(scope: CompanyScope, callerZone?: string): Promise<CockpitData> {
    const { aggregates, siteList } = await this.build(scope, callerZone);
    const topSiteIds = [...siteList]
      .filter((s) => s.monthDischargeKwh > 0)
      .sort((a, b) => b.monthDischargeKwh - a.monthDischargeKwh || a.siteId - b.siteId)
      .slice(0, 10)
      .map((s) => s.siteId);
    return { ...aggregates, siteList, topSiteIds };
  }

  private async build(
    scope: CompanyScope,
    callerZone?: string,
  ): Promise<{ aggregates: CockpitAggregates; siteList: CockpitSite[] }> {
    const timeBase = await this.fleet.timeBase(scope, callerZone);
    const [sites, energy, extra, alarms, powerCurve] = await Promise.all([
      this.fleet.sites(scope),
      this.energy(scope),
      this.extra(scope),
      this.alarmLevels(scope),
      this.fleet.powerCurve(scope, timeBase.timezone),
    ]);
    const overview = await this.fleet.overview(scope, sites);
    const none: SiteEnergy = {
      todayCharge: 0,
      todayDischarge: 0,
      monthCharge: 0,
      monthDischarge: 0,
      todayRevenue: 0,
      monthRevenue: 0,
      byScheme: false,
    };
    const sum = (f: (e: SiteEnergy) => number) =>
      round(sites.reduce((n, s) => n + f(energy.get(s.siteId) ?? none), 0));
    const cells = new Map<string, MapCell>();
    for (const s of sites) {
      const at = extra.get(s.siteId);
      if (!at || at.latitude === null || at.longitude === null) continue;
      const latitude = Math.round(at.latitude / PUBLIC_MAP_CELL_DEG) * PUBLIC_MAP_CELL_DEG;
      const longitude = Math.round(at.longitude / PUBLIC_MAP_CELL_DEG) * PUBLIC_MAP_CELL_DEG;
      const key = `${latitude},${longitude}`;
      const cell = cells.get(key) ?? { latitude, longitude, sites: 0 };
      cell.sites += 1;
      cells.set(key, cell);
    }
    const byScheme = sites.filter((s) => energy.get(s.siteId)?.byScheme).length;
    const aggregates: CockpitAggregates = {
      sites: overview.sites,
      sitesOnline: sites.filter((s) => s.online).length,
      capacityKwh: overview.capacityKwh,
      ratedPowerKw: overview.ratedPowerKw,
      batteryPowerKw: overview.batteryPowerKw,
      chargingPowerKw: overview.chargingPowerKw,
      dischargingPowerKw: overview.dischargingPowerKw,
      fleetSocPct: overview.fleetSocPct,
      todayChargeKwh: sum((e) => e.todayCharge),
      todayDischargeKwh: sum((e) => e.todayDischarge),
      monthChargeKwh: sum((e) => e.monthCharge),
      monthDischargeKwh: sum((e) => e.monthDischarge),
      revenue: {
        todayCny: sum((e) => e.todayRevenue),
        monthCny: sum((e) => e.monthRevenue),
        sitesByScheme: byScheme,
        sitesByDefault: sites.length - byScheme,
      },
      alarms,
      mapCells: [...cells.values()].sort((a, b) => b.sites - a.sites || a.latitude - b.latitude),
      timeBase,
      powerCurve,
      updatedAt: Date.now(),
    };
    const siteList = sites.map((s: SiteStatus): CockpitSite => {
      const e = energy.get(s.siteId) ?? none;
      const at = extra.get(s.siteId);
      return {
        siteId: s.siteId,
        code: s.code,
        name: s.name,
        latitude: at?.latitude ?? null,
        longitude: at?.longitude ?? null,
        online: s.online,
        capacityKwh: s.capacityKwh,
        batteryPowerKw: s.batteryPowerKw,
        socPct: s.socPct,
        todayChargeKwh: round(e.todayCharge),
        todayDischargeKwh: round(e.todayDischarge),
        monthDischargeKwh: round(e.monthDischarge),
        monthRevenueCny: round(e.monthRevenue),
        activeAlarms: s.activeAlarms,
      };
    });
    return { aggregates, siteList };
  }

  /** Coordinates of the sites in scope. */
  private async extra(scope: CompanyScope): Promise<Map<number, SiteExtra>> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT id, latitude, longitude FROM site WHERE ${inScopeSql(scope, 'company_id')}`),
    );
    return new Map(
      rows.map((r) => [
        numOrZero(r.id),
        { latitude: numOrNull(r.latitude), longitude: numOrNull(r.longitude) },
      ]),
    );
  }

  /** Energy and revenue of each site in scope, site-local today and this month. */
  private async energy(scope: CompanyScope): Promise<Map<number, SiteEnergy>> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        WITH s AS (
          SELECT id, timezone, to_char(now() AT TIME ZONE timezone, 'YYYY-MM-DD') AS today
          FROM site WHERE ${inScopeSql(scope, 'company_id')}
        ),
        src AS ${figureSourcesSql(sql`SELECT id FROM s`, ['chargeTotalKwh', 'dischargeTotalKwh'])}
        SELECT src.site_id, e.day, e.day = s.today AS is_today,
               sum(e.kwh) FILTER (WHERE src.figure = 'chargeTotalKwh') AS charge,
               sum(e.kwh) FILTER (WHERE src.figure = 'dischargeTotalKwh') AS discharge
        FROM ${dailyEnergySql({
          devices: sql`SELECT DISTINCT src.device_id, s.timezone FROM src JOIN s ON s.id = src.site_id`,
          points: ['e_charge_total_kwh', 'e_discharge_total_kwh'],
          from: sql`date_trunc('month', now() AT TIME ZONE dv.timezone) AT TIME ZONE dv.timezone`,
        })} e JOIN src ON src.device_id = e.device_id AND src.point = e.point JOIN s ON s.id = src.site_id
        GROUP BY src.site_id, e.day, s.today`),
    );
    const zones = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`SELECT id, timezone FROM site WHERE ${inScopeSql(scope, 'company_id')}`),
    );
    const revenue = await revenueSoFar(
      this.db,
      zones.map((z) => ({ siteId: numOrZero(z.id), timezone: String(z.timezone) })),
      this.now(),
    );
    const out = new Map<number, SiteEnergy>();
    for (const [siteId, r] of revenue) {
      out.set(siteId, {
        ...emptyEnergy(),
        todayRevenue: r.todayCny,
        monthRevenue: r.monthCny,
        byScheme: r.priced,
      });
    }
    for (const r of rows) {
      const siteId = numOrZero(r.site_id);
      const e = out.get(siteId) ?? emptyEnergy();
      const charge = numOrZero(r.charge);
      const discharge = numOrZero(r.discharge);
      e.monthCharge += charge;
      e.monthDischarge += discharge;
      if (r.is_today === true) {
        e.todayCharge += charge;
        e.todayDischarge += discharge;
      }
      out.set(siteId, e);
    }
    return out;
  }

  /** Active alarms (rows of `alarm` not cleared, {@link activeAlarmsSql}) per level. */
  private async alarmLevels(scope: CompanyScope): Promise<Record<AlarmLevel, number>> {
    const rows = rowsOf<{ level: string; n: number }>(
      await this.db.execute(sql`
        SELECT x.level, count(*)::int AS n
        FROM ${activeAlarmsSql(inScopeSql(scope, 'a.company_id'))} x GROUP BY x.level`),
    );
    const out: Record<AlarmLevel, number> = { warning: 0, fault: 0 };
    for (const r of rows) if (r.level === 'warning' || r.level === 'fault') out[r.level] = numOrZero(r.n);
    return out;
  }

  /** The site picker: sites in scope, by code. */
  async sites(scope: CompanyScope): Promise<ScreenSiteOption[]> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT s.id, s.code, s.name,
               coalesce((SELECT bool_or(d.online) FROM device d WHERE d.site_id = s.id AND d.gateway_id IS NULL), false) AS online
        FROM site s WHERE ${inScopeSql(scope, 's.company_id')} ORDER BY s.code`),
    );
    return rows.map((r) => ({
      siteId: numOrZero(r.id),
      code: String(r.code),
      name: String(r.name),
      online: Boolean(r.online),
    }));
  }

  /** Everything the site screens show of one site; 3036 when it is outside the scope. */
  async site(scope: CompanyScope, siteId: number): Promise<ScreenSiteData> {
    const [row] = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT s.id, s.company_id, s.code, s.name, s.address, s.timezone, s.latitude, s.longitude,
               (extract(epoch FROM s.created_at) * 1000)::bigint AS created_at,
               c.name AS company_name, t.name AS scheme_name
        FROM site s JOIN company c ON c.id = s.company_id LEFT JOIN tou_scheme t ON t.id = s.tou_scheme_id
        WHERE s.id = ${siteId}`),
    );
    if (!row || !scopeIncludes(scope, numOrZero(row.company_id)))
      throw new ApiError(ErrorCode.SITE_NOT_FOUND);
    const timezone = String(row.timezone);
    const devices = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT d.id, d.sn, d.type, d.model, d.firmware_version, d.rated_power_kw, d.capacity_kwh,
               d.gateway_id IS NULL AS is_gateway,
               coalesce(g.online, d.online) AS online, coalesce(g.offline_reason, d.offline_reason) AS offline_reason,
               (extract(epoch FROM coalesce(g.last_seen_at, d.last_seen_at)) * 1000)::bigint AS last_seen_at,
               (extract(epoch FROM d.created_at) * 1000)::bigint AS created_at,
               (extract(epoch FROM l.ts) * 1000)::bigint AS ts, l.points, l.cells,
               (extract(epoch FROM l.cells_ts) * 1000)::bigint AS cells_ts,
               ${isStorageMeterSql(sql`d.id`)} AS storage_meter,
               (SELECT (extract(epoch FROM min(r.bucket_start)) * 1000)::bigint FROM telemetry_rollup r
                 WHERE r.device_id = d.id AND r.bucket_s = 86400) AS first_data_at
        FROM device d LEFT JOIN device g ON g.id = d.gateway_id
        LEFT JOIN device_latest l ON l.device_id = d.id
        WHERE d.site_id = ${siteId} ORDER BY d.gateway_id IS NOT NULL, d.type, d.sn`),
    ).map(
      (r): ScreenDevice => ({
        id: numOrZero(r.id),
        sn: String(r.sn),
        type: r.type as DeviceType,
        model: (r.model ?? null) as string | null,
        firmwareVersion: (r.firmware_version ?? null) as string | null,
        ratedPowerKw: numOrNull(r.rated_power_kw),
        capacityKwh: numOrNull(r.capacity_kwh),
        isGateway: Boolean(r.is_gateway),
        online: Boolean(r.online),
        offlineReason: (r.offline_reason ?? null) as OfflineReason | null,
        lastSeenAt: numOrNull(r.last_seen_at),
        registeredAt: numOrZero(r.created_at),
        firstDataAt: numOrNull(r.first_data_at),
        ts: numOrNull(r.ts),
        points: (r.points ?? {}) as Record<string, number>,
        storageMeter: r.storage_meter === true,
        cells: (r.cells ?? null) as ScreenDevice['cells'],
        cellsTs: numOrNull(r.cells_ts),
      }),
    );
    const [energy, curve, alarms] = await Promise.all([
      this.siteToday(siteId, timezone),
      this.siteCurve(siteId, timezone),
      this.siteAlarms(siteId),
    ]);
    const revenue = (await revenueSoFar(this.db, [{ siteId, timezone }], this.now())).get(siteId);
    const { capacityKwh, ratedPowerKw } = siteRatings(devices);
    return {
      site: {
        id: numOrZero(row.id),
        code: String(row.code),
        name: String(row.name),
        companyName: String(row.company_name),
        address: (row.address ?? null) as string | null,
        timezone,
        latitude: numOrNull(row.latitude),
        longitude: numOrNull(row.longitude),
        registeredAt: numOrZero(row.created_at),
        touSchemeName: (row.scheme_name ?? null) as string | null,
        capacityKwh,
        ratedPowerKw,
        online: devices.some((d) => d.isGateway && d.online),
      },
      devices,
      today: {
        ...energy,
        revenueCny: revenue?.todayCny ?? 0,
      },
      curve,
      alarms,
      updatedAt: Date.now(),
    };
  }

  /**
   * Today's energies of a site per register (site-local day): charged/discharged from the
   * registers the site-figure rule names, imported/exported from the grid meters (a project's
   * declared storage meter meters the battery, not the grid: {@link isStorageMeterSql}),
   * produced from PV.
   */
  private async siteToday(siteId: number, timezone: string) {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        WITH src AS ${figureSourcesSql(sql`SELECT ${siteId}::int`, ['chargeTotalKwh', 'dischargeTotalKwh'])}
        SELECT e.point, sum(e.kwh) AS kwh
        FROM ${dailyEnergySql({
          devices: sql`SELECT id AS device_id, ${timezone}::text AS timezone FROM device WHERE site_id = ${siteId}`,
          points: ENERGY_POINTS,
          from: sql`date_trunc('day', now() AT TIME ZONE dv.timezone) AT TIME ZONE dv.timezone`,
        })} e JOIN device d ON d.id = e.device_id
        WHERE EXISTS (SELECT 1 FROM src WHERE src.device_id = e.device_id AND src.point = e.point) OR
              (d.type = 'meter' AND e.point IN ('e_import_total_kwh', 'e_export_total_kwh')
               AND NOT ${isStorageMeterSql(sql`d.id`)}) OR
              (d.type = 'pv' AND e.point = 'e_total_kwh')
        GROUP BY e.point`),
    );
    const of = (point: string) => round(numOrZero(rows.find((r) => r.point === point)?.kwh));
    return {
      chargeKwh: of('e_charge_total_kwh'),
      dischargeKwh: of('e_discharge_total_kwh'),
      importKwh: of('e_import_total_kwh'),
      exportKwh: of('e_export_total_kwh'),
      pvKwh: of('e_total_kwh'),
    };
  }

  /**
   * Today's 15-minute averages of the site's main points (site-local day): battery, grid, PV,
   * load and SOC from the devices the site-figure rule names; IGBT and cabinet climate by type.
   */
  private async siteCurve(siteId: number, timezone: string): Promise<SiteCurve> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        WITH src AS ${figureSourcesSql(sql`SELECT ${siteId}::int`, ['batteryKw', 'gridKw', 'pvKw', 'reportedLoadKw', 'socPct'])}
        SELECT (extract(epoch FROM r.bucket_start) * 1000)::bigint AS ts,
               sum(r.sum / r.n) FILTER (WHERE src.figure = 'batteryKw') AS battery,
               sum(r.sum / r.n) FILTER (WHERE src.figure = 'gridKw') AS grid,
               sum(r.sum / r.n) FILTER (WHERE src.figure = 'pvKw') AS pv,
               sum(r.sum / r.n) FILTER (WHERE src.figure = 'reportedLoadKw') AS load,
               avg(r.sum / r.n) FILTER (WHERE src.figure = 'socPct') AS soc,
               max(r.sum / r.n) FILTER (WHERE d.type = 'pcs' AND r.point = 't_igbt_c') AS igbt,
               avg(r.sum / r.n) FILTER (WHERE d.type = 'env_sensor' AND r.point = 't_c') AS env_t,
               avg(r.sum / r.n) FILTER (WHERE d.type = 'env_sensor' AND r.point = 'rh_pct') AS env_rh
        FROM telemetry_rollup r JOIN device d ON d.id = r.device_id
        LEFT JOIN src ON src.device_id = r.device_id AND src.point = r.point
        WHERE d.site_id = ${siteId} AND r.bucket_s = 900
          AND (src.figure IS NOT NULL OR r.point IN ('t_igbt_c', 't_c', 'rh_pct'))
          AND r.bucket_start >= date_trunc('day', now() AT TIME ZONE ${timezone}) AT TIME ZONE ${timezone}
        GROUP BY r.bucket_start ORDER BY r.bucket_start`),
    );
    const curve: SiteCurve = {
      ts: [],
      batteryKw: [],
      gridKw: [],
      pvKw: [],
      loadKw: [],
      socPct: [],
      igbtC: [],
      envTempC: [],
      envRhPct: [],
    };
    const r2 = (v: unknown) => {
      const n = numOrNull(v);
      return n === null ? null : round(n);
    };
    for (const r of rows) {
      const battery = r2(r.battery);
      const grid = r2(r.grid);
      const pv = r2(r.pv);
      curve.ts.push(numOrZero(r.ts));
      curve.batteryKw.push(battery);
      curve.gridKw.push(grid);
      curve.pvKw.push(pv);
      curve.loadKw.push(siteLoadKw(grid, pv, battery, r2(r.load)));
      curve.socPct.push(r2(r.soc));
      curve.igbtC.push(r2(r.igbt));
      curve.envTempC.push(r2(r.env_t));
      curve.envRhPct.push(r2(r.env_rh));
    }
    return curve;
  }

  /** Active alarms of one site ({@link activeAlarmsSql}; `id` is the alarm's), newest first (at most 50). */
  private async siteAlarms(siteId: number) {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT x.id, x.code, x.level, x.content, (extract(epoch FROM x.produced_at) * 1000)::bigint AS ts,
               d.sn, d.type
        FROM ${activeAlarmsSql(sql`a.site_id = ${siteId}`)} x JOIN device d ON d.id = x.device_id
        ORDER BY x.produced_at DESC, x.id DESC LIMIT 50`),
    );
    return rows.map((r) => ({
      id: numOrZero(r.id),
      deviceSn: String(r.sn),
      deviceType: String(r.type),
      ts: numOrZero(r.ts),
      code: String(r.code),
      level: r.level as AlarmLevel,
      content: String(r.content),
    }));
  }
}

function emptyEnergy(): SiteEnergy {
  return {
    todayCharge: 0,
    todayDischarge: 0,
    monthCharge: 0,
    monthDischarge: 0,
    todayRevenue: 0,
    monthRevenue: 0,
    byScheme: false,
  };
}
