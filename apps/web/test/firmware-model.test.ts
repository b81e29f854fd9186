/**
 * The firmware screens' logic (features/firmware/model.ts): sizes as shown, a batch's progress
 * from the server's counts, the live channel's changes applied to the records list and the
 * detail (newest row wins, other batches untouched), what a row may retry or cancel, and the
 * upload form's checks agreeing with the contract's schema of the upload query.
 */
import {
  firmwareUploadQuery,
  firmwareUploadRequest,
  type LiveUpgradeMessage,
  UPGRADE_DEVICE_STATES,
  type UpgradeBatchRow,
  type UpgradeDetail,
  type UpgradeDeviceRow,
  type UpgradeStateCounts,
  upgradeCreateRequest,
  upgradePhaseTimeoutsSchema,
} from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  applyLiveBatch,
  applyLiveDetail,
  BATCH_DEFAULTS,
  BATCH_LIMITS,
  BATCH_REMARK_MAX,
  batchProgress,
  canCancel,
  canRetry,
  formatBytes,
  SHA256_HEX_CHARS,
  UPGRADE_PHASES,
  type UploadField,
  uploadFieldValid,
  VERSION_MAX_CHARS,
} from '../src/features/firmware/model';

function counts(partial: Partial<UpgradeStateCounts>): UpgradeStateCounts {
  return {
    ...(Object.fromEntries(UPGRADE_DEVICE_STATES.map((s) => [s, 0])) as UpgradeStateCounts),
    ...partial,
  };
}

function batch(id: number, partial: Partial<UpgradeBatchRow> = {}): UpgradeBatchRow {
  return {
    id,
    batchNo: `UP20250301-000${id}`,
    packageId: 3,
    packageName: 'EMS main',
    deviceType: 'ems',
    version: '2.5.0',
    operatorName: 'admin',
    createdAt: '2025-03-01T02:00:00.000Z',
    state: 'running',
    pausedReason: null,
    deviceCount: 4,
    counts: counts({ waiting: 4 }),
    currentWave: 1,
    waveCount: 2,
    deadlineAt: '2025-03-02T02:00:00.000Z',
    finishedAt: null,
    ...partial,
  };
}

function device(deviceId: number, partial: Partial<UpgradeDeviceRow> = {}): UpgradeDeviceRow {
  return {
    deviceId,
    sn: `EMS-${deviceId}`,
    type: 'ems',
    model: 'EMS-100',
    siteId: 1,
    siteName: 'Demo',
    timezone: 'Asia/Shanghai',
    wave: 1,
    fromVersion: '2.4.0',
    toVersion: '2.5.0',
    state: 'waiting',
    percent: null,
    reason: null,
    detail: null,
    attempt: 1,
    phaseDeadlineAt: null,
    updatedAt: '2025-03-01T02:00:00.000Z',
    timeline: [],
    ...partial,
  };
}

describe('sizes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [20 * 1024 * 1024, '20 MiB'],
    [256 * 1024 * 1024, '256 MiB'],
    [1_234_567, '1.18 MiB'],
  ])('%d bytes → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});

describe('batch progress', () => {
  it('groups the working states and counts final devices in the done share', () => {
    const p = batchProgress(
      counts({ success: 3, failed: 1, cancelled: 1, downloading: 2, rebooting: 1, sent: 1, waiting: 1 }),
      10,
    );
    expect(p).toMatchObject({ success: 3, failed: 1, cancelled: 1, active: 4, waiting: 1, donePct: 50 });
    const sum = Object.values(p.shares).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(100);
  });

  it('an empty batch is 0 %, not NaN', () => {
    expect(batchProgress(counts({}), 0).donePct).toBe(0);
    expect(batchProgress(counts({}), 0).shares.success).toBe(0);
  });

  it('rounds the done share down (99.9 % is not shown as done)', () => {
    expect(batchProgress(counts({ success: 999, downloading: 1 }), 1000).donePct).toBe(99);
  });
});

describe('live changes', () => {
  const message = (b: UpgradeBatchRow, devices: UpgradeDeviceRow[]): LiveUpgradeMessage => ({
    type: 'upgrade',
    batch: b,
    devices,
  });

  it('replaces a listed batch and leaves the page alone for an unlisted one', () => {
    const page = { list: [batch(1), batch(2)], total: 2 };
    const next = applyLiveBatch(
      page,
      message(batch(2, { state: 'paused', pausedReason: 'failure_rate' }), []),
    );
    expect(next?.list.map((b) => b.state)).toEqual(['running', 'paused']);
    expect(applyLiveBatch(page, message(batch(9), []))).toBe(page);
    expect(applyLiveBatch(undefined, message(batch(1), []))).toBeUndefined();
  });

  it('applies device rows of the same batch, newest first wins', () => {
    const detail = {
      batch: batch(1),
      devices: [
        device(1),
        device(2, { state: 'downloading', percent: 60, updatedAt: '2025-03-01T02:05:00.000Z' }),
      ],
    } as UpgradeDetail;
    const stale = device(2, { state: 'downloading', percent: 40, updatedAt: '2025-03-01T02:04:00.000Z' });
    const fresh = device(1, { state: 'sent', updatedAt: '2025-03-01T02:06:00.000Z' });
    const next = applyLiveDetail(
      detail,
      message(batch(1, { counts: counts({ sent: 1, downloading: 1 }) }), [fresh, stale]),
    );
    expect(next?.devices.map((d) => [d.state, d.percent])).toEqual([
      ['sent', null],
      ['downloading', 60],
    ]);
    expect(next?.batch.counts.sent).toBe(1);
    // Another batch's message changes nothing.
    expect(applyLiveDetail(detail, message(batch(2), [fresh]))).toBe(detail);
  });
});

describe('row actions', () => {
  it('retry only a failed device, cancel only one not started', () => {
    expect(canRetry(device(1, { state: 'failed', reason: 'timeout' }))).toBe(true);
    expect(canRetry(device(1, { state: 'downloading' }))).toBe(false);
    expect(canCancel(device(1, { state: 'waiting' }))).toBe(true);
    expect(canCancel(device(1, { state: 'sent' }))).toBe(false);
    expect(canCancel(device(1, { state: 'success' }))).toBe(false);
  });
});

describe('upload form checks agree with the contract', () => {
  // The console's bundle has the contract's constants, not its zod schemas: each case is held
  // against the schema of the upload query itself.
  const schemaSays = (field: UploadField, value: string | string[]) => {
    const shape = firmwareUploadRequest.shape;
    if (field === 'models') return shape.models.safeParse((value as string[]).join(',')).success;
    if ((field === 'sha256' || field.startsWith('releaseNote')) && (value as string).trim() === '')
      return true;
    return shape[field].safeParse(value).success;
  };

  it.each([
    ['version', '2.4.1', true],
    ['version', 'V1.2.3_B05', true],
    ['version', ' 2.4.1 ', true],
    ['version', '2.4 beta', false],
    ['version', '', false],
    ['version', '-2.4', false],
    ['version', 'x'.repeat(VERSION_MAX_CHARS), true],
    ['version', 'x'.repeat(VERSION_MAX_CHARS + 1), false],
    ['name', '  ', false],
    ['name', 'EMS main', true],
    ['name', 'n'.repeat(64), true],
    ['name', 'n'.repeat(65), false],
    ['sha256', '', true],
    ['sha256', 'A'.repeat(64), true],
    ['sha256', 'a'.repeat(SHA256_HEX_CHARS - 1), false],
    ['sha256', 'a'.repeat(SHA256_HEX_CHARS + 1), false],
    ['sha256', 'g'.repeat(64), false],
    ['releaseNoteZh', '', true],
    ['releaseNoteZh', '说'.repeat(500), true],
    ['releaseNoteEn', 'x'.repeat(501), false],
  ] as const)('%s %j → %s', (field, value, ok) => {
    expect(uploadFieldValid(field, value)).toBe(ok);
    expect(schemaSays(field, value)).toBe(ok);
  });

  it.each([
    [[], true],
    [['EMS-100', 'EMS-200'], true],
    [['m'.repeat(64)], true],
    [['m'.repeat(65)], false],
    [Array.from({ length: 32 }, (_, i) => `M${i}`), true],
    [Array.from({ length: 33 }, (_, i) => `M${i}`), false],
  ])('models %j → %s', (models, ok) => {
    expect(uploadFieldValid('models', models)).toBe(ok);
    expect(schemaSays('models', models)).toBe(ok);
  });

  it('a comma inside a model is refused (the query would split it in two)', () => {
    expect(uploadFieldValid('models', ['EMS,100'])).toBe(false);
  });

  it('what the form accepts, the server’s schema of the query accepts', () => {
    const query = firmwareUploadQuery({
      name: 'EMS main',
      version: 'V1.2.3_B05',
      deviceType: 'ems',
      models: ['EMS-100', 'EMS-200'],
      releaseNoteZh: '修复：SOC显示',
      releaseNoteEn: 'Fix: SOC display',
      fileName: 'ems-1.2.3.bin',
    });
    const parsed = firmwareUploadRequest.parse(Object.fromEntries(new URLSearchParams(query)));
    expect(parsed.models).toEqual(['EMS-100', 'EMS-200']);
    expect(parsed.releaseNoteZh).toBe('修复：SOC显示');
  });
});

describe('a new batch', () => {
  it('starts from the contract’s defaults of upgrade/create', () => {
    const parsed = upgradeCreateRequest.parse({ packageId: 1, deviceIds: [1], deadlineAt: 0 });
    expect({
      firstWaveSize: parsed.firstWaveSize,
      waveSize: parsed.waveSize,
      failureRateThresholdPct: parsed.failureRateThresholdPct,
      maxConcurrentDownloads: parsed.maxConcurrentDownloads,
      phaseTimeoutsS: parsed.phaseTimeoutsS,
    }).toEqual(BATCH_DEFAULTS);
    expect(UPGRADE_PHASES).toEqual(Object.keys(upgradePhaseTimeoutsSchema.shape));
  });

  it('takes a remark as long as the contract does, and no longer', () => {
    const ok = (remark: string) =>
      upgradeCreateRequest.safeParse({ packageId: 1, deviceIds: [1], deadlineAt: 0, remark }).success;
    expect(ok('r'.repeat(BATCH_REMARK_MAX))).toBe(true);
    expect(ok('r'.repeat(BATCH_REMARK_MAX + 1))).toBe(false);
  });

  it('offers the bounds the contract accepts, and no more', () => {
    const ok = (patch: object) =>
      upgradeCreateRequest.safeParse({ packageId: 1, deviceIds: [1], deadlineAt: 0, ...patch }).success;
    const {
      waveSize,
      failureRateThresholdPct: pct,
      maxConcurrentDownloads: dl,
      phaseTimeoutS: to,
    } = BATCH_LIMITS;
    for (const key of ['firstWaveSize', 'waveSize']) {
      expect(ok({ [key]: waveSize.min })).toBe(true);
      expect(ok({ [key]: waveSize.max })).toBe(true);
      expect(ok({ [key]: waveSize.min - 1 })).toBe(false);
      expect(ok({ [key]: waveSize.max + 1 })).toBe(false);
    }
    expect([ok({ failureRateThresholdPct: pct.min }), ok({ failureRateThresholdPct: pct.max })]).toEqual([
      true,
      true,
    ]);
    expect(ok({ failureRateThresholdPct: pct.max + 1 })).toBe(false);
    expect([ok({ maxConcurrentDownloads: dl.min }), ok({ maxConcurrentDownloads: dl.max })]).toEqual([
      true,
      true,
    ]);
    expect(ok({ maxConcurrentDownloads: dl.max + 1 })).toBe(false);
    for (const phase of UPGRADE_PHASES) {
      expect(ok({ phaseTimeoutsS: { [phase]: to.min } })).toBe(true);
      expect(ok({ phaseTimeoutsS: { [phase]: to.max } })).toBe(true);
      expect(ok({ phaseTimeoutsS: { [phase]: to.min - 1 } })).toBe(false);
      expect(ok({ phaseTimeoutsS: { [phase]: to.max + 1 } })).toBe(false);
    }
  });
});
