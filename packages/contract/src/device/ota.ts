/**
 * Firmware over the air on the wire (issue 16 item 2, docs/device-protocol.md "OTA"): the
 * `ota_upgrade` command, the progress events a gateway publishes on `ess/v1/<gatewaySn>/ota`,
 * and the failure reasons a device gives.
 *
 * **Flow for one device** (the gateway itself, or a device behind it: `targetDeviceSn`):
 * 1. The server sends `ota_upgrade` ({@link otaUpgradeParams}) on `cmd`. The gateway answers on
 *    `cmd/reply` at once: `ok: true` when it accepts and starts, or `ok: false` with
 *    `result: {reason}` ({@link otaUpgradeRefusal}; `low_soc_busy`, `incompatible_model`) and
 *    nothing else happens. A second `ota_upgrade` for the same `batchId` and `targetDeviceSn`
 *    (a QoS 1 redelivery) is answered as the first one was and does not start a second download.
 * 2. The gateway downloads `url` with HTTP GET before `expiresAt`, sending
 *    `X-Device-Sn: <targetDeviceSn>` ({@link OTA_DEVICE_SN_HEADER}); the URL carries a token bound
 *    to this device and this package (the server answers 403 to any other device). It may resume
 *    with `Range: bytes=<from>-` after a drop (206; 416 for a range past the end). It publishes
 *    `downloading` with `percent` as it goes (at most one event per second and per device, and
 *    at least one per 10 % of the file), then `downloaded` when it holds `size` bytes.
 * 3. `verifying`: SHA-256 of the file against `sha256` (lower-case hex); a mismatch is
 *    `failed: checksum_mismatch` and the file is discarded.
 * 4. `installing`, then `rebooting`: the gateway (or the device) goes offline for a while.
 * 5. After the reboot the gateway publishes its birth message (`status`, online) with the
 *    firmware it runs — its own in `firmware`, each device behind it in `devices[].firmware`
 *    (protocol.ts `statusPayload`) — and then `success` with `version` = what now runs. The
 *    server counts a device as upgraded when the version it reports (the `success` event or a
 *    birth) equals the package's `version`; `success` with another version is a failure
 *    (`install_error`).
 *
 * Any step may end in `failed` with a {@link OtaFailureReason}. The server, not the device,
 * decides timeouts: a device silent in a phase past the batch's timeout for that phase is
 * failed (`timeout`, api/firmware.ts) and a later event about it changes nothing.
 */
import { z } from 'zod';
import type { Lang } from '../lang';
import {
  DEVICE_TYPES,
  deviceSnSchema,
  deviceTextSchema,
  deviceTsSchema,
  messageIdSchema,
  PROTOCOL_VERSION,
} from './protocol';

/** Largest firmware package (bytes): 256 MiB (issue 16 item 1). */
export const FIRMWARE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A firmware version: a semantic version (`2.4.1`, `2.4.1-rc.1+b7`) or a vendor string
 * (`V1.2.3_B05`, `EMS-2024.11`): 1–64 characters of letters, digits and `. _ + -`, starting
 * with a letter or digit. No spaces, so it reads the same in a file name, a URL and a birth message.
 */
export const FIRMWARE_VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$/;
export const firmwareVersionSchema = z.string().trim().regex(FIRMWARE_VERSION_PATTERN);

/** SHA-256 as 64 lower-case hex digits. */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
export const sha256HexSchema = z.string().regex(SHA256_HEX_PATTERN);

/**
 * Path of the device download route, outside `/api-bms`: `GET /ota/<token>`, answered with the
 * file (`application/octet-stream`, `Content-Length`, `ETag` = `"<sha256>"`, `Accept-Ranges:
 * bytes`), or one range of it for `Range: bytes=<from>-[<to>]` (206 with `Content-Range`; 416
 * when it starts past the end). Refusals (JSON `{error}`): 403 `wrong_device` (the
 * {@link OTA_DEVICE_SN_HEADER} is not the token's device), 410 `token_expired`, 404
 * `unknown_token` / `package_gone`.
 */
export const OTA_DOWNLOAD_PREFIX = '/ota/';

/**
 * Header every download request carries: the `targetDeviceSn` of the `ota_upgrade` command. A
 * token is bound to one device and one package; asked for by any other device it answers 403.
 */
export const OTA_DEVICE_SN_HEADER = 'X-Device-Sn';

/**
 * `params` of `ota_upgrade`: install package `packageId` (`version`, `size` bytes, `sha256`) on
 * `targetDeviceSn` of type `deviceType` (the gateway itself or a device behind it), for upgrade
 * batch `batchId`. `url`: absolute `http(s)://…/ota/<token>`, valid until `expiresAt` (UTC ms)
 * and for this device and package only; a download after it answers 403 and the device reports
 * `failed: download_error` (the server sends a fresh URL on a retry, never the same one twice).
 */
export const otaUpgradeParams = z.object({
  batchId: z.number().int().positive(),
  packageId: z.number().int().positive(),
  version: firmwareVersionSchema,
  targetDeviceSn: deviceSnSchema,
  deviceType: z.enum(DEVICE_TYPES),
  size: z.number().int().positive().max(FIRMWARE_MAX_BYTES),
  sha256: sha256HexSchema,
  url: z
    .string()
    .max(2048)
    .regex(/^https?:\/\/[^\s/]+\/\S*$/, 'absolute http(s) URL'),
  expiresAt: deviceTsSchema,
});
export type OtaUpgradeParams = z.infer<typeof otaUpgradeParams>;

/**
 * Phases a device reports, in order; `success` and `failed` are final. `downloaded` is reported
 * once the whole file is held, before `verifying`.
 */
export const OTA_PHASES = [
  'downloading',
  'downloaded',
  'verifying',
  'installing',
  'rebooting',
  'success',
  'failed',
] as const;
export type OtaPhase = (typeof OTA_PHASES)[number];

/**
 * Why a device failed (issue 16 item 2):
 * - `checksum_mismatch`: the downloaded file's SHA-256 is not `sha256` (or its size not `size`);
 * - `download_error`: the download failed and resuming did not help (HTTP error, expired token,
 *   connection lost for good);
 * - `incompatible_model`: the package is not for this device's type or model (also a refusal);
 * - `low_soc_busy`: refused because the system is busy — discharging with SOC below the
 *   device's threshold, or another upgrade running (a refusal, before any download);
 * - `install_error`: the device could not install the firmware, or does not run `version` after
 *   the reboot.
 */
export const OTA_FAILURE_REASONS = [
  'checksum_mismatch',
  'download_error',
  'incompatible_model',
  'low_soc_busy',
  'install_error',
] as const;
export type OtaFailureReason = (typeof OTA_FAILURE_REASONS)[number];

/** Names of the phases in the console's languages. */
export const OTA_PHASE_LABELS: Readonly<Record<OtaPhase, Readonly<Record<Lang, string>>>> = {
  downloading: { zh: '下载中', en: 'Downloading' },
  downloaded: { zh: '已下载', en: 'Downloaded' },
  verifying: { zh: '校验中', en: 'Verifying' },
  installing: { zh: '安装中', en: 'Installing' },
  rebooting: { zh: '重启中', en: 'Rebooting' },
  success: { zh: '升级成功', en: 'Upgraded' },
  failed: { zh: '升级失败', en: 'Failed' },
};

/** Names of the device's failure reasons in the console's languages. */
export const OTA_FAILURE_REASON_LABELS: Readonly<Record<OtaFailureReason, Readonly<Record<Lang, string>>>> = {
  checksum_mismatch: { zh: '校验和不一致', en: 'Checksum mismatch' },
  download_error: { zh: '下载失败', en: 'Download error' },
  incompatible_model: { zh: '型号不兼容', en: 'Incompatible model' },
  low_soc_busy: { zh: '设备忙或SOC过低', en: 'Device busy or SOC too low' },
  install_error: { zh: '安装失败', en: 'Install error' },
};

/**
 * `result` of a refusing `ota_upgrade` reply (`ok: false`): why, plus the device's own words in
 * the reply's `error`. A reply `ok: false` without it counts as `install_error`.
 */
export const otaUpgradeRefusal = z.object({ reason: z.enum(OTA_FAILURE_REASONS) });
export type OtaUpgradeRefusal = z.infer<typeof otaUpgradeRefusal>;

/**
 * `ess/v1/<gatewaySn>/ota`, QoS 1, gateway → server: one progress event of one device's upgrade.
 * `id` unique per gateway (redeliveries are ignored). Rules (checked by the schema):
 * - `downloading` carries `percent` (0–100, whole) and may carry `bytes` received so far;
 * - `success` carries `version`, the firmware the device runs after the reboot;
 * - `failed` carries `reason`; `detail` is the device's own words (English, free text).
 * The server ignores an event whose `batchId`/`packageId` is not the device's current upgrade,
 * or that arrives after the device's entry in the batch is final.
 */
export const otaProgressPayload = z
  .object({
    v: z.literal(PROTOCOL_VERSION),
    id: messageIdSchema,
    ts: deviceTsSchema,
    batchId: z.number().int().positive(),
    packageId: z.number().int().positive(),
    deviceSn: deviceSnSchema,
    phase: z.enum(OTA_PHASES),
    percent: z.number().int().min(0).max(100).optional(),
    bytes: z.number().int().min(0).max(FIRMWARE_MAX_BYTES).optional(),
    version: firmwareVersionSchema.optional(),
    reason: z.enum(OTA_FAILURE_REASONS).optional(),
    detail: deviceTextSchema(500).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.phase === 'downloading' && e.percent === undefined) {
      ctx.addIssue({ code: 'custom', path: ['percent'], message: 'downloading needs percent' });
    }
    if (e.phase === 'success' && e.version === undefined) {
      ctx.addIssue({ code: 'custom', path: ['version'], message: 'success needs version' });
    }
    if (e.phase === 'failed' && e.reason === undefined) {
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'failed needs reason' });
    }
  });
export type OtaProgressPayload = z.infer<typeof otaProgressPayload>;
