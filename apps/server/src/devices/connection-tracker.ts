/**
 * Online/offline state of gateways (docs/device-protocol.md "status"): from birth and death
 * messages on the retained status topic, the embedded broker's disconnects, and a heartbeat
 * timeout (nothing received for HEARTBEAT_TIMEOUT_MS → offline "timeout"). Devices behind a
 * gateway share its state. Every change is written to `device` and `device_connection_log`.
 */
import { HEARTBEAT_TIMEOUT_MS, MAX_CLOCK_SKEW_MS, type OfflineReason, statusPayload } from '@ess/contract';
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { device, deviceConnectionLog } from '../core/db/schema';
import type { DeviceDirectory, DirectoryEntry } from './device-directory';

export interface StatusChange {
  deviceId: number;
  siteId: number;
  online: boolean;
  reason: OfflineReason | null;
  /** When this instance noticed the change (ms, the tracker's clock). */
  at: number;
  /**
   * A status message behind the change: its `ts` (ms, the device's clock) and whether the broker
   * handed it over retained at the subscription (published before this instance subscribed, at
   * the device's last connect) rather than live. The same for every instance that receives it.
   */
  announced?: { ts: number; retained: boolean };
}

/** A device's firmware as a birth message reported it (the gateway's own, or a device's behind it). */
export interface FirmwareReport {
  deviceId: number;
  firmware: string;
}

export class ConnectionTracker {
  private online = new Map<number, boolean>();
  private readonly firmwareListeners = new Set<(reports: FirmwareReport[]) => void>();
  private lastSeen = new Map<number, number>();
  /** Gateways heard from since the last {@link sweep} wrote `last_seen_at` (id → ms). */
  private heardSince = new Map<number, number>();

  constructor(
    private readonly db: Db,
    private readonly directory: DeviceDirectory,
    private readonly log: FastifyBaseLogger,
    private readonly hooks: {
      onChange?(change: StatusChange): void;
      /**
       * A gateway already marked online announced itself online again (a status message
       * `online: true`): it reconnected before its loss was noticed, or the server restarted
       * while it was marked online. Nothing changes state, but whatever the gateway kept only
       * in memory may be gone.
       */
      onReannounce?(change: StatusChange): void;
      onClockSkew?(gateway: DirectoryEntry): void;
    } = {},
    private readonly heartbeatTimeoutMs = HEARTBEAT_TIMEOUT_MS,
    /** The clock (ms since the epoch) that heartbeats and the timeout are measured on; tests inject one. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Loads the stored state. The heartbeat sweep is not timed here: the app's scheduler runs
   * {@link sweep} (jobs/jobs-plugin.ts, local task `heartbeat-sweep`).
   */
  async start(): Promise<void> {
    const rows = await this.db
      .select({ id: device.id, online: device.online, lastSeenAt: device.lastSeenAt })
      .from(device)
      .where(isNull(device.gatewayId));
    const now = this.now();
    for (const r of rows) {
      this.online.set(r.id, r.online);
      // A gateway marked online before a restart gets one full timeout to show up again.
      this.lastSeen.set(r.id, r.online ? now : (r.lastSeenAt?.getTime() ?? 0));
    }
  }

  /**
   * Calls `listener` with the firmware versions each birth reports, once they are stored in
   * `device.firmware_version` (devices/ota-batches.ts confirms upgrades by them); answers the
   * unsubscribe.
   */
  onFirmware(listener: (reports: FirmwareReport[]) => void): () => void {
    this.firmwareListeners.add(listener);
    return () => this.firmwareListeners.delete(listener);
  }

  isOnline(gatewayId: number): boolean {
    return this.online.get(gatewayId) ?? false;
  }

  /** Any valid message counts as a heartbeat; an offline gateway comes back online. */
  seen(gateway: DirectoryEntry): void {
    this.heard(gateway.deviceId);
    if (!this.isOnline(gateway.deviceId)) void this.change(gateway, true, null);
  }

  /**
   * A message on `ess/v1/<sn>/status`; malformed ones are logged and ignored. A `retained` copy
   * (an external broker hands it over when the server subscribes) was published at the device's
   * last connect, so its `ts` says nothing about the device's clock now.
   */
  async handleStatus(gateway: DirectoryEntry, payload: Buffer, retained = false): Promise<void> {
    let parsed: ReturnType<typeof statusPayload.safeParse>;
    try {
      parsed = statusPayload.safeParse(JSON.parse(payload.toString('utf8')));
    } catch {
      this.log.warn({ sn: gateway.sn }, 'malformed status message ignored');
      return;
    }
    if (!parsed.success) {
      this.log.warn({ sn: gateway.sn }, 'malformed status message ignored');
      return;
    }
    const status = parsed.data;
    if (status.online) {
      this.heard(gateway.deviceId);
      const reports: FirmwareReport[] = [];
      if (status.firmware) {
        await this.db
          .update(device)
          .set({ firmwareVersion: status.firmware })
          .where(eq(device.id, gateway.deviceId));
        reports.push({ deviceId: gateway.deviceId, firmware: status.firmware });
      }
      // The devices behind it (issue 16): only those that report through this gateway.
      for (const behind of status.devices ?? []) {
        const entry = await this.directory.lookup(behind.sn);
        if (!entry || entry.isGateway || entry.gatewayId !== gateway.deviceId) continue;
        await this.db
          .update(device)
          .set({ firmwareVersion: behind.firmware })
          .where(eq(device.id, entry.deviceId));
        reports.push({ deviceId: entry.deviceId, firmware: behind.firmware });
      }
      if (reports.length > 0) for (const listener of this.firmwareListeners) listener(reports);
      if (!retained && Math.abs(status.ts - this.now()) > MAX_CLOCK_SKEW_MS)
        this.hooks.onClockSkew?.(gateway);
      await this.change(gateway, true, null, { ts: status.ts, retained });
    } else {
      await this.change(gateway, false, status.reason ?? 'lwt', undefined, { ts: status.ts, retained });
    }
  }

  /**
   * The embedded broker's connection ended without a death message having marked the gateway
   * offline: `clean` after a DISCONNECT packet, otherwise `lwt` (the connection was lost, which is
   * what a last will reports).
   */
  async disconnected(gateway: DirectoryEntry, clean: boolean): Promise<void> {
    if (this.isOnline(gateway.deviceId)) await this.change(gateway, false, clean ? 'clean' : 'lwt');
  }

  private heard(gatewayId: number): void {
    const now = this.now();
    this.lastSeen.set(gatewayId, now);
    this.heardSince.set(gatewayId, now);
  }

  /**
   * Marks offline (reason 'timeout') every online gateway not heard from for the heartbeat
   * timeout — by any instance. Run by the scheduler every `heartbeatSweepMs` on every instance
   * (a local task, not claimed; a test runs it by hand):
   *  1. writes `last_seen_at` of the gateways this instance heard from since its last sweep (one
   *     statement; the latest time wins). With several instances sharing the ingest (MQTT share
   *     group) each hears only its share of a gateway's messages, so its own memory is not enough;
   *  2. a gateway this instance has not heard from for the timeout is checked against the
   *     database: heard by another instance meanwhile (`last_seen_at` within the timeout) → kept
   *     online (and this instance's memory moves on); marked offline by another instance → only
   *     this instance's memory follows; else it goes offline, under a condition in the same
   *     statement (still online, still not seen) so that two instances sweeping together record
   *     one change, and only the instance whose update went in logs it and tells its listeners.
   */
  async sweep(): Promise<void> {
    await this.writeLastSeen();
    const cutoff = this.now() - this.heartbeatTimeoutMs;
    const stale = [...this.online].filter(
      ([id, isOnline]) => isOnline && (this.lastSeen.get(id) ?? 0) < cutoff,
    );
    if (stale.length === 0) return;
    const rows = await this.db
      .select({ id: device.id, online: device.online, lastSeenAt: device.lastSeenAt })
      .from(device)
      .where(
        inArray(
          device.id,
          stale.map(([id]) => id),
        ),
      );
    for (const r of rows) {
      const seenAt = r.lastSeenAt?.getTime() ?? 0;
      if (seenAt > (this.lastSeen.get(r.id) ?? 0)) this.lastSeen.set(r.id, seenAt);
      if (!r.online) {
        this.online.set(r.id, false);
        continue;
      }
      if (seenAt >= cutoff) continue;
      const gateway = this.directory.byDeviceId(r.id);
      if (gateway) await this.change(gateway, false, 'timeout', undefined, undefined, new Date(cutoff));
    }
  }

  /** Step 1 of {@link sweep}: `last_seen_at` = the later of the stored and this instance's. */
  private async writeLastSeen(): Promise<void> {
    if (this.heardSince.size === 0) return;
    const heard = [...this.heardSince];
    this.heardSince.clear();
    try {
      await this.db.execute(sql`
        UPDATE device SET last_seen_at = v.seen_at
        FROM unnest(${`{${heard.map(([id]) => id).join(',')}}`}::int[],
                    ${`{${heard.map(([, at]) => new Date(at).toISOString()).join(',')}}`}::timestamptz[])
          AS v(id, seen_at)
        WHERE device.id = v.id AND (device.last_seen_at IS NULL OR device.last_seen_at < v.seen_at)`);
    } catch (err) {
      // Kept for the next sweep (a newer time heard meanwhile wins).
      for (const [id, at] of heard) if ((this.heardSince.get(id) ?? 0) < at) this.heardSince.set(id, at);
      this.log.warn({ err }, 'could not store when gateways were last seen');
    }
  }

  /**
   * Records a change of `gateway`'s state. `birth`: an `online: true` status message, which also
   * reaches `onReannounce` when the gateway is online already. `message`: the status message
   * behind an offline change.
   */
  private async change(
    gateway: DirectoryEntry,
    online: boolean,
    reason: OfflineReason | null,
    birth?: StatusChange['announced'],
    message: StatusChange['announced'] = birth,
    /** A timeout's condition: the change is made only if the row is online and not seen since. */
    notSeenSince?: Date,
  ): Promise<void> {
    const was = this.isOnline(gateway.deviceId);
    if (was === online && !birth) return;
    this.online.set(gateway.deviceId, online);
    if (was === online) {
      this.hooks.onReannounce?.({
        deviceId: gateway.deviceId,
        siteId: gateway.siteId,
        online,
        reason,
        at: this.now(),
        ...(birth ? { announced: birth } : {}),
      });
      return;
    }
    const at = new Date(this.now());
    try {
      const made = await this.db.transaction(async (tx) => {
        const updated = await tx
          .update(device)
          .set({
            online,
            offlineReason: online ? null : reason,
            statusChangedAt: at,
            ...(online ? { lastSeenAt: at } : {}),
          })
          .where(
            notSeenSince
              ? and(
                  eq(device.id, gateway.deviceId),
                  eq(device.online, true),
                  or(isNull(device.lastSeenAt), lt(device.lastSeenAt, notSeenSince)),
                )
              : eq(device.id, gateway.deviceId),
          )
          .returning({ id: device.id });
        if (updated.length === 0) return false;
        await tx.insert(deviceConnectionLog).values({ deviceId: gateway.deviceId, ts: at, online, reason });
        return true;
      });
      if (!made && notSeenSince) {
        // Another instance heard from it, or recorded its timeout, in the meantime: this
        // instance's memory follows the row; nothing to tell.
        const [row] = await this.db
          .select({ online: device.online })
          .from(device)
          .where(eq(device.id, gateway.deviceId));
        this.online.set(gateway.deviceId, row?.online ?? false);
        return;
      }
    } catch (err) {
      this.log.error({ err, sn: gateway.sn }, 'could not store a connection change');
    }
    this.log.info({ sn: gateway.sn, online, reason }, 'gateway connection changed');
    this.hooks.onChange?.({
      deviceId: gateway.deviceId,
      siteId: gateway.siteId,
      online,
      reason,
      at: at.getTime(),
      ...(message ? { announced: message } : {}),
    });
  }
}
