/**
 * Alarms and the mail outbox (spec §3 alarms: EMS number, report time, event
 * type produce or disappear, alarm type and content). Lists take `{pageNum, pageSize, …filters}`
 * and answer `{list, total}`; times are UTC ms, shown in the site's time zone (`siteTimezone`).
 *
 * - An **alarm** lives from its `produce` event until the `disappear` of the same device, code
 *   and level (a code's warning and fault are separate alarms); `alarm/activeList` lists the
 *   ones still active, with acknowledgement (who and when).
 * - `alarm/historyList` lists **events**: produce and disappear (with their alarm's state and
 *   acknowledgement) and the EMS's online / offline changes (with the reason), newest first.
 * - `alarm/ack` acknowledges one or many alarms (3100 not found, 3101 already acknowledged).
 * - `mail/outboxList` / `mail/outboxDetail`: alarm mails to subscribers (3103 not found).
 */
import { z } from 'zod';
import { ALARM_LEVELS, DEVICE_TYPES, OFFLINE_REASONS } from '../device/protocol';
import { userInfoEcho } from './envelope';
import { idSchema as id, keywordSchema, pageRequest, pageRequestShape, pageResponse } from './primitives';
import { timeRangeSchema } from './time-range';

/** Alarm codes the console knows (docs/device-protocol.md "Alarm codes"), with their labels. */
export const ALARM_CODE_LABELS: Record<string, { zh: string; en: string }> = {
  'bms.cell_overvoltage': { zh: '电芯过压', en: 'Cell overvoltage' },
  'bms.cell_undervoltage': { zh: '电芯欠压', en: 'Cell undervoltage' },
  'bms.cell_overtemperature': { zh: '电芯过温', en: 'Cell overtemperature' },
  'bms.cell_voltage_diff': { zh: '电芯压差过大', en: 'Cell voltage difference' },
  'bms.soc_high': { zh: 'SOC过高', en: 'SOC high' },
  'bms.soc_low': { zh: 'SOC过低', en: 'SOC low' },
  'pcs.over_temperature': { zh: 'PCS过温', en: 'PCS over-temperature' },
  'pcs.grid_overvoltage': { zh: '电网过压', en: 'Grid overvoltage' },
  'env.smoke': { zh: '烟雾告警', en: 'Smoke detected' },
  'env.water': { zh: '水浸告警', en: 'Water detected' },
  'env.door_open': { zh: '柜门打开', en: 'Door open' },
  'ac.fault': { zh: '空调故障', en: 'Air conditioner fault' },
};

/** The label of alarm `code` in `lang`, or the code itself when the console does not know it. */
export function alarmCodeLabel(code: string, lang: 'zh' | 'en'): string {
  return ALARM_CODE_LABELS[code]?.[lang] ?? code;
}

/** Event types of the alarm history: an alarm's produce / disappear, an EMS's online / offline. */
export const ALARM_EVENT_TYPES = ['produce', 'disappear', 'online', 'offline'] as const;
export type AlarmEventType = (typeof ALARM_EVENT_TYPES)[number];

/** Filters shared by both lists. */
const alarmFilters = {
  ...pageRequestShape,
  siteId: id.optional(),
  deviceId: id.optional(),
  level: z.enum(ALARM_LEVELS).optional(),
  /** Matches the code, its label is not searched; also content, device SN and EMS SN. */
  keyword: keywordSchema,
  /** Exact alarm code (e.g. `bms.cell_overvoltage`). */
  code: z.string().trim().max(64).optional(),
  /** Raised (active list) or happened (history) within `[startMs, endMs)`; at most 400 days (3120–3122). */
  range: timeRangeSchema.optional(),
  /** true: acknowledged only; false: not yet acknowledged only. */
  acknowledged: z.boolean().optional(),
};

export const alarmActiveListRequest = z.object(alarmFilters);
export type AlarmActiveListRequest = z.infer<typeof alarmActiveListRequest>;

export const alarmHistoryListRequest = z.object({
  ...alarmFilters,
  /** Event types to list; default all four. */
  types: z.array(z.enum(ALARM_EVENT_TYPES)).min(1).max(4).optional(),
  /** The state of the event's alarm now: still active, or cleared. */
  state: z.enum(['active', 'cleared']).optional(),
});
export type AlarmHistoryListRequest = z.infer<typeof alarmHistoryListRequest>;

/** Where an alarm or event happened. */
const whereFields = {
  siteId: id,
  siteName: z.string(),
  /** IANA zone of the site: show times there. */
  siteTimezone: z.string(),
  deviceId: id,
  deviceSn: z.string(),
  deviceType: z.enum(DEVICE_TYPES).or(z.string()),
  /** The spec's "EMS number": SN of the gateway that reported it. */
  emsSn: z.string(),
};

const ackFields = {
  /** When it was acknowledged (UTC ms), or null. */
  ackAt: z.number().int().nullable(),
  /** Who acknowledged it: "account (name)". */
  ackBy: z.string().nullable(),
};

export const alarmLifecycleRowSchema = z.object({
  id,
  ...whereFields,
  code: z.string(),
  level: z.enum(ALARM_LEVELS),
  content: z.string(),
  value: z.number().nullable(),
  producedAt: z.number().int(),
  clearedAt: z.number().int().nullable(),
  clearContent: z.string().nullable(),
  ...ackFields,
});
export type AlarmLifecycleRow = z.infer<typeof alarmLifecycleRowSchema>;
export const alarmActiveListResponse = pageResponse(alarmLifecycleRowSchema);

export const alarmHistoryRowSchema = z.object({
  /** Unique per row: `e<event id>` (alarm event) or `c<log id>` (connection change). */
  key: z.string(),
  type: z.enum(ALARM_EVENT_TYPES),
  /** Report time (UTC ms): the device's time of the event, the server's of a connection change. */
  ts: z.number().int(),
  ...whereFields,
  /** Alarm events only. */
  code: z.string().nullable(),
  level: z.enum(ALARM_LEVELS).nullable(),
  content: z.string().nullable(),
  /** Online / offline only: why it went offline (lwt, clean, timeout). */
  reason: z.enum(OFFLINE_REASONS).or(z.string()).nullable(),
  /** The alarm the event raised or cleared (null: connection change, or an unmatched event). */
  alarmId: z.number().int().nullable(),
  /** Whether that alarm is still active. */
  alarmActive: z.boolean().nullable(),
  ...ackFields,
});
export type AlarmHistoryRow = z.infer<typeof alarmHistoryRowSchema>;
export const alarmHistoryListResponse = pageResponse(alarmHistoryRowSchema);

/** At most this many alarms per acknowledgement. */
export const ALARM_ACK_MAX = 500;

export const alarmAckRequest = z.object({
  userInfo: userInfoEcho,
  ids: z.array(id).min(1).max(ALARM_ACK_MAX),
});
export const alarmAckResponse = z.object({
  /** Alarms acknowledged by this call. */
  acknowledged: z.array(z.number().int()),
  /** Alarms someone had acknowledged before (left as they were). */
  alreadyAcknowledged: z.array(z.number().int()),
  ackAt: z.number().int(),
  ackBy: z.string(),
});
export type AlarmAckResponse = z.infer<typeof alarmAckResponse>;

/** Sites and their devices the caller may filter alarms by. */
export const alarmFilterOptionsRequest = z.object({ userInfo: userInfoEcho });
export const alarmFilterOptionsResponse = z.object({
  sites: z.array(
    z.object({
      id,
      name: z.string(),
      devices: z.array(z.object({ id, sn: z.string(), type: z.string() })),
    }),
  ),
});
export type AlarmFilterOptions = z.infer<typeof alarmFilterOptionsResponse>;

/** Mail outbox states: queued (not delivered yet), sent, failed (retried with backoff). */
export const MAIL_STATES = ['queued', 'sent', 'failed'] as const;
export type MailState = (typeof MAIL_STATES)[number];

export const mailOutboxListRequest = pageRequest.extend({
  state: z.enum(MAIL_STATES).optional(),
  /** Matches the address and the subject. */
  keyword: keywordSchema,
});
export const mailOutboxRowSchema = z.object({
  id,
  companyName: z.string(),
  recipientName: z.string().nullable(),
  toAddress: z.string(),
  lang: z.enum(['zh', 'en']),
  subject: z.string(),
  alarmCount: z.number().int(),
  state: z.enum(MAIL_STATES),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: z.number().int(),
  sentAt: z.number().int().nullable(),
  /** Next delivery attempt (UTC ms) while queued or failed. */
  nextAttemptAt: z.number().int().nullable(),
});
export type MailOutboxRow = z.infer<typeof mailOutboxRowSchema>;
export const mailOutboxListResponse = pageResponse(mailOutboxRowSchema).extend({
  /** Whether an SMTP server is configured (SMTP_URL); without it mails stay queued here. */
  smtpConfigured: z.boolean(),
});
export const mailOutboxDetailRequest = z.object({ userInfo: userInfoEcho, id });
export const mailOutboxDetailResponse = mailOutboxRowSchema.extend({ body: z.string() });
export type MailOutboxDetail = z.infer<typeof mailOutboxDetailResponse>;
