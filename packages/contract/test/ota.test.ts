/**
 * OTA on the wire (device/ota.ts) and its topic (device/protocol.ts).
 */
import { describe, expect, it } from 'vitest';
import { otaProgressPayload, otaUpgradeParams } from '../src/device/ota';
import { COMMAND_NAMES, deviceTopic, parseDeviceTopic, statusPayload } from '../src/device/protocol';

const base = { v: 1, id: 'm1', ts: 1_700_000_000_000, batchId: 3, packageId: 7, deviceSn: 'PCS-0001' };

describe('ota wire', () => {
  it('has its own topic kind and command', () => {
    expect(deviceTopic('GW-0001', 'ota')).toBe('ess/v1/GW-0001/ota');
    expect(parseDeviceTopic('ess/v1/GW-0001/ota')).toEqual({ sn: 'GW-0001', kind: 'ota' });
    expect(COMMAND_NAMES).toContain('ota_upgrade');
  });

  it('needs percent with downloading, version with success, reason with failed', () => {
    expect(otaProgressPayload.safeParse({ ...base, phase: 'downloading', percent: 40 }).success).toBe(true);
    expect(otaProgressPayload.safeParse({ ...base, phase: 'downloading' }).error?.issues[0]?.path).toEqual([
      'percent',
    ]);
    expect(otaProgressPayload.safeParse({ ...base, phase: 'success' }).error?.issues[0]?.path).toEqual([
      'version',
    ]);
    expect(otaProgressPayload.safeParse({ ...base, phase: 'failed' }).error?.issues[0]?.path).toEqual([
      'reason',
    ]);
    expect(
      otaProgressPayload.safeParse({ ...base, phase: 'failed', reason: 'checksum_mismatch' }).success,
    ).toBe(true);
    expect(otaProgressPayload.safeParse({ ...base, phase: 'failed', reason: 'timeout' }).success).toBe(false);
  });

  it('takes only an absolute http(s) URL and a lower-case SHA-256', () => {
    const params = {
      batchId: 1,
      packageId: 2,
      version: 'V1.2.3_B05',
      targetDeviceSn: 'BMS-0001',
      deviceType: 'bms',
      size: 1024,
      sha256: 'ab'.repeat(32),
      url: 'http://127.0.0.1:8080/ota/abc',
      expiresAt: 1_700_000_000_000,
    };
    expect(otaUpgradeParams.safeParse(params).success).toBe(true);
    expect(otaUpgradeParams.safeParse({ ...params, url: '/ota/abc' }).success).toBe(false);
    expect(otaUpgradeParams.safeParse({ ...params, url: 'ftp://h/ota/abc' }).success).toBe(false);
    expect(otaUpgradeParams.safeParse({ ...params, sha256: 'AB'.repeat(32) }).success).toBe(false);
  });

  it('lets a birth message carry the firmware of the devices behind the gateway', () => {
    const birth = statusPayload.parse({
      v: 1,
      ts: 1,
      online: true,
      firmware: '2.0.0',
      devices: [{ sn: 'PCS-0001', firmware: '1.4.0' }],
    });
    expect(birth.devices).toEqual([{ sn: 'PCS-0001', firmware: '1.4.0' }]);
  });
});
