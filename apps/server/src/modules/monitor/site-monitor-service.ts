/**
 * Site monitoring (contract api/site-monitor.ts): the caller's sites with
 * position and status, and one site's devices and panels from `device_latest`.
 *
 * Site figures (online, SOC, battery kW, today's kWh, active alarms) are the dashboard's
 * ({@link FleetSnapshot.sites}), not computed again here; this adds position, address, time
 * zone and the map status. Every lookup is limited to the caller's company scope; a site outside
 * it answers 3036 as if it did not exist.
 */
import {
  buildSitePanels,
  ErrorCode,
  type SiteDetailDevice,
  type SiteMonitorDetail,
  type SiteMonitorList,
  type SiteMonitorSite,
  siteMonitorStatus,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import { type CompanyScope, inScopeSql } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';
import type { FleetSnapshot } from '../../devices/fleet-snapshot';
import { isStorageMeterSql } from '../../devices/site-figures';

interface SitePlace {
  id: number;
  latitude: number | null;
  longitude: number | null;
  address: string | null;
  timezone: string;
}

export class SiteMonitorService {
  constructor(
    private readonly db: Db,
    private readonly fleet: FleetSnapshot,
  ) {}

  /** Every site in scope (ordered by id) with its status figures, position and map status. */
  async sites(scope: CompanyScope): Promise<SiteMonitorList> {
    const [statuses, places] = await Promise.all([this.fleet.sites(scope), this.places(scope)]);
    const byId = new Map(places.map((p) => [p.id, p]));
    const sites: SiteMonitorSite[] = [];
    for (const s of statuses) {
      const place = byId.get(s.siteId);
      if (!place) continue; // created between the two reads: shown next time
      sites.push({
        ...s,
        status: siteMonitorStatus(s),
        latitude: place.latitude,
        longitude: place.longitude,
        address: place.address,
        timezone: place.timezone,
      });
    }
    return { sites, updatedAt: Date.now() };
  }

  /**
   * One site: its status row, its devices (by id) with their latest points and whether each is a
   * declared storage meter (no site figure, {@link isStorageMeterSql}), and the panels built from
   * them ({@link buildSitePanels}). 3036 when the site is not in scope or absent.
   */
  async site(scope: CompanyScope, siteId: number): Promise<SiteMonitorDetail> {
    const places = await this.places(scope, siteId);
    if (places.length === 0) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
    const [status] = await this.fleet.sites(scope, siteId);
    const place = places[0]!;
    if (!status) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
    const site: SiteMonitorSite = {
      ...status,
      status: siteMonitorStatus(status),
      latitude: place.latitude,
      longitude: place.longitude,
      address: place.address,
      timezone: place.timezone,
    };
    const result = await this.db.execute(sql`
      SELECT d.id, d.sn, d.type, d.model,
             coalesce(g.online, d.online) AS online,
             (extract(epoch FROM l.ts) * 1000)::bigint AS ts, l.points,
             ${isStorageMeterSql(sql`d.id`)} AS storage_meter
      FROM device d
      LEFT JOIN device g ON g.id = d.gateway_id
      LEFT JOIN device_latest l ON l.device_id = d.id
      WHERE d.site_id = ${siteId} AND ${inScopeSql(scope, 'd.company_id')}
      ORDER BY d.id`);
    const devices: SiteDetailDevice[] = rowsOf<Record<string, unknown>>(result).map((r) => ({
      id: Number(r.id),
      sn: String(r.sn),
      type: String(r.type),
      model: r.model === null || r.model === undefined ? null : String(r.model),
      online: Boolean(r.online),
      ts: r.ts === null || r.ts === undefined ? null : Number(r.ts),
      points: parsePoints(r.points),
      storageMeter: r.storage_meter === true,
    }));
    return { site, devices, panels: buildSitePanels(devices) };
  }

  private async places(scope: CompanyScope, siteId?: number): Promise<SitePlace[]> {
    const result = await this.db.execute(sql`
      SELECT id, latitude, longitude, address, timezone FROM site
      WHERE ${inScopeSql(scope, 'company_id')} ${siteId === undefined ? sql`` : sql`AND id = ${siteId}`}`);
    return rowsOf<Record<string, unknown>>(result).map((r) => ({
      id: Number(r.id),
      latitude: r.latitude === null || r.latitude === undefined ? null : Number(r.latitude),
      longitude: r.longitude === null || r.longitude === undefined ? null : Number(r.longitude),
      address: r.address === null || r.address === undefined ? null : String(r.address),
      timezone: String(r.timezone),
    }));
  }
}

/** `device_latest.points` (jsonb; a string on some drivers) → numeric points only. */
function parsePoints(raw: unknown): Record<string, number> {
  const value = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  const points: Record<string, number> = {};
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'number' && Number.isFinite(v)) points[k] = v;
    }
  }
  return points;
}
