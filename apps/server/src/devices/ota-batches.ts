/**
 * Upgrade batches on the server (issue 16 item 3; docs/device-protocol.md "OTA upgrades";
 * contract api/firmware.ts, device/ota.ts): staged rollout of a firmware package to the devices
 * of a batch, every step kept in the database (`upgrade_batch`, `upgrade_device`) so that any
 * instance carries on where another (or this one, before a restart) stopped.
 *
 * **A device's states** (contract UPGRADE_DEVICE_STATES):
 *
 *   waiting ─claim→ sent ─accepted→ downloading → downloaded → verifying → installing → rebooting
 *      │              └────────────── any of them ──────────────→ failed (reason) ─retry→ waiting
 *      └─cancel→ cancelled                          birth / `success` with the package's version → success
 *
 *  - **Every state has a deadline.** `waiting`: the batch's `deadline_at` (then `failed:
 *    deadline`). A started state: `phase_deadline_at`, set when the device enters a phase from
 *    the batch's `phase_timeouts_s` (`sent`; `downloading` until downloaded; `downloaded` +
 *    `verifying` together; `installing`; `rebooting` until the version is confirmed). A device
 *    silent past it is `failed: timeout` (detail: the state it was silent in) by the sweep, and a
 *    later event about it changes nothing. A started device is not failed by the batch deadline:
 *    its phase deadlines bound it, and a device half-way through flashing is not "failed" because
 *    the operator's deadline passed.
 *  - **Claim, then send — once per attempt.** The sweep (and a kick after any change) claims due
 *    rows in one transaction that locks the batch row: `waiting` rows of a wave that has started
 *    (`wave <= current_wave`) whose gateway is online, at most the batch's
 *    `max_concurrent_downloads` minus its devices in `sent`/`downloading`, and at most this
 *    instance's `maxDownloads` (OTA_MAX_DOWNLOADS) minus the rows it started that are still in
 *    those states. Each row moves waiting → sent by a conditional UPDATE with a new command id
 *    and `started_by` = this instance, committed before `ota_upgrade` goes out. Nothing ever moves
 *    a row back to `waiting` except a retry (a new attempt) — and the one case where the command
 *    provably never left: the command service refused it before publishing (the gateway went
 *    offline between the claim and the send). A server that stops between the commit and the
 *    publish leaves the row `sent`, which times out (`sent` deadline): never two sends per attempt,
 *    across restarts and instances.
 *  - **Replies and events.** The `ota_upgrade` reply settles the row with its command id on
 *    whichever instance receives it (`onUnmatchedReply` for another instance's command): ok →
 *    `downloading` at 0 %; refused → `failed` with the refusal's reason (`install_error` without
 *    one). Progress events (`ess/v1/<gw>/ota`, contract `otaProgressPayload`) move the row only
 *    forward (phase order; repeated `downloading` updates the percent), and only the row of the
 *    event's `batchId` for that device, while it is started and the package matches. `success`
 *    with the package's version, or a birth reporting it (connection-tracker.ts `onFirmware`),
 *    is success — also for a device failed `timeout` (silent past a phase, e.g. a long reboot,
 *    then back on the new version: its timeline keeps the timeout before the success); `success`
 *    with another version is `failed: install_error`.
 *  - **Waves.** Devices are numbered into waves at creation (first wave `first_wave_size`, then
 *    `wave_size` each). Wave w may start when wave w−1 is settled: every device final, or
 *    waiting for its offline gateway (it starts when the gateway reconnects, until the deadline).
 *    A wave's failure rate is failed / (success + failed); when it passes the batch's threshold
 *    (as soon as the failures alone make that certain, or when the wave settles) the batch pauses
 *    by itself (`failure_rate`) and starts nothing more until an operator resumes it (which
 *    accepts that wave). A batch whose devices are all final is `finished`; a retry runs it again.
 *
 * Every change publishes `{companyId, batchId, deviceIds}` to the `onChange` listeners (the live
 * channel `upgrade`, devices/ota-live.ts). Time: `now` (injectable); the sweep runs on every
 * instance (the scheduler's local task `upgrade-sweep`, app.ts), every step of it a conditional
 * UPDATE or a transaction under the batch row's lock, so instances sweeping together change
 * each row once.
 */
import { hostname } from 'node:os';
import {
  ErrorCode,
  type OtaPhase,
  type OtaProgressPayload,
  type OtaUpgradeParams,
  otaProgressPayload,
  otaUpgradeRefusal,
  type ReplyPayload,
  type UpgradeFailReason,
  type UpgradePhaseTimeouts,
} from '@ess/contract';
import { and, asc, desc, eq, inArray, lt, ne, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import {
  device,
  firmwarePackage,
  type UpgradeTimelineRecord,
  upgradeBatch,
  upgradeDevice,
} from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import { NO_REPLY, newCommandId, STOPPING } from './commands';
import type { DirectoryEntry } from './device-directory';
import type { DeviceService } from './device-service';
import type { UpgradeBatchRecord, UpgradeDeviceRecord } from './ota-rows';

/** States a device is in once its command went out and before it is final. */
export const STARTED_STATES = [
  'sent',
  'downloading',
  'downloaded',
  'verifying',
  'installing',
  'rebooting',
] as const;
/** Final states (contract UPGRADE_FINAL_STATES). */
export const FINAL_STATES = ['success', 'failed', 'cancelled'] as const;
/** States that hold one of the download slots (batch `max_concurrent_downloads`, OTA_MAX_DOWNLOADS). */
export const DOWNLOAD_SLOT_STATES = ['sent', 'downloading'] as const;

/** Order of the states a device moves through (final states rank last). */
const RANK: Record<string, number> = {
  waiting: 0,
  sent: 1,
  downloading: 2,
  downloaded: 3,
  verifying: 4,
  installing: 5,
  rebooting: 6,
  success: 7,
  failed: 7,
  cancelled: 7,
};

/** Which phase timeout bounds a started state (`downloaded` and `verifying` share one). */
const TIMEOUT_OF: Record<string, keyof UpgradePhaseTimeouts> = {
  sent: 'sent',
  downloading: 'downloading',
  downloaded: 'verifying',
  verifying: 'verifying',
  installing: 'installing',
  rebooting: 'rebooting',
};

/** Default of {@link OtaBatchOptions.maxDownloads} (OTA_MAX_DOWNLOADS). */
export const DEFAULT_MAX_DOWNLOADS = 20;
/** Default of {@link OtaBatchOptions.urlTtlMs}: the download URL lives as long as the longest download phase. */
export const DEFAULT_URL_TTL_MS = 24 * 3600_000;

/**
 * Makes the device's download URL of `packageId` (absolute `http(s)://…/ota/<token>`), bound to
 * `deviceId` and valid until `expiresAt` (ms). Supplied by the package storage (app.ts).
 */
export type DownloadUrlMint = (input: {
  packageId: number;
  deviceId: number;
  expiresAt: number;
}) => string | Promise<string>;

export interface OtaBatchOptions {
  /** This instance in `started_by` (default `host:pid:random`). */
  instanceId?: string;
  /** The clock (ms since the epoch) of every deadline and timeline time; tests inject one. */
  now?: () => number;
  /** Devices this instance has in `sent`/`downloading` at once, all batches (OTA_MAX_DOWNLOADS; 20). */
  maxDownloads?: number;
  /** How long an `ota_upgrade` download URL is valid (ms; 24 h). */
  urlTtlMs?: number;
  /** How often the scheduler runs {@link OtaBatchService.sweep} (ms; 5 s). */
  sweepEveryMs?: number;
}

/** A change of a batch (its row, and the devices named) for the live channel. */
export interface OtaChange {
  companyId: number;
  batchId: number;
  deviceIds: number[];
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** What a transition writes on a row (null: nothing changes). */
interface Move {
  state: string;
  percent?: number | null;
  reason?: UpgradeFailReason | null;
  detail?: string | null;
  /** Add a timeline entry (a new state); false for a percent update within `downloading`. */
  entry: boolean;
}

export class OtaBatchService {
  readonly instanceId: string;
  private devices: DeviceService | null = null;
  private unlisten: Array<() => void> = [];
  private readonly listeners = new Set<(change: OtaChange) => void>();
  private readonly running = new Set<Promise<unknown>>();
  /** Claims of this process, one after another (its download slots are counted under it). */
  private startChain: Promise<void> = Promise.resolve();
  private startQueued = false;
  /** Kicks of this process, one after another; one waiting at most. */
  private kickChain: Promise<void> = Promise.resolve();
  private kickQueued = false;
  private closed = false;
  private readonly now: () => number;
  readonly maxDownloads: number;
  /** See {@link OtaBatchOptions.sweepEveryMs}. */
  readonly sweepEveryMs: number;
  private readonly urlTtlMs: number;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly mintUrl: DownloadUrlMint,
    options: OtaBatchOptions = {},
  ) {
    this.instanceId =
      options.instanceId ?? `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
    this.now = options.now ?? Date.now;
    this.maxDownloads = options.maxDownloads ?? DEFAULT_MAX_DOWNLOADS;
    this.urlTtlMs = options.urlTtlMs ?? DEFAULT_URL_TTL_MS;
    this.sweepEveryMs = options.sweepEveryMs ?? 5000;
  }

  /** The engine's clock (ms since the epoch): the API's deadline checks use the same. */
  get clock(): () => number {
    return this.now;
  }

  /**
   * Starts (or re-targets) the engine on `devices`: takes `ota` progress events, `ota_upgrade`
   * replies meant for other instances, births reporting firmware, and gateways coming online
   * (their waiting devices start); then sweeps once (a restart carries on where it was).
   */
  start(devices: DeviceService | null): void {
    this.detach();
    this.devices = devices;
    this.closed = false;
    if (devices) {
      this.unlisten.push(devices.ingest.onOta((gateway, payload) => this.handleProgress(gateway, payload)));
      this.unlisten.push(
        devices.commands.onUnmatchedReply((reply) => this.background(this.settleReply(reply))),
      );
      this.unlisten.push(
        devices.tracker.onFirmware((reports) => this.background(this.firmwareReported(reports))),
      );
      this.unlisten.push(
        devices.listen({
          onStatus: (change) => {
            if (change.online) this.kick();
          },
        }),
      );
    }
    this.background(this.sweep());
  }

  stop(): void {
    this.closed = true;
    this.detach();
  }

  private detach(): void {
    for (const off of this.unlisten) off();
    this.unlisten = [];
  }

  /** Resolves once every background task started so far has finished (tests). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Calls `listener` with every change of a batch; answers the unsubscribe. */
  onChange(listener: (change: OtaChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something may have become due (a batch made, resumed, retried; a gateway online): advance and start, in the background. */
  kick(): void {
    if (this.closed || this.kickQueued) return;
    // Kicks while one waits for its turn join it (200 gateways reconnecting make one pass, not 200).
    this.kickQueued = true;
    const run = this.kickChain.then(async () => {
      this.kickQueued = false;
      await this.advanceAll();
      await this.startDue();
    });
    this.kickChain = run.catch(() => undefined);
    this.background(run);
  }

  /**
   * What the sweep does, every few seconds on every instance (public so that tests run it after
   * moving the clock): fails started devices past their phase deadline (`timeout`) and waiting
   * devices past the batch deadline (`deadline`), advances waves (or pauses, or finishes), and
   * starts what is due.
   */
  async sweep(): Promise<void> {
    // Started and waiting devices belong to batches not finished: with none, nothing to do (one
    // indexed probe every few seconds per instance instead of the three statements below).
    const [open] = await this.db
      .select({ id: upgradeBatch.id })
      .from(upgradeBatch)
      .where(ne(upgradeBatch.state, 'finished'))
      .limit(1);
    if (!open) return;
    await this.expire();
    await this.advanceAll();
    await this.startDue();
  }

  // ---- deadlines ------------------------------------------------------------------------------

  private async expire(): Promise<void> {
    const now = new Date(this.now());
    const at = now.toISOString();
    const d = upgradeDevice;
    const timedOut = await this.db
      .update(d)
      .set({
        state: 'failed',
        reason: 'timeout',
        detail: sql`${d.state}`,
        phaseDeadlineAt: null,
        updatedAt: now,
        timeline: sql`${d.timeline} || jsonb_build_array(jsonb_build_object('state', 'failed', 'at', ${at}::text, 'percent', ${d.percent}, 'reason', 'timeout', 'detail', ${d.state}))`,
      })
      .where(and(inArray(d.state, [...STARTED_STATES]), lt(d.phaseDeadlineAt, now)))
      .returning({ batchId: d.batchId, deviceId: d.deviceId, state: d.state, detail: d.detail });
    for (const r of timedOut)
      this.log.warn({ batchId: r.batchId, deviceId: r.deviceId, silentIn: r.detail }, 'upgrade timed out');
    const late = await this.db
      .update(d)
      .set({
        state: 'failed',
        reason: 'deadline',
        detail: null,
        updatedAt: now,
        timeline: sql`${d.timeline} || jsonb_build_array(jsonb_build_object('state', 'failed', 'at', ${at}::text, 'percent', NULL, 'reason', 'deadline', 'detail', NULL))`,
      })
      .where(
        and(
          eq(d.state, 'waiting'),
          inArray(
            d.batchId,
            this.db
              .select({ id: upgradeBatch.id })
              .from(upgradeBatch)
              .where(and(ne(upgradeBatch.state, 'finished'), lt(upgradeBatch.deadlineAt, now))),
          ),
        ),
      )
      .returning({ batchId: d.batchId, deviceId: d.deviceId });
    await this.publishRows([...timedOut, ...late]);
  }

  // ---- waves ----------------------------------------------------------------------------------

  private async advanceAll(): Promise<void> {
    const open = await this.db
      .select({ id: upgradeBatch.id })
      .from(upgradeBatch)
      .where(ne(upgradeBatch.state, 'finished'))
      .orderBy(asc(upgradeBatch.id));
    for (const b of open) await this.advance(b.id);
  }

  /**
   * Moves batch `batchId` on, under its row's lock: finished when every device is final; else,
   * while running, the current wave is judged (pause on its failure rate) and, once settled, the
   * next wave may start. Answers whether the batch changed.
   */
  async advance(batchId: number): Promise<boolean> {
    const changed = await this.db.transaction(async (tx) => {
      const [batch] = await tx.select().from(upgradeBatch).where(eq(upgradeBatch.id, batchId)).for('update');
      if (!batch || batch.state === 'finished') return null;
      const stats = await waveStats(tx, batchId);
      const now = new Date(this.now());
      if (stats.every((w) => w.total === w.final)) {
        await tx
          .update(upgradeBatch)
          .set({ state: 'finished', pausedReason: null, finishedAt: now, updatedAt: now })
          .where(eq(upgradeBatch.id, batchId));
        return { ...batch, state: 'finished' };
      }
      if (batch.state !== 'running') return null;
      let wave = Math.max(1, batch.currentWave);
      let passed = batch.passedWave;
      for (;;) {
        const w = stats.find((s) => s.wave === wave) ?? emptyWave(wave);
        const countable = w.total - w.cancelled;
        const decided = w.success + w.failed;
        const settled = w.started === 0 && w.waitingOnline === 0;
        const threshold = batch.failureRateThresholdPct;
        if (
          wave > passed &&
          ((w.failed * 100 > threshold * countable && countable > 0) ||
            (settled && decided > 0 && w.failed * 100 > threshold * decided))
        ) {
          await tx
            .update(upgradeBatch)
            .set({
              state: 'paused',
              pausedReason: 'failure_rate',
              currentWave: wave,
              passedWave: passed,
              updatedAt: now,
            })
            .where(eq(upgradeBatch.id, batchId));
          this.log.warn(
            { batchId, wave, failed: w.failed, decided, thresholdPct: threshold },
            'upgrade batch paused: a wave’s failure rate passed the threshold',
          );
          return { ...batch, state: 'paused' };
        }
        if (!settled) break;
        passed = Math.max(passed, wave);
        if (wave >= batch.waveCount) break;
        wave++;
      }
      if (wave === batch.currentWave && passed === batch.passedWave) return null;
      await tx
        .update(upgradeBatch)
        .set({ currentWave: wave, passedWave: passed, updatedAt: now })
        .where(eq(upgradeBatch.id, batchId));
      if (wave !== batch.currentWave) this.log.info({ batchId, wave }, 'upgrade wave started');
      return batch;
    });
    if (changed) this.emit({ companyId: changed.companyId, batchId, deviceIds: [] });
    return changed !== null;
  }

  // ---- starting devices -----------------------------------------------------------------------

  /** Claims and sends what is due (one run at a time in this process; a request while one runs queues one more). */
  startDue(): Promise<void> {
    if (this.startQueued) return this.startChain;
    this.startQueued = true;
    const run = this.startChain.then(async () => {
      this.startQueued = false;
      if (this.closed || !this.devices) return;
      const batches = await this.db
        .select({ id: upgradeBatch.id })
        .from(upgradeBatch)
        .where(eq(upgradeBatch.state, 'running'))
        .orderBy(asc(upgradeBatch.id));
      for (const b of batches) {
        const claimed = await this.claim(b.id);
        for (const c of claimed) this.background(this.send(c));
      }
    });
    this.startChain = run.catch((err: unknown) => {
      if (!this.closed) this.log.error({ err }, 'upgrade devices could not be started');
    });
    return this.startChain;
  }

  /** Claims batch `batchId`'s due devices within both download limits (see the module comment). */
  private async claim(batchId: number): Promise<Claimed[]> {
    const devices = this.devices;
    if (!devices) return [];
    const now = new Date(this.now());
    const claimed = await this.db.transaction(async (tx) => {
      const [batch] = await tx.select().from(upgradeBatch).where(eq(upgradeBatch.id, batchId)).for('update');
      if (batch?.state !== 'running' || batch.currentWave < 1) return [];
      const d = upgradeDevice;
      const [slots] = rowsOf<{ batch: number; mine: number }>(
        await tx.execute(sql`
          SELECT count(*) FILTER (WHERE batch_id = ${batchId})::int AS batch,
                 count(*) FILTER (WHERE started_by = ${this.instanceId})::int AS mine
          FROM upgrade_device WHERE state IN ('sent', 'downloading')`),
      );
      const free = Math.min(
        batch.maxConcurrentDownloads - Number(slots?.batch ?? 0),
        this.maxDownloads - Number(slots?.mine ?? 0),
      );
      if (free <= 0) return [];
      const gateway = sql`coalesce(${device.gatewayId}, ${device.id})`;
      const due = await tx
        .select({ id: d.id, gatewayId: sql<number>`${gateway}` })
        .from(d)
        .innerJoin(device, eq(device.id, d.deviceId))
        .where(
          and(
            eq(d.batchId, batchId),
            eq(d.state, 'waiting'),
            sql`${d.wave} <= ${batch.currentWave}`,
            sql`EXISTS (SELECT 1 FROM device g WHERE g.id = ${gateway} AND g.online)`,
          ),
        )
        .orderBy(asc(d.wave), asc(d.id))
        .limit(free * 2);
      const timeouts = batch.phaseTimeoutsS as UpgradePhaseTimeouts;
      const deadline = new Date(now.getTime() + timeouts.sent * 1000);
      const out: Claimed[] = [];
      for (const row of due) {
        if (out.length >= free) break;
        // This instance sends through its own broker session: only to gateways it holds online.
        if (!devices.tracker.isOnline(Number(row.gatewayId))) continue;
        const commandId = newCommandId();
        const [marked] = await tx
          .update(d)
          .set({
            state: 'sent',
            commandId,
            startedBy: this.instanceId,
            sentAt: now,
            percent: null,
            phaseDeadlineAt: deadline,
            updatedAt: now,
            // The server's note on a retry's start: which attempt it is.
            timeline: sql`${d.timeline} || jsonb_build_array(jsonb_build_object('state', 'sent', 'at', ${now.toISOString()}::text, 'percent', NULL, 'reason', NULL, 'detail', CASE WHEN ${d.attempt} > 1 THEN 'attempt ' || ${d.attempt} END))`,
          })
          .where(and(eq(d.id, row.id), eq(d.state, 'waiting')))
          .returning();
        if (marked) out.push({ row: marked, batch, commandId });
      }
      return out;
    });
    if (claimed.length > 0) {
      this.emit({
        companyId: claimed[0]!.batch.companyId,
        batchId,
        deviceIds: claimed.map((c) => c.row.deviceId),
      });
    }
    return claimed;
  }

  /** Sends the claimed row's `ota_upgrade` and settles what its outcome says. Never throws. */
  private async send(claimed: Claimed): Promise<void> {
    const { row, batch, commandId } = claimed;
    const devices = this.devices;
    const context = { batchId: batch.id, deviceId: row.deviceId, attempt: row.attempt };
    try {
      const [facts] = await this.db
        .select({
          sn: device.sn,
          type: device.type,
          gatewayId: device.gatewayId,
          packageId: firmwarePackage.id,
          version: firmwarePackage.version,
          sizeBytes: firmwarePackage.sizeBytes,
          sha256: firmwarePackage.sha256,
        })
        .from(device)
        .innerJoin(firmwarePackage, eq(firmwarePackage.id, batch.packageId))
        .where(eq(device.id, row.deviceId));
      if (!facts || !devices) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
      if (facts.sha256 === null)
        throw new ApiError(ErrorCode.INSTALL_PACKAGE_NOT_FOUND, {}, 'package not complete');
      const gatewayId = facts.gatewayId ?? row.deviceId;
      const gateway = devices.directory.byDeviceId(gatewayId);
      if (!gateway) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
      const expiresAt = this.now() + this.urlTtlMs;
      const params: OtaUpgradeParams = {
        batchId: batch.id,
        packageId: facts.packageId,
        version: facts.version,
        targetDeviceSn: facts.sn,
        deviceType: facts.type as OtaUpgradeParams['deviceType'],
        size: facts.sizeBytes,
        sha256: facts.sha256,
        url: await this.mintUrl({ packageId: facts.packageId, deviceId: row.deviceId, expiresAt }),
        expiresAt,
      };
      this.log.info({ ...context, sn: facts.sn, gateway: gateway.sn }, 'ota_upgrade sent');
      const reply = await devices.commands.send(gateway.sn, 'ota_upgrade', params, { id: commandId });
      await this.settleReply(reply);
    } catch (err) {
      const detail = err instanceof ApiError ? err.detail : undefined;
      if (detail === NO_REPLY || detail === STOPPING || detail === 'abandoned') {
        // No answer (yet): the progress events or the `sent` deadline decide.
        return;
      }
      if (
        err instanceof ApiError &&
        (err.code === ErrorCode.DEVICE_OFFLINE || err.code === ErrorCode.DEVICE_NOT_FOUND) &&
        detail === undefined
      ) {
        // Refused before it was published: it never left, so it may go out later in this attempt.
        await this.unclaim(row.id, commandId);
        return;
      }
      this.log.warn({ ...context, err: (err as Error).message }, 'ota_upgrade could not be sent');
      await this.moveById(row.id, commandId, () => ({
        state: 'failed',
        reason: 'send_error',
        detail: (detail ?? (err as Error).message).slice(0, 500),
        entry: true,
      }));
    }
  }

  /** The command never left: back to `waiting` in the same attempt (only while still `sent` with that command). */
  private async unclaim(rowId: number, commandId: string): Promise<void> {
    const d = upgradeDevice;
    const now = new Date(this.now());
    const [row] = await this.db
      .update(d)
      .set({
        state: 'waiting',
        commandId: null,
        startedBy: null,
        sentAt: null,
        phaseDeadlineAt: null,
        updatedAt: now,
        timeline: sql`${d.timeline} || ${JSON.stringify([entry('waiting', now, null, null, 'gateway offline')])}::jsonb`,
      })
      .where(and(eq(d.id, rowId), eq(d.commandId, commandId), eq(d.state, 'sent')))
      .returning({ batchId: d.batchId, deviceId: d.deviceId });
    if (row) await this.publishRows([row]);
  }

  // ---- what devices say -------------------------------------------------------------------------

  /** An `ota_upgrade` reply (this instance's command, or another's): settles the row of its command id. */
  async settleReply(reply: ReplyPayload): Promise<void> {
    const [row] = await this.db
      .select({ id: upgradeDevice.id })
      .from(upgradeDevice)
      .where(eq(upgradeDevice.commandId, reply.id));
    if (!row) return;
    if (reply.ok) {
      await this.moveById(row.id, reply.id, (r) =>
        r.state === 'sent' ? { state: 'downloading', percent: 0, entry: true } : null,
      );
      return;
    }
    const refusal = otaUpgradeRefusal.safeParse(reply.result);
    await this.moveById(row.id, reply.id, () => ({
      state: 'failed',
      reason: refusal.success ? refusal.data.reason : 'install_error',
      detail: reply.error?.slice(0, 500) ?? null,
      entry: true,
    }));
  }

  /**
   * A progress event on `ess/v1/<gateway>/ota`: resolves once stored or dropped (malformed, about
   * a device not behind this gateway, not the device's current upgrade); rejects when the
   * database failed (the broker delivers it again).
   */
  async handleProgress(gateway: DirectoryEntry, payload: Buffer): Promise<void> {
    let event: OtaProgressPayload;
    try {
      const parsed = otaProgressPayload.safeParse(JSON.parse(payload.toString('utf8')));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid');
      event = parsed.data;
    } catch (err) {
      this.log.warn({ sn: gateway.sn, err: (err as Error).message }, 'malformed ota event dropped');
      return;
    }
    const target = await this.devices?.directory.lookup(event.deviceSn);
    if (!target || target.gatewayId !== gateway.deviceId) {
      this.log.warn(
        { sn: gateway.sn, deviceSn: event.deviceSn },
        'ota event about a device not behind this gateway dropped',
      );
      return;
    }
    const [row] = await this.db
      .select({ id: upgradeDevice.id, packageId: upgradeBatch.packageId })
      .from(upgradeDevice)
      .innerJoin(upgradeBatch, eq(upgradeBatch.id, upgradeDevice.batchId))
      .where(and(eq(upgradeDevice.batchId, event.batchId), eq(upgradeDevice.deviceId, target.deviceId)));
    if (!row || row.packageId !== event.packageId) {
      this.log.debug({ sn: gateway.sn, batchId: event.batchId }, 'ota event of no current upgrade ignored');
      return;
    }
    // A `success` may come after the row timed out (a reboot longer than its phase timeout):
    // with the batch's version it is a success; anything else leaves the timeout as it is.
    await this.moveById(
      row.id,
      null,
      (r) => {
        const move = phaseMove(r, event.phase, event);
        return r.state === 'failed' && move?.state !== 'success' ? null : move;
      },
      { afterTimeout: event.phase === 'success' },
    );
  }

  /**
   * Births reported firmware versions (connection-tracker.ts): a started device now running its
   * batch's version is upgraded — and so is one that was failed `timeout` (it went silent in a
   * phase, e.g. a long reboot, and then came back running the version: the upgrade did happen;
   * its timeline keeps the timeout before the success).
   */
  async firmwareReported(reports: ReadonlyArray<{ deviceId: number; firmware: string }>): Promise<void> {
    for (const r of reports) {
      const [row] = await this.db
        .select({ id: upgradeDevice.id })
        .from(upgradeDevice)
        .where(
          and(
            eq(upgradeDevice.deviceId, r.deviceId),
            or(
              inArray(upgradeDevice.state, [...STARTED_STATES]),
              and(eq(upgradeDevice.state, 'failed'), eq(upgradeDevice.reason, 'timeout')),
            ),
            eq(upgradeDevice.toVersion, r.firmware),
          ),
        )
        .orderBy(desc(upgradeDevice.id))
        .limit(1);
      if (row)
        await this.moveById(
          row.id,
          null,
          () => ({ state: 'success', percent: 100, detail: null, entry: true }),
          { afterTimeout: true },
        );
    }
  }

  /**
   * Moves row `rowId` (locked) as `decide` says — only while started and, with `commandId`,
   * while that is its command; publishes it and, when it became final, moves its batch on.
   */
  private async moveById(
    rowId: number,
    commandId: string | null,
    decide: (row: UpgradeDeviceRecord) => Move | null,
    options: { afterTimeout?: boolean } = {},
  ): Promise<void> {
    const now = new Date(this.now());
    const moved = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(upgradeDevice).where(eq(upgradeDevice.id, rowId)).for('update');
      if (!row) return null;
      const timedOut = row.state === 'failed' && row.reason === 'timeout';
      if (!(STARTED_STATES as readonly string[]).includes(row.state) && !(options.afterTimeout && timedOut)) {
        return null;
      }
      if (commandId !== null && row.commandId !== commandId) return null;
      const move = decide(row);
      if (!move) return null;
      const [batch] = await tx
        .select({ companyId: upgradeBatch.companyId, timeouts: upgradeBatch.phaseTimeoutsS })
        .from(upgradeBatch)
        .where(eq(upgradeBatch.id, row.batchId));
      if (!batch) return null;
      const final = (FINAL_STATES as readonly string[]).includes(move.state);
      const timeouts = batch.timeouts as UpgradePhaseTimeouts;
      const newKey = TIMEOUT_OF[move.state];
      const phaseDeadlineAt = final
        ? null
        : newKey === TIMEOUT_OF[row.state] && row.phaseDeadlineAt
          ? row.phaseDeadlineAt
          : new Date(now.getTime() + (timeouts[newKey!] ?? 60) * 1000);
      const percent = move.percent === undefined ? row.percent : move.percent;
      const reason = move.reason ?? null;
      const detail = move.detail ?? null;
      const timeline = move.entry
        ? [...(row.timeline as UpgradeTimelineRecord[]), entry(move.state, now, percent, reason, detail)]
        : row.timeline;
      await tx
        .update(upgradeDevice)
        .set({ state: move.state, percent, reason, detail, phaseDeadlineAt, updatedAt: now, timeline })
        .where(eq(upgradeDevice.id, rowId));
      return {
        batchId: row.batchId,
        deviceId: row.deviceId,
        companyId: batch.companyId,
        final,
        state: move.state,
      };
    });
    if (!moved) return;
    if (moved.final)
      this.log.info(
        { batchId: moved.batchId, deviceId: moved.deviceId, state: moved.state },
        'upgrade device final',
      );
    this.emit({ companyId: moved.companyId, batchId: moved.batchId, deviceIds: [moved.deviceId] });
    // A slot freed, or a device ended: the batch may move on, and more may start.
    if (moved.final || moved.state === 'downloaded') this.kick();
  }

  // ---- publishing -----------------------------------------------------------------------------

  private emit(change: OtaChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.log.warn({ err }, 'upgrade change listener failed');
      }
    }
  }

  /** Publishes changed rows (grouped by batch) and moves their batches on. */
  private async publishRows(rows: ReadonlyArray<{ batchId: number; deviceId: number }>): Promise<void> {
    if (rows.length === 0) return;
    const byBatch = new Map<number, number[]>();
    for (const r of rows) byBatch.set(r.batchId, [...(byBatch.get(r.batchId) ?? []), r.deviceId]);
    const companies = await this.db
      .select({ id: upgradeBatch.id, companyId: upgradeBatch.companyId })
      .from(upgradeBatch)
      .where(inArray(upgradeBatch.id, [...byBatch.keys()]));
    for (const c of companies)
      this.emit({ companyId: c.companyId, batchId: c.id, deviceIds: byBatch.get(c.id) ?? [] });
  }

  /** A batch the API changed (created, paused, resumed, retried, cancelled): published, then moved on. */
  changed(companyId: number, batchId: number, deviceIds: number[] = []): void {
    this.emit({ companyId, batchId, deviceIds });
    this.kick();
  }

  private background(task: Promise<unknown>): void {
    const tracked = task.catch((err: unknown) => {
      if (!this.closed) this.log.error({ err }, 'upgrade batch work failed');
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }
}

interface Claimed {
  row: UpgradeDeviceRecord;
  batch: UpgradeBatchRecord;
  commandId: string;
}

/** A timeline entry. */
function entry(
  state: string,
  at: Date,
  percent: number | null,
  reason: string | null,
  detail: string | null,
): UpgradeTimelineRecord {
  return { state, at: at.toISOString(), percent, reason, detail };
}

/**
 * What a device's progress event does to its started row: only forward in phase order; a
 * repeated `downloading` updates the percent (no timeline entry); `success` needs the batch's
 * version (else `failed: install_error`); `failed` carries the device's reason and words.
 */
export function phaseMove(
  row: Pick<UpgradeDeviceRecord, 'state' | 'percent' | 'toVersion'>,
  phase: OtaPhase,
  event: Pick<OtaProgressPayload, 'percent' | 'version' | 'reason' | 'detail'>,
): Move | null {
  if (phase === 'failed')
    return {
      state: 'failed',
      reason: event.reason ?? 'install_error',
      detail: event.detail ?? null,
      entry: true,
    };
  if (phase === 'success') {
    if (event.version === row.toVersion) return { state: 'success', percent: 100, detail: null, entry: true };
    return {
      state: 'failed',
      reason: 'install_error',
      detail: `runs ${event.version ?? 'an unknown version'} after the upgrade, not ${row.toVersion}`,
      entry: true,
    };
  }
  const from = RANK[row.state] ?? 0;
  const to = RANK[phase] ?? 0;
  if (phase === 'downloading' && row.state === 'downloading') {
    const percent = event.percent ?? row.percent;
    return percent === row.percent ? null : { state: 'downloading', percent, entry: false };
  }
  if (to <= from) return null;
  const percent = phase === 'downloading' ? (event.percent ?? 0) : 100;
  return { state: phase, percent, detail: event.detail ?? null, entry: true };
}

/** Per wave of a batch: devices in all, final, failed, succeeded, cancelled, started, waiting with the gateway online. */
interface WaveStats {
  wave: number;
  total: number;
  final: number;
  failed: number;
  success: number;
  cancelled: number;
  started: number;
  waitingOnline: number;
}

const emptyWave = (wave: number): WaveStats => ({
  wave,
  total: 0,
  final: 0,
  failed: 0,
  success: 0,
  cancelled: 0,
  started: 0,
  waitingOnline: 0,
});

async function waveStats(tx: Tx, batchId: number): Promise<WaveStats[]> {
  const rows = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`
      SELECT d.wave,
             count(*)::int AS total,
             count(*) FILTER (WHERE d.state IN ('success', 'failed', 'cancelled'))::int AS final,
             count(*) FILTER (WHERE d.state = 'failed')::int AS failed,
             count(*) FILTER (WHERE d.state = 'success')::int AS success,
             count(*) FILTER (WHERE d.state = 'cancelled')::int AS cancelled,
             count(*) FILTER (WHERE d.state NOT IN ('waiting', 'success', 'failed', 'cancelled'))::int AS started,
             count(*) FILTER (WHERE d.state = 'waiting' AND g.online)::int AS waiting_online
      FROM upgrade_device d
      JOIN device x ON x.id = d.device_id
      LEFT JOIN device g ON g.id = coalesce(x.gateway_id, x.id)
      WHERE d.batch_id = ${batchId}
      GROUP BY d.wave`),
  );
  return rows.map((r) => ({
    wave: Number(r.wave),
    total: Number(r.total),
    final: Number(r.final),
    failed: Number(r.failed),
    success: Number(r.success),
    cancelled: Number(r.cancelled),
    started: Number(r.started),
    waitingOnline: Number(r.waiting_online),
  }));
}
