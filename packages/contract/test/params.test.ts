/**
 * Device parameters (params/schema.ts, params/validate.ts): the model is complete and
 * consistent, every range edge of every parameter, the spec's texts (§5: Ip address, phone
 * number, "cannot be empty", "between 25.0 and 40.0", "number must be greater than 0"), the
 * air-conditioner order rules, both serial settings of §9 and their near misses, the network
 * fields, and how a device applies a change set.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_TYPES, type DeviceType } from '../src/device/protocol';
import { PARAM_KEY_PATTERN } from '../src/params/messages';
import {
  defaultParams,
  PARAM_RULES,
  PARAM_SCHEMAS,
  type ParamDef,
  type ParamValue,
  paramDef,
  paramDefs,
} from '../src/params/schema';
import {
  applyParamChanges,
  isValidHost,
  isValidNetmask,
  isValidSimNumber,
  type ParamIssue,
  type ParamValues,
  paramApplies,
  paramIssueText,
  ruleKeys,
  validateParams,
} from '../src/params/validate';
import { validationMessages } from '../src/validation';

/** A complete, valid document of each type (defaults plus the values without a default). */
const VALID: Record<DeviceType, Record<string, ParamValue>> = {
  ems: { ...defaultParams('ems'), timezone: 'Asia/Shanghai', mqtt_host: 'ess.example.com' },
  pcs: { ...defaultParams('pcs'), active_power_limit_kw: 250, ramp_rate_kw_s: 50 },
  bms: { ...defaultParams('bms'), charge_current_limit_a: 280, discharge_current_limit_a: 280 },
  meter: { ...defaultParams('meter'), meter_role: 'grid' },
  pv: {},
  air_conditioner: { ...defaultParams('air_conditioner'), ac_type: 'cabinet' },
  env_sensor: {},
};

/** The issues of `over` laid on the valid document, as `key messageKey`. */
function issuesOf(type: DeviceType, over: ParamValues): string[] {
  return validateParams(type, { ...VALID[type], ...over }).map((i) => `${i.key} ${i.messageKey}`);
}

function textsOf(type: DeviceType, over: ParamValues, lang: 'zh' | 'en' = 'en'): string[] {
  return validateParams(type, { ...VALID[type], ...over }).map((i) => paramIssueText(type, i, lang));
}

describe('parameter model', () => {
  it('has every device type, unique keys in the point-name form, texts and a source for each', () => {
    expect(Object.keys(PARAM_SCHEMAS).sort()).toEqual([...DEVICE_TYPES].sort());
    for (const type of DEVICE_TYPES) {
      const keys = paramDefs(type).map((d) => d.key);
      expect(new Set(keys).size, type).toBe(keys.length);
      for (const group of PARAM_SCHEMAS[type]) {
        expect(group.label.zh && group.label.en, `${type}.${group.key}`).toBeTruthy();
        for (const d of group.params) {
          const at = `${type}.${d.key}`;
          expect(d.group, at).toBe(group.key);
          expect(PARAM_KEY_PATTERN.test(d.key), at).toBe(true);
          expect(
            d.label.zh.trim() && d.label.en.trim() && d.help.zh.trim() && d.help.en.trim(),
            at,
          ).toBeTruthy();
          expect(d.source.trim(), at).not.toBe('');
          if (d.type === 'number' || d.type === 'int') {
            expect(d.max, at).toBeDefined();
            expect(d.min !== undefined || d.positive, at).toBeTruthy();
            expect(d.decimals, at).toBeDefined();
          }
          if (d.type === 'enum') expect(d.options?.length, at).toBeGreaterThan(0);
          if (d.when) expect(paramDef(type, d.when.key), at).toBeDefined();
        }
      }
    }
  });

  it('every rule names parameters of its type, and its message goes under one of them', () => {
    for (const type of DEVICE_TYPES) {
      for (const rule of PARAM_RULES[type]) {
        for (const k of ruleKeys(rule)) expect(paramDef(type, k), `${type} ${k}`).toBeDefined();
        expect(ruleKeys(rule)).toContain(rule.field);
      }
    }
  });

  it('the defaults pass their own rules; with the values that have none the document is complete', () => {
    for (const type of DEVICE_TYPES) {
      expect(validateParams(type, defaultParams(type), { partial: true }), type).toEqual([]);
      expect(validateParams(type, VALID[type]), type).toEqual([]);
    }
  });

  it('keeps the alarm table of the protocol doc as the BMS defaults and the spec ranges of the air conditioner', () => {
    expect(defaultParams('bms')).toMatchObject({
      cell_ov_warning_v: 3.6,
      cell_ov_fault_v: 3.65,
      cell_uv_warning_v: 2.8,
      cell_uv_fault_v: 2.5,
      cell_ot_warning_c: 50,
      cell_ot_fault_c: 55,
    });
    expect(paramDef('air_conditioner', 'cooling_start_c')).toMatchObject({ min: 25, max: 40, decimals: 1 });
    expect(paramDef('air_conditioner', 'heating_start_c')).toMatchObject({ min: 5, max: 30, decimals: 1 });
    expect(paramDef('meter', 'modbus_address')).toMatchObject({ min: 1, max: 247, type: 'int' });
  });

  it('every message has the same placeholders in zh and en', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [key, text] of Object.entries(validationMessages)) {
      expect(names(text.zh), key).toEqual(names(text.en));
    }
  });
});

describe('every range edge', () => {
  const numeric = DEVICE_TYPES.flatMap((type) =>
    paramDefs(type)
      .filter((d) => d.type === 'number' || d.type === 'int')
      .map((d) => [`${type}.${d.key}`, type, d] as [string, DeviceType, ParamDef]),
  );

  // The value alone (partial): its own range, without the rules between parameters.
  const alone = (type: DeviceType, key: string, v: number) =>
    validateParams(type, { [key]: v }, { partial: true }).map((i) => i.messageKey);

  it.each(numeric)('%s: accepts both ends, refuses one step beyond each', (_, type, d) => {
    const step = 10 ** -(d.decimals ?? 0);
    expect(alone(type, d.key, d.positive ? step : d.min!)).toEqual([]);
    expect(alone(type, d.key, d.max!)).toEqual([]);
    expect(alone(type, d.key, d.positive ? 0 : d.min! - step)).toEqual([
      d.positive ? 'numberPositive' : 'paramOutOfRange',
    ]);
    expect(alone(type, d.key, d.max! + step)).toEqual([d.positive ? 'paramTooLarge' : 'paramOutOfRange']);
  });

  it.each([
    [24.9, 'Cooling start temperature must be between 25.0 and 40.0', '制冷开启温度应在25.0到40.0之间'],
    [40.1, 'Cooling start temperature must be between 25.0 and 40.0', '制冷开启温度应在25.0到40.0之间'],
  ])('cooling start %s: the spec’s range in both languages', (v, en, zh) => {
    expect(textsOf('air_conditioner', { cooling_start_c: v })).toEqual([en]);
    expect(textsOf('air_conditioner', { cooling_start_c: v }, 'zh')).toEqual([zh]);
  });

  it.each([25, 25.1, 39.9, 40])('cooling start %s is accepted', (v) => {
    expect(
      issuesOf('air_conditioner', { cooling_start_c: v, cooling_stop_c: 20, heating_stop_c: 15 }),
    ).toEqual([]);
  });

  it.each([
    [4.9, ['heating_start_c paramOutOfRange']],
    [5, []],
    // in range, but above the cooling start (28.0), the heating stop and the cooling stop
    [
      30,
      [
        'heating_start_c paramMustBeBelow',
        'heating_stop_c paramMustBeAbove',
        'cooling_stop_c paramMustBeAbove',
      ],
    ],
    [30.1, ['heating_start_c paramOutOfRange']],
  ])('heating start %s', (v, expected) => {
    expect(issuesOf('air_conditioner', { heating_start_c: v, heating_stop_c: 24 })).toEqual(expected);
  });

  it('heating start 30.0 is accepted when the other thresholds leave room', () => {
    expect(
      issuesOf('air_conditioner', {
        heating_start_c: 30,
        heating_stop_c: 32,
        cooling_stop_c: 33,
        cooling_start_c: 35,
      }),
    ).toEqual([]);
    expect(textsOf('air_conditioner', { heating_start_c: 30.1 })).toEqual([
      'Heating start temperature must be between 5.0 and 30.0',
    ]);
  });

  it('numbers: type, whole numbers and decimals', () => {
    expect(issuesOf('air_conditioner', { cooling_start_c: '28' })).toEqual([
      'cooling_start_c paramNotNumber',
    ]);
    expect(issuesOf('air_conditioner', { cooling_start_c: Number.NaN })).toEqual([
      'cooling_start_c paramNotNumber',
    ]);
    expect(issuesOf('air_conditioner', { cooling_start_c: Number.POSITIVE_INFINITY })).toEqual([
      'cooling_start_c paramNotNumber',
    ]);
    expect(issuesOf('air_conditioner', { cooling_start_c: 28.05 })).toEqual([
      'cooling_start_c paramTooManyDecimals',
    ]);
    expect(textsOf('air_conditioner', { cooling_start_c: 28.05 })).toEqual([
      'Cooling start temperature allows at most 1 decimal place(s)',
    ]);
    expect(issuesOf('air_conditioner', { cooling_start_c: 28.1, cooling_stop_c: 25.3 })).toEqual([]);
    expect(issuesOf('ems', { soc_min_pct: 5.5 })).toEqual(['soc_min_pct paramNotInteger']);
    expect(issuesOf('bms', { cell_ov_fault_v: 3.655 })).toEqual([]);
    expect(issuesOf('bms', { cell_ov_fault_v: 3.6551 })).toEqual(['cell_ov_fault_v paramTooManyDecimals']);
  });
});

describe('required values (spec §5: type and alarm values cannot be empty)', () => {
  it('an empty air-conditioner form names every required field', () => {
    const issues = validateParams('air_conditioner', {});
    expect(issues.map((i) => i.key)).toEqual([
      'ac_type',
      'cooling_start_c',
      'cooling_stop_c',
      'heating_start_c',
      'heating_stop_c',
      'high_temp_alarm_c',
      'low_temp_alarm_c',
    ]);
    expect(issues.every((i) => i.messageKey === 'paramRequired')).toBe(true);
    expect(paramIssueText('air_conditioner', issues[0]!, 'en')).toBe('Air conditioner type cannot be empty');
    expect(paramIssueText('air_conditioner', issues[0]!, 'zh')).toBe('空调类型不能为空');
    expect(paramIssueText('air_conditioner', issues[5]!, 'zh')).toBe('高温告警值不能为空');
  });

  it.each([null, '', '  '])('a value cleared to %j is empty', (v) => {
    expect(issuesOf('air_conditioner', { ac_type: v })).toEqual(['ac_type paramRequired']);
    expect(issuesOf('air_conditioner', { low_temp_alarm_c: v })).toEqual(['low_temp_alarm_c paramRequired']);
  });

  it('partial: absent parameters are not checked, one cleared on purpose is', () => {
    expect(validateParams('air_conditioner', {}, { partial: true })).toEqual([]);
    expect(validateParams('air_conditioner', { high_temp_alarm_c: null }, { partial: true })).toEqual([
      { key: 'high_temp_alarm_c', messageKey: 'paramRequired' },
    ]);
  });

  it('partial: a rule is checked only when all of its parameters are there', () => {
    expect(validateParams('air_conditioner', { cooling_stop_c: 30 }, { partial: true })).toEqual([]);
    expect(
      validateParams('air_conditioner', { cooling_stop_c: 30, cooling_start_c: 28 }, { partial: true }).map(
        (i) => i.key,
      ),
    ).toEqual(['cooling_stop_c']);
  });

  it('optional parameters may stay empty', () => {
    expect(
      issuesOf('pcs', { active_power_limit_kw: null, ramp_rate_kw_s: undefined }).concat(
        issuesOf('ems', { dns_secondary: '', sim_number: null }),
      ),
    ).toEqual([]);
  });

  it('unknown keys are refused by name', () => {
    const issues = validateParams('air_conditioner', { ...VALID.air_conditioner, cooling_start: 28 });
    expect(issues.map((i) => paramIssueText('air_conditioner', i, 'en'))).toEqual([
      'Unknown parameter: cooling_start',
    ]);
    expect(issuesOf('pv', { export_limit_kw: 0 })).toEqual(['export_limit_kw paramUnknown']);
  });
});

describe('air-conditioner thresholds (spec §5: below the cooling start; heating stop above heating start)', () => {
  it.each([
    // other control thresholds must be below the cooling start (28.0)
    [{ cooling_stop_c: 28 }, 'cooling_stop_c paramMustBeBelow'],
    [{ cooling_stop_c: 27.9 }, null],
    [{ heating_stop_c: 28, cooling_stop_c: 27 }, 'heating_stop_c paramMustBeBelow'],
    [{ heating_stop_c: 27.9, cooling_stop_c: 27 }, null],
    [{ heating_start_c: 27.8, heating_stop_c: 27.9, cooling_stop_c: 27.9 }, null],
    // heating stops above where it starts (10.0)
    [{ heating_stop_c: 10 }, 'heating_stop_c paramMustBeAbove'],
    [{ heating_stop_c: 9.9 }, 'heating_stop_c paramMustBeAbove'],
    [{ heating_stop_c: 10.1 }, null],
    // cooling stops above the heating start (ours)
    [{ cooling_stop_c: 10 }, 'cooling_stop_c paramMustBeAbove'],
    [{ cooling_stop_c: 13.1 }, null],
    // alarms: high above low
    [{ high_temp_alarm_c: 0 }, 'high_temp_alarm_c paramMustBeAbove'],
    [{ high_temp_alarm_c: -0.1 }, 'high_temp_alarm_c paramMustBeAbove'],
    [{ high_temp_alarm_c: 0.1 }, null],
  ] as Array<[ParamValues, string | null]>)('%j → %s', (over, expected) => {
    expect(issuesOf('air_conditioner', over)).toEqual(expected ? [expected] : []);
  });

  it('a heating start at the cooling start breaks the whole order, each message under its field', () => {
    expect(
      issuesOf('air_conditioner', { heating_start_c: 28, heating_stop_c: 27.9, cooling_stop_c: 27.9 }),
    ).toEqual([
      'heating_start_c paramMustBeBelow',
      'heating_stop_c paramMustBeAbove',
      'cooling_stop_c paramMustBeAbove',
    ]);
  });

  it('says which threshold is wrong and against which, in both languages', () => {
    expect(textsOf('air_conditioner', { cooling_stop_c: 30 })).toEqual([
      'Cooling stop temperature must be below the cooling start temperature',
    ]);
    expect(textsOf('air_conditioner', { cooling_stop_c: 30 }, 'zh')).toEqual([
      '制冷停止温度必须低于制冷开启温度',
    ]);
    expect(textsOf('air_conditioner', { heating_stop_c: 8 }, 'zh')).toEqual([
      '制热停止温度必须高于制热开启温度',
    ]);
    expect(textsOf('air_conditioner', { low_temp_alarm_c: 50 })).toEqual([
      'High temperature alarm value must be above the low temperature alarm value',
    ]);
  });

  it('an out-of-range value is reported alone, not again against its neighbours', () => {
    expect(issuesOf('air_conditioner', { cooling_start_c: 24, cooling_stop_c: 24.5 })).toEqual([
      'cooling_start_c paramOutOfRange',
    ]);
  });
});

describe('serial meter (spec §9: 9600 baud, 2 stop bits no parity or 1 stop bit even parity)', () => {
  it.each([
    [2, 'none'],
    [1, 'even'],
  ])('accepts 9600 baud, %s stop bit(s), parity %s', (stopBits, parity) => {
    expect(issuesOf('meter', { baud_rate: 9600, stop_bits: stopBits, parity })).toEqual([]);
  });

  it.each([
    [{ stop_bits: 1, parity: 'none' }, 'stop_bits serialSettingsInvalid'],
    [{ stop_bits: 2, parity: 'even' }, 'stop_bits serialSettingsInvalid'],
    [{ baud_rate: 19200, stop_bits: 2, parity: 'none' }, 'baud_rate paramNotOption'],
    [{ baud_rate: 4800 }, 'baud_rate paramNotOption'],
    [{ baud_rate: '9600' }, 'baud_rate paramNotOption'],
    [{ stop_bits: 1, parity: 'odd' }, 'parity paramNotOption'],
    [{ stop_bits: 1.5 }, 'stop_bits paramNotOption'],
    [{ stop_bits: 0, parity: 'none' }, 'stop_bits paramNotOption'],
  ] as Array<[ParamValues, string]>)('refuses the near miss %j', (over, expected) => {
    expect(issuesOf('meter', over)).toEqual([expected]);
  });

  it('names both allowed settings', () => {
    expect(textsOf('meter', { stop_bits: 2, parity: 'even' })).toEqual([
      'The serial port must be 9600 baud with 2 stop bits and no parity, or 9600 baud with 1 stop bit and even parity',
    ]);
    expect(textsOf('meter', { stop_bits: 2, parity: 'even' }, 'zh')).toEqual([
      '串口只能设为9600波特率、2位停止位无校验，或9600波特率、1位停止位偶校验',
    ]);
  });

  it.each([
    [0, 'modbus_address paramOutOfRange'],
    [1, null],
    [247, null],
    [248, 'modbus_address paramOutOfRange'],
    [12.5, 'modbus_address paramNotInteger'],
  ] as Array<[number, string | null]>)('Modbus address %s', (v, expected) => {
    expect(issuesOf('meter', { modbus_address: v })).toEqual(expected ? [expected] : []);
  });

  it.each([
    [0, 'Number must be greater than 0'],
    [-1, 'Number must be greater than 0'],
    [100_000.01, 'CT ratio must not be greater than 100000.00'],
  ])('CT ratio %s: %s', (v, text) => {
    expect(textsOf('meter', { ct_ratio: v })).toEqual([text]);
  });

  it('PT ratio 0 gets the spec’s text in Chinese too; meter role is one of four', () => {
    expect(textsOf('meter', { pt_ratio: 0 }, 'zh')).toEqual(['数字必须大于0']);
    expect(issuesOf('meter', { ct_ratio: 0.01, pt_ratio: 100_000 })).toEqual([]);
    for (const role of ['grid', 'storage', 'pv', 'load'])
      expect(issuesOf('meter', { meter_role: role })).toEqual([]);
    expect(issuesOf('meter', { meter_role: 'battery' })).toEqual(['meter_role paramNotOption']);
  });
});

describe('EMS: SOC window, enums, network', () => {
  it.each([
    [{ soc_min_pct: 95, backup_reserve_pct: 95 }, 'soc_min_pct paramMustBeBelow'],
    [{ soc_min_pct: 94, backup_reserve_pct: 94 }, null],
    [{ backup_reserve_pct: 4 }, 'backup_reserve_pct paramNotBelow'],
    [{ backup_reserve_pct: 5 }, null],
    [{ backup_reserve_pct: 95 }, null],
    [{ backup_reserve_pct: 96 }, 'backup_reserve_pct paramNotAbove'],
  ] as Array<[ParamValues, string | null]>)('%j → %s', (over, expected) => {
    expect(issuesOf('ems', over)).toEqual(expected ? [expected] : []);
  });

  it('keeps SOC upper case in English sentences', () => {
    expect(textsOf('ems', { soc_min_pct: 96 })).toEqual([
      'SOC floor must be below the SOC ceiling',
      'Backup reserve must not be below the SOC floor',
    ]);
    expect(textsOf('ems', { backup_reserve_pct: 2 }, 'zh')).toEqual(['备电保留SOC不能低于SOC下限']);
  });

  it.each(['tou', 'manual', 'backup', 'standby'])('operating mode %s', (mode) => {
    expect(issuesOf('ems', { operating_mode: mode })).toEqual([]);
  });

  it('refuses an operating mode that is not listed, and an unknown time zone', () => {
    expect(textsOf('ems', { operating_mode: 'auto', timezone: 'Mars/Olympus' })).toEqual([
      'Operating mode is not one of the allowed values',
      'Please choose a valid time zone',
    ]);
  });

  const STATIC = {
    ip_mode: 'static',
    ip_address: '192.168.1.10',
    subnet_mask: '255.255.255.0',
    default_gateway: '192.168.1.1',
    dns_primary: '223.5.5.5',
  };

  it('a static address needs address, mask, gateway and DNS; DHCP needs none', () => {
    expect(issuesOf('ems', STATIC)).toEqual([]);
    expect(issuesOf('ems', { ip_mode: 'static' })).toEqual([
      'ip_address paramRequired',
      'subnet_mask paramRequired',
      'default_gateway paramRequired',
      'dns_primary paramRequired',
    ]);
    expect(issuesOf('ems', { ip_mode: 'dhcp' })).toEqual([]);
  });

  it.each(['ip_address', 'default_gateway', 'dns_primary', 'dns_secondary'])(
    '%s: the spec’s "please enter the correct Ip address"',
    (key) => {
      expect(textsOf('ems', { ...STATIC, [key]: '192.168.1.256' })).toEqual([
        'Please enter the correct Ip address',
      ]);
      expect(textsOf('ems', { ...STATIC, [key]: '192.168.1' }, 'zh')).toEqual(['请输入正确的IP地址']);
    },
  );

  it('the gateway lies in the address’s subnet', () => {
    expect(textsOf('ems', { ...STATIC, default_gateway: '192.168.2.1' })).toEqual([
      'The default gateway must be in the same subnet as the IP address',
    ]);
    expect(
      issuesOf('ems', { ...STATIC, subnet_mask: '255.255.0.0', default_gateway: '192.168.2.1' }),
    ).toEqual([]);
  });

  it.each([
    ['255.255.255.0', true],
    ['255.255.254.0', true],
    ['255.0.0.0', true],
    ['128.0.0.0', true],
    ['0.0.0.0', false],
    ['255.0.255.0', false],
    ['255.255.255.1', false],
    ['255.255.256.0', false],
    ['/24', false],
  ])('subnet mask %s → %s', (mask, ok) => {
    expect(isValidNetmask(mask)).toBe(ok);
    expect(issuesOf('ems', { ...STATIC, subnet_mask: mask })).toEqual(ok ? [] : ['subnet_mask maskInvalid']);
  });

  it('a /32 mask is a mask, but leaves no room for a gateway', () => {
    expect(isValidNetmask('255.255.255.255')).toBe(true);
    expect(issuesOf('ems', { ...STATIC, subnet_mask: '255.255.255.255' })).toEqual([
      'default_gateway gatewayOutsideSubnet',
    ]);
  });

  it.each([
    ['13800138000', true],
    ['19912345678', true],
    ['1064812345678', true], // 13-digit IoT number
    ['1440123456789', true],
    ['12800138000', false],
    ['1380013800', false],
    ['10648123456789', false],
    ['1064812345', false],
    ['+8613800138000', false],
  ])('SIM number %s → %s', (v, ok) => {
    expect(isValidSimNumber(v)).toBe(ok);
    expect(textsOf('ems', { sim_number: v })).toEqual(ok ? [] : ['Please enter the correct phone number']);
  });

  it.each([
    ['ess.example.com', true],
    ['broker-1.ess.cn', true],
    ['localhost', true],
    ['10.0.0.5', true],
    ['1.2.3.256', false],
    ['bad host', false],
    ['-a.example.com', false],
    ['a-.example.com', false],
    ['example..com', false],
    [`${'a'.repeat(64)}.com`, false],
    ['', false],
  ])('MQTT host %j → %s', (host, ok) => {
    expect(isValidHost(host)).toBe(ok);
  });

  it('MQTT host and port', () => {
    expect(textsOf('ems', { mqtt_host: 'mqtt broker' })).toEqual(['Please enter the correct server address']);
    expect(issuesOf('ems', { mqtt_host: '' })).toEqual(['mqtt_host paramRequired']);
    expect(issuesOf('ems', { mqtt_port: 0 })).toEqual(['mqtt_port paramOutOfRange']);
    expect(issuesOf('ems', { mqtt_port: 65535 })).toEqual([]);
  });
});

describe('PCS and BMS order rules', () => {
  it.each([
    ['bms', { cell_ov_fault_v: 3.6 }, 'cell_ov_fault_v paramMustBeAbove'],
    ['bms', { cell_ov_fault_v: 3.601 }, null],
    ['bms', { cell_uv_fault_v: 2.8 }, 'cell_uv_fault_v paramMustBeBelow'],
    [
      'bms',
      { cell_uv_warning_v: 3.2, cell_ov_warning_v: 3.2, cell_ov_fault_v: 3.3 },
      'cell_uv_warning_v paramMustBeBelow',
    ],
    ['bms', { cell_ot_fault_c: 50 }, 'cell_ot_fault_c paramMustBeAbove'],
    ['pcs', { power_factor: 0.79 }, 'power_factor paramOutOfRange'],
    ['pcs', { reactive_mode: 'q', reactive_power_kvar: -50 }, null],
    ['pcs', { ramp_rate_kw_s: 0 }, 'ramp_rate_kw_s numberPositive'],
    ['pcs', { grid_mode: 'island' }, 'grid_mode paramNotOption'],
  ] as Array<[DeviceType, ParamValues, string | null]>)('%s %j → %s', (type, over, expected) => {
    expect(issuesOf(type, over)).toEqual(expected ? [expected] : []);
  });
});

describe('applying a change set on the device', () => {
  const ac = VALID.air_conditioner;

  it('applies valid changes and answers each', () => {
    const out = applyParamChanges('air_conditioner', ac, { cooling_start_c: 30, heating_start_c: 8 });
    expect(out.values).toMatchObject({ cooling_start_c: 30, heating_start_c: 8 });
    expect(out.results).toEqual({
      cooling_start_c: { status: 'applied', value: 30 },
      heating_start_c: { status: 'applied', value: 8 },
    });
  });

  it('refuses the change a rule is about and keeps the one that fits', () => {
    // cooling start 26 fits the stop in force (25); a stop of 27 does not fit either start
    const out = applyParamChanges('air_conditioner', ac, { cooling_start_c: 26, cooling_stop_c: 27 });
    expect(out.values).toMatchObject({ cooling_start_c: 26, cooling_stop_c: 25 });
    expect(out.results.cooling_start_c).toEqual({ status: 'applied', value: 26 });
    expect(out.results.cooling_stop_c?.status).toBe('refused');
    expect(out.results.cooling_stop_c?.value).toBe(25);
    expect(paramIssueText('air_conditioner', out.results.cooling_stop_c!.issue!, 'en')).toBe(
      'Cooling stop temperature must be below the cooling start temperature',
    );
  });

  it('refuses a change that breaks a rule about an unchanged value', () => {
    // raising the heating start above the cooling stop in force (25.0): the rule is about the stop
    const out = applyParamChanges('air_conditioner', ac, { heating_start_c: 26, heating_stop_c: 27 });
    expect(out.results.heating_start_c?.status).toBe('refused');
    expect(out.results.heating_start_c?.issue?.messageKey).toBe('paramMustBeAbove');
    expect(out.results.heating_stop_c).toEqual({ status: 'applied', value: 27 });
    expect(validateParams('air_conditioner', out.values)).toEqual([]);
  });

  it('an out-of-range change is refused on its own; the others are judged against the value kept', () => {
    const out = applyParamChanges('air_conditioner', ac, { cooling_start_c: 24, cooling_stop_c: 23 });
    expect(out.results.cooling_start_c?.issue?.messageKey).toBe('paramOutOfRange');
    expect(out.results.cooling_stop_c).toEqual({ status: 'applied', value: 23 });
    expect(out.values).toMatchObject({ cooling_start_c: 28, cooling_stop_c: 23 });
  });

  it('serial settings change together or not at all', () => {
    const meter = VALID.meter; // 9600 8E1
    const alone = applyParamChanges('meter', meter, { parity: 'none' });
    expect(alone.results.parity?.status).toBe('refused');
    expect(alone.results.parity?.issue?.messageKey).toBe('serialSettingsInvalid');
    expect(alone.values.parity).toBe('even');
    const both = applyParamChanges('meter', meter, { parity: 'none', stop_bits: 2 });
    expect(both.results).toEqual({
      parity: { status: 'applied', value: 'none' },
      stop_bits: { status: 'applied', value: 2 },
    });
  });

  it('unknown keys are refused; rules broken only by unchanged values refuse nothing', () => {
    const broken = { ...ac, cooling_stop_c: 30 }; // a device's own, inconsistent state
    const out = applyParamChanges('air_conditioner', broken, { high_temp_alarm_c: 50, fan_speed: 3 });
    expect(out.results.high_temp_alarm_c).toEqual({ status: 'applied', value: 50 });
    expect(out.results.fan_speed?.status).toBe('refused');
    expect(out.results.fan_speed?.value).toBeNull();
    expect(out.values).not.toHaveProperty('fan_speed');
  });

  it('never leaves a rule broken by a change (every single and paired change of the AC thresholds)', () => {
    const values = [5, 9.9, 10, 13, 20, 24.9, 25, 27.9, 28, 30, 35, 40];
    const keys = ['cooling_start_c', 'cooling_stop_c', 'heating_start_c', 'heating_stop_c'];
    for (const a of keys) {
      for (const b of keys) {
        for (const va of values) {
          for (const vb of values) {
            const out = applyParamChanges('air_conditioner', ac, { [a]: va, [b]: vb });
            const issues = validateParams('air_conditioner', out.values);
            expect(issues, `${a}=${va} ${b}=${vb}`).toEqual([]);
          }
        }
      }
    }
  });
});

describe('issue texts', () => {
  it('fills the label of an unknown key with the key itself', () => {
    const issue: ParamIssue = { key: 'x_y', messageKey: 'paramRequired' };
    expect(paramIssueText('ems', issue, 'en')).toBe('x_y cannot be empty');
  });
});

describe('conditional parameters', () => {
  it('apply only while the parameter they depend on has its value', () => {
    const ip = paramDef('ems', 'ip_address')!;
    expect(paramApplies(ip, { ip_mode: 'static' })).toBe(true);
    expect(paramApplies(ip, { ip_mode: 'dhcp' })).toBe(false);
    expect(paramApplies(paramDef('ems', 'export_limit_kw')!, {})).toBe(true);
    expect(issuesOf('ems', { operating_mode: 'manual', manual_power_kw: null })).toEqual([
      'manual_power_kw paramRequired',
    ]);
    expect(issuesOf('ems', { operating_mode: 'tou', manual_power_kw: null })).toEqual([]);
  });
});
