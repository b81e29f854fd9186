/**
 * Upgrade batches live (contract api/live.ts, channel `upgrade`): changes of batches
 * (devices/ota-batches.ts `onChange`) are merged per batch and sent at most once per
 * LIVE_MIN_INTERVAL_MS for the whole channel (the live hub's leading-edge ChannelThrottle): one
 * message per changed batch — its row as `upgrade/pageList` lists it and the devices that changed
 * since the last message, as `upgrade/detail` shows them (devices/ota-rows.ts) — to the sockets
 * whose scope holds the batch's company.
 */
import { LIVE_MIN_INTERVAL_MS, LIVE_UPGRADE_CHANNEL, type LiveUpgradeMessage } from '@ess/contract';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { upgradeBatch } from '../core/db/schema';
import { ChannelThrottle } from './live-hub';
import type { OtaChange } from './ota-batches';
import { readBatchRows, readDeviceRows } from './ota-rows';

/** Where upgrade messages go (the live hub). */
export interface UpgradePublisher {
  publishUpgrade(companyId: number, message: LiveUpgradeMessage): void;
}

export class OtaLive {
  private dirty = new Map<number, { companyId: number; deviceIds: Set<number> }>();
  private readonly throttle: ChannelThrottle;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly publisher: UpgradePublisher,
    intervalMs = LIVE_MIN_INTERVAL_MS,
  ) {
    this.throttle = new ChannelThrottle(intervalMs, () => void this.flush());
  }

  /** A batch changed: sent with the channel's next update. */
  take(change: OtaChange): void {
    const entry = this.dirty.get(change.batchId) ?? { companyId: change.companyId, deviceIds: new Set() };
    for (const id of change.deviceIds) entry.deviceIds.add(id);
    this.dirty.set(change.batchId, entry);
    this.throttle.mark(LIVE_UPGRADE_CHANNEL);
  }

  close(): void {
    this.throttle.clear();
    this.dirty.clear();
  }

  private async flush(): Promise<void> {
    const due = this.dirty;
    this.dirty = new Map();
    for (const [batchId, { companyId, deviceIds }] of due) {
      try {
        const [batch] = await readBatchRows(this.db, eq(upgradeBatch.id, batchId));
        if (!batch) continue;
        const devices = deviceIds.size > 0 ? await readDeviceRows(this.db, batchId, [...deviceIds]) : [];
        const { companyId: _company, ...row } = batch;
        this.publisher.publishUpgrade(companyId, { type: 'upgrade', batch: row, devices });
      } catch (err) {
        this.log.warn({ err, batchId }, 'upgrade change not published');
      }
    }
  }
}
