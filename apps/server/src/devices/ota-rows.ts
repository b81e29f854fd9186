/**
 * Upgrade batches and their devices as the console reads them (contract api/firmware.ts
 * `UpgradeBatchRow`, `UpgradeDeviceRow`): one reader for `upgrade/pageList`, `upgrade/detail`
 * and the live channel `upgrade` (devices/ota-live.ts), so the three never disagree.
 *
 * Counts are per device state (every state of UPGRADE_DEVICE_STATES, zero included); times are
 * ISO 8601 UTC; a device row carries its site's zone for the console to show its times in.
 */
import {
  type DeviceType,
  UPGRADE_DEVICE_STATES,
  type UpgradeBatchRow,
  type UpgradeBatchState,
  type UpgradeDeviceRow,
  type UpgradeDeviceState,
  type UpgradeFailReason,
  type UpgradePauseReason,
  type UpgradeStateCounts,
  type UpgradeTimelineEntry,
} from '@ess/contract';
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { device, firmwarePackage, site, upgradeBatch, upgradeDevice } from '../core/db/schema';

export type UpgradeBatchRecord = typeof upgradeBatch.$inferSelect;
export type UpgradeDeviceRecord = typeof upgradeDevice.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Zero for every device state. */
export function emptyCounts(): UpgradeStateCounts {
  return Object.fromEntries(UPGRADE_DEVICE_STATES.map((s) => [s, 0])) as UpgradeStateCounts;
}

/**
 * The batches matching `where` (a condition on `upgrade_batch`, e.g. scope and filters), newest
 * first, `limit`/`offset` applied; with their package, counts per state and device total.
 */
export async function readBatchRows(
  db: Db,
  where: SQL | undefined,
  page: { limit?: number; offset?: number } = {},
): Promise<Array<UpgradeBatchRow & { companyId: number }>> {
  let query = db
    .select({ batch: upgradeBatch, pkg: firmwarePackage })
    .from(upgradeBatch)
    .innerJoin(firmwarePackage, eq(firmwarePackage.id, upgradeBatch.packageId))
    .where(where)
    .orderBy(sql`${upgradeBatch.createdAt} DESC`, sql`${upgradeBatch.id} DESC`)
    .$dynamic();
  if (page.limit !== undefined) query = query.limit(page.limit);
  if (page.offset !== undefined) query = query.offset(page.offset);
  const rows = await query;
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.batch.id);
  const counted = await db
    .select({ batchId: upgradeDevice.batchId, state: upgradeDevice.state, n: sql<number>`count(*)::int` })
    .from(upgradeDevice)
    .where(inArray(upgradeDevice.batchId, ids))
    .groupBy(upgradeDevice.batchId, upgradeDevice.state);
  const counts = new Map<number, UpgradeStateCounts>();
  for (const c of counted) {
    const of = counts.get(c.batchId) ?? emptyCounts();
    of[c.state as UpgradeDeviceState] = Number(c.n);
    counts.set(c.batchId, of);
  }
  return rows.map(({ batch, pkg }) => {
    const of = counts.get(batch.id) ?? emptyCounts();
    return {
      id: batch.id,
      companyId: batch.companyId,
      batchNo: batch.batchNo,
      packageId: batch.packageId,
      packageName: pkg.name,
      deviceType: pkg.deviceType as DeviceType,
      version: pkg.version,
      operatorName: batch.operatorName,
      createdAt: batch.createdAt.toISOString(),
      state: batch.state as UpgradeBatchState,
      pausedReason: batch.pausedReason as UpgradePauseReason | null,
      deviceCount: Object.values(of).reduce((a, b) => a + b, 0),
      counts: of,
      currentWave: batch.currentWave,
      waveCount: batch.waveCount,
      deadlineAt: batch.deadlineAt.toISOString(),
      finishedAt: iso(batch.finishedAt),
    };
  });
}

/** One batch's devices (all, or `deviceIds`), by wave then SN. */
export async function readDeviceRows(
  db: Db,
  batchId: number,
  deviceIds?: readonly number[],
): Promise<UpgradeDeviceRow[]> {
  if (deviceIds && deviceIds.length === 0) return [];
  const rows = await db
    .select({
      row: upgradeDevice,
      sn: device.sn,
      type: device.type,
      model: device.model,
      siteId: site.id,
      siteName: site.name,
      timezone: site.timezone,
    })
    .from(upgradeDevice)
    .innerJoin(device, eq(device.id, upgradeDevice.deviceId))
    .innerJoin(site, eq(site.id, device.siteId))
    .where(
      and(
        eq(upgradeDevice.batchId, batchId),
        deviceIds ? inArray(upgradeDevice.deviceId, [...deviceIds]) : undefined,
      ),
    )
    .orderBy(asc(upgradeDevice.wave), asc(device.sn));
  return rows.map(({ row, ...d }) => ({
    deviceId: row.deviceId,
    sn: d.sn,
    type: d.type as DeviceType,
    model: d.model,
    siteId: d.siteId,
    siteName: d.siteName,
    timezone: d.timezone,
    wave: row.wave,
    fromVersion: row.fromVersion,
    toVersion: row.toVersion,
    state: row.state as UpgradeDeviceState,
    percent: row.percent,
    reason: row.reason as UpgradeFailReason | null,
    detail: row.detail,
    attempt: row.attempt,
    phaseDeadlineAt: iso(row.phaseDeadlineAt),
    updatedAt: row.updatedAt.toISOString(),
    timeline: row.timeline as UpgradeTimelineEntry[],
  }));
}
