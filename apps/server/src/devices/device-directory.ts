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
  /** The reload for unknown SNs that has not begun yet (see {@link reloadForMiss}). */
  private pendingMiss: Promise<void> | null = null;
  /** When the last reload for unknown SNs began (ms, the directory's clock). */
  private lastMissLoadAt = Number.NEGATIVE_INFINITY;
  /** When the load whose rows the cache holds began (ms): it saw every registration before. */
  private cacheBeganAt = Number.NEGATIVE_INFINITY;

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
   * unknown to a cache loaded before `receivedAt` (when its message arrived; default now): then
   * a load begun after that answers (at most one a second: {@link reloadForMiss}). Undefined means "not registered" (a settled
   * answer). When the periodic reload fails, the cache is served as it was (and reloading is
   * tried again a second later); when `sn` is not in it, the answer is not known and the call
   * rejects with the database's error. It rejects too before any load succeeded.
   */
  async lookup(sn: string, receivedAt: number = this.now()): Promise<DirectoryEntry | undefined> {
    const now = this.now();
    if (now - this.loadedAt > this.maxAgeMs && now >= this.retryLoadAt) await this.reloadOrKeep();
    const entry = this.bySn.get(sn);
    // Unknown to a cache read after the message arrived: not registered.
    if (entry || this.cacheBeganAt >= receivedAt) return entry;
    // Not known yet: a device registered a moment ago — possibly through another server instance,
    // after this one's last load began — is found by a load that begins after its message came.
    await this.reloadForMiss();
    return this.bySn.get(sn);
  }

  /** Now on the directory's clock (ms): what a transport passes to {@link lookup} as `receivedAt`. */
  clock(): number {
    return this.now();
  }

  /**
   * A reload for SNs the cache does not hold, begun after the call: shared by every miss until
   * it begins, and at most one every {@link MISS_RELOAD_MS} (unknown clients cannot force more),
   * so an unknown SN is answered within about that long — and a burst of them (the retained
   * statuses of unregistered gateways at subscription) by the first load begun after the burst.
   * Without the wait for a load begun after the message, a load that had begun just before
   * another instance registered the device would answer "unknown" and its first messages would
   * be dropped (issue 18 item 4).
   */
  private reloadForMiss(): Promise<void> {
    if (!this.pendingMiss) {
      this.pendingMiss = (async () => {
        const wait = Math.min(MISS_RELOAD_MS, this.lastMissLoadAt + MISS_RELOAD_MS - this.now());
        // Always yields first, so that `pendingMiss` is set before it is cleared below.
        await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
        // From here on a new miss needs a load of its own (this one may begin before it).
        this.pendingMiss = null;
        this.lastMissLoadAt = this.now();
        await this.refresh();
      })();
    }
    return this.pendingMiss;
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
    const began = this.now();
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
    this.cacheBeganAt = began;
    if (this.failedLoads > 0) {
      this.log?.info({ failedLoads: this.failedLoads }, 'device directory reloaded again');
      this.failedLoads = 0;
    }
  }
}
