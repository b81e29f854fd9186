/**
 * SN → registry facts, cached in memory for the ingest hot path (one query per refresh, not per
 * message). Refreshed every few seconds and on demand after registry changes, so a device added
 * in the console can connect within seconds.
 *
 * While the database is unreachable the cache is served as it was last loaded (the registry
 * changes rarely; docs/operations.md "What survives what"), so known gateways keep reporting and
 * their messages wait in the ingest queue, unacknowledged, until they can be stored. An SN the
 * cache does not hold cannot be settled as unknown then: {@link DeviceDirectory.lookup} rejects,
 * and the transports retry the message (no PUBACK) rather than drop it.
 */
import type { DeviceType } from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { device, site } from '../core/db/schema';

export interface DirectoryEntry {
  deviceId: number;
  sn: string;
  type: DeviceType;
  siteId: number;
  companyId: number;
  /** The gateway it reports through; its own id for a gateway. */
  gatewayId: number;
  isGateway: boolean;
  secretHash: string | null;
  mqttClientId: string | null;
  timezone: string;
}

/** An unknown SN reloads the cache at most this often (unknown clients cannot force reloads). */
const MISS_RELOAD_MS = 1_000;

/** After a failed periodic reload, the cache is served as it is for this long before the next try. */
const RETRY_LOAD_MS = 1_000;

export class DeviceDirectory {
  private bySn = new Map<string, DirectoryEntry>();
  private byId = new Map<number, DirectoryEntry>();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  private reloadAfter: Promise<void> | null = null;
  /** No periodic reload before this time (ms since the epoch): the last one failed. */
  private retryLoadAt = 0;
  /** Periodic reloads that failed in a row (the cache was served as it was meanwhile). */
  private failedLoads = 0;
  /** Periodic reloads that failed since the start (database unreachable). */
  loadFailures = 0;

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = 5_000,
    private readonly log?: FastifyBaseLogger,
    /** The clock (ms since the epoch) cache ages are measured on; tests inject one. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reloads now (after a registry change). A load already running may have read before the
   * change, so the caller then waits for one more load after it (shared by everyone who asks
   * meanwhile).
   */
  async refresh(): Promise<void> {
    if (!this.loading) return this.reload();
    this.reloadAfter ??= this.loading
      .catch(() => undefined)
      .then(() => {
        this.reloadAfter = null;
        return this.reload();
      });
    return this.reloadAfter;
  }

  /** A load, or the one already running (enough for a cache that is merely old). */
  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /**
   * The entry of `sn`, reloading first when the cache is older than `maxAgeMs`, or when `sn` is
   * unknown and the cache is older than a second. Undefined means "not registered" (a settled
   * answer). When the periodic reload fails, the cache is served as it was (and reloading is
   * tried again a second later); when `sn` is not in it, the answer is not known and the call
   * rejects with the database's error. It rejects too before any load succeeded.
   */
  async lookup(sn: string): Promise<DirectoryEntry | undefined> {
    const now = this.now();
    if (now - this.loadedAt > this.maxAgeMs && now >= this.retryLoadAt) await this.reloadOrKeep();
    const entry = this.bySn.get(sn);
    if (entry || this.now() - this.loadedAt < MISS_RELOAD_MS) return entry;
    // Not known yet: a device registered a moment ago connects without waiting for the next reload.
    await this.refresh();
    return this.bySn.get(sn);
  }

  /** A periodic reload; when it fails, the loaded cache stays in use (see {@link lookup}). */
  private async reloadOrKeep(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      if (this.loadedAt === 0) throw err; // nothing to serve
      this.retryLoadAt = this.now() + RETRY_LOAD_MS;
      this.loadFailures++;
      if (this.failedLoads++ === 0) {
        this.log?.error({ err }, 'device directory reload failed; serving the cached registry');
      }
    }
  }

  /** Cached entry without reloading (hot path inside a batch). */
  cached(sn: string): DirectoryEntry | undefined {
    return this.bySn.get(sn);
  }

  byDeviceId(id: number): DirectoryEntry | undefined {
    return this.byId.get(id);
  }

  private async load(): Promise<void> {
    const rows = await this.db
      .select({ device, timezone: site.timezone })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId));
    const bySn = new Map<string, DirectoryEntry>();
    const byId = new Map<number, DirectoryEntry>();
    for (const { device: d, timezone } of rows) {
      const entry: DirectoryEntry = {
        deviceId: d.id,
        sn: d.sn,
        type: d.type as DeviceType,
        siteId: d.siteId,
        companyId: d.companyId,
        gatewayId: d.gatewayId ?? d.id,
        isGateway: d.gatewayId === null,
        secretHash: d.secretHash,
        mqttClientId: d.mqttClientId,
        timezone,
      };
      bySn.set(d.sn, entry);
      byId.set(d.id, entry);
    }
    this.bySn = bySn;
    this.byId = byId;
    this.loadedAt = this.now();
    if (this.failedLoads > 0) {
      this.log?.info({ failedLoads: this.failedLoads }, 'device directory reloaded again');
      this.failedLoads = 0;
    }
  }
}
