/**
 * Data export (spec §5, §9): the option lists of the export form and the xlsx
 * file itself, written with exceljs' streaming WorkbookWriter straight into the answer.
 *
 * Scope: the agent must be an agent company the caller may see (6000 otherwise); its sites are
 * the in-scope sites of the agent's company tree or with a device assigned to the agent (3036 for
 * any other site, as if it did not exist); devices must be in scope and on that site (3030).
 *
 * Memory: rows are read in keyset batches (`ts > last`, {@link EXPORT_BATCH_ROWS} rows per query,
 * no server-side cursor, so PGlite's single connection is free between batches), each row is
 * committed to the sheet and leaves through the zip stream before the next batch is read (the
 * writer waits for the answer stream to drain, or to close: a client that goes away ends the
 * write at once, nothing more is read). Only the daily-energy sheet (at most 10 devices ×
 * 8 days × 5 registers) is read in one query.
 */

import type { PassThrough } from 'node:stream';
import {
  type ALARM_LEVELS,
  checkExportRequest,
  clampRangeToNow,
  DEVICE_TYPES,
  type DeviceType,
  ENERGY_ITEM_LABELS,
  ErrorCode,
  type ExportChoices,
  type ExportDevice,
  type ExportField,
  type ExportSite,
  type ExportType,
  hhmmOf,
  type Lang,
  localTimeOf,
  POINTS,
  pointDef,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { type CompanyScope, inScopeSql, requireSiteInScope } from '../../access/company-scope';
import type { Db } from '../../core/db/database';
import { numOrNull, rowsOf } from '../../core/db/rows';
import { ApiError } from '../../core/http/api-error';
import { dailyEnergySql } from '../../devices/daily-energy';
import { exportTexts } from './export-texts';

/** Rows per database query while streaming (raw telemetry, alarms). */
export const EXPORT_BATCH_ROWS = 2000;

/** A checked export: everything the writer needs. */
export interface ExportPlan {
  type: ExportType;
  startMs: number;
  endMs: number;
  items: string[];
  agent: { id: number; name: string };
  site: ExportSite;
  /** In the order chosen, without repeats. */
  devices: ExportDevice[];
  /** Data rows the file will hold (for the progress header). */
  rows: number;
  /** Site-local first and last day of the range (YYYY-MM-DD), for the file name. */
  startDay: string;
  endDay: string;
}

export interface WriteOptions {
  lang: Lang;
  /** Rows per query (tests use small batches to prove streaming). */
  batchRows?: number;
  /** Called after each batch has been committed to the sheet, with the rows written so far. */
  onBatch?: (rowsWritten: number) => void | Promise<void>;
  /** True once the client went away: the writer stops reading. */
  aborted?: () => boolean;
}

const FORM_ORDER: ExportField[] = ['agentId', 'time', 'siteId', 'type', 'deviceIds', 'items'];
/** The row's exact time as a key for the next batch (microseconds, UTC). */
const KEY_SQL = `to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export class ExportService {
  constructor(private readonly db: Db) {}

  /** The agent `agentId` if it is an agent company in scope; 6000 otherwise. */
  async agent(scope: CompanyScope, agentId: number): Promise<{ id: number; name: string }> {
    const [row] = rowsOf<{ id: number; name: string }>(
      await this.db.execute(sql`
        SELECT id, name FROM company
        WHERE id = ${agentId} AND type = 'agent' AND ${inScopeSql(scope, 'id')}`),
    );
    if (!row) throw new ApiError(ErrorCode.COMPANY_NOT_FOUND);
    return { id: Number(row.id), name: String(row.name) };
  }

  /**
   * Sites of the agent within scope, by code: sites of the agent's company or a company below
   * it, and sites with a device assigned to the agent. 6000 when the agent is not in scope.
   */
  async sites(scope: CompanyScope, agentId: number, siteId?: number): Promise<ExportSite[]> {
    await this.agent(scope, agentId);
    const rows = rowsOf<ExportSite>(
      await this.db.execute(sql`
        WITH RECURSIVE tree AS (
          SELECT id FROM company WHERE id = ${agentId}
          UNION SELECT c.id FROM company c JOIN tree t ON c.parent_id = t.id
        )
        SELECT s.id, s.code, s.name, s.timezone FROM site s
        WHERE ${inScopeSql(scope, 's.company_id')}
          ${siteId === undefined ? sql`` : sql`AND s.id = ${siteId}`}
          AND (s.company_id IN (SELECT id FROM tree)
               OR EXISTS (SELECT 1 FROM device d WHERE d.site_id = s.id AND d.agent_id = ${agentId}))
        ORDER BY s.code`),
    );
    return rows.map((r) => ({ id: Number(r.id), code: r.code, name: r.name, timezone: r.timezone }));
  }

  /** Devices of an in-scope site (3036 otherwise), EMS first, then by type and SN. */
  async devices(scope: CompanyScope, siteId: number): Promise<ExportDevice[]> {
    await requireSiteInScope(this.db, scope, siteId);
    const rows = rowsOf<{ id: number; sn: string; type: DeviceType; model: string | null }>(
      await this.db.execute(sql`
        SELECT id, sn, type, model FROM device
        WHERE site_id = ${siteId} AND ${inScopeSql(scope, 'company_id')}
        ORDER BY sn`),
    );
    const rank = (t: string) => DEVICE_TYPES.indexOf(t as DeviceType);
    return rows
      .map((r) => ({ id: Number(r.id), sn: r.sn, type: r.type, model: r.model ?? null }))
      .sort((a, b) => rank(a.type) - rank(b.type) || a.sn.localeCompare(b.sn));
  }

  /**
   * Checks a request: every rule of the contract's `checkExportRequest` (the same the form runs),
   * and, for the choices made before the first broken rule, that they exist for the caller (agent
   * 6000, site of the agent 3036, devices of the site 3030) — so the answer names the first
   * thing wrong in form order. Answers the plan with its row count.
   */
  async plan(scope: CompanyScope, choices: ExportChoices, nowMs = Date.now()): Promise<ExportPlan> {
    const issue = checkExportRequest(choices, nowMs);
    const reached = issue ? FORM_ORDER.indexOf(issue.field) : FORM_ORDER.length;
    const agent = reached > 0 ? await this.agent(scope, choices.agentId as number) : undefined;
    let site: ExportSite | undefined;
    if (reached > 2) {
      [site] = await this.sites(scope, agent!.id, choices.siteId as number);
      if (!site) throw new ApiError(ErrorCode.SITE_NOT_FOUND);
    }
    const devices: ExportDevice[] = [];
    if (reached > 4) {
      const onSite = new Map((await this.devices(scope, site!.id)).map((d) => [d.id, d]));
      for (const deviceId of new Set(choices.deviceIds)) {
        const found = onSite.get(deviceId);
        if (!found) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
        devices.push(found);
      }
    }
    if (issue) throw new ApiError(issue.code as never, issue.params);
    const type = choices.type as ExportType;
    const startMs = choices.startMs as number;
    // Data cannot lie in the future: read up to now (the file name keeps the chosen end).
    const { endMs } = clampRangeToNow({ startMs, endMs: choices.endMs as number }, nowMs);
    const items = [...new Set(choices.items)];
    // The end is exclusive: the last day is the one holding the range's last millisecond (a range
    // ending at midnight ends the day before).
    const [days] = rowsOf<{ start_day: string; end_day: string }>(
      await this.db.execute(sql`
        SELECT to_char(${tsOf(startMs)} AT TIME ZONE ${site!.timezone}, 'YYYY-MM-DD') AS start_day,
               to_char(${tsOf((choices.endMs as number) - 1)} AT TIME ZONE ${site!.timezone}, 'YYYY-MM-DD') AS end_day`),
    );
    const plan: ExportPlan = {
      type,
      startMs,
      endMs,
      items,
      agent: agent!,
      site: site!,
      devices,
      rows: 0,
      startDay: days!.start_day,
      endDay: days!.end_day,
    };
    plan.rows = await this.countRows(plan);
    return plan;
  }

  /** Data rows of the plan's file (all sheets). */
  private async countRows(plan: ExportPlan): Promise<number> {
    const ids = idList(plan.devices);
    const range = rangeSql(plan);
    let query: ReturnType<typeof sql>;
    if (plan.type === 'raw') {
      query = sql`SELECT count(*)::int AS n FROM telemetry WHERE device_id IN (${ids}) AND ${range('ts')}`;
    } else if (plan.type === 'alarms') {
      query = sql`SELECT count(*)::int AS n FROM alarm_event
        WHERE site_id = ${plan.site.id} AND device_id IN (${ids}) AND ${range('ts')}
          AND level IN (${sql.join(
            plan.items.map((i) => sql`${i}`),
            sql`, `,
          )})`;
    } else {
      return (await this.dailyEnergy(plan)).length;
    }
    return Number(rowsOf<{ n: number }>(await this.db.execute(query))[0]?.n ?? 0);
  }

  /**
   * Writes the plan's workbook into `out` and ends it: an info sheet (what, where, when, who
   * generated it), then the data — `raw`: one sheet per device (site-local time, then the chosen
   * points that the device type has, unit in the header); `dailyEnergy`: one sheet, a row per
   * device and day with kWh per chosen register; `alarms`: one sheet, a row per event.
   * Answers the number of data rows written. Stops reading (and destroys `out`) as soon as
   * `options.aborted()` says so or `out` is destroyed — also while waiting for a slow client.
   */
  async write(plan: ExportPlan, out: PassThrough, options: WriteOptions): Promise<number> {
    const texts = exportTexts[options.lang];
    const batchRows = options.batchRows ?? EXPORT_BATCH_ROWS;
    const aborted = options.aborted ?? (() => false);
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: out,
      useStyles: false,
      useSharedStrings: false,
    });
    workbook.creator = 'ESS Console';
    workbook.created = new Date();
    let written = 0;
    // Stop reading once the client went away or `out` was destroyed (Fastify destroys the payload
    // stream when the answer closes early: 'close' fires, 'drain' never does).
    const stopped = () => aborted() || out.destroyed;
    const afterBatch = async () => {
      options.onBatch && (await options.onBatch(written));
      if (out.destroyed) return;
      // Let the zip stream move what was committed, and wait while the client is slow.
      if (out.writableNeedDrain) await drainedOrClosed(out);
      else await new Promise((resolve) => setImmediate(resolve));
    };

    const info = workbook.addWorksheet(texts.infoSheet);
    const infoRows: [string, string][] = [
      [texts.info.type, texts.types[plan.type]],
      [texts.info.agent, plan.agent.name],
      [texts.info.site, `${plan.site.code} ${plan.site.name}`],
      [texts.info.timezone, plan.site.timezone],
      [
        texts.info.range,
        `${localTime(plan.startMs, plan.site.timezone)} – ${localTime(plan.endMs, plan.site.timezone)}`,
      ],
      [texts.info.devices, plan.devices.map((d) => `${d.sn} (${texts.deviceTypes[d.type]})`).join(', ')],
      [texts.info.items, plan.items.map((i) => itemLabel(plan.type, i, options.lang)).join(', ')],
      [texts.info.rows, String(plan.rows)],
      [texts.info.generatedAt, new Date().toISOString()],
    ];
    for (const row of infoRows) info.addRow(row).commit();
    info.commit();

    const timeHeader = `${texts.time} (${plan.site.timezone})`;
    if (plan.type === 'raw') {
      for (const d of plan.devices) {
        if (stopped()) break;
        const points = plan.items.filter((i) => pointDef(d.type, i));
        const sheet = workbook.addWorksheet(sheetName(`${d.sn}`, workbook));
        sheet.addRow([timeHeader, ...points.map((p) => itemLabel('raw', p, options.lang, d.type))]).commit();
        let after: string | null = null;
        for (;;) {
          if (stopped()) break;
          const rows: Record<string, unknown>[] = rowsOf<Record<string, unknown>>(
            await this.db.execute(sql`
              SELECT ${sql.raw(KEY_SQL)} AS key,
                     to_char(ts AT TIME ZONE ${plan.site.timezone}, 'YYYY-MM-DD HH24:MI:SS') AS t
                     ${points.length ? sql`, ` : sql``}${sql.join(
                       points.map((p, i) => sql`(points->>${p})::float8 AS ${sql.raw(`p${i}`)}`),
                       sql`, `,
                     )}
              FROM telemetry
              WHERE device_id = ${d.id}
                AND ${after === null ? sql`ts >= ${tsOf(plan.startMs)}` : sql`ts > ${after}::timestamptz`}
                AND ts < ${tsOf(plan.endMs)}
              ORDER BY ts LIMIT ${batchRows}`),
          );
          for (const r of rows) {
            sheet.addRow([String(r.t), ...points.map((_, i) => numOrNull(r[`p${i}`]))]).commit();
          }
          written += rows.length;
          if (rows.length) after = String(rows[rows.length - 1]!.key);
          await afterBatch();
          if (rows.length < batchRows) break;
        }
        sheet.commit();
      }
    } else if (plan.type === 'dailyEnergy') {
      const sheet = workbook.addWorksheet(sheetName(texts.types.dailyEnergy, workbook));
      sheet
        .addRow([
          texts.day,
          texts.deviceSn,
          texts.deviceType,
          ...plan.items.map((i) => itemLabel('dailyEnergy', i, options.lang)),
        ])
        .commit();
      const order = new Map(plan.devices.map((d, i) => [d.id, i]));
      const byRow = new Map<string, { device: ExportDevice; day: string; kwh: Map<string, number> }>();
      for (const r of await this.dailyEnergy(plan)) {
        const key = `${r.deviceId}|${r.day}`;
        let row = byRow.get(key);
        if (!row) {
          row = { device: plan.devices[order.get(r.deviceId)!]!, day: r.day, kwh: new Map() };
          byRow.set(key, row);
        }
        row.kwh.set(r.point, r.kwh);
      }
      const sorted = [...byRow.values()].sort(
        (a, b) => order.get(a.device.id)! - order.get(b.device.id)! || a.day.localeCompare(b.day),
      );
      for (const row of sorted) {
        sheet
          .addRow([
            row.day,
            row.device.sn,
            texts.deviceTypes[row.device.type],
            ...plan.items.map((i) => (row.kwh.has(i) ? round3(row.kwh.get(i)!) : null)),
          ])
          .commit();
        written += 1;
      }
      await afterBatch();
      sheet.commit();
    } else {
      const sheet = workbook.addWorksheet(sheetName(texts.types.alarms, workbook));
      sheet
        .addRow([
          timeHeader,
          texts.alarm.ems,
          texts.deviceSn,
          texts.deviceType,
          texts.alarm.kind,
          texts.alarm.code,
          texts.alarm.level,
          texts.alarm.content,
          texts.alarm.value,
        ])
        .commit();
      const ids = idList(plan.devices);
      const levels = sql.join(
        plan.items.map((i) => sql`${i}`),
        sql`, `,
      );
      let after: { key: string; id: number } | null = null;
      for (;;) {
        if (stopped()) break;
        const rows: Record<string, unknown>[] = rowsOf<Record<string, unknown>>(
          await this.db.execute(sql`
            SELECT a.id, ${sql.raw(KEY_SQL.replace('(ts ', '(a.ts '))} AS key,
                   to_char(a.ts AT TIME ZONE ${plan.site.timezone}, 'YYYY-MM-DD HH24:MI:SS') AS t,
                   g.sn AS ems_sn, d.sn, d.type, a.kind, a.code, a.level, a.content, a.value
            FROM alarm_event a
            JOIN device d ON d.id = a.device_id
            LEFT JOIN device g ON g.id = a.gateway_id
            WHERE a.site_id = ${plan.site.id} AND a.device_id IN (${ids}) AND a.level IN (${levels})
              AND a.ts < ${tsOf(plan.endMs)}
              AND ${
                after === null
                  ? sql`a.ts >= ${tsOf(plan.startMs)}`
                  : sql`(a.ts, a.id) > (${after.key}::timestamptz, ${after.id})`
              }
            ORDER BY a.ts, a.id LIMIT ${batchRows}`),
        );
        for (const r of rows) {
          sheet
            .addRow([
              String(r.t),
              r.ems_sn === null || r.ems_sn === undefined ? '' : String(r.ems_sn),
              String(r.sn),
              texts.deviceTypes[r.type as DeviceType] ?? String(r.type),
              texts.alarmKinds[r.kind as 'produce' | 'disappear'] ?? String(r.kind),
              String(r.code),
              texts.alarmLevels[r.level as (typeof ALARM_LEVELS)[number]] ?? String(r.level),
              String(r.content),
              numOrNull(r.value),
            ])
            .commit();
        }
        written += rows.length;
        if (rows.length) {
          const tail: Record<string, unknown> = rows[rows.length - 1]!;
          after = { key: String(tail.key), id: Number(tail.id) };
        }
        await afterBatch();
        if (rows.length < batchRows) break;
      }
      sheet.commit();
    }
    if (stopped()) {
      out.destroy();
      return written;
    }
    await workbook.commit();
    return written;
  }

  /** kWh per device, point and site-local day overlapping the range, by the shared rule ({@link dailyEnergySql}). */
  private async dailyEnergy(
    plan: ExportPlan,
  ): Promise<{ deviceId: number; point: string; day: string; kwh: number }[]> {
    const tz = plan.site.timezone;
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        SELECT e.device_id, e.point, e.day, e.kwh
        FROM ${dailyEnergySql({
          devices: sql`SELECT id AS device_id, ${tz}::text AS timezone FROM device WHERE id IN (${idList(plan.devices)})`,
          points: plan.items,
          from: sql`date_trunc('day', ${tsOf(plan.startMs)} AT TIME ZONE dv.timezone) AT TIME ZONE dv.timezone`,
          to: tsOf(plan.endMs),
        })} e
        ORDER BY e.device_id, e.bucket_start`),
    );
    return rows.map((r) => ({
      deviceId: Number(r.device_id),
      point: String(r.point),
      day: String(r.day),
      kwh: Math.max(0, Number(r.kwh)),
    }));
  }
}

/** Settles when `out` drained, closed or failed (whichever comes first); listeners removed after. */
function drainedOrClosed(out: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

/** `id, id, …` of the devices (never empty: plans hold at least one device). */
function idList(devices: ExportDevice[]) {
  return sql.join(
    devices.map((d) => sql`${d.id}`),
    sql`, `,
  );
}

/** `<column> >= start AND <column> < end` of the plan's range. */
function rangeSql(plan: ExportPlan) {
  return (column: string) =>
    sql`${sql.raw(column)} >= ${tsOf(plan.startMs)} AND ${sql.raw(column)} < ${tsOf(plan.endMs)}`;
}

/** The exact timestamptz of UTC milliseconds `ms`. */
function tsOf(ms: number) {
  return sql`(timestamptz 'epoch' + ${ms}::float8 * interval '1 millisecond')`;
}

/** The header of a data item: label and unit in `lang` (raw points of `deviceType` when given). */
export function itemLabel(type: ExportType, item: string, lang: Lang, deviceType?: DeviceType): string {
  if (type === 'alarms') return exportTexts[lang].alarmLevels[item as 'warning' | 'fault'] ?? item;
  if (type === 'dailyEnergy') return `${ENERGY_ITEM_LABELS[lang][item] ?? item} (kWh)`;
  const def = deviceType
    ? pointDef(deviceType, item)
    : DEVICE_TYPES.map((t) => POINTS[t].find((p) => p.name === item)).find(Boolean);
  if (!def) return item;
  return def.unit ? `${def[lang]} (${def.unit})` : def[lang];
}

/** A worksheet name Excel accepts (≤ 31 characters, none of []:*?/\) and unique in the workbook. */
function sheetName(wanted: string, workbook: ExcelJS.stream.xlsx.WorkbookWriter): string {
  const base = wanted.replace(/[[\]:*?/\\]/g, '_').slice(0, 31) || 'Sheet';
  let name = base;
  for (let i = 2; workbook.getWorksheet(name); i += 1) name = `${base.slice(0, 28)}~${i}`;
  return name;
}

/** `YYYY-MM-DD HH:mm` of `ms` in `timeZone`. */
function localTime(ms: number, timeZone: string): string {
  const { date, minuteOfDay } = localTimeOf(ms, timeZone);
  return `${date} ${hhmmOf(minuteOfDay)}`;
}

/** Three decimals for kWh. */
function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
