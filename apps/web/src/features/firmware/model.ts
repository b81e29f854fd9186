/**
 * The firmware screens' logic, without React (tested in test/firmware-model.test.ts): sizes in
 * binary units, a batch's progress from its counts per device state, the live channel's changes
 * applied to the list and the detail (newest row wins), what can be retried or cancelled, and
 * the upload form's field checks and a new batch's defaults, as the contract's schemas have them
 * (api/firmware.ts; held equal by the unit test).
 */
import {
  FIRMWARE_MAX_BYTES,
  FIRMWARE_MAX_MODELS,
  FIRMWARE_NAME_MAX,
  FIRMWARE_RELEASE_NOTE_MAX,
  FIRMWARE_VERSION_PATTERN,
  type FirmwarePackageState,
  type LiveUpgradeMessage,
  type Page,
  SHA256_HEX_PATTERN,
  TEXT_LIMITS,
  UPGRADE_MAX_DEVICES,
  type UpgradeBatchRow,
  type UpgradeBatchState,
  type UpgradeDetail,
  type UpgradeDeviceRow,
  type UpgradeDeviceState,
  type UpgradeStateCounts,
} from '@ess/contract';

const UNITS = ['B', 'KiB', 'MiB', 'GiB'] as const;

/**
 * `1536` → '1.5 KiB', `20971520` → '20 MiB' (binary units; at most 2 decimals below 10, else 1;
 * trailing zeros dropped). The same digits in both languages (below 1024 of a unit: no grouping).
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 ? 0 : value < 10 ? 2 : 1;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

/** The upload limit in MiB (256). */
export const MAX_UPLOAD_MIB = FIRMWARE_MAX_BYTES / 1024 / 1024;

/** States a device is working in (the command is out, the device not final). */
export const ACTIVE_STATES: readonly UpgradeDeviceState[] = [
  'sent',
  'downloading',
  'downloaded',
  'verifying',
  'installing',
  'rebooting',
];

/** Tag colour of a device state. */
export const DEVICE_STATE_COLORS: Record<UpgradeDeviceState, string> = {
  waiting: 'default',
  sent: 'processing',
  downloading: 'processing',
  downloaded: 'processing',
  verifying: 'processing',
  installing: 'processing',
  rebooting: 'processing',
  success: 'success',
  failed: 'error',
  cancelled: 'default',
};

export const BATCH_STATE_COLORS: Record<UpgradeBatchState, string> = {
  running: 'processing',
  paused: 'warning',
  finished: 'default',
};

export const PACKAGE_STATE_COLORS: Record<FirmwarePackageState, string> = {
  unused: 'default',
  published: 'success',
  disabled: 'error',
};

/** A batch's devices grouped for the progress bar and the counts. */
export interface BatchProgress {
  total: number;
  success: number;
  failed: number;
  cancelled: number;
  /** Working now (sent … rebooting). */
  active: number;
  waiting: number;
  /** Final devices (success, failed, cancelled) as a whole percent of all. */
  donePct: number;
  /** Share of each group in percent of all (for the stacked bar; sums to 100 when total > 0). */
  shares: { success: number; failed: number; cancelled: number; active: number; waiting: number };
}

/** Groups `counts` (every device state) of a batch of `total` devices. */
export function batchProgress(counts: UpgradeStateCounts, total: number): BatchProgress {
  const active = ACTIVE_STATES.reduce((n, s) => n + counts[s], 0);
  const { success, failed, cancelled, waiting } = counts;
  const pct = (n: number) => (total > 0 ? (n / total) * 100 : 0);
  const done = success + failed + cancelled;
  return {
    total,
    success,
    failed,
    cancelled,
    active,
    waiting,
    donePct: total > 0 ? Math.floor((done / total) * 100) : 0,
    shares: {
      success: pct(success),
      failed: pct(failed),
      cancelled: pct(cancelled),
      active: pct(active),
      waiting: pct(waiting),
    },
  };
}

/** `page` with the batch of `message` replaced where it is listed (unchanged otherwise). */
export function applyLiveBatch(
  page: Page<UpgradeBatchRow> | undefined,
  message: LiveUpgradeMessage,
): Page<UpgradeBatchRow> | undefined {
  if (!page?.list.some((b) => b.id === message.batch.id)) return page;
  return { ...page, list: page.list.map((b) => (b.id === message.batch.id ? message.batch : b)) };
}

/**
 * `detail` with `message` applied when it is about the same batch: the batch row replaced, each
 * device of the message replacing its row unless the row held is newer (`updatedAt`).
 */
export function applyLiveDetail(
  detail: UpgradeDetail | undefined,
  message: LiveUpgradeMessage,
): UpgradeDetail | undefined {
  if (!detail || detail.batch.id !== message.batch.id) return detail;
  const changed = new Map(message.devices.map((d) => [d.deviceId, d]));
  const devices = detail.devices.map((d) => {
    const next = changed.get(d.deviceId);
    return next && Date.parse(next.updatedAt) >= Date.parse(d.updatedAt) ? next : d;
  });
  return { ...detail, batch: message.batch, devices };
}

/** The operator may retry a failed device (the server answers 7038 when the batch is finished and the package gone). */
export function canRetry(d: UpgradeDeviceRow): boolean {
  return d.state === 'failed';
}

/** The operator may cancel a device that has not started. */
export function canCancel(d: UpgradeDeviceRow): boolean {
  return d.state === 'waiting';
}

/** Longest version (FIRMWARE_VERSION_PATTERN: 1–64 characters), SHA-256 (64 hex digits), batch remark (upgrade/create). */
export const VERSION_MAX_CHARS = 64;
export const SHA256_HEX_CHARS = 64;
export const BATCH_REMARK_MAX = 200;

/** Fields of the upload form as typed. */
export interface UploadForm {
  name?: string;
  version?: string;
  deviceType?: string;
  models?: string[];
  releaseNoteZh?: string;
  releaseNoteEn?: string;
  sha256?: string;
}

/** Fields checked at the form. */
export type UploadField = 'name' | 'version' | 'models' | 'releaseNoteZh' | 'releaseNoteEn' | 'sha256';

/**
 * True when `value` passes the rule of upload field `field` (empty optional fields pass): the
 * contract's `firmwareUploadRequest` rules, from its exported limits and patterns (the console's
 * bundle carries the contract's constants, not its zod schemas: vite.config.ts). The unit test
 * holds each case against the schema itself, so the two cannot drift apart.
 */
export function uploadFieldValid(field: UploadField, value: string | string[] | undefined): boolean {
  if (field === 'models') {
    const list = [...new Set(((value as string[] | undefined) ?? []).map((m) => m.trim()).filter(Boolean))];
    return (
      list.length <= FIRMWARE_MAX_MODELS &&
      list.every((m) => !m.includes(',') && m.length <= TEXT_LIMITS.deviceModel)
    );
  }
  const text = (typeof value === 'string' ? value : '').trim();
  switch (field) {
    case 'name':
      return text.length >= 1 && text.length <= FIRMWARE_NAME_MAX;
    case 'version':
      return FIRMWARE_VERSION_PATTERN.test(text);
    case 'sha256':
      return text === '' || SHA256_HEX_PATTERN.test(text.toLowerCase());
    default:
      return text.length <= FIRMWARE_RELEASE_NOTE_MAX;
  }
}

/**
 * A new batch's first values: `upgrade/create`'s defaults (the unit test holds them equal to
 * the contract schema's), and its bounds.
 */
export const BATCH_DEFAULTS = {
  firstWaveSize: 5,
  waveSize: 50,
  failureRateThresholdPct: 20,
  maxConcurrentDownloads: 20,
  phaseTimeoutsS: { sent: 60, downloading: 1800, verifying: 300, installing: 900, rebooting: 600 },
} as const;
export type UpgradePhase = keyof typeof BATCH_DEFAULTS.phaseTimeoutsS;
export const UPGRADE_PHASES = Object.keys(BATCH_DEFAULTS.phaseTimeoutsS) as UpgradePhase[];
export const BATCH_LIMITS = {
  waveSize: { min: 1, max: UPGRADE_MAX_DEVICES },
  failureRateThresholdPct: { min: 0, max: 100 },
  maxConcurrentDownloads: { min: 1, max: 200 },
  phaseTimeoutS: { min: 10, max: 86_400 },
} as const;
