/**
 * Data export (spec §5 "Export", §9 "Export: max 10 entries, date range max 7
 * days"): the choices of the export form, their rules — checked by {@link checkExportRequest} in
 * the console's form and again by the server — and the option lists the form needs.
 *
 * The form is a chain of prerequisites (spec §5: "agent, time, station, export type and energy
 * storage device must be chosen first"): agent → time range → station (site) → export type →
 * energy-storage devices (the "entries", at most {@link EXPORT_MAX_ENTRIES}) → data items (the
 * points, energy registers or alarm levels to export; "data to export must be selected").
 * The answer of a valid request is the xlsx file itself (docs/api.md "Export"), not an envelope.
 */
import { z } from 'zod';
import { POINTS } from '../device/points';
import { ALARM_LEVELS, DEVICE_TYPES, type DeviceType } from '../device/protocol';
import { ErrorCode } from '../errors';
import type { Lang } from '../lang';
import { userInfoEcho } from './envelope';
import { epochMsSchema, idSchema as id, nullResponse } from './primitives';
import { checkTimeRange, EXPORT_MAX_DAYS } from './time-range';

/** Spec §9: at most 10 entries (energy-storage devices) per export. */
export const EXPORT_MAX_ENTRIES = 10;

/**
 * What can be exported:
 * - `raw`: every raw telemetry row of each device in the range (one sheet per device, the
 *   chosen points as columns, times in the site's time zone);
 * - `dailyEnergy`: per device and site-local day, the energy of each chosen register (kWh, from
 *   the daily rollups: the day's last register value − the previous day's last);
 * - `alarms`: the alarm events (produce / disappear) of the devices, of the chosen levels.
 */
export const EXPORT_TYPES = ['raw', 'dailyEnergy', 'alarms'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** File-name part of each type (ASCII, e.g. `SHA-C001_raw_2026-11-14_2026-11-20.xlsx`). */
export const EXPORT_TYPE_SLUG: Record<ExportType, string> = {
  raw: 'raw',
  dailyEnergy: 'daily-energy',
  alarms: 'alarms',
};

/** The MIME type of the answer of a valid export. */
export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Response header of a streamed export: how many data rows the file will hold (counted before
 * streaming), so that the console can show progress next to the bytes received.
 */
export const EXPORT_ROWS_HEADER = 'X-Export-Rows';

/**
 * The export form as sent: every choice may still be missing (null) so that the server answers
 * which prerequisite is missing with the spec's message instead of a bare parameter error.
 * Times are UTC ms, start inclusive, end exclusive.
 */
export const exportRequest = z.object({
  userInfo: userInfoEcho,
  agentId: id.nullable().default(null),
  startMs: epochMsSchema.nullable().default(null),
  endMs: epochMsSchema.nullable().default(null),
  siteId: id.nullable().default(null),
  type: z.enum(EXPORT_TYPES).nullable().default(null),
  /** The energy-storage devices (entries), at most {@link EXPORT_MAX_ENTRIES}. */
  deviceIds: z.array(id).max(1000).default([]),
  /** Data items: point names (`raw`), energy registers (`dailyEnergy`) or alarm levels (`alarms`). */
  items: z.array(z.string().max(64)).max(200).default([]),
});
export type ExportRequest = z.input<typeof exportRequest>;
export type ExportChoices = z.output<typeof exportRequest>;

/**
 * The `data` of `export/xlsx` when it answers an envelope: only a refusal does, with
 * `data: null`. A valid request answers the xlsx file itself ({@link XLSX_MIME}, streamed, with
 * {@link EXPORT_ROWS_HEADER}); the endpoint table marks it with `file`.
 */
export const exportXlsxResponse = nullResponse;

/** The fields of the form in prerequisite order, and `items` (the data to export). */
export type ExportField = 'agentId' | 'time' | 'siteId' | 'type' | 'deviceIds' | 'items';

/** A broken export rule: its code, the values of its message and the form field it belongs to. */
export interface ExportIssue {
  code: number;
  params: Record<string, number | string>;
  field: ExportField;
}

/** Codes of the missing prerequisites, in form order (spec §5 "… must be chosen first"). */
export const EXPORT_PREREQUISITES: readonly { field: ExportField; code: number }[] = [
  { field: 'agentId', code: ErrorCode.EXPORT_AGENT_REQUIRED },
  { field: 'time', code: ErrorCode.EXPORT_TIME_REQUIRED },
  { field: 'siteId', code: ErrorCode.EXPORT_SITE_REQUIRED },
  { field: 'type', code: ErrorCode.EXPORT_TYPE_REQUIRED },
  { field: 'deviceIds', code: ErrorCode.EXPORT_DEVICE_REQUIRED },
];

/** True when the field holds a choice. */
function chosen(choices: Partial<ExportChoices>, field: ExportField): boolean {
  switch (field) {
    case 'agentId':
      return choices.agentId != null;
    case 'time':
      return choices.startMs != null && choices.endMs != null;
    case 'siteId':
      return choices.siteId != null;
    case 'type':
      return choices.type != null;
    case 'deviceIds':
      return (choices.deviceIds?.length ?? 0) > 0;
    case 'items':
      return (choices.items?.length ?? 0) > 0;
  }
}

/**
 * The first prerequisite of `field` that is not chosen yet, as an issue (its code and field), or
 * null when `field` may be filled now. The form disables `field` and shows this message under it.
 */
export function missingPrerequisite(choices: Partial<ExportChoices>, field: ExportField): ExportIssue | null {
  for (const step of EXPORT_PREREQUISITES) {
    if (step.field === field) return null;
    if (!chosen(choices, step.field)) return { code: step.code, params: {}, field: step.field };
  }
  return null;
}

/** Names of the daily energy of each register (kWh per site-local day), for headers and the form. */
export const ENERGY_ITEM_LABELS: Record<Lang, Record<string, string>> = {
  zh: {
    e_charge_total_kwh: '充电量',
    e_discharge_total_kwh: '放电量',
    e_import_total_kwh: '购电量(正向)',
    e_export_total_kwh: '上网电量(反向)',
    e_total_kwh: '光伏发电量',
  },
  en: {
    e_charge_total_kwh: 'Charged energy',
    e_discharge_total_kwh: 'Discharged energy',
    e_import_total_kwh: 'Imported energy',
    e_export_total_kwh: 'Exported energy',
    e_total_kwh: 'PV energy',
  },
};

/**
 * The data items that can be chosen for `type` and devices of `deviceTypes` (all types when
 * omitted): the standard points of those types (`raw`), their energy registers (`dailyEnergy`) or
 * the alarm levels (`alarms`), without repeats.
 */
export function exportItemsFor(
  type: ExportType,
  deviceTypes: readonly DeviceType[] = DEVICE_TYPES,
): string[] {
  if (type === 'alarms') return [...ALARM_LEVELS];
  const names = deviceTypes.flatMap((t) =>
    POINTS[t].filter((p) => type === 'raw' || p.counter).map((p) => p.name),
  );
  return [...new Set(names)];
}

/** At most {@link EXPORT_MAX_ENTRIES} distinct devices (spec §9): 3131 otherwise. */
export function checkExportEntries(deviceIds: readonly number[]): ExportIssue | null {
  if (new Set(deviceIds).size <= EXPORT_MAX_ENTRIES) return null;
  return { code: ErrorCode.EXPORT_TOO_MANY_ENTRIES, params: { max: EXPORT_MAX_ENTRIES }, field: 'deviceIds' };
}

/**
 * The range rules of an export: the shared api/time-range.ts rule with the export's limit
 * ({@link EXPORT_MAX_DAYS}); its "too long" (3121) is answered as 3132 with the spec's own text
 * ("start and end time at most 7 days apart"). 3120 inverted, 3122 starts in the future.
 */
export function checkExportRange(startMs: number, endMs: number, nowMs: number): ExportIssue | null {
  const issue = checkTimeRange({ startMs, endMs }, { maxDays: EXPORT_MAX_DAYS, nowMs });
  if (!issue) return null;
  const code = issue.code === ErrorCode.RANGE_TOO_LONG ? ErrorCode.EXPORT_RANGE_TOO_LONG : issue.code;
  return { code, params: issue.params, field: 'time' };
}

/**
 * Every export rule (spec §5, §9) in the order the form is filled; the first broken one is
 * answered, or null when the request may be exported:
 *
 * 1. agent chosen (3133), time chosen (3134);
 * 2. the range: end after start (3120), start and end at most {@link EXPORT_MAX_DAYS} days apart
 *    (3132, spec's own text; the shared range rule of api/time-range.ts, whose 3121 becomes 3132
 *    here), start not in the future (3122);
 * 3. site chosen (3135 "a site must be selected for actions"), export type chosen (3136),
 *    energy-storage device chosen (3137), at most {@link EXPORT_MAX_ENTRIES} devices (3131);
 * 4. data items chosen (3130 "data to export must be selected") and each one valid for the type
 *    (3138 with `{item}`).
 *
 * Whether the agent, site and devices exist for the caller is the server's part (6000, 3036, 3030).
 */
export function checkExportRequest(choices: Partial<ExportChoices>, nowMs: number): ExportIssue | null {
  for (const step of EXPORT_PREREQUISITES) {
    if (!chosen(choices, step.field)) return { code: step.code, params: {}, field: step.field };
    if (step.field === 'time') {
      const issue = checkExportRange(choices.startMs as number, choices.endMs as number, nowMs);
      if (issue) return issue;
    }
  }
  const tooMany = checkExportEntries(choices.deviceIds ?? []);
  if (tooMany) return tooMany;
  const items = choices.items ?? [];
  if (items.length === 0) return { code: ErrorCode.EXPORT_DATA_REQUIRED, params: {}, field: 'items' };
  const allowed = new Set(exportItemsFor(choices.type as ExportType));
  const wrong = items.find((item) => !allowed.has(item));
  if (wrong !== undefined)
    return { code: ErrorCode.EXPORT_ITEM_INVALID, params: { item: wrong }, field: 'items' };
  return null;
}

/** A site the caller may export from, for the station picker. */
export const exportSiteSchema = z.object({
  id,
  code: z.string(),
  name: z.string(),
  /** IANA zone of the site: export times and days are written in it. */
  timezone: z.string(),
});
export type ExportSite = z.infer<typeof exportSiteSchema>;

/** Sites of an agent within the caller's scope: those of the agent's companies or with its devices. */
export const exportSitesRequest = z.object({ userInfo: userInfoEcho, agentId: id });
export const exportSitesResponse = z.object({ list: z.array(exportSiteSchema) });

/** A device of a site, for the energy-storage device picker. */
export const exportDeviceSchema = z.object({
  id,
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
});
export type ExportDevice = z.infer<typeof exportDeviceSchema>;

export const exportDevicesRequest = z.object({ userInfo: userInfoEcho, siteId: id });
export const exportDevicesResponse = z.object({ list: z.array(exportDeviceSchema) });

/**
 * The file name of an export: site code, type and the site-local first and last day, e.g.
 * `SHA-C001_raw_2026-11-14_2026-11-20.xlsx` (`startDay`/`endDay` as YYYY-MM-DD; `endDay` holds the
 * range's last millisecond, so a range ending 2026-11-21 00:00 ends on the 20th). Characters a file
 * system refuses are replaced by `_`.
 */
export function exportFileName(siteCode: string, type: ExportType, startDay: string, endDay: string): string {
  const safe = siteCode.replace(/[\\/:*?"<>|\s]+/g, '_');
  return `${safe}_${EXPORT_TYPE_SLUG[type]}_${startDay}_${endDay}.xlsx`;
}
