/**
 * Upgrade batches for the `/api-bms/upgrade/*` calls (issue 16 item 3; contract api/firmware.ts):
 * which devices a package could go to and why not, making a batch, the records and their
 * detail, and the operator's retry / cancel / pause / resume. The rollout itself — waves,
 * limits, deadlines, what devices report — is devices/ota-batches.ts; this module changes rows
 * only in transactions under the batch row's lock and then tells the engine (`changed`).
 *
 * Rules, in check order (errors as the contract names them):
 *  - a package is usable when it is `published` and the caller's scope holds its company (scope
 *    `all`: any company's), or it is the platform's (else 3061 — also for a missing one);
 *  - a device's exclusion (first that applies): `incompatible_type`, `incompatible_model` (the
 *    package names models and the device's is not one of them), `same_version`,
 *    `in_running_batch` (not final in another batch), `no_gateway`, `offline` (the gateway is
 *    offline and the batch does not let offline devices wait);
 *  - create: deadline in the future (7042), every device in scope and eligible now (7039 naming
 *    the first that is not: `{sn}`, `{reason}` translated), devices numbered into waves in the
 *    order given; batch number `UP<yyyymmdd>-<id>` (UTC date);
 *  - retry: the batch's failed devices (all or the named ones) that are not in another running
 *    batch → waiting, next attempt (7040 none; 3061 the package is no longer published; 7042 the
 *    deadline passed: nothing would start); a finished batch runs again;
 *  - cancel: waiting devices (all or the named ones) → cancelled (7038 finished; 7041 none);
 *  - pause: running → paused (operator) (7038 otherwise); resume: paused → running (7038
 *    otherwise); resuming a batch the failure rate paused accepts that wave.
 * A batch or device outside the caller's scope answers 7037 / 3030 as if absent.
 */
import {
  type DeviceType,
  ErrorCode,
  type Lang,
  UPGRADE_BATCH_STATE_LABELS,
  UPGRADE_EXCLUSION_LABELS,
  type UpgradeBatchRow,
  type UpgradeBatchState,
  type UpgradeCandidate,
  type UpgradeDetail,
  type UpgradeExclusion,
  type UpgradePhaseTimeouts,
  type upgradeCandidatesRequest,
  type upgradeCreateRequest,
  type upgradePageListRequest,
} from '@ess/contract';
import { and, asc, eq, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { type CompanyScope, inScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import {
  company,
  device,
  employee,
  firmwarePackage,
  site,
  type UpgradeTimelineRecord,
  upgradeBatch,
  upgradeDevice,
} from '../../core/db/schema';
import { ApiError } from '../../core/http/api-error';
import type { OtaBatchService } from '../../devices/ota-batches';
import { readBatchRows, readDeviceRows } from '../../devices/ota-rows';

type CandidatesRequest = z.infer<typeof upgradeCandidatesRequest>;
type CreateRequest = z.infer<typeof upgradeCreateRequest>;
type PageListRequest = z.infer<typeof upgradePageListRequest>;

/** Most rows `candidates` answers. */
const CANDIDATES_LIMIT = 2000;

type PackageRecord = typeof firmwarePackage.$inferSelect;

interface DeviceFacts {
  deviceId: number;
  sn: string;
  type: string;
  model: string | null;
  firmware: string | null;
  siteId: number;
  siteName: string;
  companyName: string;
  /** The gateway it is reached through exists. */
  hasGateway: boolean;
  online: boolean;
  /** Not final in another batch. */
  busy: boolean;
}

/** Why `d` cannot take `pkg` (null: it can); the first rule that applies (module comment). */
export function exclusionOf(
  d: DeviceFacts,
  pkg: Pick<PackageRecord, 'deviceType' | 'models' | 'version'>,
  includeOffline: boolean,
): UpgradeExclusion | null {
  if (d.type !== pkg.deviceType) return 'incompatible_type';
  const models = (pkg.models as string[] | null) ?? [];
  if (models.length > 0 && (d.model === null || !models.includes(d.model))) return 'incompatible_model';
  if (d.firmware !== null && d.firmware === pkg.version) return 'same_version';
  if (d.busy) return 'in_running_batch';
  if (!d.hasGateway) return 'no_gateway';
  if (!d.online && !includeOffline) return 'offline';
  return null;
}

const gatewayRow = alias(device, 'gw');

export class UpgradeService {
  constructor(
    private readonly db: Db,
    private readonly engine: OtaBatchService,
    private readonly now: () => number = Date.now,
  ) {}

  /** The package if usable by `scope` (published; the scope's or the platform's); 3061 otherwise. */
  async usablePackage(scope: CompanyScope, packageId: number): Promise<PackageRecord> {
    const [row] = await this.db
      .select({ pkg: firmwarePackage })
      .from(firmwarePackage)
      .innerJoin(company, eq(company.id, firmwarePackage.companyId))
      .where(
        and(
          eq(firmwarePackage.id, packageId),
          // `inScope` is no condition for scope `all`: then every package is the scope's.
          scope.all ? undefined : or(inScope(scope, firmwarePackage.companyId), eq(company.type, 'platform')),
        ),
      );
    if (row?.pkg.state !== 'published') throw new ApiError(ErrorCode.NO_UPGRADE_FIRMWARE);
    return row.pkg;
  }

  /** Facts of the devices matching `where`, in `scope`, by site and SN. */
  private async deviceFacts(
    scope: CompanyScope,
    where: SQL | undefined,
    limit?: number,
    db: Pick<Db, 'select'> = this.db,
  ): Promise<DeviceFacts[]> {
    const busy = sql<boolean>`EXISTS (SELECT 1 FROM upgrade_device u WHERE u.device_id = ${device.id}
      AND u.state NOT IN ('success', 'failed', 'cancelled'))`;
    let query = db
      .select({
        deviceId: device.id,
        sn: device.sn,
        type: device.type,
        model: device.model,
        firmware: device.firmwareVersion,
        siteId: site.id,
        siteName: site.name,
        companyName: company.name,
        gatewayId: gatewayRow.id,
        online: gatewayRow.online,
        busy,
      })
      .from(device)
      .innerJoin(site, eq(site.id, device.siteId))
      .innerJoin(company, eq(company.id, device.companyId))
      .leftJoin(gatewayRow, eq(gatewayRow.id, sql`coalesce(${device.gatewayId}, ${device.id})`))
      .where(and(inScope(scope, device.companyId), where))
      .orderBy(asc(site.name), asc(device.sn))
      .$dynamic();
    if (limit !== undefined) query = query.limit(limit);
    const rows = await query;
    return rows.map((r) => ({
      deviceId: r.deviceId,
      sn: r.sn,
      type: r.type,
      model: r.model,
      firmware: r.firmware,
      siteId: r.siteId,
      siteName: r.siteName,
      companyName: r.companyName,
      hasGateway: r.gatewayId !== null,
      online: r.online === true,
      busy: r.busy === true,
    }));
  }

  /** `upgrade/candidates`: the package's type's devices in scope, filtered, each with its exclusion. */
  async candidates(scope: CompanyScope, req: CandidatesRequest) {
    const pkg = await this.usablePackage(scope, req.packageId);
    const kw = req.keyword?.trim();
    const facts = await this.deviceFacts(
      scope,
      and(
        eq(device.type, pkg.deviceType),
        req.siteId ? eq(device.siteId, req.siteId) : undefined,
        req.companyId ? eq(device.companyId, req.companyId) : undefined,
        req.model ? eq(device.model, req.model) : undefined,
        req.currentVersion ? eq(device.firmwareVersion, req.currentVersion) : undefined,
        kw ? or(ilike(device.sn, likePattern(kw)), ilike(site.name, likePattern(kw))) : undefined,
      ),
      CANDIDATES_LIMIT + 1,
    );
    const truncated = facts.length > CANDIDATES_LIMIT;
    const list: UpgradeCandidate[] = facts.slice(0, CANDIDATES_LIMIT).map((d) => ({
      deviceId: d.deviceId,
      sn: d.sn,
      type: d.type as DeviceType,
      model: d.model,
      firmware: d.firmware,
      siteId: d.siteId,
      siteName: d.siteName,
      companyName: d.companyName,
      online: d.online,
      exclusion: exclusionOf(d, pkg, req.includeOffline),
    }));
    // Eligible first (stable: by site and SN within each group).
    list.sort((a, b) => Number(a.exclusion !== null) - Number(b.exclusion !== null));
    return {
      list,
      total: list.length,
      eligible: list.filter((c) => c.exclusion === null).length,
      truncated,
    };
  }

  /** `upgrade/create`: answers the new batch's id (module comment for the rules). */
  async create(
    scope: CompanyScope,
    auth: { companyId: number; employeeId: number },
    req: CreateRequest,
    lang: Lang,
  ): Promise<{ id: number }> {
    const pkg = await this.usablePackage(scope, req.packageId);
    const now = this.now();
    if (req.deadlineAt <= now) throw new ApiError(ErrorCode.UPGRADE_DEADLINE_PAST);
    const ids = [...new Set(req.deviceIds)];
    const created = await this.db.transaction(async (tx) => {
      // One batch creation at a time: two batches cannot take the same device (the unique index
      // `upgrade_device_active_uq` would refuse the second anyway; this answers it as 7039).
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('ess-upgrade-create'))`);
      const facts = new Map(
        (await this.deviceFacts(scope, inArray(device.id, ids), undefined, tx)).map((d) => [d.deviceId, d]),
      );
      for (const id of ids) {
        const d = facts.get(id);
        if (!d) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
        const why = exclusionOf(d, pkg, req.includeOffline);
        if (why)
          throw new ApiError(ErrorCode.UPGRADE_DEVICE_EXCLUDED, {
            sn: d.sn,
            reason: UPGRADE_EXCLUSION_LABELS[why][lang],
          });
      }
      const [operator] = await tx
        .select({ name: employee.name })
        .from(employee)
        .where(eq(employee.id, auth.employeeId));
      const firstWave = Math.min(req.firstWaveSize, ids.length);
      const waveCount = 1 + Math.ceil((ids.length - firstWave) / req.waveSize);
      const at = new Date(now);
      const [batch] = await tx
        .insert(upgradeBatch)
        .values({
          batchNo: `pending-${at.getTime()}-${Math.random().toString(36).slice(2)}`,
          companyId: auth.companyId,
          packageId: pkg.id,
          operatorId: auth.employeeId,
          operatorName: operator?.name ?? '',
          state: 'running',
          firstWaveSize: req.firstWaveSize,
          waveSize: req.waveSize,
          waveCount,
          currentWave: 1,
          failureRateThresholdPct: req.failureRateThresholdPct,
          maxConcurrentDownloads: req.maxConcurrentDownloads,
          phaseTimeoutsS: req.phaseTimeoutsS as UpgradePhaseTimeouts,
          includeOffline: req.includeOffline,
          remark: req.remark ?? null,
          deadlineAt: new Date(req.deadlineAt),
          createdAt: at,
          updatedAt: at,
        })
        .returning({ id: upgradeBatch.id });
      const batchId = batch!.id;
      const day = at.toISOString().slice(0, 10).replaceAll('-', '');
      await tx
        .update(upgradeBatch)
        .set({ batchNo: `UP${day}-${String(batchId).padStart(4, '0')}` })
        .where(eq(upgradeBatch.id, batchId));
      const first: UpgradeTimelineRecord = {
        state: 'waiting',
        at: at.toISOString(),
        percent: null,
        reason: null,
        detail: null,
      };
      await tx.insert(upgradeDevice).values(
        ids.map((deviceId, i) => ({
          batchId,
          deviceId,
          wave: i < firstWave ? 1 : 2 + Math.floor((i - firstWave) / req.waveSize),
          fromVersion: facts.get(deviceId)!.firmware,
          toVersion: pkg.version,
          state: 'waiting',
          updatedAt: at,
          timeline: [first],
        })),
      );
      return batchId;
    });
    this.engine.changed(auth.companyId, created);
    return { id: created };
  }

  /** `upgrade/pageList`: the scope's batches, newest first. */
  async pageList(scope: CompanyScope, req: PageListRequest) {
    const kw = req.keyword?.trim();
    const where = and(
      inScope(scope, upgradeBatch.companyId),
      req.state ? eq(upgradeBatch.state, req.state) : undefined,
      req.packageId ? eq(upgradeBatch.packageId, req.packageId) : undefined,
      kw
        ? or(ilike(upgradeBatch.batchNo, likePattern(kw)), ilike(firmwarePackage.name, likePattern(kw)))
        : undefined,
    );
    const [count] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(upgradeBatch)
      .innerJoin(firmwarePackage, eq(firmwarePackage.id, upgradeBatch.packageId))
      .where(where);
    const rows = await readBatchRows(this.db, where, {
      limit: req.pageSize,
      offset: (req.pageNum - 1) * req.pageSize,
    });
    return { list: rows.map(withoutCompany), total: Number(count?.n ?? 0) };
  }

  /** `upgrade/detail` (7037 outside the scope). */
  async detail(scope: CompanyScope, id: number): Promise<UpgradeDetail> {
    const batch = await this.batchInScope(scope, id);
    const [row] = await readBatchRows(this.db, eq(upgradeBatch.id, id));
    const [pkg] = await this.db
      .select({ sha256: firmwarePackage.sha256, sizeBytes: firmwarePackage.sizeBytes })
      .from(firmwarePackage)
      .where(eq(firmwarePackage.id, batch.packageId));
    const t = batch.phaseTimeoutsS as UpgradePhaseTimeouts;
    return {
      batch: withoutCompany(row!),
      firstWaveSize: batch.firstWaveSize,
      waveSize: batch.waveSize,
      failureRateThresholdPct: batch.failureRateThresholdPct,
      phaseTimeoutsS: {
        sent: t.sent,
        downloading: t.downloading,
        verifying: t.verifying,
        installing: t.installing,
        rebooting: t.rebooting,
      },
      maxConcurrentDownloads: batch.maxConcurrentDownloads,
      includeOffline: batch.includeOffline,
      remark: batch.remark,
      sha256: pkg?.sha256 ?? '',
      sizeBytes: Number(pkg?.sizeBytes ?? 0),
      devices: await readDeviceRows(this.db, id),
    };
  }

  /** `upgrade/retry`: answers how many devices wait again. */
  async retry(scope: CompanyScope, id: number, deviceIds?: number[]): Promise<{ count: number }> {
    const batch = await this.batchInScope(scope, id);
    await this.usablePackage({ all: true }, batch.packageId);
    if (batch.deadlineAt.getTime() <= this.now()) throw new ApiError(ErrorCode.UPGRADE_DEADLINE_PAST);
    const now = new Date(this.now());
    const d = upgradeDevice;
    const changed = await this.db.transaction(async (tx) => {
      await tx
        .select({ id: upgradeBatch.id })
        .from(upgradeBatch)
        .where(eq(upgradeBatch.id, id))
        .for('update');
      const rows = await tx
        .update(d)
        .set({
          state: 'waiting',
          attempt: sql`${d.attempt} + 1`,
          percent: null,
          reason: null,
          detail: null,
          commandId: null,
          startedBy: null,
          sentAt: null,
          phaseDeadlineAt: null,
          updatedAt: now,
          timeline: sql`${d.timeline} || jsonb_build_array(jsonb_build_object('state', 'waiting', 'at', ${now.toISOString()}::text, 'percent', NULL, 'reason', NULL, 'detail', 'retry'))`,
        })
        .where(
          and(
            eq(d.batchId, id),
            eq(d.state, 'failed'),
            deviceIds ? inArray(d.deviceId, deviceIds) : undefined,
            sql`NOT EXISTS (SELECT 1 FROM upgrade_device o WHERE o.device_id = ${d.deviceId}
              AND o.id <> ${d.id} AND o.state NOT IN ('success', 'failed', 'cancelled'))`,
          ),
        )
        .returning({ deviceId: d.deviceId });
      if (rows.length === 0) throw new ApiError(ErrorCode.UPGRADE_NOTHING_TO_RETRY);
      if (batch.state === 'finished')
        await tx
          .update(upgradeBatch)
          .set({ state: 'running', finishedAt: null, updatedAt: now })
          .where(eq(upgradeBatch.id, id));
      return rows.map((r) => r.deviceId);
    });
    this.engine.changed(batch.companyId, id, changed);
    return { count: changed.length };
  }

  /** `upgrade/cancel`: answers how many waiting devices were cancelled. */
  async cancel(
    scope: CompanyScope,
    id: number,
    deviceIds: number[] | undefined,
    lang: Lang,
  ): Promise<{ count: number }> {
    const batch = await this.batchInScope(scope, id);
    const now = new Date(this.now());
    const d = upgradeDevice;
    const changed = await this.db.transaction(async (tx) => {
      const [locked] = await tx.select().from(upgradeBatch).where(eq(upgradeBatch.id, id)).for('update');
      if (!locked || locked.state === 'finished') throw stateError('finished', lang);
      const rows = await tx
        .update(d)
        .set({
          state: 'cancelled',
          updatedAt: now,
          timeline: sql`${d.timeline} || jsonb_build_array(jsonb_build_object('state', 'cancelled', 'at', ${now.toISOString()}::text, 'percent', NULL, 'reason', NULL, 'detail', NULL))`,
        })
        .where(
          and(
            eq(d.batchId, id),
            eq(d.state, 'waiting'),
            deviceIds ? inArray(d.deviceId, deviceIds) : undefined,
          ),
        )
        .returning({ deviceId: d.deviceId });
      if (rows.length === 0) throw new ApiError(ErrorCode.UPGRADE_NOTHING_TO_CANCEL);
      return rows.map((r) => r.deviceId);
    });
    this.engine.changed(batch.companyId, id, changed);
    return { count: changed.length };
  }

  /** `upgrade/pause`: running → paused by the operator. */
  async pause(scope: CompanyScope, id: number, lang: Lang): Promise<UpgradeBatchRow> {
    return this.setState(scope, id, lang, 'running', { state: 'paused', pausedReason: 'operator' });
  }

  /** `upgrade/resume`: paused → running (a failure-rate pause accepts its wave). */
  async resume(scope: CompanyScope, id: number, lang: Lang): Promise<UpgradeBatchRow> {
    return this.setState(scope, id, lang, 'paused', {
      state: 'running',
      pausedReason: null,
      passedWave: sql`CASE WHEN ${upgradeBatch.pausedReason} = 'failure_rate'
        THEN GREATEST(${upgradeBatch.passedWave}, ${upgradeBatch.currentWave}) ELSE ${upgradeBatch.passedWave} END`,
    });
  }

  private async setState(
    scope: CompanyScope,
    id: number,
    lang: Lang,
    from: string,
    set: { state: string; pausedReason: string | null; passedWave?: SQL },
  ): Promise<UpgradeBatchRow> {
    const batch = await this.batchInScope(scope, id);
    const [row] = await this.db
      .update(upgradeBatch)
      .set({ ...set, updatedAt: new Date(this.now()) })
      .where(and(eq(upgradeBatch.id, id), eq(upgradeBatch.state, from)))
      .returning({ id: upgradeBatch.id });
    if (!row) {
      const [now] = await this.db
        .select({ state: upgradeBatch.state })
        .from(upgradeBatch)
        .where(eq(upgradeBatch.id, id));
      throw stateError((now?.state ?? batch.state) as UpgradeBatchState, lang);
    }
    this.engine.changed(batch.companyId, id);
    const [out] = await readBatchRows(this.db, eq(upgradeBatch.id, id));
    return withoutCompany(out!);
  }

  private async batchInScope(scope: CompanyScope, id: number) {
    const [batch] = await this.db
      .select()
      .from(upgradeBatch)
      .where(and(eq(upgradeBatch.id, id), inScope(scope, upgradeBatch.companyId)));
    if (!batch) throw new ApiError(ErrorCode.UPGRADE_BATCH_NOT_FOUND);
    return batch;
  }
}

function withoutCompany<T extends { companyId: number }>(row: T): Omit<T, 'companyId'> {
  const { companyId: _c, ...rest } = row;
  return rest;
}

/** 7038 naming the batch's state in the caller's language. */
function stateError(state: UpgradeBatchState, lang: Lang): ApiError {
  return new ApiError(ErrorCode.UPGRADE_BATCH_STATE_INVALID, {
    state: UPGRADE_BATCH_STATE_LABELS[state]?.[lang] ?? state,
  });
}
