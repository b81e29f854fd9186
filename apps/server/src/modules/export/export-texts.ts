/**
 * Texts of the exported workbooks in the caller's language (zh, en): sheet names, headers and the
 * labels of device types, alarm kinds and levels. Point labels and units come from the
 * contract's POINTS (device/points.ts).
 */
import type { DeviceType, ExportType, Lang } from '@ess/contract';

interface ExportTexts {
  infoSheet: string;
  info: Record<
    'type' | 'agent' | 'site' | 'timezone' | 'range' | 'devices' | 'items' | 'rows' | 'generatedAt',
    string
  >;
  types: Record<ExportType, string>;
  time: string;
  day: string;
  deviceSn: string;
  deviceType: string;
  deviceTypes: Record<DeviceType, string>;
  alarm: Record<'ems' | 'kind' | 'code' | 'level' | 'content' | 'value', string>;
  alarmKinds: Record<'produce' | 'disappear', string>;
  alarmLevels: Record<'warning' | 'fault', string>;
}

export const exportTexts: Record<Lang, ExportTexts> = {
  zh: {
    infoSheet: '导出信息',
    info: {
      type: '导出类型',
      agent: '代理商',
      site: '站点',
      timezone: '站点时区',
      range: '时间范围',
      devices: '储能设备',
      items: '导出数据',
      rows: '数据行数',
      generatedAt: '生成时间 (UTC)',
    },
    types: { raw: '原始数据', dailyEnergy: '日电量', alarms: '告警记录' },
    time: '时间',
    day: '日期',
    deviceSn: '设备SN',
    deviceType: '设备类型',
    deviceTypes: {
      ems: 'EMS',
      pcs: 'PCS',
      bms: 'BMS',
      meter: '电表',
      pv: '光伏',
      air_conditioner: '空调',
      env_sensor: '环境传感器',
    },
    alarm: {
      ems: 'EMS编号',
      kind: '事件类型',
      code: '告警类型',
      level: '等级',
      content: '内容',
      value: '数值',
    },
    alarmKinds: { produce: '产生', disappear: '消除' },
    alarmLevels: { warning: '告警', fault: '故障' },
  },
  en: {
    infoSheet: 'Export info',
    info: {
      type: 'Export type',
      agent: 'Agent',
      site: 'Site',
      timezone: 'Site time zone',
      range: 'Time range',
      devices: 'Energy storage devices',
      items: 'Data exported',
      rows: 'Data rows',
      generatedAt: 'Generated at (UTC)',
    },
    types: { raw: 'Raw data', dailyEnergy: 'Daily energy', alarms: 'Alarms' },
    time: 'Time',
    day: 'Day',
    deviceSn: 'Device SN',
    deviceType: 'Device type',
    deviceTypes: {
      ems: 'EMS',
      pcs: 'PCS',
      bms: 'BMS',
      meter: 'Meter',
      pv: 'PV',
      air_conditioner: 'Air conditioner',
      env_sensor: 'Environment sensor',
    },
    alarm: {
      ems: 'EMS number',
      kind: 'Event type',
      code: 'Alarm type',
      level: 'Level',
      content: 'Content',
      value: 'Value',
    },
    alarmKinds: { produce: 'Produced', disappear: 'Disappeared' },
    alarmLevels: { warning: 'Warning', fault: 'Fault' },
  },
};
