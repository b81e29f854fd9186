/**
 * Firmware packages and upgrade batches in the console (issue 16; spec §1 "firmware upgrade and
 * upgrade records", §2 `/upgradeRecord`, `/upgradeRecordDetail`, §3 labels, §4 package states,
 * §8 codes 3061 and 7030). The wire is device/ota.ts (docs/device-protocol.md "OTA").
 *
 * **Packages** (`firmware/*`): a file for one device type (and optionally some of its models),
 * uploaded streamed (`firmware/upload`, below), its SHA-256 and size computed by the server.
 * States {@link FIRMWARE_PACKAGE_STATES}: `unused` (uploaded) → `published` (`firmware/publish`)
 * → `disabled` (`firmware/disable`) → `published` again. Only a `published` package can start
 * an upgrade (else 3061). A package that any upgrade batch names cannot be deleted (7036); a
 * missing package (or one outside the caller's companies) answers 7030 on `firmware/*`. The
 * same version twice for one device type is refused (7032).
 *
 * **Upgrade batches** (`upgrade/*`): a published package sent to chosen devices in waves
 * ({@link upgradeCreateRequest}); each device goes through {@link UPGRADE_DEVICE_STATES} and
 * ends `success`, `failed` (with a {@link UpgradeFailReason}) or `cancelled`. Errors: 3061 the
 * package is missing or not published; 7037 batch not found; 7038 the batch's state does not
 * allow the action (`{state}`); 7039 a chosen device cannot be upgraded (`{sn}`, `{reason}`);
 * 7040 nothing to retry; 7041 nothing to cancel; 7042 the deadline is not in the future.
 *
 * Times are ISO 8601 (UTC); the console shows a device's times in its site's zone (`timezone`)
 * and a batch's in the viewer's (a batch spans sites). Sizes are bytes.
 */
import { z } from 'zod';
import { firmwareVersionSchema, OTA_FAILURE_REASONS, OTA_PHASES, sha256HexSchema } from '../device/ota';
import { DEVICE_TYPES } from '../device/protocol';
import type { Lang } from '../lang';
import { userInfoEcho } from './envelope';
import {
  epochMsSchema,
  idSchema as id,
  idRequest,
  keywordSchema,
  optionalText,
  pageRequestShape,
  pageResponse,
  TEXT_LIMITS,
  trimmedText,
} from './primitives';

// ---------------------------------------------------------------------------------------------
// Packages

export const FIRMWARE_PACKAGE_STATES = ['unused', 'published', 'disabled'] as const;
export type FirmwarePackageState = (typeof FIRMWARE_PACKAGE_STATES)[number];

/** Spec §4's names of the package states. */
export const FIRMWARE_PACKAGE_STATE_LABELS: Readonly<
  Record<FirmwarePackageState, Readonly<Record<Lang, string>>>
> = {
  unused: { zh: '未使用', en: 'Unused' },
  published: { zh: '已发布', en: 'Published' },
  disabled: { zh: '已禁用', en: 'Disabled' },
};

/** Longest package name (characters). */
export const FIRMWARE_NAME_MAX = 64;
/** Longest original file name kept with a package. */
export const FIRMWARE_FILE_NAME_MAX = 255;
/**
 * Longest release note, per language (characters). Bounded because the notes travel in the
 * upload's query string (below): a Chinese character is 9 bytes percent-encoded, so two notes
 * of 500 characters and the other fields stay well inside Node's 16 KiB request head.
 */
export const FIRMWARE_RELEASE_NOTE_MAX = 500;
/** Most models one package names. */
export const FIRMWARE_MAX_MODELS = 32;

/**
 * Fields of a package upload, sent as the **query string** of `firmware/upload` (the body is the
 * file itself, `application/octet-stream`, streamed; see the endpoint). Every value is text:
 * - `name` 1–{@link FIRMWARE_NAME_MAX}; `version` device/ota.ts `FIRMWARE_VERSION_PATTERN`;
 * - `deviceType` one of DEVICE_TYPES;
 * - `models`: the models it is for, comma-separated (a model holding a comma cannot be named);
 *   empty or absent = every model of the type; at most {@link FIRMWARE_MAX_MODELS}, each up to
 *   TEXT_LIMITS.deviceModel characters, duplicates removed;
 * - `releaseNoteZh`, `releaseNoteEn`: free text up to {@link FIRMWARE_RELEASE_NOTE_MAX};
 * - `fileName`: the file's own name (shown, and used for nothing else);
 * - `sha256` (optional): what the uploader expects; when given and the server's differs, 7033
 *   and nothing is stored.
 * Build it with {@link firmwareUploadQuery}.
 */
export const firmwareUploadRequest = z.object({
  name: trimmedText(FIRMWARE_NAME_MAX),
  version: firmwareVersionSchema,
  deviceType: z.enum(DEVICE_TYPES),
  models: z
    .string()
    .max(FIRMWARE_MAX_MODELS * (TEXT_LIMITS.deviceModel + 1))
    .optional()
    .transform((v) => [
      ...new Set(
        (v ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m !== ''),
      ),
    ])
    .pipe(z.array(z.string().max(TEXT_LIMITS.deviceModel)).max(FIRMWARE_MAX_MODELS)),
  releaseNoteZh: optionalText(FIRMWARE_RELEASE_NOTE_MAX),
  releaseNoteEn: optionalText(FIRMWARE_RELEASE_NOTE_MAX),
  fileName: trimmedText(FIRMWARE_FILE_NAME_MAX),
  sha256: z.string().trim().toLowerCase().pipe(sha256HexSchema).optional(),
});

/** What an uploader fills in (the console's form), before it becomes the query string. */
export interface FirmwareUploadFields {
  name: string;
  version: string;
  deviceType: (typeof DEVICE_TYPES)[number];
  models?: readonly string[];
  releaseNoteZh?: string | null;
  releaseNoteEn?: string | null;
  fileName: string;
  sha256?: string;
}

/** The query string (without `?`) of `firmware/upload` for `fields`; empty fields are left out. */
export function firmwareUploadQuery(fields: FirmwareUploadFields): string {
  const q = new URLSearchParams();
  q.set('name', fields.name);
  q.set('version', fields.version);
  q.set('deviceType', fields.deviceType);
  if (fields.models && fields.models.length > 0) q.set('models', fields.models.join(','));
  if (fields.releaseNoteZh) q.set('releaseNoteZh', fields.releaseNoteZh);
  if (fields.releaseNoteEn) q.set('releaseNoteEn', fields.releaseNoteEn);
  q.set('fileName', fields.fileName);
  if (fields.sha256) q.set('sha256', fields.sha256);
  return q.toString();
}

/** One package as lists and the detail show it. */
export const firmwarePackageSchema = z.object({
  id,
  name: z.string(),
  version: z.string(),
  deviceType: z.enum(DEVICE_TYPES),
  /** Empty: every model of the type. */
  models: z.array(z.string()),
  releaseNoteZh: z.string().nullable(),
  releaseNoteEn: z.string().nullable(),
  fileName: z.string(),
  sizeBytes: z.number().int(),
  /** Computed by the server while the file streamed in (lower-case hex). */
  sha256: z.string(),
  state: z.enum(FIRMWARE_PACKAGE_STATES),
  /** The company that uploaded it (a platform package is offered to every company). */
  companyId: id,
  companyName: z.string(),
  uploaderName: z.string(),
  uploadedAt: z.string(),
  /** Last change of state (ISO); null while `unused`. */
  stateChangedAt: z.string().nullable(),
  /** Upgrade batches naming it; > 0: it cannot be deleted. */
  batchCount: z.number().int(),
});
export type FirmwarePackage = z.infer<typeof firmwarePackageSchema>;

export const firmwarePageListRequest = z.object({
  ...pageRequestShape,
  /** Name, version or file name contains it. */
  keyword: keywordSchema,
  deviceType: z.enum(DEVICE_TYPES).optional(),
  state: z.enum(FIRMWARE_PACKAGE_STATES).optional(),
});
/** Newest upload first. */
export const firmwarePageListResponse = pageResponse(firmwarePackageSchema);

export const firmwareIdRequest = idRequest;
export const firmwarePackageResponse = firmwarePackageSchema;

// ---------------------------------------------------------------------------------------------
// Upgrade batches

/**
 * A device's state in a batch: `waiting` (not started: a later wave, the download limit, or
 * offline until it reconnects — up to the batch's deadline), `sent` (the `ota_upgrade` command
 * is out, not yet accepted), then the device's phases (device/ota.ts `OTA_PHASES`), or
 * `cancelled` (cancelled before it started). Final: `success`, `failed`, `cancelled`.
 */
export const UPGRADE_DEVICE_STATES = ['waiting', 'sent', ...OTA_PHASES, 'cancelled'] as const;
export type UpgradeDeviceState = (typeof UPGRADE_DEVICE_STATES)[number];
export const UPGRADE_FINAL_STATES: readonly UpgradeDeviceState[] = ['success', 'failed', 'cancelled'];

export const UPGRADE_DEVICE_STATE_LABELS: Readonly<
  Record<UpgradeDeviceState, Readonly<Record<Lang, string>>>
> = {
  waiting: { zh: '等待中', en: 'Waiting' },
  sent: { zh: '已下发', en: 'Sent' },
  downloading: { zh: '下载中', en: 'Downloading' },
  downloaded: { zh: '已下载', en: 'Downloaded' },
  verifying: { zh: '校验中', en: 'Verifying' },
  installing: { zh: '安装中', en: 'Installing' },
  rebooting: { zh: '重启中', en: 'Rebooting' },
  success: { zh: '升级成功', en: 'Upgraded' },
  failed: { zh: '升级失败', en: 'Failed' },
  cancelled: { zh: '已取消', en: 'Cancelled' },
};

/**
 * Why a device of a batch failed: the device's own reasons (device/ota.ts), or the server's:
 * `timeout` (silent in a phase past its timeout), `deadline` (the batch's deadline passed before
 * it started — e.g. offline all along; a started device is bounded by its phase timeouts
 * instead), `send_error` (the command could not be sent).
 */
export const UPGRADE_FAIL_REASONS = [...OTA_FAILURE_REASONS, 'timeout', 'deadline', 'send_error'] as const;
export type UpgradeFailReason = (typeof UPGRADE_FAIL_REASONS)[number];

export const UPGRADE_FAIL_REASON_LABELS: Readonly<Record<UpgradeFailReason, Readonly<Record<Lang, string>>>> =
  {
    checksum_mismatch: { zh: '校验和不一致', en: 'Checksum mismatch' },
    download_error: { zh: '下载失败', en: 'Download error' },
    incompatible_model: { zh: '型号不兼容', en: 'Incompatible model' },
    low_soc_busy: { zh: '设备忙或SOC过低', en: 'Device busy or SOC too low' },
    install_error: { zh: '安装失败', en: 'Install error' },
    timeout: { zh: '超时无响应', en: 'Timed out' },
    deadline: { zh: '超过批次截止时间', en: 'Batch deadline passed' },
    send_error: { zh: '指令下发失败', en: 'Command could not be sent' },
  };

/**
 * States of a batch: `running`; `paused` (by the operator, or by itself when a wave's failure
 * rate passed the threshold: `pausedReason`) — nothing new starts, devices already started go
 * on; `finished` once every device is final.
 */
export const UPGRADE_BATCH_STATES = ['running', 'paused', 'finished'] as const;
export type UpgradeBatchState = (typeof UPGRADE_BATCH_STATES)[number];
export const UPGRADE_PAUSE_REASONS = ['operator', 'failure_rate'] as const;
export type UpgradePauseReason = (typeof UPGRADE_PAUSE_REASONS)[number];

export const UPGRADE_BATCH_STATE_LABELS: Readonly<Record<UpgradeBatchState, Readonly<Record<Lang, string>>>> =
  {
    running: { zh: '进行中', en: 'Running' },
    paused: { zh: '已暂停', en: 'Paused' },
    finished: { zh: '已结束', en: 'Finished' },
  };
export const UPGRADE_PAUSE_REASON_LABELS: Readonly<
  Record<UpgradePauseReason, Readonly<Record<Lang, string>>>
> = {
  operator: { zh: '人工暂停', en: 'Paused by an operator' },
  failure_rate: { zh: '失败率超过阈值，自动暂停', en: 'Paused: failure rate above the threshold' },
};

/**
 * Why a candidate device cannot join a batch: `incompatible_type` (another device type),
 * `incompatible_model` (a model the package does not name), `same_version` (already runs it),
 * `in_running_batch` (not final in another batch that is not finished), `offline` (unless the
 * batch lets offline devices wait: `includeOffline`), `no_gateway` (no gateway to reach it).
 */
export const UPGRADE_EXCLUSIONS = [
  'incompatible_type',
  'incompatible_model',
  'same_version',
  'in_running_batch',
  'offline',
  'no_gateway',
] as const;
export type UpgradeExclusion = (typeof UPGRADE_EXCLUSIONS)[number];

export const UPGRADE_EXCLUSION_LABELS: Readonly<Record<UpgradeExclusion, Readonly<Record<Lang, string>>>> = {
  incompatible_type: { zh: '设备类型不匹配', en: 'Another device type' },
  incompatible_model: { zh: '型号不兼容', en: 'Model not supported by the package' },
  same_version: { zh: '已是该版本', en: 'Already on this version' },
  in_running_batch: { zh: '正在其他批次中升级', en: 'In another running batch' },
  offline: { zh: '设备离线', en: 'Offline' },
  no_gateway: { zh: '没有可用网关', en: 'No gateway to reach it' },
};

/** Most devices in one batch. */
export const UPGRADE_MAX_DEVICES = 1000;

/**
 * Per-phase timeouts of a batch (seconds a device may stay in the phase without moving on;
 * past it: `failed: timeout`). `sent`: until the device accepts; `downloading`: until
 * `downloaded`; `verifying`: `downloaded`+`verifying`; `installing`; `rebooting`: until the
 * version is confirmed. Bounds 10 s … 1 day.
 */
export const upgradePhaseTimeoutsSchema = z.object({
  sent: z.number().int().min(10).max(86_400).default(60),
  downloading: z.number().int().min(10).max(86_400).default(1800),
  verifying: z.number().int().min(10).max(86_400).default(300),
  installing: z.number().int().min(10).max(86_400).default(900),
  rebooting: z.number().int().min(10).max(86_400).default(600),
});
export type UpgradePhaseTimeouts = z.infer<typeof upgradePhaseTimeoutsSchema>;

/**
 * Devices a package could go to, from the caller's scope, filtered: `siteId`, `companyId`,
 * `model`, `currentVersion` (what they run now), `keyword` (SN or site name). Every device of
 * the package's type is listed, with why it is excluded (null: eligible). 3061 when the package
 * is missing or not published.
 */
export const upgradeCandidatesRequest = z.object({
  userInfo: userInfoEcho,
  packageId: id,
  siteId: id.optional(),
  companyId: id.optional(),
  model: z.string().trim().max(TEXT_LIMITS.deviceModel).optional(),
  currentVersion: z.string().trim().max(64).optional(),
  keyword: keywordSchema,
  /** Offline devices count as eligible (they wait in the batch until they reconnect). */
  includeOffline: z.boolean().default(false),
});

export const upgradeCandidateSchema = z.object({
  deviceId: id,
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  /** What it runs now (last birth message); null: never reported. */
  firmware: z.string().nullable(),
  siteId: id,
  siteName: z.string(),
  companyName: z.string(),
  online: z.boolean(),
  exclusion: z.enum(UPGRADE_EXCLUSIONS).nullable(),
});
export type UpgradeCandidate = z.infer<typeof upgradeCandidateSchema>;

/** Eligible first, then by site and SN; at most {@link UPGRADE_MAX_DEVICES} × 2 rows (`truncated`). */
export const upgradeCandidatesResponse = z.object({
  list: z.array(upgradeCandidateSchema),
  total: z.number().int(),
  eligible: z.number().int(),
  truncated: z.boolean(),
});

/**
 * Start a batch: `packageId` (published, else 3061) to `deviceIds` (each must be eligible now,
 * else 7039 naming the first that is not). Staged rollout: the first wave is `firstWaveSize`
 * devices, then waves of `waveSize`; a wave starts when the one before is final. When a
 * finished wave's failed share exceeds `failureRateThresholdPct` %, the batch pauses by itself
 * (`failure_rate`). At most `maxConcurrentDownloads` devices of the batch download at once
 * (and at most the server's own limit across batches). `deadlineAt` (UTC ms, in the future,
 * else 7042): devices still `waiting` then (not started: a later wave, offline all along) fail
 * with `deadline`; a device already started goes on, bounded by its phase timeouts
 * (`phaseTimeoutsS`; silent past one: `timeout`), so one half-way through installing is never
 * failed by the deadline (docs/device-protocol.md "Upgrade batches: what the server does").
 */
export const upgradeCreateRequest = z.object({
  userInfo: userInfoEcho,
  packageId: id,
  deviceIds: z.array(id).min(1).max(UPGRADE_MAX_DEVICES),
  firstWaveSize: z.number().int().min(1).max(UPGRADE_MAX_DEVICES).default(5),
  waveSize: z.number().int().min(1).max(UPGRADE_MAX_DEVICES).default(50),
  failureRateThresholdPct: z.number().int().min(0).max(100).default(20),
  phaseTimeoutsS: upgradePhaseTimeoutsSchema.prefault({}),
  deadlineAt: epochMsSchema,
  maxConcurrentDownloads: z.number().int().min(1).max(200).default(20),
  includeOffline: z.boolean().default(false),
  remark: optionalText(200),
});

/** Devices per state: every state of {@link UPGRADE_DEVICE_STATES}. */
export const upgradeStateCountsSchema = z.object(
  Object.fromEntries(UPGRADE_DEVICE_STATES.map((s) => [s, z.number().int()])) as Record<
    UpgradeDeviceState,
    z.ZodNumber
  >,
);
export type UpgradeStateCounts = z.infer<typeof upgradeStateCountsSchema>;

/** One batch as `/upgradeRecord` lists it (spec §3: batch number, operator, time). */
export const upgradeBatchRowSchema = z.object({
  id,
  /** Human batch number, unique (e.g. `UP20250301-0007`). */
  batchNo: z.string(),
  packageId: id,
  packageName: z.string(),
  deviceType: z.enum(DEVICE_TYPES),
  version: z.string(),
  operatorName: z.string(),
  createdAt: z.string(),
  state: z.enum(UPGRADE_BATCH_STATES),
  pausedReason: z.enum(UPGRADE_PAUSE_REASONS).nullable(),
  deviceCount: z.number().int(),
  counts: upgradeStateCountsSchema,
  /** 1-based number of the wave now running (0 before the first); `waveCount` in all. */
  currentWave: z.number().int(),
  waveCount: z.number().int(),
  deadlineAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type UpgradeBatchRow = z.infer<typeof upgradeBatchRowSchema>;

export const upgradePageListRequest = z.object({
  ...pageRequestShape,
  /** Batch number or package name contains it. */
  keyword: keywordSchema,
  state: z.enum(UPGRADE_BATCH_STATES).optional(),
  packageId: id.optional(),
});
/** Newest first. */
export const upgradePageListResponse = pageResponse(upgradeBatchRowSchema);

/** One step of a device's timeline: a state entered, when, and its percent or reason. */
export const upgradeTimelineEntrySchema = z.object({
  state: z.enum(UPGRADE_DEVICE_STATES),
  at: z.string(),
  percent: z.number().int().nullable(),
  reason: z.enum(UPGRADE_FAIL_REASONS).nullable(),
  /** The device's own words, or the server's note (e.g. "retry 2"). */
  detail: z.string().nullable(),
});
export type UpgradeTimelineEntry = z.infer<typeof upgradeTimelineEntrySchema>;

export const upgradeDeviceRowSchema = z.object({
  deviceId: id,
  sn: z.string(),
  type: z.enum(DEVICE_TYPES),
  model: z.string().nullable(),
  siteId: id,
  siteName: z.string(),
  timezone: z.string(),
  /** 1-based wave. */
  wave: z.number().int(),
  /** What it ran when the batch was made (null: unknown); `toVersion` the package's. */
  fromVersion: z.string().nullable(),
  toVersion: z.string(),
  state: z.enum(UPGRADE_DEVICE_STATES),
  percent: z.number().int().nullable(),
  reason: z.enum(UPGRADE_FAIL_REASONS).nullable(),
  detail: z.string().nullable(),
  /** Times it was started (1 + retries). */
  attempt: z.number().int(),
  /** When the current state fails with `timeout` unless the device moves on (null: final or waiting). */
  phaseDeadlineAt: z.string().nullable(),
  updatedAt: z.string(),
  timeline: z.array(upgradeTimelineEntrySchema),
});
export type UpgradeDeviceRow = z.infer<typeof upgradeDeviceRowSchema>;

export const upgradeDetailResponse = z.object({
  batch: upgradeBatchRowSchema,
  firstWaveSize: z.number().int(),
  waveSize: z.number().int(),
  failureRateThresholdPct: z.number().int(),
  phaseTimeoutsS: z.object({
    sent: z.number().int(),
    downloading: z.number().int(),
    verifying: z.number().int(),
    installing: z.number().int(),
    rebooting: z.number().int(),
  }),
  maxConcurrentDownloads: z.number().int(),
  includeOffline: z.boolean(),
  remark: z.string().nullable(),
  sha256: z.string(),
  sizeBytes: z.number().int(),
  devices: z.array(upgradeDeviceRowSchema),
});
export type UpgradeDetail = z.infer<typeof upgradeDetailResponse>;

/** Retry failed devices (all of the batch's, or `deviceIds`); they wait for a new wave slot. 7040 when none. */
export const upgradeRetryRequest = z.object({
  userInfo: userInfoEcho,
  id,
  deviceIds: z.array(id).min(1).max(UPGRADE_MAX_DEVICES).optional(),
});
/** Cancel devices that have not started (`waiting`; all, or `deviceIds`). 7041 when none. */
export const upgradeCancelRequest = upgradeRetryRequest;
/** How many devices the call changed. */
export const upgradeCountResponse = z.object({ count: z.number().int() });

export const upgradeIdRequest = idRequest;
export const upgradeBatchResponse = upgradeBatchRowSchema;
