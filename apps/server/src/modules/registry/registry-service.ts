/**
 * Sites and devices (spec §2 site configuration, §3 devices; codes 3030–3039, 6000).
 * Every read and write is limited to the caller's company scope (tenancy/company-scope.ts);
 * a row outside it answers as if it did not exist. A device changes site, and a site company,
 * only through their moves (`moveDevice`, `moveSite`: one transaction each, with everything
 * that carries the site or company; docs/api.md "Moving devices and sites"); a site moved to a
 * company outside its ToU scheme's company tree stops running that scheme.
 */
import {
  type DeviceInput,
  type DeviceRow,
  type DeviceType,
  ErrorCode,
  type OfflineReason,
  type SiteInput,
  type SiteMoveOutcome,
  type SiteRow,
} from '@ess/contract';
import { and, count, desc, eq, ilike, inArray, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import {
  type CompanyScope,
  companyTree,
  inScope,
  requireSiteInScope,
  scopeIncludes,
} from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import {
  alarm,
  alarmEvent,
  company,
  device,
  deviceDeadLetter,
  deviceDelivery,
  site,
  touScheme,
} from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import { deviceSecretHash, newDeviceSecret } from '../../devices/device-secret';
import { siteCapacityKwhSql, siteRatedPowerKwSql } from '../../devices/site-figures';
import { TOU_KIND } from '../../devices/tou-push';

export interface Page {
  pageNum: number;
  pageSize: number;
}

/** The stored columns a device's form decides (shared by create and update). */
function deviceColumns(
  input: DeviceInput,
  parent: { id: number; companyId: number },
  gatewayId: number | null,
) {
  return {
    companyId: parent.companyId,
    siteId: parent.id,
    gatewayId,
    sn: input.sn,
    type: input.type,
    model: input.model,
    ratedPowerKw: input.ratedPowerKw ?? null,
    capacityKwh: input.capacityKwh ?? null,
    connAddress: input.connAddress,
    connPort: input.connPort ?? null,
  };
}

/**
 * What other modules hear from the registry (wired in app.ts, so that the registry imports none
 * of them). Called after the change is stored; a hook must not throw.
 */
export interface RegistryHooks {
  /**
   * A site that runs a ToU scheme got another time zone: the zone is part of `set_tou_plan`, so
   * the scheme must reach the EMS again (modules/tou/tou-push.ts).
   */
  touSiteTimezoneChanged?(siteId: number): void;
  /**
   * A gateway left or joined these sites (`moveDevice`): the site's ToU scheme must reach the
   * gateway that now receives it (modules/tou/tou-push.ts), even where it was applied before.
   */
  siteGatewaysChanged?(siteIds: number[]): void;
}

/** What `moveDevice` did: where the device was and is, and every device that moved with it. */
export interface DeviceMove {
  before: { siteId: number; siteName: string; companyId: number; gatewayId: number | null };
  after: { siteId: number; siteName: string; companyId: number; gatewayId: number | null };
  /** The device first, then (a gateway) the devices behind it, by id. */
  devices: { id: number; sn: string }[];
}

export class RegistryService {
  constructor(
    private readonly db: Db,
    private readonly hooks: RegistryHooks = {},
  ) {}

  // ---- sites ---------------------------------------------------------------------------------

  /** Sites in scope with device counts, capacity (kWh) and rated PCS power (kW). */
  async listSites(scope: CompanyScope, q: Page & { keyword?: string; companyId?: number }) {
    const where = and(
      inScope(scope, site.companyId),
      q.companyId ? eq(site.companyId, q.companyId) : undefined,
      q.keyword
        ? or(ilike(site.name, likePattern(q.keyword)), ilike(site.code, likePattern(q.keyword)))
        : undefined,
    );
    const [{ total } = { total: 0 }] = await this.db.select({ total: count() }).from(site).where(where);
    const rows = await this.db
      .select({
        site,
        companyName: company.name,
        deviceCount: sql<number>`(SELECT count(*)::int FROM device d WHERE d.site_id = ${site.id})`,
        gateways: sql<number>`(SELECT count(*)::int FROM device d WHERE d.site_id = ${site.id} AND d.gateway_id IS NULL)`,
        onlineGateways: sql<number>`(SELECT count(*)::int FROM device d WHERE d.site_id = ${site.id} AND d.gateway_id IS NULL AND d.online)`,
        capacityKwh: siteCapacityKwhSql(site.id),
        ratedPowerKw: siteRatedPowerKwSql(site.id),
      })
      .from(site)
      .innerJoin(company, eq(company.id, site.companyId))
      .where(where)
      .orderBy(site.id)
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    const list: SiteRow[] = rows.map((r) => ({
      id: r.site.id,
      companyId: r.site.companyId,
      companyName: r.companyName,
      code: r.site.code,
      name: r.site.name,
      address: r.site.address,
      timezone: r.site.timezone,
      latitude: r.site.latitude,
      longitude: r.site.longitude,
      isDemo: r.site.isDemo,
      deviceCount: Number(r.deviceCount),
      gateways: Number(r.gateways),
      onlineGateways: Number(r.onlineGateways),
      capacityKwh: Number(r.capacityKwh),
      ratedPowerKw: Number(r.ratedPowerKw),
    }));
    return { list, total: Number(total) };
  }

  /** The site if it is in scope; 3036 otherwise. */
  requireSite(scope: CompanyScope, id: number) {
    return requireSiteInScope(this.db, scope, id);
  }

  /** Creates a site; 6000 company outside scope or missing, 3039 code taken. */
  async createSite(scope: CompanyScope, callerCompanyId: number, input: SiteInput): Promise<number> {
    const companyId = await this.requireCompany(scope, input.companyId ?? callerCompanyId);
    try {
      const [row] = await this.db
        .insert(site)
        .values({
          companyId,
          code: input.code,
          name: input.name,
          address: input.address,
          timezone: input.timezone,
          latitude: input.latitude ?? null,
          longitude: input.longitude ?? null,
        })
        .returning({ id: site.id });
      return row!.id;
    } catch (err) {
      if (isUniqueViolation(err, 'site_code_uq')) throw new ApiError(ErrorCode.SITE_CODE_EXISTS);
      throw err;
    }
  }

  /**
   * Updates a site's form fields; 3036 not in scope, 3039 code taken, 3042 `companyId` another
   * company than the site's (moving is {@link moveSite}). A new time zone of a site that runs a
   * scheme is pushed to its EMS (`touSiteTimezoneChanged`).
   */
  async updateSite(scope: CompanyScope, id: number, input: SiteInput): Promise<void> {
    const existing = await this.requireSite(scope, id);
    if (input.companyId !== undefined && input.companyId !== existing.companyId) {
      throw new ApiError(ErrorCode.MOVE_BY_ACTION, {}, 'companyId');
    }
    try {
      await this.db
        .update(site)
        .set({
          code: input.code,
          name: input.name,
          address: input.address,
          timezone: input.timezone,
          latitude: input.latitude ?? null,
          longitude: input.longitude ?? null,
          updatedAt: new Date(),
        })
        .where(eq(site.id, id));
    } catch (err) {
      if (isUniqueViolation(err, 'site_code_uq')) throw new ApiError(ErrorCode.SITE_CODE_EXISTS);
      throw err;
    }
    if (existing.touSchemeId !== null && input.timezone !== existing.timezone) {
      this.hooks.touSiteTimezoneChanged?.(id);
    }
  }

  /**
   * What moving site `id` to `companyId` would do (site/moveCompanyPreview); changes nothing.
   * Errors: 3036 site not in scope, 6000 company missing or outside scope, 3041 already there.
   */
  async previewSiteMove(scope: CompanyScope, id: number, companyId: number): Promise<SiteMoveOutcome> {
    const existing = await this.requireSite(scope, id);
    await this.requireCompany(scope, companyId);
    if (existing.companyId === companyId) throw new ApiError(ErrorCode.ALREADY_THERE);
    return this.siteMoveOutcome(this.db, existing, companyId);
  }

  /**
   * Moves site `id` to `companyId` in one transaction (site/moveCompany): the site, its devices,
   * its alarms and alarm events, and its dead letters take the new company (telemetry, rollups
   * and latest values are keyed by device and follow the devices). A ToU scheme the new company
   * may not run (not of that company or one above it) is taken off the site and its delivery row
   * deleted; the EMS keeps the plan it last received. Answers what it did (as the preview).
   * Errors: 3036 site not in scope, 6000 company missing or outside scope, 3041 already there.
   */
  async moveSite(scope: CompanyScope, id: number, companyId: number): Promise<SiteMoveOutcome> {
    await this.requireSite(scope, id);
    await this.requireCompany(scope, companyId);
    return this.db.transaction(async (tx) => {
      // Locked, and read again: a move or an assignment meanwhile is seen whole.
      const [row] = await tx
        .select()
        .from(site)
        .where(and(eq(site.id, id), inScope(scope, site.companyId)))
        .for('update');
      if (!row) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
      if (row.companyId === companyId) throw new ApiError(ErrorCode.ALREADY_THERE);
      const outcome = await this.siteMoveOutcome(tx, row, companyId);
      const dropScheme = outcome.touScheme !== null && !outcome.touScheme.kept;
      await tx
        .update(site)
        .set({ companyId, ...(dropScheme ? { touSchemeId: null } : {}), updatedAt: new Date() })
        .where(eq(site.id, id));
      await tx.update(device).set({ companyId, updatedAt: new Date() }).where(eq(device.siteId, id));
      await tx.update(alarm).set({ companyId }).where(eq(alarm.siteId, id));
      await tx.update(alarmEvent).set({ companyId }).where(eq(alarmEvent.siteId, id));
      await tx.update(deviceDeadLetter).set({ companyId }).where(eq(deviceDeadLetter.siteId, id));
      if (dropScheme) {
        await tx
          .delete(deviceDelivery)
          .where(and(eq(deviceDelivery.kind, TOU_KIND), eq(deviceDelivery.siteId, id)));
      }
      return outcome;
    });
  }

  /** The figures of {@link SiteMoveOutcome} for `row` moving to `companyId`, read with `db`. */
  private async siteMoveOutcome(
    db: Db,
    row: { id: number; companyId: number; touSchemeId: number | null },
    companyId: number,
  ): Promise<SiteMoveOutcome> {
    const companies = await db
      .select({ id: company.id, name: company.name })
      .from(company)
      .where(inArray(company.id, [row.companyId, companyId]));
    const named = (cid: number) => ({ id: cid, name: companies.find((c) => c.id === cid)?.name ?? '' });
    const [devices] = await db.select({ n: count() }).from(device).where(eq(device.siteId, row.id));
    const [alarms] = await db
      .select({ n: count(), active: sql<number>`count(*) FILTER (WHERE ${alarm.clearedAt} IS NULL)` })
      .from(alarm)
      .where(eq(alarm.siteId, row.id));
    let touSchemeOutcome: SiteMoveOutcome['touScheme'] = null;
    if (row.touSchemeId !== null) {
      const [scheme] = await db
        .select({ id: touScheme.id, name: touScheme.name, companyId: touScheme.companyId })
        .from(touScheme)
        .where(eq(touScheme.id, row.touSchemeId));
      if (scheme) {
        // A site runs only a scheme of its company or of one above it (modules/tou).
        const kept = (await companyTree(db, scheme.companyId)).includes(companyId);
        touSchemeOutcome = { id: scheme.id, name: scheme.name, kept };
      }
    }
    return {
      from: named(row.companyId),
      to: named(companyId),
      devices: Number(devices?.n ?? 0),
      alarms: Number(alarms?.n ?? 0),
      activeAlarms: Number(alarms?.active ?? 0),
      touScheme: touSchemeOutcome,
    };
  }

  /** Deletes an empty site; 3037 when it still has devices. */
  async deleteSite(scope: CompanyScope, id: number): Promise<void> {
    await this.requireSite(scope, id);
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(device).where(eq(device.siteId, id));
    if (Number(n) > 0) throw new ApiError(ErrorCode.SITE_HAS_DEVICES);
    await this.db.delete(site).where(eq(site.id, id));
  }

  /** The company if it exists and is in scope; 6000 otherwise. */
  private async requireCompany(scope: CompanyScope, companyId: number): Promise<number> {
    const [row] = await this.db.select({ id: company.id }).from(company).where(eq(company.id, companyId));
    if (!row || !scopeIncludes(scope, companyId)) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    return companyId;
  }

  // ---- devices -------------------------------------------------------------------------------

  async listDevices(
    scope: CompanyScope,
    q: Page & { siteId?: number; type?: DeviceType; keyword?: string; online?: boolean },
  ): Promise<{ list: DeviceRow[]; total: number }> {
    const gateway = alias(device, 'gateway');
    const onlineExpr = sql<boolean>`coalesce(${gateway.online}, ${device.online})`;
    const where = and(
      inScope(scope, device.companyId),
      q.siteId ? eq(device.siteId, q.siteId) : undefined,
      q.type ? eq(device.type, q.type) : undefined,
      q.keyword
        ? or(ilike(device.sn, likePattern(q.keyword)), ilike(device.model, likePattern(q.keyword)))
        : undefined,
      q.online === undefined ? undefined : sql`${onlineExpr} = ${q.online}`,
    );
    const base = this.db
      .select({
        device,
        siteName: site.name,
        gatewaySn: gateway.sn,
        online: onlineExpr,
        lastSeenAt: gateway.lastSeenAt,
      })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId))
      .leftJoin(gateway, eq(gateway.id, device.gatewayId))
      .where(where);
    const [{ total } = { total: 0 }] = await this.db
      .select({ total: count() })
      .from(device)
      .leftJoin(gateway, eq(gateway.id, device.gatewayId))
      .where(where);
    const rows = await base
      .orderBy(device.siteId, sql`${device.gatewayId} NULLS FIRST`, device.id)
      .limit(q.pageSize)
      .offset((q.pageNum - 1) * q.pageSize);
    return {
      total: Number(total),
      list: rows.map((r) => ({
        id: r.device.id,
        companyId: r.device.companyId,
        siteId: r.device.siteId,
        siteName: r.siteName,
        gatewayId: r.device.gatewayId,
        gatewaySn: r.gatewaySn,
        sn: r.device.sn,
        type: r.device.type as DeviceType,
        model: r.device.model,
        ratedPowerKw: r.device.ratedPowerKw,
        capacityKwh: r.device.capacityKwh,
        mqttClientId: r.device.mqttClientId,
        connAddress: r.device.connAddress,
        connPort: r.device.connPort,
        firmwareVersion: r.device.firmwareVersion,
        hasSecret: r.device.secretHash !== null,
        online: Boolean(r.online),
        lastSeenAt: (r.device.gatewayId ? r.lastSeenAt : r.device.lastSeenAt)?.getTime() ?? null,
        offlineReason: (r.device.gatewayId ? null : r.device.offlineReason) as OfflineReason | null,
      })),
    };
  }

  async requireDevice(scope: CompanyScope, id: number) {
    const [row] = await this.db
      .select()
      .from(device)
      .where(and(eq(device.id, id), inScope(scope, device.companyId)));
    if (!row) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    return row;
  }

  /**
   * Registers a device. A gateway (no `gatewayId`) gets a secret, answered once.
   * Errors: 3036 site, 3030 gateway not found in that site, 3032 SN exists.
   */
  async createDevice(
    scope: CompanyScope,
    input: DeviceInput,
  ): Promise<{
    id: number;
    secret: { id: number; sn: string; mqttClientId: string; username: string; secret: string } | null;
  }> {
    const parent = await this.requireSite(scope, input.siteId);
    const secret = input.gatewayId == null ? newDeviceSecret() : null;
    const mqttClientId = input.gatewayId == null ? (input.mqttClientId ?? input.sn) : input.mqttClientId;
    try {
      const id = await this.db.transaction(async (tx) => {
        const gatewayId = await this.checkGateway(tx, parent.id, input.gatewayId ?? null);
        const [row] = await tx
          .insert(device)
          .values({
            ...deviceColumns(input, parent, gatewayId),
            mqttClientId,
            secretHash: secret ? deviceSecretHash(secret) : null,
            secretIssuedAt: secret ? new Date() : null,
          })
          .returning({ id: device.id });
        return row!.id;
      });
      return {
        id,
        secret: secret
          ? { id, sn: input.sn, mqttClientId: mqttClientId ?? input.sn, username: input.sn, secret }
          : null,
      };
    } catch (err) {
      if (isUniqueViolation(err, 'device_sn_uq')) throw new ApiError(ErrorCode.DEVICE_SN_EXISTS);
      throw err;
    }
  }

  /**
   * Updates a device on its site; a gateway with devices behind it cannot become a sub-device
   * (3038). A device that becomes a gateway has no secret until one is issued. `siteId`, when
   * sent, must be the device's site: another answers 3042 (moving is {@link moveDevice}).
   */
  async updateDevice(
    scope: CompanyScope,
    id: number,
    input: Omit<DeviceInput, 'siteId'> & { siteId?: number },
  ): Promise<void> {
    const existing = await this.requireDevice(scope, id);
    if (input.siteId !== undefined && input.siteId !== existing.siteId) {
      throw new ApiError(ErrorCode.MOVE_BY_ACTION, {}, 'siteId');
    }
    const parent = await this.requireSite(scope, existing.siteId);
    try {
      await this.db.transaction(async (tx) => {
        const gatewayId = await this.checkGateway(tx, parent.id, input.gatewayId ?? null, id);
        if (existing.gatewayId === null && gatewayId !== null) await this.assertNoDevicesBehind(tx, id);
        await tx
          .update(device)
          .set({
            ...deviceColumns({ ...input, siteId: parent.id }, parent, gatewayId),
            mqttClientId: input.mqttClientId ?? (gatewayId === null ? input.sn : null),
            ...(gatewayId !== null ? { secretHash: null, secretIssuedAt: null, online: false } : {}),
            updatedAt: new Date(),
          })
          .where(eq(device.id, id));
      });
    } catch (err) {
      if (isUniqueViolation(err, 'device_sn_uq')) throw new ApiError(ErrorCode.DEVICE_SN_EXISTS);
      throw err;
    }
  }

  /**
   * Moves a device to another site in one transaction (device/moveSite). A gateway takes every
   * device behind it along; a device behind a gateway reports through `gatewayId`, a gateway of
   * the target site, afterwards. The moved devices take the target site's company, and their
   * alarms, alarm events, dead letters (a gateway's) and device-target deliveries the new site
   * and company; telemetry, rollups, latest values and the connection log are keyed by device
   * and go with it. A moved gateway asks for both sites' ToU scheme to be sent again
   * (`siteGatewaysChanged`). Errors: 3030 device, 3036 site not in scope; 3041 already there;
   * 3040 a device behind a gateway without a gateway of the target site; -100 `gatewayId` for a
   * gateway (it moves as a gateway).
   */
  async moveDevice(
    scope: CompanyScope,
    id: number,
    input: { siteId: number; gatewayId?: number | null },
  ): Promise<DeviceMove> {
    await this.requireDevice(scope, id);
    await this.requireSite(scope, input.siteId);
    const move = await this.db.transaction(async (tx): Promise<DeviceMove> => {
      // Locked, and read again in the transaction: a concurrent move or edit is seen whole.
      const [moving] = await tx
        .select()
        .from(device)
        .where(and(eq(device.id, id), inScope(scope, device.companyId)))
        .for('update');
      if (!moving) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
      const sites = await tx
        .select({ id: site.id, name: site.name, companyId: site.companyId })
        .from(site)
        .where(and(inArray(site.id, [moving.siteId, input.siteId]), inScope(scope, site.companyId)))
        .for('share');
      const from = sites.find((s) => s.id === moving.siteId);
      const to = sites.find((s) => s.id === input.siteId);
      if (!from || !to) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
      if (to.id === from.id) throw new ApiError(ErrorCode.ALREADY_THERE);

      let gatewayId: number | null = null;
      let devices: { id: number; sn: string }[];
      if (moving.gatewayId === null) {
        if (input.gatewayId != null) throw new ApiError(ErrorCode.PARAM_ERROR, {}, 'gatewayId');
        const behind = await tx
          .select({ id: device.id, sn: device.sn })
          .from(device)
          .where(eq(device.gatewayId, id))
          .orderBy(device.id)
          .for('update');
        devices = [{ id, sn: moving.sn }, ...behind];
      } else {
        if (input.gatewayId == null) {
          throw new ApiError(ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE, {}, 'gatewayId');
        }
        const [gateway] = await tx
          .select({ id: device.id })
          .from(device)
          .where(and(eq(device.id, input.gatewayId), eq(device.siteId, to.id), isNull(device.gatewayId)))
          .for('share');
        if (!gateway) throw new ApiError(ErrorCode.DEVICE_GATEWAY_ON_OTHER_SITE, {}, 'gatewayId');
        gatewayId = gateway.id;
        devices = [{ id, sn: moving.sn }];
      }
      const ids = devices.map((d) => d.id);
      const place = { siteId: to.id, companyId: to.companyId };
      await tx
        .update(device)
        .set({ ...place, updatedAt: new Date() })
        .where(inArray(device.id, ids));
      if (moving.gatewayId !== null) await tx.update(device).set({ gatewayId }).where(eq(device.id, id));
      await tx.update(alarm).set(place).where(inArray(alarm.deviceId, ids));
      await tx.update(alarmEvent).set(place).where(inArray(alarmEvent.deviceId, ids));
      if (moving.gatewayId === null) {
        await tx.update(deviceDeadLetter).set(place).where(eq(deviceDeadLetter.gatewaySn, moving.sn));
      }
      await tx.update(deviceDelivery).set({ siteId: to.id }).where(inArray(deviceDelivery.deviceId, ids));
      return {
        before: {
          siteId: from.id,
          siteName: from.name,
          companyId: from.companyId,
          gatewayId: moving.gatewayId,
        },
        after: { siteId: to.id, siteName: to.name, companyId: to.companyId, gatewayId },
        devices,
      };
    });
    if (move.after.gatewayId === null) {
      this.hooks.siteGatewaysChanged?.([move.before.siteId, move.after.siteId]);
    }
    return move;
  }

  async deleteDevice(scope: CompanyScope, id: number): Promise<void> {
    const existing = await this.requireDevice(scope, id);
    if (existing.gatewayId === null) await this.assertNoDevicesBehind(this.db, id);
    await this.db.delete(device).where(eq(device.id, id));
  }

  /** Issues a new secret for a gateway (the old one stops working); 3031 for a sub-device. */
  async resetSecret(scope: CompanyScope, id: number) {
    const existing = await this.requireDevice(scope, id);
    if (existing.gatewayId !== null) throw new ApiError(ErrorCode.DEVICE_NO_MQTT_CONFIG);
    const secret = newDeviceSecret();
    await this.db
      .update(device)
      .set({ secretHash: deviceSecretHash(secret), secretIssuedAt: new Date(), updatedAt: new Date() })
      .where(eq(device.id, id));
    return {
      id,
      sn: existing.sn,
      mqttClientId: existing.mqttClientId ?? existing.sn,
      username: existing.sn,
      secret,
    };
  }

  /**
   * `gatewayId` if it is a gateway of the site (not `selfId`); 3030 naming `gatewayId` otherwise.
   * The gateway row is share-locked until `tx` ends, so a move of that gateway (which locks it
   * for update) cannot leave the new device on the gateway's old site.
   */
  private async checkGateway(
    tx: Db,
    siteId: number,
    gatewayId: number | null,
    selfId?: number,
  ): Promise<number | null> {
    if (gatewayId === null) return null;
    const [gw] = await tx
      .select({ id: device.id })
      .from(device)
      .where(and(eq(device.id, gatewayId), eq(device.siteId, siteId), isNull(device.gatewayId)))
      .for('share');
    if (!gw || gw.id === selfId) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND, {}, 'gatewayId');
    return gw.id;
  }

  private async assertNoDevicesBehind(db: Db, id: number): Promise<void> {
    const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(device).where(eq(device.gatewayId, id));
    if (Number(n) > 0) throw new ApiError(ErrorCode.GATEWAY_HAS_DEVICES);
  }

  /** Most recently seen gateways first (for the dashboard). */
  async gatewaysOf(siteIds: number[]) {
    if (siteIds.length === 0) return [];
    return this.db
      .select()
      .from(device)
      .where(and(inArray(device.siteId, siteIds), isNull(device.gatewayId)))
      .orderBy(desc(device.lastSeenAt));
  }
}
