/**
 * Sites and devices (spec §2 "site configuration" `/deviceconfig`, §3 devices: SN, type, MQTT
 * client ID, connection address, port). Lists take `{pageNum, pageSize, …filters}` and answer
 * `{list, total}` (design §4).
 */
import { z } from 'zod';
import { DEVICE_TYPES, OFFLINE_REASONS, SN_PATTERN, timezoneSchema } from '../device/protocol';
import { IPV4_PATTERN } from '../validation';
import { userInfoEcho } from './envelope';
import {
  idSchema as id,
  keywordSchema,
  optionalText,
  pageRequest,
  pageRequestShape,
  pageResponse,
  TEXT_LIMITS,
  trimmedText,
} from './primitives';

/** Time zone of a new site unless another is chosen (IANA). */
export const DEFAULT_SITE_TIMEZONE = 'Asia/Shanghai';

/** Site code: 2–32 letters, digits, '_' or '-'. */
export const SITE_CODE_PATTERN = /^[A-Za-z0-9_-]{2,32}$/;

/** @deprecated the paging fields; use `pageRequest` (extend it) or `pageRequestShape`. */
export const pageQuery = pageRequestShape;

export const siteInput = z.object({
  userInfo: userInfoEcho,
  code: z.string().trim().regex(SITE_CODE_PATTERN, '2–32 letters, digits, _ or -'),
  name: trimmedText(TEXT_LIMITS.siteName),
  address: optionalText(TEXT_LIMITS.siteAddress),
  timezone: timezoneSchema.default(DEFAULT_SITE_TIMEZONE),
  latitude: z.number().min(-90).max(90).nullish(),
  longitude: z.number().min(-180).max(180).nullish(),
  /** Owning company; defaults to the caller's. Must be within the caller's scope. */
  companyId: id.optional(),
});
export type SiteInput = z.infer<typeof siteInput>;

/**
 * A site's form fields (+ `id`). `companyId`, when sent, must be the site's current company:
 * another company answers 3042 (moving a site is `site/moveCompany`).
 */
export const siteUpdate = siteInput.extend({ id });

/** `site/moveCompany` and its preview: the site and the company it is to belong to. */
export const siteMoveRequest = z.object({ userInfo: userInfoEcho, id, companyId: id });

const companyRef = z.object({ id, name: z.string() });

/**
 * What moving a site to another company does (answered by the preview before, and by the move
 * after it happened): everything that carries the site's company follows it — its devices, its
 * alarms and alarm events (`alarms` of them, `activeAlarms` not cleared), its dead letters;
 * telemetry, rollups and latest values follow through the devices. `touScheme`: the ToU scheme
 * the site runs, `kept` when the new company may run it (it belongs to that company or one above
 * it), otherwise taken off the site (the EMS keeps the plan it last received); null = none.
 */
export const siteMoveOutcome = z.object({
  from: companyRef,
  to: companyRef,
  devices: z.number().int(),
  alarms: z.number().int(),
  activeAlarms: z.number().int(),
  touScheme: z.object({ id, name: z.string(), kept: z.boolean() }).nullable(),
});
export type SiteMoveOutcome = z.infer<typeof siteMoveOutcome>;

export const siteListRequest = pageRequest.extend({
  keyword: keywordSchema,
  companyId: id.optional(),
});

export const siteRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  code: z.string(),
  name: z.string(),
  address: z.string().nullable(),
  timezone: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  isDemo: z.boolean(),
  deviceCount: z.number().int(),
  onlineGateways: z.number().int(),
  gateways: z.number().int(),
  /** Sum of storage capacity (BMS, else EMS) in kWh. */
  capacityKwh: z.number(),
  /** Sum of rated power (PCS, else EMS) in kW (device/site-figures.ts). */
  ratedPowerKw: z.number(),
});
export type SiteRow = z.infer<typeof siteRowSchema>;
export const siteListResponse = pageResponse(siteRowSchema);

export const deviceInput = z
  .object({
    userInfo: userInfoEcho,
    siteId: id,
    sn: z.string().trim().regex(SN_PATTERN, '4–40 letters, digits, _ or -'),
    type: z.enum(DEVICE_TYPES),
    model: optionalText(TEXT_LIMITS.deviceModel),
    /** The gateway it reports through; absent/null = it is a gateway itself. */
    gatewayId: id.nullish(),
    ratedPowerKw: z.number().positive('number must be greater than 0').max(1_000_000).nullish(),
    capacityKwh: z.number().positive('number must be greater than 0').max(10_000_000).nullish(),
    mqttClientId: optionalText(TEXT_LIMITS.mqttClientId),
    connAddress: z
      .string()
      .trim()
      .nullish()
      .transform((v) => (v ? v : null))
      .refine((v) => v === null || IPV4_PATTERN.test(v), 'please enter the correct Ip address'),
    connPort: z.number().int().min(1).max(65535).nullish(),
  })
  .strip();
export type DeviceInput = z.infer<typeof deviceInput>;
/**
 * A device's form fields (+ `id`). `siteId` may be left out; when sent it must be the device's
 * current site: another site answers 3042 (moving a device is `device/moveSite`).
 */
export const deviceUpdate = deviceInput.extend({ id, siteId: id.optional() });

/**
 * `device/moveSite`: the device and the site it is to be on. A gateway moves with every device
 * behind it (`gatewayId` absent); a device behind a gateway needs `gatewayId`, a gateway of the
 * target site it will report through (3040 without one).
 */
export const deviceMoveRequest = z.object({
  userInfo: userInfoEcho,
  id,
  siteId: id,
  gatewayId: id.nullish(),
});

/** What `device/moveSite` moved: the device first, then (a gateway) the devices behind it. */
export const deviceMoveResponse = z.object({
  fromSiteId: id,
  toSiteId: id,
  devices: z.array(z.object({ id, sn: z.string() })),
});

export const deviceListRequest = pageRequest.extend({
  siteId: id.optional(),
  type: z.enum(DEVICE_TYPES).optional(),
  keyword: keywordSchema,
  online: z.boolean().optional(),
});

export const deviceRowSchema = z.object({
  id,
  companyId: id,
  siteId: id,
  siteName: z.string(),
  gatewayId: id.nullable(),
  gatewaySn: z.string().nullable(),
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  ratedPowerKw: z.number().nullable(),
  capacityKwh: z.number().nullable(),
  mqttClientId: z.string().nullable(),
  connAddress: z.string().nullable(),
  connPort: z.number().int().nullable(),
  firmwareVersion: z.string().nullable(),
  hasSecret: z.boolean(),
  /** For gateways: own connection; for devices behind one: the gateway's. */
  online: z.boolean(),
  lastSeenAt: z.number().int().nullable(),
  offlineReason: z.enum(OFFLINE_REASONS).nullable(),
});
export type DeviceRow = z.infer<typeof deviceRowSchema>;
export const deviceListResponse = pageResponse(deviceRowSchema);

/** Answer of device save (gateways) and resetSecret: the secret is shown once, never stored in clear. */
export const deviceSecretResponse = z.object({
  id,
  sn: z.string(),
  mqttClientId: z.string(),
  /** MQTT username (= SN) and password (= secret). */
  username: z.string(),
  secret: z.string(),
  /** Broker host devices connect to; null = the console's own host (embedded broker). */
  mqttHost: z.string().nullable(),
  /**
   * Plain-TCP broker port (the embedded broker's actual port, or the external broker's); null
   * when the broker takes no plain connections (MQTT_PLAIN=off, or an `mqtts://` MQTT_URL).
   */
  mqttPort: z.number().int().nullable(),
  /** MQTT-over-TLS port (embedded: MQTT_TLS_PORT, 8883 by default; external: the `mqtts://` URL's); null = no TLS. */
  mqttTlsPort: z.number().int().nullable(),
  /**
   * PEM certificate devices are to trust for TLS (`mosquitto_pub --cafile`): the embedded
   * broker's own (self-signed unless MQTT_TLS_CERT), or MQTT_CA; null = the devices' system CAs.
   */
  mqttTlsCa: z.string().nullable(),
  /** SHA-256 fingerprint of `mqttTlsCa`'s (first) certificate, `AB:CD:…` (64 hex digits); null without it. */
  mqttTlsFingerprint: z.string().nullable(),
});
export const deviceSaveResponse = z.object({ id, secret: deviceSecretResponse.nullable() });
