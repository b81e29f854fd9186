/**
 * The firmware screens' logic, without React (tested in test/firmware-model.test.ts): sizes in
 * binary units, a batch's progress from its counts per device state, the live channel's changes
 * applied to the list and the detail (newest row wins), what can be retried or cancelled, and
 * the upload form's field checks with the contract's own schemas (api/firmware.ts).
 */
import {
  FIRMWARE_MAX_BYTES,
  type FirmwarePackageState,
  firmwareUploadRequest,
  type LiveUpgradeMessage,
  type Page,
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

/** Fields checked at the form, each by the contract's own schema of the query string. */
export type UploadField = 'name' | 'version' | 'models' | 'releaseNoteZh' | 'releaseNoteEn' | 'sha256';

const shape = firmwareUploadRequest.shape;

/** True when `value` passes the contract's rule for upload field `field` (empty optional fields pass). */
export function uploadFieldValid(field: UploadField, value: string | string[] | undefined): boolean {
  if (field === 'models') {
    const list = (value as string[] | undefined) ?? [];
    if (list.some((m) => m.includes(','))) return false;
    return shape.models.safeParse(list.join(',')).success;
  }
  const text = typeof value === 'string' ? value : undefined;
  if ((field === 'sha256' || field.startsWith('releaseNote')) && !text?.trim()) return true;
  return shape[field].safeParse(text ?? '').success;
}
