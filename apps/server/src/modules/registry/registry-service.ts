/**
 * Sites and devices (spec §2 site configuration, §3 devices; codes 3030–3039, 6000).
 * Every read and write is limited to the caller's company scope (tenancy/company-scope.ts);
 * a row outside it answers as if it did not exist. A site moved to a company outside its ToU
 * scheme's company tree stops running that scheme.
 */
import {
  type DeviceInput,
  type DeviceRow,
  type DeviceType,
  ErrorCode,
  type OfflineReason,
  type SiteInput,
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
import { company, device, deviceDelivery, site, touScheme } from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import { deviceSecretHash, newDeviceSecret } from '../../devices/device-secret';

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
        capacityKwh: sql<number>`(SELECT coalesce(sum(d.capacity_kwh), 0)::float8 FROM device d WHERE d.site_id = ${site.id} AND d.type = 'bms')`,
        ratedPowerKw: sql<number>`(SELECT coalesce(sum(d.rated_power_kw), 0)::float8 FROM device d WHERE d.site_id = ${site.id} AND d.type = 'pcs')`,
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
    const companyId = await this.ownerCompany(scope, callerCompanyId, input.companyId);
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
   * Updates a site; 3036 not in scope, 6000 company outside scope or missing, 3039 code taken.
   * Moved to a company outside its ToU scheme's company tree, the site runs no scheme any more;
   * a new time zone of a site that runs a scheme is pushed to its EMS (`touSiteTimezoneChanged`).
   */
  async updateSite(
    scope: CompanyScope,
    callerCompanyId: number,
    id: number,
    input: SiteInput,
  ): Promise<void> {
    const existing = await this.requireSite(scope, id);
    const companyId = input.companyId
      ? await this.ownerCompany(scope, callerCompanyId, input.companyId)
      : existing.companyId;
    let runsScheme = false;
    try {
      await this.db.transaction(async (tx) => {
        await tx
          .update(site)
          .set({
            companyId,
            code: input.code,
            name: input.name,
            address: input.address,
            timezone: input.timezone,
            latitude: input.latitude ?? null,
            longitude: input.longitude ?? null,
            updatedAt: new Date(),
          })
          .where(eq(site.id, id));
        // Devices follow their site's company, and so do the site's alarms and alarm events
        // (they are scoped by the company stamped on them: modules/alarm).
        if (companyId !== existing.companyId) {
          await tx.update(device).set({ companyId }).where(eq(device.siteId, id));
          await tx.execute(sql`UPDATE alarm SET company_id = ${companyId} WHERE site_id = ${id}`);
          await tx.execute(sql`UPDATE alarm_event SET company_id = ${companyId} WHERE site_id = ${id}`);
        }
        // A site runs only a ToU scheme of its company or one above it: moved elsewhere, it
        // runs none (the EMS keeps its last plan until it gets another).
        if (companyId !== existing.companyId && existing.touSchemeId !== null) {
          const [scheme] = await tx
            .select({ companyId: touScheme.companyId })
            .from(touScheme)
            .where(eq(touScheme.id, existing.touSchemeId));
          if (!scheme || !(await companyTree(tx, scheme.companyId)).includes(companyId)) {
            await tx.update(site).set({ touSchemeId: null }).where(eq(site.id, id));
            await tx
              .delete(deviceDelivery)
              .where(and(eq(deviceDelivery.kind, 'tou'), eq(deviceDelivery.siteId, id)));
          }
        }
        const [after] = await tx.select({ touSchemeId: site.touSchemeId }).from(site).where(eq(site.id, id));
        runsScheme = after?.touSchemeId != null;
      });
    } catch (err) {
      if (isUniqueViolation(err, 'site_code_uq')) throw new ApiError(ErrorCode.SITE_CODE_EXISTS);
      throw err;
    }
    if (runsScheme && input.timezone !== existing.timezone) this.hooks.touSiteTimezoneChanged?.(id);
  }

  /** Deletes an empty site; 3037 when it still has devices. */
  async deleteSite(scope: CompanyScope, id: number): Promise<void> {
    await this.requireSite(scope, id);
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(device).where(eq(device.siteId, id));
    if (Number(n) > 0) throw new ApiError(ErrorCode.SITE_HAS_DEVICES);
    await this.db.delete(site).where(eq(site.id, id));
  }

  private async ownerCompany(
    scope: CompanyScope,
    callerCompanyId: number,
    requested?: number,
  ): Promise<number> {
    const companyId = requested ?? callerCompanyId;
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
    const gatewayId = await this.checkGateway(parent.id, input.gatewayId ?? null);
    const secret = gatewayId === null ? newDeviceSecret() : null;
    const mqttClientId = gatewayId === null ? (input.mqttClientId ?? input.sn) : input.mqttClientId;
    try {
      const [row] = await this.db
        .insert(device)
        .values({
          ...deviceColumns(input, parent, gatewayId),
          mqttClientId,
          secretHash: secret ? deviceSecretHash(secret) : null,
          secretIssuedAt: secret ? new Date() : null,
        })
        .returning({ id: device.id });
      const id = row!.id;
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
   * Updates a device; a gateway with devices behind it cannot become a sub-device or move to
   * another site (3038). A device that becomes a gateway has no secret until one is issued.
   */
  async updateDevice(scope: CompanyScope, id: number, input: DeviceInput): Promise<void> {
    const existing = await this.requireDevice(scope, id);
    const parent = await this.requireSite(scope, input.siteId);
    const gatewayId = await this.checkGateway(parent.id, input.gatewayId ?? null, id);
    if (existing.gatewayId === null && (gatewayId !== null || parent.id !== existing.siteId)) {
      await this.assertNoDevicesBehind(id);
    }
    try {
      await this.db
        .update(device)
        .set({
          ...deviceColumns(input, parent, gatewayId),
          mqttClientId: input.mqttClientId ?? (gatewayId === null ? input.sn : null),
          ...(gatewayId !== null ? { secretHash: null, secretIssuedAt: null, online: false } : {}),
          updatedAt: new Date(),
        })
        .where(eq(device.id, id));
    } catch (err) {
      if (isUniqueViolation(err, 'device_sn_uq')) throw new ApiError(ErrorCode.DEVICE_SN_EXISTS);
      throw err;
    }
  }

  async deleteDevice(scope: CompanyScope, id: number): Promise<void> {
    const existing = await this.requireDevice(scope, id);
    if (existing.gatewayId === null) await this.assertNoDevicesBehind(id);
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

  private async checkGateway(
    siteId: number,
    gatewayId: number | null,
    selfId?: number,
  ): Promise<number | null> {
    if (gatewayId === null) return null;
    const [gw] = await this.db
      .select({ id: device.id })
      .from(device)
      .where(and(eq(device.id, gatewayId), eq(device.siteId, siteId), isNull(device.gatewayId)));
    if (!gw || gw.id === selfId) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND, {}, 'gatewayId');
    return gw.id;
  }

  private async assertNoDevicesBehind(id: number): Promise<void> {
    const [{ n } = { n: 0 }] = await this.db
      .select({ n: count() })
      .from(device)
      .where(eq(device.gatewayId, id));
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
