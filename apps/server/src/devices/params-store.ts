/**
 * The device parameter shadow in the database (issue 15 item 3; docs/device-protocol.md
 * "Parameters"): what the operator wants of each device beside what the device last reported,
 * per-key state, and the history of every change. Written by the operator's calls
 * (modules/params), by the `params` delivery (params-push.ts: sent, answered, timed out) and by
 * what devices report (`get_params` answers and `params` reports).
 *
 * Tables (core/db/schema.ts): `device_params` (one row per device: the server's last `version`,
 * `reported` values with their version and time), `device_param_key` (one row per key the
 * operator or the device ever touched: `desired` since `desired_version`, `state` of contract
 * api/params.ts PARAM_STATES with the device's reason) and `param_change` (history).
 *
 * Per-key state moves:
 *   operator change → pending → sent (a `set_params` holding it is out)
 *     → applied / refused (the device's answer for that key, reason & messageKey)
 *     → timeout (no answer; outstanding again, retried like every delivery)
 *   pending/sent → pending (the gateway went offline before the answer)
 *   applied/in_sync with a reported value other than desired → drift (a history row, source
 *   'device'); a drifted key reported back at its desired value → in_sync.
 *
 * A device's answer counts only when it is not older than what the device last reported
 * (`reported_version`): a late answer to an older `set_params` never overrides a newer one, and
 * a key changed again since the version answered (`desired_version` above it) keeps its state.
 */
import {
  type DeviceType,
  type ParamChangeResult,
  type ParamChangeSource,
  type ParamState,
  type ParamValue,
  paramDefs,
} from '@ess/contract';
import { and, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { deviceParamKey, deviceParams, paramChange } from '../core/db/schema';
import type { Tx } from './delivery';

type DbOrTx = Db | Tx;

/** Keys with a change of ours not yet answered: sent in the next `set_params`. */
export const OUTSTANDING_STATES: readonly ParamState[] = ['pending', 'sent', 'timeout'];

/** Who made a change (an employee and the name shown in the history; null for the device). */
export interface ChangeAuthor {
  employeeId: number | null;
  name: string | null;
}

export type KeyRecord = typeof deviceParamKey.$inferSelect;
export type ShadowRecord = typeof deviceParams.$inferSelect;

/** The device's shadow row, created empty (version 0, nothing reported) when missing. */
export async function ensureShadow(tx: DbOrTx, deviceId: number, forUpdate = false): Promise<ShadowRecord> {
  await tx.insert(deviceParams).values({ deviceId }).onConflictDoNothing();
  const q = tx.select().from(deviceParams).where(eq(deviceParams.deviceId, deviceId));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row!;
}

/** The key rows of a device. */
export function keysOf(tx: DbOrTx, deviceId: number): Promise<KeyRecord[]> {
  return tx.select().from(deviceParamKey).where(eq(deviceParamKey.deviceId, deviceId));
}

/** The desired values of a device (keys with a desired value). */
export function desiredOf(keys: readonly KeyRecord[]): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const k of keys) if (k.desired !== null && k.desired !== undefined) out[k.key] = k.desired;
  return out;
}

/**
 * Stores changes of one device at its next version (the caller computed it with the contract's
 * `nextParamsVersion` and holds the shadow row FOR UPDATE): each key desired, pending, and a
 * history row with the old value (the previous desired value, else the reported one).
 */
export async function storeChanges(
  tx: Tx,
  shadow: ShadowRecord,
  version: number,
  changes: Readonly<Record<string, ParamValue>>,
  source: ParamChangeSource,
  author: ChangeAuthor,
  at: Date,
): Promise<void> {
  const keys = new Map((await keysOf(tx, shadow.deviceId)).map((k) => [k.key, k]));
  await tx
    .update(deviceParams)
    .set({ version, updatedAt: at })
    .where(eq(deviceParams.deviceId, shadow.deviceId));
  const entries = Object.entries(changes);
  if (entries.length === 0) return;
  for (const [key, value] of entries) {
    await tx
      .insert(deviceParamKey)
      .values({
        deviceId: shadow.deviceId,
        key,
        desired: value,
        desiredVersion: version,
        state: 'pending',
        changedAt: at,
      })
      .onConflictDoUpdate({
        target: [deviceParamKey.deviceId, deviceParamKey.key],
        set: {
          desired: sql`excluded.desired`,
          desiredVersion: version,
          state: 'pending',
          reason: null,
          messageKey: null,
          messageParams: null,
          changedAt: at,
        },
      });
  }
  await tx.insert(paramChange).values(
    entries.map(([key, value]) => ({
      deviceId: shadow.deviceId,
      at,
      employeeId: author.employeeId,
      byName: author.name,
      source,
      key,
      oldValue: keys.get(key)?.desired ?? shadow.reported[key] ?? null,
      newValue: value,
      version,
    })),
  );
}

/** Keys waiting (pending or timed out) up to `version` are now out in a `set_params`. */
export async function markSent(db: DbOrTx, deviceId: number, version: number, at: Date): Promise<number> {
  const rows = await db
    .update(deviceParamKey)
    .set({ state: 'sent', changedAt: at })
    .where(
      and(
        eq(deviceParamKey.deviceId, deviceId),
        lte(deviceParamKey.desiredVersion, version),
        inArray(deviceParamKey.state, ['pending', 'timeout']),
        sql`${deviceParamKey.desired} IS NOT NULL`,
      ),
    )
    .returning({ key: deviceParamKey.key });
  return rows.length;
}

/**
 * Keys out in a `set_params` up to `version` that got no answer: `timeout` (with `reason`), or
 * back to `pending` when the gateway went offline first. History rows of those keys still open
 * get the timeout.
 */
export async function markUnanswered(
  db: Db,
  deviceId: number,
  version: number,
  to: 'timeout' | 'pending',
  reason: string | null,
  at: Date,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(deviceParamKey)
      .set({
        state: to,
        reason: to === 'timeout' ? reason : null,
        messageKey: null,
        messageParams: null,
        changedAt: at,
      })
      .where(
        and(
          eq(deviceParamKey.deviceId, deviceId),
          lte(deviceParamKey.desiredVersion, version),
          eq(deviceParamKey.state, 'sent'),
        ),
      )
      .returning({ key: deviceParamKey.key });
    if (to === 'timeout' && rows.length > 0) {
      await tx
        .update(paramChange)
        .set({ outcome: 'timeout', reason })
        .where(
          and(
            eq(paramChange.deviceId, deviceId),
            inArray(
              paramChange.key,
              rows.map((r) => r.key),
            ),
            lte(paramChange.version, version),
            isNull(paramChange.outcome),
            sql`${paramChange.source} <> 'device'`,
          ),
        );
    }
    return rows.length;
  });
}

/**
 * A device's answer to a `set_params` of `version` (contract params/messages.ts
 * `setParamsResult`): each key still waiting at or below that version gets its outcome
 * (applied, or refused with the reason), the value in force is stored as reported, and the open
 * history rows of the key get the answer. Ignored when the device reported a newer version
 * since (a late answer). Keys of the send missing from the answer: timeout ("not answered").
 * Answers false when ignored.
 */
export async function storeAnswer(
  db: Db,
  deviceId: number,
  version: number,
  results: Readonly<Record<string, ParamChangeResult>>,
  at: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const shadow = await ensureShadow(tx, deviceId, true);
    if (shadow.reportedVersion !== null && shadow.reportedVersion > version) return false;
    const keys = await keysOf(tx, deviceId);
    const reported = { ...shadow.reported };
    for (const [key, r] of Object.entries(results)) if (r.value !== null) reported[key] = r.value;
    await tx
      .update(deviceParams)
      .set({ reported, reportedVersion: version, updatedAt: at })
      .where(eq(deviceParams.deviceId, deviceId));
    for (const k of keys) {
      if (k.desiredVersion > version || !OUTSTANDING_STATES.includes(k.state as ParamState)) continue;
      const r = results[k.key];
      if (!r) {
        if (k.state === 'sent') {
          await tx
            .update(deviceParamKey)
            .set({ state: 'timeout', reason: 'not answered', changedAt: at })
            .where(and(eq(deviceParamKey.deviceId, deviceId), eq(deviceParamKey.key, k.key)));
        }
        continue;
      }
      await tx
        .update(deviceParamKey)
        .set({
          state: r.status,
          reason: r.status === 'refused' ? (r.reason ?? 'refused') : null,
          messageKey: r.status === 'refused' ? (r.messageKey ?? null) : null,
          messageParams: r.status === 'refused' ? (r.params ?? null) : null,
          changedAt: at,
        })
        .where(and(eq(deviceParamKey.deviceId, deviceId), eq(deviceParamKey.key, k.key)));
      await tx
        .update(paramChange)
        .set({
          outcome: r.status,
          reason: r.status === 'refused' ? (r.reason ?? 'refused') : null,
          answeredAt: at,
        })
        .where(
          and(
            eq(paramChange.deviceId, deviceId),
            eq(paramChange.key, k.key),
            lte(paramChange.version, version),
            or(isNull(paramChange.outcome), eq(paramChange.outcome, 'timeout')),
            sql`${paramChange.source} <> 'device'`,
          ),
        );
    }
    return true;
  });
}

/** The device runs version `inForce` (a stale answer): noted when newer than what it reported. */
export async function storeVersionInForce(
  db: Db,
  deviceId: number,
  inForce: number,
  at: Date,
): Promise<void> {
  await ensureShadow(db, deviceId);
  await db
    .update(deviceParams)
    .set({
      reportedVersion: sql`GREATEST(coalesce(${deviceParams.reportedVersion}, 0), ${inForce})`,
      updatedAt: at,
    })
    .where(eq(deviceParams.deviceId, deviceId));
}

/** Why a snapshot was taken: read by the operator, or reported by the device (params/messages.ts). */
export type SnapshotCause = 'read' | 'local' | 'startup';

/**
 * What a device runs, whole (a `get_params` answer or a `params` report): stored as reported
 * (values, version, time). A key whose change of ours was applied (or is in sync) and whose
 * reported value differs from the desired one is `drift`, with a history row (source 'device',
 * old = the desired value, new = the reported one); a drifted key reported at its desired value
 * again is `in_sync`. A local change of a key we want nothing of is only recorded in the history.
 * Snapshots older than the version the device last reported are ignored (answers false), except
 * a startup report.
 */
export async function storeSnapshot(
  db: Db,
  deviceId: number,
  type: DeviceType,
  snapshot: { version: number; values: Readonly<Record<string, ParamValue>> },
  cause: SnapshotCause,
  at: Date,
  changed: readonly string[] = [],
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const shadow = await ensureShadow(tx, deviceId, true);
    // A device that restarted is authoritative (its parameters may have been reset); otherwise an
    // older snapshot than the version last reported arrived late and says nothing new.
    const late = shadow.reportedVersion !== null && shadow.reportedVersion > snapshot.version;
    if (late && cause !== 'startup') return false;
    const before = shadow.reported;
    await tx
      .update(deviceParams)
      .set({
        reported: { ...snapshot.values },
        reportedVersion: snapshot.version,
        reportedAt: at,
        updatedAt: at,
      })
      .where(eq(deviceParams.deviceId, deviceId));
    const keys = new Map((await keysOf(tx, deviceId)).map((k) => [k.key, k]));
    const history: (typeof paramChange.$inferInsert)[] = [];
    const known = new Set(paramDefs(type).map((d) => d.key));
    for (const [key, value] of Object.entries(snapshot.values)) {
      if (!known.has(key)) continue;
      const k = keys.get(key);
      const wanted = k?.desired ?? null;
      const row = {
        deviceId,
        at,
        employeeId: null,
        byName: null,
        source: 'device' as const,
        key,
        version: snapshot.version,
      };
      if (k && wanted !== null && (k.state === 'applied' || k.state === 'in_sync') && value !== wanted) {
        await tx
          .update(deviceParamKey)
          .set({ state: 'drift', reason: null, messageKey: null, messageParams: null, changedAt: at })
          .where(and(eq(deviceParamKey.deviceId, deviceId), eq(deviceParamKey.key, key)));
        history.push({ ...row, oldValue: before[key] ?? wanted, newValue: value });
        continue;
      }
      if (k && k.state === 'drift' && value === wanted) {
        await tx
          .update(deviceParamKey)
          .set({ state: 'in_sync', changedAt: at })
          .where(and(eq(deviceParamKey.deviceId, deviceId), eq(deviceParamKey.key, key)));
        continue;
      }
      const localChange = cause === 'local' && changed.includes(key) && before[key] !== value;
      if (localChange) history.push({ ...row, oldValue: before[key] ?? null, newValue: value });
    }
    if (history.length > 0) await tx.insert(paramChange).values(history);
    return true;
  });
}
