/**
 * Device protocol v1 (docs/device-protocol.md): MQTT topics and JSON payloads exchanged between
 * a site's gateway (usually its EMS) and the server.
 *
 * One MQTT client per gateway SN (username = SN, password = the device secret). The gateway
 * publishes for itself and for the devices behind it (PCS, BMS, meters, sensors, air
 * conditioner) — Sparkplug's edge-node/device idea — under its own topic root
 * `ess/v1/<gatewaySn>/…`, and may use no other topic (broker ACL).
 *
 * Every payload carries `v` (protocol version, 1), `ts` (device time, UTC ms) and, where the
 * server must deduplicate QoS 1 redeliveries, an `id` unique per gateway.
 */
import { z } from 'zod';
import type { Lang } from '../lang';
import { touSchemeDocumentSchema } from '../tou/scheme';

/** Protocol version carried in every payload. */
export const PROTOCOL_VERSION = 1;

/** Topic root of every device topic. */
export const TOPIC_ROOT = 'ess/v1';

/** Largest payload the server accepts (bytes); larger ones are dropped and counted. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** A reply not received this long after a command marks the command failed ("timeout"). */
export const COMMAND_TIMEOUT_MS = 10_000;

/** Device clock further than this from the server's gets a time-sync command (docs "Clock skew"). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** Oldest device timestamp still stored (buffered data after an outage); older is dropped. */
export const MAX_BACKFILL_MS = 7 * 24 * 3600_000;

/** The last message of a gateway older than this marks it offline ("timeout"). */
export const HEARTBEAT_TIMEOUT_MS = 3 * 60_000;

/** SN: 4–40 characters of letters, digits, '-' and '_' (safe in a topic level). */
export const SN_PATTERN = /^[A-Za-z0-9_-]{4,40}$/;

export const DEVICE_TYPES = ['ems', 'pcs', 'bms', 'meter', 'pv', 'air_conditioner', 'env_sensor'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/**
 * Name of each device type in the console's languages (the same words in lists, filters,
 * exports and mails). Abbreviations (EMS, PCS, BMS) are the field's standard terms (design §4).
 */
export const DEVICE_TYPE_LABELS: Readonly<Record<DeviceType, Readonly<Record<Lang, string>>>> = {
  ems: { zh: 'EMS', en: 'EMS' },
  pcs: { zh: 'PCS', en: 'PCS' },
  bms: { zh: 'BMS', en: 'BMS' },
  meter: { zh: '电表', en: 'Meter' },
  pv: { zh: '光伏', en: 'PV' },
  air_conditioner: { zh: '空调', en: 'Air conditioner' },
  env_sensor: { zh: '环境传感器', en: 'Environment sensor' },
};

/** The name of device `type` in `lang` (e.g. 'meter' → '电表' / 'Meter'); an unknown type → itself. */
export function deviceTypeLabel(type: string, lang: Lang): string {
  return (DEVICE_TYPE_LABELS as Partial<Record<string, Record<Lang, string>>>)[type]?.[lang] ?? type;
}

/**
 * Topic kinds of a gateway; `params`: its devices' parameter reports (params/messages.ts);
 * `ota`: firmware upgrade progress events (device/ota.ts `otaProgressPayload`).
 */
export type TopicKind = 'status' | 'telemetry' | 'event' | 'cmd' | 'reply' | 'params' | 'ota';

/** Topic of `kind` for gateway `sn`. */
export function deviceTopic(sn: string, kind: TopicKind): string {
  return kind === 'reply' ? `${TOPIC_ROOT}/${sn}/cmd/reply` : `${TOPIC_ROOT}/${sn}/${kind}`;
}

/** `ess/v1/<SN>/<kind>`, built from TOPIC_ROOT and SN_PATTERN so the three cannot drift apart. */
const DEVICE_TOPIC_PATTERN = new RegExp(
  `^${TOPIC_ROOT}/(${SN_PATTERN.source.slice(1, -1)})/(status|telemetry|event|params|ota|cmd|cmd/reply)$`,
);

/** Parses a device topic; undefined for anything else. */
export function parseDeviceTopic(topic: string): { sn: string; kind: TopicKind } | undefined {
  const m = DEVICE_TOPIC_PATTERN.exec(topic);
  if (!m) return undefined;
  const kind = m[2] === 'cmd/reply' ? 'reply' : (m[2] as TopicKind);
  return { sn: m[1]!, kind };
}

/** NUL, and UTF-16 surrogates without their pair: text PostgreSQL cannot store (text or jsonb). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what it must find
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Device text made storable (docs/device-protocol.md "Text from devices"): NUL characters are
 * removed and lone surrogates become U+FFFD (PostgreSQL refuses both: SQLSTATE 22P05/22021,
 * 22P02). Everything else is kept as sent.
 */
export function cleanDeviceText(text: string): string {
  return text.replace(UNSTORABLE_TEXT, (c) => (c === '\u0000' ? '' : '\uFFFD'));
}

/** True when `text` holds nothing {@link cleanDeviceText} would change. */
export function isStorableText(text: string): boolean {
  return text.search(UNSTORABLE_TEXT) === -1;
}

/** Free text from a device, at most `max` characters as sent, cleaned by {@link cleanDeviceText}. */
const deviceText = (max: number) => z.string().max(max).transform(cleanDeviceText);

const ts = z.number().int().positive();
/** Identifiers are refused (the message is malformed), not cleaned, when they hold such text. */
const msgId = z.string().min(1).max(64).refine(isStorableText, 'NUL or lone surrogate in id');
const sn = z.string().regex(SN_PATTERN);

/** Building blocks of the payloads above, for message schemas kept beside their feature (params/messages.ts). */
export {
  deviceText as deviceTextSchema,
  msgId as messageIdSchema,
  sn as deviceSnSchema,
  ts as deviceTsSchema,
};

/** Why a gateway is offline. */
export const OFFLINE_REASONS = ['lwt', 'clean', 'timeout'] as const;
export type OfflineReason = (typeof OFFLINE_REASONS)[number];

/**
 * `ess/v1/<sn>/status`, retained, QoS 1. Birth on connect (`online: true`); the same topic is
 * the MQTT last will (`online: false, reason: 'lwt'`); before a clean disconnect the gateway
 * publishes `online: false, reason: 'clean'`.
 */
export const statusPayload = z.object({
  v: z.literal(PROTOCOL_VERSION),
  ts,
  online: z.boolean(),
  reason: z.enum(OFFLINE_REASONS).optional(),
  firmware: deviceText(64).optional(),
  model: deviceText(64).optional(),
  /** Seconds between telemetry messages the gateway intends to keep. */
  intervalS: z.number().int().min(1).max(3600).optional(),
  /**
   * Birth only: the firmware each device behind the gateway runs (the gateway's own is
   * `firmware`), so that versions are known after an upgrade's reboot (device/ota.ts). A device
   * left out is not changed; the server stores what is listed.
   */
  devices: z
    .array(
      z.object({
        sn,
        firmware: deviceText(64),
        model: deviceText(64).optional(),
      }),
    )
    .max(64)
    .optional(),
});
export type StatusPayload = z.infer<typeof statusPayload>;

/** Point values: numbers (flags as 0/1). Point names carry their unit (`p_kw`, `soc_pct`). */
export const pointValues = z.record(z.string().regex(/^[a-z][a-z0-9_]{0,47}$/), z.number().finite());
export type PointValues = z.infer<typeof pointValues>;

/** Per-cell readings of a BMS (optional, typically every few minutes). */
export const cellReadings = z.object({
  u_v: z.array(z.number().finite()).max(2048).optional(),
  t_c: z.array(z.number().finite()).max(2048).optional(),
});

/** `ess/v1/<sn>/telemetry`, QoS 1: readings of the gateway and the devices behind it. */
export const telemetryPayload = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: msgId,
  ts,
  devices: z
    .array(
      z.object({
        sn,
        type: z.enum(DEVICE_TYPES),
        points: pointValues,
        cells: cellReadings.optional(),
      }),
    )
    .min(1)
    .max(64),
});
export type TelemetryPayload = z.infer<typeof telemetryPayload>;

export const ALARM_LEVELS = ['warning', 'fault'] as const;
export type AlarmLevel = (typeof ALARM_LEVELS)[number];

/** `ess/v1/<sn>/event`, QoS 1: alarms raised ("produce") and cleared ("disappear"), spec §3. */
export const eventPayload = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: msgId,
  ts,
  events: z
    .array(
      z.object({
        deviceSn: sn,
        kind: z.enum(['produce', 'disappear']),
        /** Stable alarm code, e.g. `bms.cell_overvoltage`. */
        code: z.string().regex(/^[a-z][a-z0-9_.]{1,63}$/),
        level: z.enum(ALARM_LEVELS),
        content: deviceText(500),
        value: z.number().finite().optional(),
      }),
    )
    .min(1)
    .max(64),
});
export type EventPayload = z.infer<typeof eventPayload>;

/**
 * Commands (docs/device-protocol.md "cmd and cmd/reply"): `get_params` / `set_params` have their
 * schemas, reply results and version rule in params/messages.ts; `debug_frame` and `initialize`
 * in device-commands.ts; `ota_upgrade` in ota.ts.
 */
export const COMMAND_NAMES = [
  'time_sync',
  'set_tou_plan',
  'get_params',
  'set_params',
  'debug_frame',
  'initialize',
  'ota_upgrade',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** `ess/v1/<sn>/cmd`, QoS 1, server → gateway. */
export const commandPayload = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: msgId,
  ts,
  name: z.enum(COMMAND_NAMES),
  params: z.record(z.string(), z.unknown()),
});
export type CommandPayload = z.infer<typeof commandPayload>;

/** `ess/v1/<sn>/cmd/reply`, QoS 1, gateway → server; `id` is the command's. */
export const replyPayload = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: msgId,
  ts,
  ok: z.boolean(),
  error: deviceText(500).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
});
export type ReplyPayload = z.infer<typeof replyPayload>;

/**
 * IANA time zone names we accept (validated with Intl on both ends): a site's zone, and the zone
 * a `set_tou_plan` runs its periods in.
 */
export const timezoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'unknown IANA time zone');

/**
 * `params` of `set_tou_plan`: the site's whole ToU scheme. The EMS keeps it and picks
 * the plan of each local day itself (tou/resolve.ts `activePeriodAt`, in `timezone`), so it keeps
 * following the plan while the server is unreachable. It answers `ok: true` with
 * `result: {version}` once the scheme is in force, or `ok: false` with the reason.
 */
export const setTouPlanParams = z.object({
  schemeId: z.number().int().positive(),
  version: z.number().int().min(1),
  /** IANA time zone of the site: periods are local wall-clock time. */
  timezone: timezoneSchema,
  scheme: touSchemeDocumentSchema,
});
export type SetTouPlanParams = z.infer<typeof setTouPlanParams>;
