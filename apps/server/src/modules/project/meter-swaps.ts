/**
 * Meter swaps of a project's declared storage meters (issue 17: "a meter reading that goes
 * backwards (meter replaced: record the swap, bill both parts)"; contract api/project.ts
 * `projectMeterSwapRequest`, `meterSwapProblem`; table `project_meter_swap`).
 *
 * The gateway keeps the device row; the physical meter changes at the swap instant. Recording a
 * swap stores the old meter's final and the new meter's initial import/export total registers and
 * the old meter's CT/PT/side, gives the `project_meter` row the new meter's, and drops the site's
 * energy per tier from the swap's day (devices/tier-energy.ts `dropTierDays`) in one transaction
 * holding the project row; right after, the closed days are computed again with the swap applied
 * (`fillTierDaysFrom`: the period holding the instant split in two, each part × its meter's
 * multiplier) and the answer says how many. Deleting the latest swap (a mistake) undoes it the
 * same way. Refusals (nothing written):
 * - -100 a field ({@link meterSwapProblem}), or a device that is not a declared storage meter of
 *   the project;
 * - 7004 the instant is after now (the service's clock);
 * - 7005 the instant's site-local day is in a settled month (tariff-history.ts
 *   `firstUnsettledDate`, the rule 7020 applies to tariffs);
 * - 7006 the old meter's final reading is lower than its last stored reading before the instant
 *   (raw telemetry, else the 15-minute rollups; since the previous swap, whose new initial readings
 *   count as stored) — it names the register, both readings and when the stored one was taken;
 * - 7007 the meter already has a swap at or after the instant (swaps are recorded in order; two at
 *   one instant also meet the unique index `project_meter_swap_uq`);
 * - 7008 deleting a swap that is not the meter's latest, is in a settled month, or is not there.
 */
import {
  ErrorCode,
  type Lang,
  localDateTimeMs,
  localDateTimeText,
  localTimeOf,
  METER_SWAP_TIME_PATTERN,
  type MeterSwapHistoryValue,
  meterSwapProblem,
  type ProjectChangeEntry,
  type ProjectMeterSwap,
  type ProjectProblem,
} from '@ess/contract';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { CompanyScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { rowsOf } from '../../core/db/rows';
import { device, employee, project, projectMeter, projectMeterSwap, site } from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import { firstUnsettledDate } from '../../devices/tariff-history';
import { dropTierDays, fillTierDaysFrom } from '../../devices/tier-energy';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** What the re-pricing after a swap did (contract `meterSwapRepricedSchema`). */
export interface Repriced {
  fromDay: string;
  days: number;
  rows: number;
}

/** The swap fields of `project/recordMeterSwap` (the body without userInfo and id). */
export interface MeterSwapBody {
  deviceId: number;
  swappedAt: string;
  oldImportKwh: number;
  oldExportKwh: number;
  newImportKwh: number;
  newExportKwh: number;
  newCtRatio: number;
  newPtRatio: number;
  newReadsSecondary: boolean;
  oldSerial: string | null;
  newSerial: string | null;
  note: string | null;
}

/** Writes a history row of the project (project-service.ts `log`). */
export type HistoryWriter = (
  tx: Tx,
  actor: { employeeId: number | null },
  p: { id: number; companyId: number },
  action: 'meter_swap' | 'meter_swap_delete',
  changes: ProjectChangeEntry[],
) => Promise<void>;

const texts = {
  notDeclared: {
    zh: '须为项目已声明的储能电表',
    en: 'must be a storage meter the project declares',
  },
  import: { zh: '正向有功（充电）', en: 'import (charge)' },
  export: { zh: '反向有功（放电）', en: 'export (discharge)' },
} as const;

const paramError = (p: ProjectProblem) => new ApiError(ErrorCode.PARAM_ERROR, {}, `${p.field}: ${p.message}`);

/** `YYYY-MM-DD HH:mm:ss Zone` of an instant at the site. */
const atText = (ms: number, timezone: string) => `${localDateTimeText(ms, timezone)} ${timezone}`;

/**
 * The last stored value of register `point` of `deviceId` in `(sinceMs, beforeMs)`: the raw
 * telemetry's latest sample, else (raw rows past their retention) the last value of the latest
 * 15-minute rollup whose last sample is before `beforeMs`. Null when none.
 */
async function lastReadingBefore(
  db: Db | Tx,
  deviceId: number,
  point: string,
  sinceMs: number,
  beforeMs: number,
): Promise<{ value: number; atMs: number } | null> {
  const since = new Date(sinceMs).toISOString();
  const before = new Date(beforeMs).toISOString();
  const [raw] = rowsOf<{ v: number; t: number }>(
    await db.execute(sql`
      SELECT (points ->> ${point})::float8 AS v, (extract(epoch FROM ts) * 1000)::float8 AS t
      FROM telemetry
      WHERE device_id = ${deviceId} AND ts > ${since}::timestamptz AND ts < ${before}::timestamptz
        AND points ->> ${point} IS NOT NULL
      ORDER BY ts DESC LIMIT 1`),
  );
  if (raw) return { value: Number(raw.v), atMs: Number(raw.t) };
  const [rollup] = rowsOf<{ v: number; t: number }>(
    await db.execute(sql`
      SELECT last_value AS v, (extract(epoch FROM last_ts) * 1000)::float8 AS t
      FROM telemetry_rollup
      WHERE device_id = ${deviceId} AND bucket_s = 900 AND point = ${point}
        AND bucket_start > ${since}::timestamptz AND last_ts < ${before}::timestamptz
      ORDER BY bucket_start DESC LIMIT 1`),
  );
  return rollup ? { value: Number(rollup.v), atMs: Number(rollup.t) } : null;
}

/**
 * The `meterSwap` value of a project history entry (contract `MeterSwapHistoryValue`): the meter's
 * SN, the swap time as `YYYY-MM-DD HH:mm <zone>` at the site, the note and both meters. The same
 * shape for a recorded swap (after) and a deleted one (before), so the console words both.
 */
function swapHistoryValue(
  sn: string,
  timezone: string,
  atMs: number,
  note: string | null,
  meters: Pick<MeterSwapHistoryValue, 'old' | 'new'>,
): MeterSwapHistoryValue {
  return {
    meter: sn,
    swappedAt: `${localDateTimeText(atMs, timezone).slice(0, 16)} ${timezone}`,
    note,
    ...meters,
  };
}

/** How far back a final reading is compared with stored ones when the meter has no earlier swap. */
const READING_LOOKBACK_MS = 62 * 86_400_000;

/** The project row in scope, 7001 otherwise (project-service.ts `requireProject`). */
export type ProjectGetter = (
  db: Db,
  scope: CompanyScope,
  id: number,
) => Promise<{ id: number; companyId: number }>;

/** The swap calls; the project service hands it its own project lookup and history writer. */
export class MeterSwapService {
  constructor(
    private readonly db: Db,
    private readonly requireProject: ProjectGetter,
    private readonly history: HistoryWriter,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The swaps of the project's declared meters `meters`, newest first per device (see contract
   * `projectMeterSwapSchema`): every swap of the device (a swap is physical; one recorded under
   * another project is listed but not deletable here).
   */
  async list(
    db: Db | Tx,
    projectId: number,
    meters: ReadonlyArray<{
      deviceId: number;
      siteId: number;
      timezone: string;
      ctRatio: number;
      ptRatio: number;
      readsSecondary: boolean;
    }>,
  ): Promise<Map<number, ProjectMeterSwap[]>> {
    const out = new Map<number, ProjectMeterSwap[]>();
    if (!meters.length) return out;
    const rows = await db
      .select({ s: projectMeterSwap, createdBy: employee.name })
      .from(projectMeterSwap)
      .leftJoin(employee, eq(employee.id, projectMeterSwap.createdBy))
      .where(
        inArray(
          projectMeterSwap.deviceId,
          meters.map((m) => m.deviceId),
        ),
      )
      .orderBy(asc(projectMeterSwap.deviceId), asc(projectMeterSwap.swappedAt));
    const unsettled = new Map<number, string>();
    for (const m of meters) {
      const mine = rows.filter((r) => r.s.deviceId === m.deviceId);
      if (!mine.length) {
        out.set(m.deviceId, []);
        continue;
      }
      if (!unsettled.has(m.siteId)) unsettled.set(m.siteId, await firstUnsettledDate(db, m.siteId));
      const list = mine.map(({ s, createdBy }, i): ProjectMeterSwap => {
        const next = mine[i + 1]?.s;
        const atMs = s.swappedAt.getTime();
        return {
          id: s.id,
          deviceId: s.deviceId,
          swappedAt: localDateTimeText(atMs, m.timezone).slice(0, 16),
          swappedAtMs: atMs,
          oldImportKwh: s.oldImportKwh,
          oldExportKwh: s.oldExportKwh,
          newImportKwh: s.newImportKwh,
          newExportKwh: s.newExportKwh,
          oldCtRatio: s.oldCtRatio,
          oldPtRatio: s.oldPtRatio,
          oldReadsSecondary: s.oldReadsSecondary,
          newCtRatio: next ? next.oldCtRatio : m.ctRatio,
          newPtRatio: next ? next.oldPtRatio : m.ptRatio,
          newReadsSecondary: next ? next.oldReadsSecondary : m.readsSecondary,
          oldSerial: s.oldSerial,
          newSerial: s.newSerial,
          note: s.note,
          createdBy,
          createdAt: s.createdAt.toISOString(),
          deletable:
            !next &&
            s.projectId === projectId &&
            localTimeOf(atMs, m.timezone).date >= unsettled.get(m.siteId)!,
        };
      });
      out.set(m.deviceId, list.reverse());
    }
    return out;
  }

  /** Records a swap (see the module note for the rules and refusals). Answers its id and the re-pricing. */
  async record(
    scope: CompanyScope,
    actor: { employeeId: number | null },
    projectId: number,
    body: MeterSwapBody,
    lang: Lang,
  ): Promise<{ id: number; repriced: Repriced; after: MeterSwapHistoryValue }> {
    const p = await this.requireProject(this.db, scope, projectId);
    const problem = meterSwapProblem(body, lang);
    if (problem) throw paramError(problem);
    const nowMs = this.now();
    let written: { id: number; siteId: number; day: string; after: MeterSwapHistoryValue };
    try {
      written = await this.db.transaction(async (tx) => {
        await tx.select({ id: project.id }).from(project).where(eq(project.id, projectId)).for('update');
        const meter = await this.declaredMeter(tx, projectId, body.deviceId, lang);
        const [, date, hh, mm] = METER_SWAP_TIME_PATTERN.exec(body.swappedAt)!;
        const atMs = localDateTimeMs(date!, `${hh}:${mm}`, meter.timezone);
        if (atMs > nowMs) throw new ApiError(ErrorCode.METER_SWAP_IN_FUTURE);
        const day = localTimeOf(atMs, meter.timezone).date;
        const first = await firstUnsettledDate(tx, meter.siteId);
        if (day < first) throw new ApiError(ErrorCode.METER_SWAP_SETTLED, { date: first });
        const [latest] = await tx
          .select()
          .from(projectMeterSwap)
          .where(eq(projectMeterSwap.deviceId, body.deviceId))
          .orderBy(sql`${projectMeterSwap.swappedAt} DESC`)
          .limit(1);
        if (latest && latest.swappedAt.getTime() >= atMs) {
          throw new ApiError(ErrorCode.METER_SWAP_NOT_LATEST, {
            at: atText(latest.swappedAt.getTime(), meter.timezone),
          });
        }
        const sinceMs = latest ? latest.swappedAt.getTime() : atMs - READING_LOOKBACK_MS;
        for (const side of ['import', 'export'] as const) {
          const final = side === 'import' ? body.oldImportKwh : body.oldExportKwh;
          const point = side === 'import' ? 'e_import_total_kwh' : 'e_export_total_kwh';
          const stored =
            (await lastReadingBefore(tx, body.deviceId, point, sinceMs, atMs)) ??
            (latest
              ? {
                  value: side === 'import' ? latest.newImportKwh : latest.newExportKwh,
                  atMs: latest.swappedAt.getTime(),
                }
              : null);
          if (stored && final < stored.value) {
            throw new ApiError(ErrorCode.METER_SWAP_READING_BACKWARDS, {
              register: texts[side][lang],
              final,
              last: stored.value,
              at: atText(stored.atMs, meter.timezone),
            });
          }
        }
        const [row] = await tx
          .insert(projectMeterSwap)
          .values({
            companyId: p.companyId,
            projectId,
            deviceId: body.deviceId,
            swappedAt: new Date(atMs),
            oldImportKwh: body.oldImportKwh,
            oldExportKwh: body.oldExportKwh,
            newImportKwh: body.newImportKwh,
            newExportKwh: body.newExportKwh,
            oldCtRatio: meter.ctRatio,
            oldPtRatio: meter.ptRatio,
            oldReadsSecondary: meter.readsSecondary,
            oldSerial: body.oldSerial,
            newSerial: body.newSerial,
            note: body.note,
            createdBy: actor.employeeId,
            createdAt: new Date(nowMs),
          })
          .returning({ id: projectMeterSwap.id });
        await tx
          .update(projectMeter)
          .set({
            ctRatio: body.newCtRatio,
            ptRatio: body.newPtRatio,
            readsSecondary: body.newReadsSecondary,
            updatedAt: new Date(nowMs),
          })
          .where(eq(projectMeter.id, meter.id));
        await dropTierDays(tx, meter.siteId, day);
        const after = swapHistoryValue(meter.sn, meter.timezone, atMs, body.note, {
          old: {
            serial: body.oldSerial,
            importKwh: body.oldImportKwh,
            exportKwh: body.oldExportKwh,
            ctRatio: meter.ctRatio,
            ptRatio: meter.ptRatio,
            readsSecondary: meter.readsSecondary,
          },
          new: {
            serial: body.newSerial,
            importKwh: body.newImportKwh,
            exportKwh: body.newExportKwh,
            ctRatio: body.newCtRatio,
            ptRatio: body.newPtRatio,
            readsSecondary: body.newReadsSecondary,
          },
        });
        await this.history(tx, actor, p, 'meter_swap', [{ field: 'meterSwap', before: null, after }]);
        return { id: row!.id, siteId: meter.siteId, day, after };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'project_meter_swap_uq')) {
        throw new ApiError(ErrorCode.METER_SWAP_NOT_LATEST, { at: body.swappedAt });
      }
      throw err;
    }
    const run = await fillTierDaysFrom(this.db, written.siteId, written.day, nowMs);
    return {
      id: written.id,
      repriced: { fromDay: written.day, days: run.days, rows: run.rows },
      after: written.after,
    };
  }

  /** Deletes the meter's latest swap in an unsettled month (7008 otherwise): the meter takes its old CT/PT back. */
  async remove(
    scope: CompanyScope,
    actor: { employeeId: number | null },
    projectId: number,
    swapId: number,
  ): Promise<{ repriced: Repriced; before: MeterSwapHistoryValue }> {
    await this.requireProject(this.db, scope, projectId);
    const written = await this.db.transaction(async (tx) => {
      const [p] = await tx.select().from(project).where(eq(project.id, projectId)).for('update');
      const [s] = await tx
        .select({
          s: projectMeterSwap,
          timezone: site.timezone,
          siteId: site.id,
          sn: device.sn,
          meter: projectMeter,
        })
        .from(projectMeterSwap)
        .innerJoin(device, eq(device.id, projectMeterSwap.deviceId))
        .innerJoin(site, eq(site.id, device.siteId))
        .innerJoin(
          projectMeter,
          and(
            eq(projectMeter.projectId, projectMeterSwap.projectId),
            eq(projectMeter.deviceId, projectMeterSwap.deviceId),
          ),
        )
        .where(and(eq(projectMeterSwap.id, swapId), eq(projectMeterSwap.projectId, projectId)));
      if (!s) throw new ApiError(ErrorCode.METER_SWAP_NOT_DELETABLE);
      const [later] = await tx
        .select({ id: projectMeterSwap.id })
        .from(projectMeterSwap)
        .where(
          and(
            eq(projectMeterSwap.deviceId, s.s.deviceId),
            sql`${projectMeterSwap.swappedAt} > ${s.s.swappedAt.toISOString()}::timestamptz`,
          ),
        )
        .limit(1);
      const day = localTimeOf(s.s.swappedAt.getTime(), s.timezone).date;
      if (later || day < (await firstUnsettledDate(tx, s.siteId))) {
        throw new ApiError(ErrorCode.METER_SWAP_NOT_DELETABLE);
      }
      await tx
        .update(projectMeter)
        .set({
          ctRatio: s.s.oldCtRatio,
          ptRatio: s.s.oldPtRatio,
          readsSecondary: s.s.oldReadsSecondary,
          updatedAt: new Date(this.now()),
        })
        .where(and(eq(projectMeter.projectId, projectId), eq(projectMeter.deviceId, s.s.deviceId)));
      await tx.delete(projectMeterSwap).where(eq(projectMeterSwap.id, swapId));
      await dropTierDays(tx, s.siteId, day);
      // The meter row still holds the new meter's CT/PT here (taken back above in the database).
      const before = swapHistoryValue(s.sn, s.timezone, s.s.swappedAt.getTime(), s.s.note, {
        old: {
          serial: s.s.oldSerial,
          importKwh: s.s.oldImportKwh,
          exportKwh: s.s.oldExportKwh,
          ctRatio: s.s.oldCtRatio,
          ptRatio: s.s.oldPtRatio,
          readsSecondary: s.s.oldReadsSecondary,
        },
        new: {
          serial: s.s.newSerial,
          importKwh: s.s.newImportKwh,
          exportKwh: s.s.newExportKwh,
          ctRatio: s.meter.ctRatio,
          ptRatio: s.meter.ptRatio,
          readsSecondary: s.meter.readsSecondary,
        },
      });
      await this.history(tx, actor, p!, 'meter_swap_delete', [{ field: 'meterSwap', before, after: null }]);
      return { siteId: s.siteId, day, before };
    });
    const run = await fillTierDaysFrom(this.db, written.siteId, written.day, this.now());
    return { repriced: { fromDay: written.day, days: run.days, rows: run.rows }, before: written.before };
  }

  /** The project's declared meter row of `deviceId` with its site (-100 `deviceId` otherwise). */
  private async declaredMeter(tx: Tx, projectId: number, deviceId: number, lang: Lang) {
    const [m] = await tx
      .select({
        id: projectMeter.id,
        ctRatio: projectMeter.ctRatio,
        ptRatio: projectMeter.ptRatio,
        readsSecondary: projectMeter.readsSecondary,
        sn: device.sn,
        siteId: site.id,
        timezone: site.timezone,
      })
      .from(projectMeter)
      .innerJoin(device, eq(device.id, projectMeter.deviceId))
      .innerJoin(site, eq(site.id, device.siteId))
      .where(and(eq(projectMeter.projectId, projectId), eq(projectMeter.deviceId, deviceId)));
    if (!m) throw paramError({ field: 'deviceId', message: texts.notDeclared[lang] });
    return m;
  }
}
