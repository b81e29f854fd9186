/**
 * Device parameters (issue 15): what an operator may configure on each device type, written
 * once and read by the parameter form, the server (before it stores or sends a change) and the
 * simulated EMS (before it applies one). The rules that check values are in `validate.ts`; the
 * messages that carry them in `messages.ts`.
 *
 * Each parameter ({@link ParamDef}) has its key (lower snake case, unit as suffix like the
 * telemetry points: `_kw`, `_pct`, `_c`, `_v`, `_a`, `_hz`), unit, type, range or options,
 * decimals, default, zh/en label and help, its group and the source of its rule. A key that is
 * also a telemetry point (`cooling_start_c`) is the same quantity under the same name.
 *
 * Values are numbers or strings ({@link ParamValue}). A default of `null` means the parameter has
 * no value of ours: it is the device's own (a rating) or the site's (time zone, network), read
 * from the device or written at initialization.
 *
 * ## Air conditioner: which threshold is which (spec §5, §9)
 *
 * The spec's English summary says "other threshold values must be below the cooling start value
 * (the Chinese text says a heating-related one must be above the heating start value)". A
 * cabinet air conditioner regulates with two switching bands:
 *
 * - **cooling start** `cooling_start_c` (制冷开启温度, 25.0–40.0 °C, spec §5/§9): cooling switches
 *   on when the cabinet rises above it;
 * - **cooling stop** `cooling_stop_c` (制冷停止温度): cooling switches off when the cabinet has
 *   fallen to it. It is the cooling start minus the hysteresis (回差), so it must be *below* the
 *   cooling start — otherwise cooling would switch off at once and chatter;
 * - **heating start** `heating_start_c` (制热开启温度, 5.0–30.0 °C, spec §5/§9): heating switches
 *   on when the cabinet falls below it;
 * - **heating stop** `heating_stop_c` (制热停止温度): heating switches off when the cabinet has
 *   risen to it. Heating works upwards, so its stop lies *above* its start — that is the Chinese
 *   text's "heating-related value above the heating start value";
 * - **high / low temperature alarm** `high_temp_alarm_c` / `low_temp_alarm_c` (高温/低温告警值,
 *   required: spec §5 "cannot be empty"): the air conditioner alarms outside them; high above low.
 *
 * The spec's "other threshold values must be below the cooling start value" applies to the
 * other *control* thresholds (cooling stop, heating start, heating stop): heating must have
 * stopped before cooling starts, or the two would run against each other. It cannot apply to
 * the high-temperature alarm, which must lie above the normal cooling band to mean anything;
 * the alarms are only ordered against each other. One rule of ours completes the picture:
 * cooling stops above the heating start (`heating_start_c` < `cooling_stop_c`), otherwise cooling
 * would pull the cabinet down into heating. So in force:
 *
 *     heating_start_c < heating_stop_c < cooling_start_c
 *     heating_start_c < cooling_stop_c  < cooling_start_c
 *     low_temp_alarm_c < high_temp_alarm_c
 *
 * The simulated cabinet used a fixed 3 K hysteresis; the defaults here keep it (28.0 → 25.0,
 * 10.0 → 13.0).
 */
import { POINTS } from '../device/points';
import type { DeviceType } from '../device/protocol';
import type { Lang } from '../lang';

/** zh/en text. */
export type ParamTexts = Readonly<Record<Lang, string>>;

/** A parameter's value: a number (also enum options that are numbers) or a string. */
export type ParamValue = number | string;

/**
 * Kinds of value and the check each gets (validate.ts):
 * `number` finite within range and decimals; `int` a whole number within range; `enum` one of
 * `options`; `ipv4` dotted quad (spec §5 "please enter the
 * correct Ip address"); `netmask` a contiguous IPv4 mask; `phone` a SIM's number (spec §5 "please
 * enter the correct phone number"); `host` a host name or IPv4 address; `timezone` an IANA zone.
 */
export const PARAM_TYPES = ['number', 'int', 'enum', 'ipv4', 'netmask', 'phone', 'host', 'timezone'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

export interface ParamOption {
  value: ParamValue;
  label: ParamTexts;
}

/** One configurable parameter of a device type. */
export interface ParamDef {
  key: string;
  /** Key of its {@link ParamGroup}. */
  group: string;
  type: ParamType;
  /** Unit shown beside the field ('' when none). */
  unit: string;
  /** Inclusive range (`number`, `int`). */
  min?: number;
  max?: number;
  /** The value must be greater than 0 (CT/PT ratio, ramp rate: spec §5 "number must be greater than 0"). */
  positive?: boolean;
  /** Decimals allowed and shown (`number`); 0 for `int`. */
  decimals?: number;
  /** Increment of the form's number field. */
  step?: number;
  /** Longest text (`host`; for the form's field, the format check bounds it too). */
  maxLength?: number;
  /** `enum`: the allowed values. */
  options?: readonly ParamOption[];
  /** Value of a device that was never configured; null: none of ours (the device's or the site's). */
  default: ParamValue | null;
  /** Must have a value (whenever it applies, see `when`). */
  required: boolean;
  /** The parameter applies only while another one has this value (network fields: static IP). */
  when?: { key: string; value: ParamValue };
  label: ParamTexts;
  help: ParamTexts;
  /** Where the rule comes from: a spec section, a standard, a document, or "ours" with why. */
  source: string;
}

/** Parameters shown together (one form section per group). */
export interface ParamGroup {
  key: string;
  label: ParamTexts;
  params: readonly ParamDef[];
}

/**
 * Rules between parameters (checked when every key they name has a valid value):
 * - `order`: `lower` < `upper` (`strict`) or ≤; the message goes under `field` (one of the two);
 * - `serial`: baud rate, stop bits and parity form one of the two serial settings of spec §9;
 * - `subnet`: the default gateway lies in the subnet of the IP address and mask.
 */
export type ParamRule =
  | { kind: 'order'; lower: string; upper: string; strict: boolean; field: string; source: string }
  | { kind: 'serial'; baud: string; stopBits: string; parity: string; field: string; source: string }
  | { kind: 'subnet'; ip: string; mask: string; gateway: string; field: string; source: string };

type DefInput = Omit<ParamDef, 'group' | 'step' | 'unit' | 'required' | 'default'> &
  Partial<Pick<ParamDef, 'step' | 'unit' | 'required' | 'default'>>;

const t = (zh: string, en: string): ParamTexts => ({ zh, en });
const opt = (value: ParamValue, zh: string, en: string): ParamOption => ({ value, label: t(zh, en) });

function group(key: string, label: ParamTexts, defs: readonly DefInput[]): ParamGroup {
  return {
    key,
    label,
    params: defs.map((d) => ({
      ...d,
      group: key,
      unit: d.unit ?? '',
      required: d.required ?? false,
      default: d.default ?? null,
      ...(d.type === 'number' || d.type === 'int'
        ? { decimals: d.type === 'int' ? 0 : (d.decimals ?? 0), step: d.step ?? 10 ** -(d.decimals ?? 0) }
        : {}),
    })),
  };
}

/** The label of telemetry point `name` of `type` (one wording for a point and its parameter). */
function pointLabel(type: DeviceType, name: string): ParamTexts {
  const p = POINTS[type].find((d) => d.name === name);
  if (!p) throw new Error(`no point ${type}.${name}`);
  return t(p.zh, p.en);
}

/** Largest power of a site we accept (kW): a sanity bound of ours, the EMS caps at its ratings. */
export const PARAM_POWER_LIMIT_KW = 10_000;

const POWER_BOUND_SOURCE = 'ours: 10 MW sanity bound; the device caps at its PCS rating and BMS limits';
const GRID_BAND_SOURCE =
  'GB/T 36547-2018: storage keeps running within 85–110 % Un and 49.5–50.2 Hz, so a trip limit lies outside that band; defaults ours';
const ALARM_TABLE_SOURCE =
  'docs/device-protocol.md "Alarm codes" (OpenEMS Soltaro rack BMS, Sungrow fault list): the defaults';
const MODBUS_SERIAL_SOURCE = 'spec §9 serial meter types; Modbus over Serial Line V1.02 §2.5.1';

/* ───────────── EMS (with the gateway's network) ───────────── */

const ems: ParamGroup[] = [
  group('operation', t('运行', 'Operation'), [
    {
      key: 'operating_mode',
      type: 'enum',
      options: [
        opt('tou', '分时电价', 'ToU schedule'),
        opt('manual', '手动', 'Manual'),
        opt('backup', '备电', 'Backup'),
        opt('standby', '待机', 'Standby'),
      ],
      default: 'tou',
      required: true,
      label: t('运行模式', 'Operating mode'),
      help: t(
        '分时电价：按站点的ToU方案充放电；手动：按手动功率设定值运行；备电：充满并保持备电SOC，电网断电时供电；待机：不充不放',
        'ToU schedule: charge and discharge by the site’s ToU scheme; Manual: run at the manual power setpoint; Backup: charge and hold the backup reserve, supply the site when the grid fails; Standby: neither charge nor discharge',
      ),
      source: 'issue 15 item 1; ToU: docs/device-protocol.md "set_tou_plan"',
    },
    {
      key: 'manual_power_kw',
      type: 'number',
      unit: 'kW',
      min: -PARAM_POWER_LIMIT_KW,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      default: 0,
      required: true,
      when: { key: 'operating_mode', value: 'manual' },
      label: t('手动功率设定值', 'Manual power setpoint'),
      help: t(
        '正值放电，负值充电；EMS按PCS额定功率、BMS限值、防逆流限值和SOC上下限限幅',
        'Positive discharges, negative charges; the EMS caps it at the PCS rating, the BMS limits, the export limit and the SOC window',
      ),
      source: `design §4 sign convention (positive = discharging); ${POWER_BOUND_SOURCE}`,
    },
  ]),
  group('grid', t('并网限值', 'Grid limits'), [
    {
      key: 'export_limit_kw',
      type: 'number',
      unit: 'kW',
      min: 0,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      default: 0,
      required: true,
      label: t('防逆流限值', 'Export limit (anti-backflow)'),
      help: t(
        '并网点向电网送电的最大功率（关口电表测得）；0表示不允许向电网送电',
        'Most power sent to the grid at the connection point (the grid meter); 0 allows no export',
      ),
      source: `ours: anti-backflow (防逆流) on the grid meter; ${POWER_BOUND_SOURCE}`,
    },
    {
      key: 'demand_limit_kw',
      type: 'number',
      unit: 'kW',
      min: 0,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      default: 0,
      required: true,
      label: t('需量控制目标', 'Demand-control target'),
      help: t(
        '电网购电功率超过该值时放电削峰；0表示关闭需量控制',
        'The battery discharges to keep grid import at or below this; 0 turns demand control off',
      ),
      source: `ours: demand charge control on the grid meter; ${POWER_BOUND_SOURCE}`,
    },
  ]),
  group('soc', t('SOC', 'SOC'), [
    {
      key: 'soc_min_pct',
      type: 'int',
      unit: '%',
      min: 0,
      max: 100,
      default: 5,
      required: true,
      label: t('SOC下限', 'SOC floor'),
      help: t('放电到该SOC停止', 'Discharging stops at this SOC'),
      source: 'ours: the SOC window of a ToU period (tou/rules.ts, code 3086): 0 ≤ floor < ceiling ≤ 100',
    },
    {
      key: 'soc_max_pct',
      type: 'int',
      unit: '%',
      min: 0,
      max: 100,
      default: 95,
      required: true,
      label: t('SOC上限', 'SOC ceiling'),
      help: t('充电到该SOC停止', 'Charging stops at this SOC'),
      source: 'ours: the SOC window of a ToU period (tou/rules.ts, code 3086): 0 ≤ floor < ceiling ≤ 100',
    },
    {
      key: 'backup_reserve_pct',
      type: 'int',
      unit: '%',
      min: 0,
      max: 100,
      default: 20,
      required: true,
      label: t('备电保留SOC', 'Backup reserve'),
      help: t(
        '为电网断电保留的SOC：分时和手动放电到此为止；须在SOC上下限之间',
        'SOC kept for a grid outage: ToU and manual discharging stop here; within the SOC floor and ceiling',
      ),
      source: 'ours: a reserve inside the SOC window',
    },
  ]),
  group('protection', t('电网保护', 'Grid protection'), [
    {
      key: 'grid_freq_high_hz',
      type: 'number',
      unit: 'Hz',
      min: 50.2,
      max: 55,
      decimals: 2,
      default: 50.5,
      required: true,
      label: t('过频保护值', 'Over-frequency trip'),
      help: t('电网频率高于该值时PCS脱网', 'The PCS leaves the grid above this frequency'),
      source: GRID_BAND_SOURCE,
    },
    {
      key: 'grid_freq_low_hz',
      type: 'number',
      unit: 'Hz',
      min: 45,
      max: 49.5,
      decimals: 2,
      default: 48,
      required: true,
      label: t('欠频保护值', 'Under-frequency trip'),
      help: t('电网频率低于该值时PCS脱网', 'The PCS leaves the grid below this frequency'),
      source: GRID_BAND_SOURCE,
    },
    {
      key: 'grid_voltage_high_pct',
      type: 'int',
      unit: '%Un',
      min: 110,
      max: 135,
      default: 115,
      required: true,
      label: t('过压保护值', 'Over-voltage trip'),
      help: t(
        '电网电压高于额定电压的该百分比时PCS脱网',
        'The PCS leaves the grid above this share of the nominal voltage',
      ),
      source: `${GRID_BAND_SOURCE}; default = the PCS over-voltage fault (1.15 Un) of the alarm table`,
    },
    {
      key: 'grid_voltage_low_pct',
      type: 'int',
      unit: '%Un',
      min: 50,
      max: 85,
      default: 85,
      required: true,
      label: t('欠压保护值', 'Under-voltage trip'),
      help: t(
        '电网电压低于额定电压的该百分比时PCS脱网',
        'The PCS leaves the grid below this share of the nominal voltage',
      ),
      source: GRID_BAND_SOURCE,
    },
  ]),
  group('time', t('时间', 'Time'), [
    {
      key: 'timezone',
      type: 'timezone',
      required: true,
      label: t('时区', 'Time zone'),
      help: t(
        'IANA时区（如Asia/Shanghai）：分时时段和日电量按该时区的当地时间；初始化时取站点的时区',
        'IANA zone (e.g. Asia/Shanghai): ToU periods and daily energy follow its wall clock; initialization writes the site’s zone',
      ),
      source: 'device/protocol.ts timezoneSchema (IANA, checked with Intl)',
    },
  ]),
  group('network', t('网络', 'Network'), [
    {
      key: 'ip_mode',
      type: 'enum',
      options: [opt('dhcp', '自动获取(DHCP)', 'Automatic (DHCP)'), opt('static', '静态IP', 'Static IP')],
      default: 'dhcp',
      required: true,
      label: t('IP获取方式', 'IP address mode'),
      help: t(
        '静态IP时须填写IP地址、子网掩码、默认网关和DNS',
        'A static IP needs the address, mask, default gateway and DNS',
      ),
      source: 'ours',
    },
    ...(
      [
        ['ip_address', 'ipv4', 'IP地址', 'IP address', 'EMS的以太网地址', 'The EMS’s Ethernet address'],
        ['subnet_mask', 'netmask', '子网掩码', 'Subnet mask', '如255.255.255.0', 'e.g. 255.255.255.0'],
        [
          'default_gateway',
          'ipv4',
          '默认网关',
          'Default gateway',
          '须与IP地址在同一网段',
          'In the same subnet as the IP address',
        ],
        ['dns_primary', 'ipv4', '首选DNS', 'Primary DNS', 'DNS服务器地址', 'DNS server address'],
      ] as const
    ).map(
      ([key, type, zh, en, helpZh, helpEn]): DefInput => ({
        key,
        type,
        required: true,
        when: { key: 'ip_mode', value: 'static' },
        label: t(zh, en),
        help: t(helpZh, helpEn),
        source: 'spec §5 "please enter the correct Ip address"',
      }),
    ),
    {
      key: 'dns_secondary',
      type: 'ipv4',
      label: t('备用DNS', 'Secondary DNS'),
      help: t('可不填', 'Optional'),
      source: 'spec §5 "please enter the correct Ip address"',
    },
    {
      key: 'sim_number',
      type: 'phone',
      label: t('SIM卡号', 'SIM number'),
      help: t(
        '4G模块SIM卡的号码：11位手机号或13位物联网卡号；可不填',
        'Number of the 4G module’s SIM: an 11-digit mobile or a 13-digit IoT number; optional',
      ),
      source: 'spec §5 "please enter the correct phone number"; 13-digit IoT numbers (10x/14x) ours',
    },
  ]),
  group('mqtt', t('MQTT', 'MQTT'), [
    {
      key: 'mqtt_host',
      type: 'host',
      maxLength: 253,
      required: true,
      label: t('MQTT服务器地址', 'MQTT server address'),
      help: t(
        '域名或IP地址；改错后网关将无法连接，只能到现场恢复',
        'Host name or IP address; a wrong value cuts the gateway off until it is fixed on site',
      ),
      source: 'RFC 1123 host names, or spec §5 IP address',
    },
    {
      key: 'mqtt_port',
      type: 'int',
      min: 1,
      max: 65535,
      default: 8883,
      required: true,
      label: t('MQTT服务器端口', 'MQTT server port'),
      help: t('TLS端口默认8883', 'The TLS port is 8883 by default'),
      source: 'TCP port range; 8883 = MQTT over TLS (docs/device-protocol.md "Connecting")',
    },
  ]),
];

/* ───────────── PCS ───────────── */

const pcs: ParamGroup[] = [
  group('power', t('有功功率', 'Active power'), [
    {
      key: 'active_power_limit_kw',
      type: 'number',
      unit: 'kW',
      min: 0,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      label: t('有功功率限值', 'Active power limit'),
      help: t(
        'PCS充放电的最大功率；不填为其额定功率',
        'Most power the PCS charges or discharges with; empty: its rating',
      ),
      source: POWER_BOUND_SOURCE,
    },
    {
      key: 'ramp_rate_kw_s',
      type: 'number',
      unit: 'kW/s',
      positive: true,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      label: t('功率变化率', 'Ramp rate'),
      help: t(
        '有功功率每秒最大变化量；不填为PCS自身设定',
        'Largest change of active power per second; empty: the PCS’s own',
      ),
      source: 'spec §5 "number must be greater than 0"; bound ours',
    },
  ]),
  group('reactive', t('无功功率', 'Reactive power'), [
    {
      key: 'reactive_mode',
      type: 'enum',
      options: [opt('pf', '功率因数', 'Power factor'), opt('q', '无功功率', 'Reactive power')],
      default: 'pf',
      required: true,
      label: t('无功控制方式', 'Reactive power control'),
      help: t('按功率因数或按无功功率设定值调节', 'Follow a power factor or a reactive power setpoint'),
      source: 'GB/T 36547-2018: storage regulates reactive power by power factor or setpoint',
    },
    {
      key: 'power_factor',
      type: 'number',
      min: 0.8,
      max: 1,
      decimals: 2,
      default: 1,
      required: true,
      when: { key: 'reactive_mode', value: 'pf' },
      label: t('功率因数', 'Power factor'),
      help: t('0.80–1.00，方向见“无功方向”', '0.80–1.00; the direction is set by “Reactive direction”'),
      source: 'ours: the usual PCS range (GB/T 36547-2018 asks for at least 0.95 either way)',
    },
    {
      key: 'pf_direction',
      type: 'enum',
      options: [
        opt('inject', '发出无功', 'Delivers reactive power'),
        opt('absorb', '吸收无功', 'Absorbs reactive power'),
      ],
      default: 'inject',
      required: true,
      when: { key: 'reactive_mode', value: 'pf' },
      label: t('无功方向', 'Reactive direction'),
      help: t(
        '功率因数小于1时PCS发出还是吸收无功',
        'Whether the PCS delivers or absorbs reactive power below a power factor of 1',
      ),
      source: 'ours',
    },
    {
      key: 'reactive_power_kvar',
      type: 'number',
      unit: 'kvar',
      min: -PARAM_POWER_LIMIT_KW,
      max: PARAM_POWER_LIMIT_KW,
      decimals: 1,
      default: 0,
      required: true,
      when: { key: 'reactive_mode', value: 'q' },
      label: t('无功功率设定值', 'Reactive power setpoint'),
      help: t('正值发出无功，负值吸收无功', 'Positive delivers reactive power, negative absorbs it'),
      source: POWER_BOUND_SOURCE,
    },
  ]),
  group('grid_connection', t('并离网', 'Grid connection'), [
    {
      key: 'grid_mode',
      type: 'enum',
      options: [opt('on_grid', '并网', 'On-grid'), opt('off_grid', '离网', 'Off-grid')],
      default: 'on_grid',
      required: true,
      label: t('并离网模式', 'On/off-grid mode'),
      help: t(
        '离网时PCS自建电压和频率为负载供电',
        'Off-grid, the PCS forms voltage and frequency itself and supplies the load',
      ),
      source: 'issue 15 item 1',
    },
  ]),
];

/* ───────────── BMS ───────────── */

const bms: ParamGroup[] = [
  group('current', t('电流限值', 'Current limits'), [
    {
      key: 'charge_current_limit_a',
      type: 'number',
      unit: 'A',
      min: 0,
      max: 2000,
      decimals: 1,
      label: t('充电电流限值', 'Charge current limit'),
      help: t('不填为电池簇额定值', 'Empty: the rack’s rating'),
      source: 'ours: 2000 A sanity bound',
    },
    {
      key: 'discharge_current_limit_a',
      type: 'number',
      unit: 'A',
      min: 0,
      max: 2000,
      decimals: 1,
      label: t('放电电流限值', 'Discharge current limit'),
      help: t('不填为电池簇额定值', 'Empty: the rack’s rating'),
      source: 'ours: 2000 A sanity bound',
    },
  ]),
  group('cell_voltage', t('单体电压保护', 'Cell voltage protection'), [
    ...(
      [
        [
          'cell_ov_warning_v',
          3,
          4.3,
          3.6,
          '单体过压告警值',
          'Cell over-voltage warning',
          '任一单体电压达到或高于该值时告警',
          'A warning when any cell is at or above it',
        ],
        [
          'cell_ov_fault_v',
          3,
          4.3,
          3.65,
          '单体过压故障值',
          'Cell over-voltage fault',
          '任一单体电压达到或高于该值时故障，停止充电',
          'A fault when any cell is at or above it: charging stops',
        ],
        [
          'cell_uv_warning_v',
          2,
          3.3,
          2.8,
          '单体欠压告警值',
          'Cell under-voltage warning',
          '任一单体电压达到或低于该值时告警',
          'A warning when any cell is at or below it',
        ],
        [
          'cell_uv_fault_v',
          2,
          3.3,
          2.5,
          '单体欠压故障值',
          'Cell under-voltage fault',
          '任一单体电压达到或低于该值时故障，停止放电',
          'A fault when any cell is at or below it: discharging stops',
        ],
      ] as const
    ).map(
      ([key, min, max, def, zh, en, helpZh, helpEn]): DefInput => ({
        key,
        type: 'number',
        unit: 'V',
        min,
        max,
        decimals: 3,
        default: def,
        required: true,
        label: t(zh, en),
        help: t(helpZh, helpEn),
        source: ALARM_TABLE_SOURCE,
      }),
    ),
  ]),
  group('cell_temperature', t('单体温度保护', 'Cell temperature protection'), [
    {
      key: 'cell_ot_warning_c',
      type: 'number',
      unit: '°C',
      min: 30,
      max: 80,
      decimals: 1,
      default: 50,
      required: true,
      label: t('单体过温告警值', 'Cell over-temperature warning'),
      help: t('任一单体温度达到或高于该值时告警', 'A warning when any cell is at or above it'),
      source: ALARM_TABLE_SOURCE,
    },
    {
      key: 'cell_ot_fault_c',
      type: 'number',
      unit: '°C',
      min: 30,
      max: 80,
      decimals: 1,
      default: 55,
      required: true,
      label: t('单体过温故障值', 'Cell over-temperature fault'),
      help: t('任一单体温度达到或高于该值时故障', 'A fault when any cell is at or above it'),
      source: ALARM_TABLE_SOURCE,
    },
  ]),
];

/* ───────────── Air conditioner (spec §5, §9; thresholds: module doc) ───────────── */

const AC_TEMP = { type: 'number', unit: '°C', decimals: 1 } as const;

const airConditioner: ParamGroup[] = [
  group('general', t('基本', 'General'), [
    {
      key: 'ac_type',
      type: 'enum',
      options: [
        opt('cabinet', '一体式机柜空调', 'Integrated cabinet air conditioner'),
        opt('split', '分体式空调', 'Split air conditioner'),
        opt('liquid_cooling', '液冷机组', 'Liquid cooling unit'),
      ],
      required: true,
      label: t('空调类型', 'Air conditioner type'),
      help: t('必填', 'Required'),
      source: 'spec §5 "type … cannot be empty"',
    },
  ]),
  group('temperature_control', t('温控阈值', 'Temperature control'), [
    {
      key: 'cooling_start_c',
      ...AC_TEMP,
      min: 25,
      max: 40,
      default: 28,
      required: true,
      label: pointLabel('air_conditioner', 'cooling_start_c'),
      help: t('柜内温度高于该值时开始制冷', 'Cooling starts when the cabinet rises above it'),
      source: 'spec §5, §9: 25.0–40.0',
    },
    {
      key: 'cooling_stop_c',
      ...AC_TEMP,
      min: 5,
      max: 40,
      default: 25,
      required: true,
      label: t('制冷停止温度', 'Cooling stop temperature'),
      help: t(
        '柜内温度降到该值时停止制冷（制冷开启温度减回差），须低于制冷开启温度',
        'Cooling stops when the cabinet has fallen to it (cooling start minus the hysteresis); below the cooling start',
      ),
      source: 'spec §5 "other threshold values must be below the cooling start value"; range ours',
    },
    {
      key: 'heating_start_c',
      ...AC_TEMP,
      min: 5,
      max: 30,
      default: 10,
      required: true,
      label: pointLabel('air_conditioner', 'heating_start_c'),
      help: t('柜内温度低于该值时开始制热', 'Heating starts when the cabinet falls below it'),
      source: 'spec §5, §9: 5.0–30.0',
    },
    {
      key: 'heating_stop_c',
      ...AC_TEMP,
      min: 5,
      max: 40,
      default: 13,
      required: true,
      label: t('制热停止温度', 'Heating stop temperature'),
      help: t(
        '柜内温度升到该值时停止制热（制热开启温度加回差），须高于制热开启温度、低于制冷开启温度',
        'Heating stops when the cabinet has risen to it (heating start plus the hysteresis); above the heating start, below the cooling start',
      ),
      source: 'spec §5 (Chinese text: above the heating start value); range ours',
    },
  ]),
  group('alarms', t('告警', 'Alarms'), [
    {
      key: 'high_temp_alarm_c',
      ...AC_TEMP,
      min: -40,
      max: 80,
      default: 45,
      required: true,
      label: t('高温告警值', 'High temperature alarm value'),
      help: t('柜内温度高于该值时告警', 'Alarms when the cabinet is above it'),
      source: 'spec §5 "high … temperature alarm values cannot be empty"; range (the sensor’s) ours',
    },
    {
      key: 'low_temp_alarm_c',
      ...AC_TEMP,
      min: -40,
      max: 80,
      default: 0,
      required: true,
      label: t('低温告警值', 'Low temperature alarm value'),
      help: t(
        '柜内温度低于该值时告警，须低于高温告警值',
        'Alarms when the cabinet is below it; below the high temperature alarm',
      ),
      source: 'spec §5 "… low temperature alarm values cannot be empty"; range (the sensor’s) ours',
    },
  ]),
];

/* ───────────── Serial meter (spec §9) ───────────── */

/** Modbus unit (slave) addresses a device may have: 0 is broadcast, 248–255 reserved. */
export const MODBUS_ADDRESS_MIN = 1;
export const MODBUS_ADDRESS_MAX = 247;

/** The two serial settings of spec §9 (Modbus RTU, 8 data bits). */
export const SERIAL_SETTINGS = [
  { baudRate: 9600, stopBits: 2, parity: 'none' },
  { baudRate: 9600, stopBits: 1, parity: 'even' },
] as const;

const meter: ParamGroup[] = [
  group('serial', t('串口通信', 'Serial communication'), [
    {
      key: 'modbus_address',
      type: 'int',
      min: MODBUS_ADDRESS_MIN,
      max: MODBUS_ADDRESS_MAX,
      default: 1,
      required: true,
      label: t('Modbus地址', 'Modbus address'),
      help: t('电表的从站地址，1–247', 'The meter’s unit address, 1–247'),
      source: 'Modbus over Serial Line V1.02 §2.2: unicast addresses 1–247',
    },
    {
      key: 'baud_rate',
      type: 'enum',
      unit: 'bps',
      options: [opt(9600, '9600', '9600')],
      default: 9600,
      required: true,
      label: t('波特率', 'Baud rate'),
      help: t('9600', '9600'),
      source: MODBUS_SERIAL_SOURCE,
    },
    {
      key: 'stop_bits',
      type: 'enum',
      options: [opt(1, '1', '1'), opt(2, '2', '2')],
      default: 1,
      required: true,
      label: t('停止位', 'Stop bits'),
      help: t('无校验时2位，偶校验时1位', '2 with no parity, 1 with even parity'),
      source: MODBUS_SERIAL_SOURCE,
    },
    {
      key: 'parity',
      type: 'enum',
      options: [opt('none', '无校验', 'None'), opt('even', '偶校验', 'Even')],
      default: 'even',
      required: true,
      label: t('校验位', 'Parity'),
      help: t(
        '偶校验（1位停止位）或无校验（2位停止位）',
        'Even (with 1 stop bit) or none (with 2 stop bits)',
      ),
      source: MODBUS_SERIAL_SOURCE,
    },
  ]),
  group('metering', t('计量', 'Metering'), [
    {
      key: 'ct_ratio',
      type: 'number',
      positive: true,
      max: 100_000,
      decimals: 2,
      default: 1,
      required: true,
      label: t('CT变比', 'CT ratio'),
      help: t('电流互感器一次/二次，如400/5填80', 'Current transformer primary/secondary, e.g. 400/5 → 80'),
      source: 'spec §3 (CT and PT ratio), §5 "number must be greater than 0"; bound ours',
    },
    {
      key: 'pt_ratio',
      type: 'number',
      positive: true,
      max: 100_000,
      decimals: 2,
      default: 1,
      required: true,
      label: t('PT变比', 'PT ratio'),
      help: t(
        '电压互感器一次/二次，如10kV/100V填100；低压直接接入填1',
        'Voltage transformer primary/secondary, e.g. 10 kV/100 V → 100; 1 when connected directly',
      ),
      source: 'spec §3 (CT and PT ratio), §5 "number must be greater than 0"; bound ours',
    },
    {
      key: 'meter_role',
      type: 'enum',
      options: [
        opt('grid', '电网关口', 'Grid connection point'),
        opt('storage', '储能', 'Storage'),
        opt('pv', '光伏', 'PV'),
        opt('load', '负载', 'Load'),
      ],
      required: true,
      label: t('电表用途', 'Meter role'),
      help: t(
        '电表计量的对象；防逆流和需量控制读取电网关口电表',
        'What the meter measures; the export limit and demand control read the grid meter',
      ),
      source: 'issue 15 item 1',
    },
  ]),
];

/**
 * The parameters of each device type, in form order. PV inverters and environment sensors have
 * none the console configures (yet).
 */
export const PARAM_SCHEMAS: Readonly<Record<DeviceType, readonly ParamGroup[]>> = {
  ems,
  pcs,
  bms,
  meter,
  pv: [],
  air_conditioner: airConditioner,
  env_sensor: [],
};

const order = (lower: string, upper: string, field: string, source: string, strict = true): ParamRule => ({
  kind: 'order',
  lower,
  upper,
  strict,
  field,
  source,
});

const AC_OTHER_BELOW_COOLING = 'spec §5 "other threshold values must be below the cooling start value"';

/** Rules between parameters of each type (validate.ts checks them; order = the order of their messages). */
export const PARAM_RULES: Readonly<Record<DeviceType, readonly ParamRule[]>> = {
  ems: [
    order(
      'soc_min_pct',
      'soc_max_pct',
      'soc_min_pct',
      'ours: 0 ≤ floor < ceiling ≤ 100, as a ToU period (3086)',
    ),
    order(
      'soc_min_pct',
      'backup_reserve_pct',
      'backup_reserve_pct',
      'ours: the reserve lies in the SOC window',
      false,
    ),
    order(
      'backup_reserve_pct',
      'soc_max_pct',
      'backup_reserve_pct',
      'ours: the reserve lies in the SOC window',
      false,
    ),
    {
      kind: 'subnet',
      ip: 'ip_address',
      mask: 'subnet_mask',
      gateway: 'default_gateway',
      field: 'default_gateway',
      source: 'ours: a gateway outside the subnet is unreachable',
    },
  ],
  pcs: [],
  bms: [
    order(
      'cell_ov_warning_v',
      'cell_ov_fault_v',
      'cell_ov_fault_v',
      `${ALARM_TABLE_SOURCE}: the warning comes first`,
    ),
    order(
      'cell_uv_fault_v',
      'cell_uv_warning_v',
      'cell_uv_fault_v',
      `${ALARM_TABLE_SOURCE}: the warning comes first`,
    ),
    order(
      'cell_uv_warning_v',
      'cell_ov_warning_v',
      'cell_uv_warning_v',
      'ours: under-voltage below over-voltage',
    ),
    order(
      'cell_ot_warning_c',
      'cell_ot_fault_c',
      'cell_ot_fault_c',
      `${ALARM_TABLE_SOURCE}: the warning comes first`,
    ),
  ],
  meter: [
    {
      kind: 'serial',
      baud: 'baud_rate',
      stopBits: 'stop_bits',
      parity: 'parity',
      field: 'stop_bits',
      source: MODBUS_SERIAL_SOURCE,
    },
  ],
  pv: [],
  air_conditioner: [
    order('cooling_stop_c', 'cooling_start_c', 'cooling_stop_c', AC_OTHER_BELOW_COOLING),
    order('heating_start_c', 'cooling_start_c', 'heating_start_c', AC_OTHER_BELOW_COOLING),
    order('heating_stop_c', 'cooling_start_c', 'heating_stop_c', AC_OTHER_BELOW_COOLING),
    order(
      'heating_start_c',
      'heating_stop_c',
      'heating_stop_c',
      'spec §5, Chinese text: above the heating start value',
    ),
    order(
      'heating_start_c',
      'cooling_stop_c',
      'cooling_stop_c',
      'ours: cooling must not pull the cabinet into heating',
    ),
    order(
      'low_temp_alarm_c',
      'high_temp_alarm_c',
      'high_temp_alarm_c',
      'ours: the high alarm above the low one',
    ),
  ],
  env_sensor: [],
};

/** Every parameter of `type`, in form order. */
export function paramDefs(type: DeviceType): ParamDef[] {
  return PARAM_SCHEMAS[type].flatMap((g) => g.params);
}

/** The definition of parameter `key` of `type`, if it has one. */
export function paramDef(type: DeviceType, key: string): ParamDef | undefined {
  for (const g of PARAM_SCHEMAS[type]) {
    const d = g.params.find((p) => p.key === key);
    if (d) return d;
  }
  return undefined;
}

/** The defaults of `type` (parameters whose default is null are left out). */
export function defaultParams(type: DeviceType): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const d of paramDefs(type)) if (d.default !== null) out[d.key] = d.default;
  return out;
}

/** `n` written with the parameter's decimals (25 → "25.0" for the cooling start). */
export function formatParamNumber(def: ParamDef, n: number): string {
  return def.decimals === undefined ? String(n) : n.toFixed(def.decimals);
}
