import { describe, expect, it } from 'vitest';
import {
  cleanDeviceText,
  deviceInput,
  deviceTopic,
  eventPayload,
  isStorableText,
  liveClientMessage,
  POINTS,
  parseDeviceTopic,
  pointDef,
  replyPayload,
  statusPayload,
  telemetryPayload,
} from '../src';

describe('device topics', () => {
  it('builds and parses every topic kind of a gateway', () => {
    for (const kind of ['status', 'telemetry', 'event', 'cmd', 'reply'] as const) {
      expect(parseDeviceTopic(deviceTopic('EMS-SHA-C001-01', kind))).toEqual({ sn: 'EMS-SHA-C001-01', kind });
    }
    expect(deviceTopic('EMS-1234', 'reply')).toBe('ess/v1/EMS-1234/cmd/reply');
  });

  it('refuses other roots, wildcards, unsafe SNs and unknown kinds', () => {
    for (const topic of [
      'ess/v2/EMS-1234/status',
      'ess/v1/+/telemetry',
      'ess/v1/EMS 1234/status',
      'ess/v1/ab/status',
      'ess/v1/EMS-1234/other',
      'ess/v1/EMS-1234/telemetry/extra',
    ]) {
      expect(parseDeviceTopic(topic), topic).toBeUndefined();
    }
  });
});

describe('payload schemas', () => {
  const telemetry = {
    v: 1,
    id: '1',
    ts: 1_795_268_640_000,
    devices: [{ sn: 'PCS-0001', type: 'pcs', points: { p_kw: -49.8, freq_hz: 50.01 } }],
  };

  it('accept the documented examples', () => {
    expect(telemetryPayload.safeParse(telemetry).success).toBe(true);
    expect(statusPayload.safeParse({ v: 1, ts: 1, online: false, reason: 'lwt' }).success).toBe(true);
    expect(
      eventPayload.safeParse({
        v: 1,
        id: 'e-1',
        ts: 1,
        events: [
          {
            deviceSn: 'BMS-0001',
            kind: 'produce',
            code: 'bms.cell_overvoltage',
            level: 'warning',
            content: 'x',
          },
        ],
      }).success,
    ).toBe(true);
  });

  it('refuse another version, bad point names, non-finite values, unknown types and empty device lists', () => {
    expect(telemetryPayload.safeParse({ ...telemetry, v: 2 }).success).toBe(false);
    expect(telemetryPayload.safeParse({ ...telemetry, devices: [] }).success).toBe(false);
    const withPoints = (points: Record<string, unknown>) => ({
      ...telemetry,
      devices: [{ sn: 'PCS-0001', type: 'pcs', points }],
    });
    expect(telemetryPayload.safeParse(withPoints({ 'P kW': 1 })).success).toBe(false);
    expect(telemetryPayload.safeParse(withPoints({ p_kw: 'high' })).success).toBe(false);
    expect(telemetryPayload.safeParse(withPoints({ p_kw: Number.POSITIVE_INFINITY })).success).toBe(false);
    expect(
      telemetryPayload.safeParse({ ...telemetry, devices: [{ sn: 'X-0001', type: 'toaster', points: {} }] })
        .success,
    ).toBe(false);
  });
});

describe('text from devices (docs/device-protocol.md "Text from devices")', () => {
  const event = (content: string, extra: Record<string, unknown> = {}) => ({
    v: 1,
    id: 'e-1',
    ts: 1,
    events: [{ deviceSn: 'BMS-0001', kind: 'produce', code: 'bms.x', level: 'warning', content }],
    ...extra,
  });

  it('cleanDeviceText drops NUL and turns lone surrogates into U+FFFD, keeping pairs and the rest', () => {
    expect(cleanDeviceText('a\u0000b\u0000')).toBe('ab');
    expect(cleanDeviceText('x\ud800y\udc00z\ud800')).toBe('x\uFFFDy\uFFFDz\uFFFD');
    expect(cleanDeviceText('电池 🔋 ok\t\n')).toBe('电池 🔋 ok\t\n');
    expect(isStorableText('电池 🔋')).toBe(true);
    expect(isStorableText('a\u0000')).toBe(false);
    expect(isStorableText('\udc00')).toBe(false);
  });

  it('event content, status firmware/model and reply errors are cleaned; ids holding such text are refused', () => {
    expect(eventPayload.parse(event('a\u0000b \ud83d')).events[0]!.content).toBe('ab \uFFFD');
    expect(
      statusPayload.parse({ v: 1, ts: 1, online: true, firmware: 'v1\u0000', model: '\udfff' }),
    ).toMatchObject({
      firmware: 'v1',
      model: '\uFFFD',
    });
    expect(replyPayload.parse({ v: 1, id: 'c-1', ts: 1, ok: false, error: 'no\u0000pe' }).error).toBe('nope');
    expect(eventPayload.safeParse(event('x', { id: 'e\u00001' })).success).toBe(false);
    expect(telemetryPayload.safeParse({ v: 1, id: '\ud800', ts: 1, devices: [] }).success).toBe(false);
  });
});

describe('standard points', () => {
  it('carry their unit in the name and zh/en labels', () => {
    for (const [type, defs] of Object.entries(POINTS)) {
      for (const d of defs) {
        expect(d.zh && d.en, `${type}.${d.name}`).toBeTruthy();
        expect(d.name).toMatch(/^[a-z][a-z0-9_]*$/);
      }
    }
    expect(pointDef('pcs', 'e_charge_total_kwh')).toMatchObject({ unit: 'kWh', counter: true });
    expect(pointDef('bms', 'nope')).toBeUndefined();
  });
});

describe('registry and live schemas', () => {
  it('device input: IPv4 address, positive power, SN pattern', () => {
    const base = { siteId: 1, sn: 'PCS-0001', type: 'pcs' };
    expect(deviceInput.safeParse({ ...base, connAddress: '192.168.1.20', connPort: 502 }).success).toBe(true);
    expect(deviceInput.safeParse({ ...base, connAddress: '256.1.1.1' }).success).toBe(false);
    expect(deviceInput.safeParse({ ...base, ratedPowerKw: 0 }).success).toBe(false);
    expect(deviceInput.safeParse({ ...base, sn: 'a b' }).success).toBe(false);
    expect(deviceInput.parse({ ...base, connAddress: '' }).connAddress).toBeNull();
  });

  it('live messages: auth, subscribe to fleet or a device, nothing else', () => {
    expect(liveClientMessage.safeParse({ type: 'subscribe', channels: ['fleet', 'device:12'] }).success).toBe(
      true,
    );
    expect(liveClientMessage.safeParse({ type: 'subscribe', channels: ['site:1'] }).success).toBe(false);
    expect(liveClientMessage.safeParse({ type: 'shout' }).success).toBe(false);
  });
});
