/**
 * Alarm lifecycle: turns stored `alarm_event` rows into `alarm` rows, inside
 * the ingest transaction that stored them (telemetry-store.ts), so an event and its effect on
 * the alarm are written together or not at all.
 *
 * An alarm is identified by device, code and level (a code's warning and fault are separate
 * alarms: docs/device-protocol.md "Alarm codes"):
 *  - `produce` with no active alarm of its key → a new active alarm (`produced_at` = event time);
 *    a `produce` while one is active (a repeated report, e.g. after an EMS restart) changes
 *    nothing and is linked to the active alarm;
 *  - `disappear` → the active alarm of its key (raised at or before the event) is cleared
 *    (`cleared_at`, `clear_content`); with no active alarm it is kept as an event only, unlinked;
 *  - a `produce` stored after such an unlinked `disappear` of its key with a later (or equal)
 *    time (batches arriving out of order) raises the alarm already cleared by that `disappear`
 *    (both events linked), so the alarm does not stay active for ever.
 * Each event's `alarm_id` names the alarm it raised, repeated or cleared (null: none).
 * Events are applied in device-time order (ts, then id).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

/** An alarm event as a device sent it, resolved to its device (device-protocol.md "event"). */
export interface EventRow {
  companyId: number;
  siteId: number;
  deviceId: number;
  gatewayId: number;
  msgId: string;
  msgIndex: number;
  ts: number;
  kind: 'produce' | 'disappear';
  code: string;
  level: 'warning' | 'fault';
  content: string;
  value: number | null;
}

/** An event row once stored, with its id. */
export interface StoredEvent extends EventRow {
  id: number;
}

/** What applying a batch of events did: ids of alarms raised and cleared. */
export interface LifecycleResult {
  raised: number[];
  cleared: number[];
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Applies `events` (just stored, with their ids) to the `alarm` table within `tx`. */
export async function applyAlarmEvents(tx: Tx | Db, events: StoredEvent[]): Promise<LifecycleResult> {
  const result: LifecycleResult = { raised: [], cleared: [] };
  const ordered = [...events].sort((a, b) => a.ts - b.ts || a.id - b.id);
  for (const e of ordered) {
    const at = new Date(e.ts);
    let alarmId: number | null = null;
    if (e.kind === 'produce') {
      const inserted = rowsOf<{ id: number }>(
        await tx.execute(sql`
          INSERT INTO alarm (company_id, site_id, device_id, gateway_id, code, level, content, value,
                             produced_at, produce_event_id)
          VALUES (${e.companyId}, ${e.siteId}, ${e.deviceId}, ${e.gatewayId}, ${e.code}, ${e.level},
                  ${e.content}, ${e.value}, ${at}, ${e.id})
          ON CONFLICT (device_id, code, level) WHERE cleared_at IS NULL DO NOTHING
          RETURNING id`),
      );
      if (inserted[0]) {
        alarmId = Number(inserted[0].id);
        result.raised.push(alarmId);
        // Out of order (batches stored late, e.g. after a reconnect): a `disappear` of this key
        // at or after this produce may already be stored, unlinked. It clears the new alarm.
        const [later] = rowsOf<{ id: number; ts: unknown; content: string }>(
          await tx.execute(sql`
            SELECT id, ts, content FROM alarm_event
            WHERE device_id = ${e.deviceId} AND code = ${e.code} AND level = ${e.level}
              AND kind = 'disappear' AND alarm_id IS NULL AND ts >= ${at} AND id <> ${e.id}
            ORDER BY ts, id LIMIT 1`),
        );
        if (later) {
          await tx.execute(sql`
            UPDATE alarm SET cleared_at = ${new Date(later.ts as string)}, clear_event_id = ${Number(later.id)},
                             clear_content = ${later.content}
            WHERE id = ${alarmId}`);
          await tx.execute(sql`UPDATE alarm_event SET alarm_id = ${alarmId} WHERE id = ${Number(later.id)}`);
          result.cleared.push(alarmId);
        }
      } else {
        const active = rowsOf<{ id: number }>(
          await tx.execute(sql`
            SELECT id FROM alarm
            WHERE device_id = ${e.deviceId} AND code = ${e.code} AND level = ${e.level} AND cleared_at IS NULL`),
        );
        alarmId = active[0] ? Number(active[0].id) : null;
      }
    } else {
      const cleared = rowsOf<{ id: number }>(
        await tx.execute(sql`
          UPDATE alarm SET cleared_at = ${at}, clear_event_id = ${e.id}, clear_content = ${e.content}
          WHERE device_id = ${e.deviceId} AND code = ${e.code} AND level = ${e.level}
            AND cleared_at IS NULL AND produced_at <= ${at}
          RETURNING id`),
      );
      if (cleared[0]) {
        alarmId = Number(cleared[0].id);
        result.cleared.push(alarmId);
      }
    }
    if (alarmId !== null) {
      await tx.execute(sql`UPDATE alarm_event SET alarm_id = ${alarmId} WHERE id = ${e.id}`);
    }
  }
  return result;
}
