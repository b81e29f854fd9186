/**
 * Parameters on the wire (params/messages.ts): the documented `get_params` / `set_params` /
 * `params` examples parse, malformed ones do not, the per-device version rule, and the reply a
 * device builds from the validator's outcome.
 */
import { describe, expect, it } from 'vitest';
import { deviceTopic, replyPayload } from '../src/device/protocol';
import {
  getParamsParams,
  MAX_PARAMS_PER_MESSAGE,
  nextParamsVersion,
  paramChangeResult,
  paramsReportPayload,
  paramsSnapshotSchema,
  paramsVersionVerdict,
  setParamsError,
  setParamsParams,
  setParamsResult,
  staleParamsError,
} from '../src/params/messages';
import { defaultParams } from '../src/params/schema';
import { applyParamChanges } from '../src/params/validate';

const setExample = {
  deviceSn: 'AC-SHA-C001-01',
  version: 7,
  values: { cooling_start_c: 30, heating_stop_c: 14.5, ac_type: 'cabinet' },
};

describe('set_params', () => {
  it('accepts the documented example', () => {
    expect(setParamsParams.parse(setExample)).toEqual(setExample);
  });

  it.each([
    ['no change', { ...setExample, values: {} }],
    ['version 0', { ...setExample, version: 0 }],
    ['a fractional version', { ...setExample, version: 1.5 }],
    ['an upper-case key', { ...setExample, values: { Cooling_start_c: 30 } }],
    ['a null value', { ...setExample, values: { cooling_start_c: null } }],
    ['a boolean value', { ...setExample, values: { enabled: true } }],
    ['a NUL in a text', { ...setExample, values: { mqtt_host: 'a\u0000b' } }],
    ['an infinite number', { ...setExample, values: { cooling_start_c: Number.POSITIVE_INFINITY } }],
    ['a bad SN', { ...setExample, deviceSn: 'a b' }],
    [
      'too many values',
      {
        ...setExample,
        values: Object.fromEntries(
          Array.from({ length: MAX_PARAMS_PER_MESSAGE + 1 }, (_, i) => [`p${i}`, i]),
        ),
      },
    ],
  ])('refuses %s', (_, body) => {
    expect(setParamsParams.safeParse(body).success).toBe(false);
  });
});

describe('get_params and the params report', () => {
  const snapshot = {
    deviceSn: 'AC-SHA-C001-01',
    deviceType: 'air_conditioner',
    version: 7,
    values: { ...defaultParams('air_conditioner'), ac_type: 'cabinet', vendor_mode: 2 },
  };

  it('get_params names one device; its answer is the snapshot of what the device runs', () => {
    expect(getParamsParams.parse({ deviceSn: 'EMS-0001' })).toEqual({ deviceSn: 'EMS-0001' });
    expect(getParamsParams.safeParse({}).success).toBe(false);
    const reply = replyPayload.parse({ v: 1, id: 'c-1', ts: 1, ok: true, result: snapshot });
    expect(paramsSnapshotSchema.parse(reply.result)).toEqual(snapshot);
    expect(paramsSnapshotSchema.safeParse({ ...snapshot, deviceType: 'fridge' }).success).toBe(false);
    expect(paramsSnapshotSchema.safeParse({ ...snapshot, version: -1 }).success).toBe(false);
  });

  it('a local change is reported on the gateway’s params topic', () => {
    const report = {
      v: 1,
      id: 'p-3',
      ts: 1_795_268_900_000,
      cause: 'local',
      changed: ['cooling_start_c'],
      ...snapshot,
    };
    expect(paramsReportPayload.parse(report)).toEqual(report);
    expect(paramsReportPayload.safeParse({ ...report, cause: 'operator' }).success).toBe(false);
    expect(paramsReportPayload.safeParse({ ...report, id: '' }).success).toBe(false);
    expect(deviceTopic('EMS-0001', 'params')).toBe('ess/v1/EMS-0001/params');
  });
});

describe('version per device: a stale write never undoes a newer one', () => {
  it.each([
    [0, 1, 'apply'],
    [6, 7, 'apply'],
    [6, 9, 'apply'],
    [7, 7, 'repeat'],
    [7, 6, 'stale'],
    [7, 1, 'stale'],
  ] as const)('in force %s, incoming %s → %s', (inForce, incoming, verdict) => {
    expect(paramsVersionVerdict(inForce, incoming)).toBe(verdict);
  });

  it('the server numbers its next change above its own and the device’s version', () => {
    expect(nextParamsVersion(0, null)).toBe(1);
    expect(nextParamsVersion(6, 6)).toBe(7);
    expect(nextParamsVersion(3, 9)).toBe(10);
    expect(nextParamsVersion(9, 3)).toBe(10);
  });

  it('a stale reply says so and parses', () => {
    const reply = {
      v: 1,
      id: 'c-2',
      ts: 2,
      ok: false,
      error: staleParamsError(6, 7),
      result: { deviceSn: 'AC-SHA-C001-01', version: 7, results: {}, stale: true },
    };
    expect(replyPayload.parse(reply).error).toBe(
      'params version 6 is older than version 7 in force; ignored',
    );
    expect(setParamsResult.parse(reply.result).stale).toBe(true);
  });
});

describe('the reply a device builds', () => {
  it('one result per change, the refusal with the validator’s message key and the English text', () => {
    const current = { ...defaultParams('air_conditioner'), ac_type: 'cabinet' };
    const out = applyParamChanges('air_conditioner', current, { cooling_start_c: 26, cooling_stop_c: 27 });
    const results = Object.fromEntries(
      Object.entries(out.results).map(([k, r]) => [k, paramChangeResult('air_conditioner', r)]),
    );
    expect(results).toEqual({
      cooling_start_c: { status: 'applied', value: 26 },
      cooling_stop_c: {
        status: 'refused',
        value: 25,
        reason: 'Cooling stop temperature must be below the cooling start temperature',
        messageKey: 'paramMustBeBelow',
        params: { other: 'cooling_start_c' },
      },
    });
    const result = setParamsResult.parse({ deviceSn: 'AC-SHA-C001-01', version: 7, results });
    expect(result.results.cooling_stop_c?.status).toBe('refused');
    expect(setParamsError(results)).toBe(
      'cooling_stop_c: Cooling stop temperature must be below the cooling start temperature',
    );
  });

  it('error names the first refusal and counts the rest; none when all applied', () => {
    const out = applyParamChanges('meter', defaultParams('meter'), {
      modbus_address: 0,
      parity: 'odd',
      ct_ratio: 2,
    });
    const results = Object.fromEntries(
      Object.entries(out.results).map(([k, r]) => [k, paramChangeResult('meter', r)]),
    );
    expect(setParamsError(results)).toBe(
      'modbus_address: Modbus address must be between 1 and 247 (and 1 more)',
    );
    expect(setParamsError({ ct_ratio: { status: 'applied', value: 2 } })).toBeUndefined();
  });
});
