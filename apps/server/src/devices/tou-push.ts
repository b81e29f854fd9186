/**
 * Delivery of ToU schemes to the sites' EMS (docs/device-protocol.md
 * `set_tou_plan`): the 'tou' kind of the desired-state delivery (delivery.ts). Per site that
 * runs a scheme one `device_delivery` row (kind 'tou', target `site:<id>`, desired `{schemeId}`
 * at the scheme's version) says which scheme and version the site should run, which version of
 * it the EMS is known to run (confirmed, with the time), and how the delivery went: pending →
 * sent → applied / failed (reason: the EMS's refusal, 'timeout', or the send error), exactly as
 * delivery.ts describes — a re-send of the applied version that gets no answer leaves it
 * applied ("re-sent, no answer") and is retried.
 *
 * Sends happen when a scheme the site runs is saved, when sites are assigned, when the site's
 * time zone changes (part of the params), on the `push` call (which waits for the reply),
 * whenever the site's gateway comes online or announces itself online again (the scheme is sent
 * even when it was applied: an EMS that lost it — the demo fleet keeps it in memory — gets it
 * back; once across instances, and not by an instance merely starting beside others), at
 * start for every row not applied, and as retries of a send the EMS did not answer (1, 5, 15 and
 * 60 min after the request it answered, while the gateway is online). The claim reads the site's scheme and time
 * zone with share locks on both, so a save or an assignment either comes before the send (and is
 * what goes out) or after it (and moves the row back to pending, which the send's reply then
 * leaves alone). modules/tou/tou-service.ts writes the rows of assignments and saves.
 *
 * The site's gateway is its device without a gateway of its own, an EMS first (lowest id).
 */

import { ErrorCode, type SetTouPlanParams, type TouPushRow, type TouPushState } from '@ess/contract';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type CompanyScope, inScope } from '../access/company-scope';
import type { Db } from '../core/db/database';
import { device, deviceDelivery, site, touScheme } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import {
  type DeliveryKind,
  type DeliveryOptions,
  type DeliveryPublisher,
  DeliveryService,
  type DeliveryTarget,
  deliveryMessage,
  siteGateway,
} from './delivery';
import type { DeviceService } from './device-service';

export { siteGateway };

/** The delivery kind of ToU schemes. */
export const TOU_KIND = 'tou' as const;

/** A site's ToU delivery target (its gateway receives). */
export const touTarget = (siteId: number): DeliveryTarget => ({ siteId, deviceId: null });

/** The row key of a site's ToU delivery (`device_delivery.target`). */
export const touTargetKey = (siteId: number): string => `site:${siteId}`;

/** What a site should run, as stored in `device_delivery.desired`. */
export const touDesired = (schemeId: number): { schemeId: number } => ({ schemeId });

/** `set_tou_plan` of the site's scheme in the site's time zone; 3060 when the site runs none. */
export const touKind: DeliveryKind = {
  name: TOU_KIND,
  command: 'set_tou_plan',
  nothingToSend: ErrorCode.NO_EMS_TIME_PERIOD_CONFIG,
  async readDesired(tx, target) {
    const [current] = await tx
      .select({ timezone: site.timezone, schemeId: site.touSchemeId })
      .from(site)
      .where(eq(site.id, target.siteId))
      .for('share');
    if (current?.schemeId == null) return null;
    const [scheme] = await tx.select().from(touScheme).where(eq(touScheme.id, current.schemeId)).for('share');
    if (!scheme) return null;
    const params: SetTouPlanParams = {
      schemeId: scheme.id,
      version: scheme.version,
      timezone: current.timezone,
      scheme: scheme.document,
    };
    return { version: scheme.version, desired: touDesired(scheme.id), params };
  },
};

export class TouPushService {
  readonly delivery: DeliveryService;
  private devices: DeviceService | null = null;

  constructor(
    private readonly db: Db,
    log: FastifyBaseLogger,
    options: DeliveryOptions = {},
  ) {
    this.delivery = new DeliveryService(db, log, touKind, options);
  }

  /**
   * Starts (or re-targets) delivery through `devices`: listens for gateways coming online and
   * sends what is due at once. Without devices every row stays pending.
   */
  start(devices: DeviceService | null): void {
    this.devices = devices;
    this.delivery.start(devices);
  }

  /** Stops listening; sends still waiting for a reply end with the command service. */
  stop(): void {
    this.delivery.stop();
  }

  /** Resolves once every background send started so far has finished (tests). */
  settled(): Promise<void> {
    return this.delivery.settled();
  }

  /** Publishes every change of a delivery row to `publisher` (the live hub, `delivery:tou`). */
  publishTo(publisher: DeliveryPublisher): () => void {
    return this.delivery.publishTo(publisher);
  }

  /** Sends the sites' schemes in the background when due (after a save or an assignment). */
  deliver(siteIds: readonly number[]): void {
    this.delivery.changed(siteIds.map(touTarget));
  }

  /**
   * The site's time zone changed (registry): the scheme goes out again with the new zone. The
   * row is pending until the EMS applies it; a reply to a send with the old zone is ignored.
   */
  timezoneChanged(siteId: number): void {
    this.delivery.reset([touTarget(siteId)]);
  }

  /**
   * The `push` call: sends the site's scheme now (after a send already out for the site) and
   * waits for the EMS's reply; answers the row. Errors: 3036 (checked by the caller), 3060 the
   * site runs no scheme, 3033 no gateway or it never connected, 3034 gateway offline (the row is
   * left as it was and goes out at the reconnect), 3035 the send failed, was refused or timed
   * out (the row says why; a re-send of the applied version that timed out leaves it applied).
   */
  async pushNow(siteId: number): Promise<TouPushRow> {
    await this.delivery.sendNow(touTarget(siteId));
    const [row] = await this.statusOfSites([siteId]);
    if (!row) throw new ApiError(ErrorCode.NO_EMS_TIME_PERIOD_CONFIG);
    return row;
  }

  /** Delivery rows of the given sites (those that run a scheme), by site id. */
  async statusOfSites(siteIds: readonly number[]): Promise<TouPushRow[]> {
    if (siteIds.length === 0) return [];
    const rows = await this.db
      .select({
        siteId: site.id,
        siteName: site.name,
        timezone: site.timezone,
        currentVersion: touScheme.version,
        push: deviceDelivery,
      })
      .from(site)
      .innerJoin(touScheme, eq(touScheme.id, site.touSchemeId))
      .leftJoin(deviceDelivery, and(eq(deviceDelivery.kind, TOU_KIND), eq(deviceDelivery.siteId, site.id)))
      .where(inArray(site.id, [...siteIds]))
      .orderBy(asc(site.id));
    const gateways = await this.gatewaysOf(rows.map((r) => r.siteId));
    return rows.map((r) => {
      const gateway = siteGateway(gateways.filter((g) => g.siteId === r.siteId));
      const message = r.push ? deliveryMessage(r.push, this.delivery.retryAfterMs) : null;
      const state = (message?.state ?? 'pending') as TouPushState;
      const schemeVersion = message?.version ?? r.currentVersion;
      return {
        siteId: r.siteId,
        siteName: r.siteName,
        timezone: r.timezone,
        gatewaySn: gateway?.sn ?? null,
        gatewayOnline: gateway ? this.isOnline(gateway) : false,
        schemeVersion,
        pushedVersion: state === 'pending' ? null : schemeVersion,
        state,
        appliedVersion: message?.appliedVersion ?? null,
        appliedAt: message?.appliedAt ?? null,
        sending: message?.sending ?? false,
        reason: message?.reason ?? null,
        retryAt: message?.retryAt ?? null,
        requestedAt: message?.requestedAt ?? null,
        sentAt: message?.sentAt ?? null,
      };
    });
  }

  /** Delivery rows of the sites in `scope` running scheme `schemeId`. */
  async statusOfScheme(scope: CompanyScope, schemeId: number): Promise<TouPushRow[]> {
    const sites = await this.db
      .select({ id: site.id })
      .from(site)
      .where(and(eq(site.touSchemeId, schemeId), inScope(scope, site.companyId)));
    return this.statusOfSites(sites.map((s) => s.id));
  }

  private gatewaysOf(siteIds: number[]) {
    if (siteIds.length === 0) return Promise.resolve([]);
    return this.db
      .select({
        id: device.id,
        siteId: device.siteId,
        sn: device.sn,
        type: device.type,
        online: device.online,
      })
      .from(device)
      .where(and(inArray(device.siteId, siteIds), isNull(device.gatewayId)));
  }

  private isOnline(gateway: { id: number; online: boolean }): boolean {
    return this.devices ? this.devices.tracker.isOnline(gateway.id) : gateway.online;
  }
}
