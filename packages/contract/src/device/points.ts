/**
 * Standard points per device type (docs/device-protocol.md "Points") with their unit and their
 * zh/en labels: the one place point labels live (real-time data, history, export, the EMS panel
 * of site monitoring). A gateway may send other points too (stored, shown with their raw name);
 * these are the ones the console knows how to label and aggregate. Every point the simulated
 * fleet sends is one of them (apps/simulator/test/point-labels.test.ts). The unit is part of the
 * name (`_kw`, `_kwh`, `_v`, `_a`, `_c`, `_pct`, `_hz`), flags are 0/1.
 *
 * Sign convention (design §4): battery and PCS power positive = discharging, negative =
 * charging; grid meter power positive = importing from the grid.
 */
import type { DeviceType } from './protocol';

export interface PointDef {
  name: string;
  unit: string;
  zh: string;
  en: string;
  /** Meter registers that only grow (energy totals). */
  counter?: boolean;
}

const p = (name: string, unit: string, zh: string, en: string, counter = false): PointDef => ({
  name,
  unit,
  zh,
  en,
  ...(counter ? { counter } : {}),
});

const threePhase = (prefix: 'u' | 'i', unit: string, zh: string, en: string) =>
  (['a', 'b', 'c'] as const).map((ph) =>
    p(
      `${prefix}_${ph}_${unit === 'V' ? 'v' : 'a'}`,
      unit,
      `${ph.toUpperCase()}相${zh}`,
      `Phase ${ph.toUpperCase()} ${en}`,
    ),
  );

export const POINTS: Record<DeviceType, PointDef[]> = {
  ems: [
    p('run_mode', '', '运行模式(0自动/1手动)', 'Run mode (0 auto / 1 manual)'),
    p('p_setpoint_kw', 'kW', '功率设定值', 'Power setpoint'),
    p('soc_pct', '%', '系统SOC', 'System SOC'),
    // What a gateway measures or knows of the whole site; the site's figures use them where the
    // site has no PCS, meter or PV device (device/site-figures.ts).
    p('p_kw', 'kW', '电池功率(正为放电)', 'Battery power (+ discharging)'),
    p('grid_kw', 'kW', '电网功率(正为购电)', 'Grid power (+ import)'),
    p('pv_kw', 'kW', '光伏功率', 'PV power'),
    p('load_kw', 'kW', '负荷功率', 'Load power'),
    p('e_charge_total_kwh', 'kWh', '累计充电量', 'Total charged energy', true),
    p('e_discharge_total_kwh', 'kWh', '累计放电量', 'Total discharged energy', true),
  ],
  pcs: [
    p('p_kw', 'kW', '有功功率', 'Active power'),
    p('q_kvar', 'kvar', '无功功率', 'Reactive power'),
    p('pf', '', '功率因数', 'Power factor'),
    p('freq_hz', 'Hz', '电网频率', 'Grid frequency'),
    ...threePhase('u', 'V', '电压', 'voltage'),
    ...threePhase('i', 'A', '电流', 'current'),
    p('dc_u_v', 'V', '直流电压', 'DC voltage'),
    p('dc_i_a', 'A', '直流电流', 'DC current'),
    p('t_igbt_c', '°C', 'IGBT温度', 'IGBT temperature'),
    p(
      'state',
      '',
      '状态(0待机/1充电/2放电/3故障)',
      'State (0 standby / 1 charging / 2 discharging / 3 fault)',
    ),
    p('e_charge_total_kwh', 'kWh', '累计充电量', 'Total charged energy', true),
    p('e_discharge_total_kwh', 'kWh', '累计放电量', 'Total discharged energy', true),
  ],
  bms: [
    p('soc_pct', '%', 'SOC', 'SOC'),
    p('soh_pct', '%', 'SOH', 'SOH'),
    p('u_pack_v', 'V', '电池组电压', 'Pack voltage'),
    p('i_pack_a', 'A', '电池组电流', 'Pack current'),
    p('u_cell_max_v', 'V', '最高单体电压', 'Highest cell voltage'),
    p('u_cell_min_v', 'V', '最低单体电压', 'Lowest cell voltage'),
    p('u_cell_max_no', '', '最高单体电压位置', 'Highest cell voltage position'),
    p('u_cell_min_no', '', '最低单体电压位置', 'Lowest cell voltage position'),
    p('u_cell_diff_mv', 'mV', '单体压差', 'Cell voltage spread'),
    p('t_cell_max_c', '°C', '最高单体温度', 'Highest cell temperature'),
    p('t_cell_min_c', '°C', '最低单体温度', 'Lowest cell temperature'),
    p('t_cell_max_no', '', '最高单体温度位置', 'Highest cell temperature position'),
    p('t_cell_min_no', '', '最低单体温度位置', 'Lowest cell temperature position'),
    p('charge_limit_kw', 'kW', '允许充电功率', 'Charge power limit'),
    p('discharge_limit_kw', 'kW', '允许放电功率', 'Discharge power limit'),
    p('insulation_kohm', 'kΩ', '绝缘电阻', 'Insulation resistance'),
  ],
  meter: [
    p('p_kw', 'kW', '有功功率(正为购电)', 'Active power (+ import)'),
    p('pf', '', '功率因数', 'Power factor'),
    p('freq_hz', 'Hz', '频率', 'Frequency'),
    ...threePhase('u', 'V', '电压', 'voltage'),
    ...threePhase('i', 'A', '电流', 'current'),
    p('e_import_total_kwh', 'kWh', '正向有功总电能', 'Imported energy total', true),
    p('e_export_total_kwh', 'kWh', '反向有功总电能', 'Exported energy total', true),
    // Per-tier registers of a DL/T 645 meter (issue 17 item 3): import/export in the sharp, peak,
    // shoulder (flat) and off-peak (valley) periods of the site's tariff; they add up to the total.
    p('e_import_sharp_kwh', 'kWh', '正向有功尖电能', 'Imported energy, sharp', true),
    p('e_import_peak_kwh', 'kWh', '正向有功峰电能', 'Imported energy, peak', true),
    p('e_import_shoulder_kwh', 'kWh', '正向有功平电能', 'Imported energy, shoulder', true),
    p('e_import_off_peak_kwh', 'kWh', '正向有功谷电能', 'Imported energy, off-peak', true),
    p('e_export_sharp_kwh', 'kWh', '反向有功尖电能', 'Exported energy, sharp', true),
    p('e_export_peak_kwh', 'kWh', '反向有功峰电能', 'Exported energy, peak', true),
    p('e_export_shoulder_kwh', 'kWh', '反向有功平电能', 'Exported energy, shoulder', true),
    p('e_export_off_peak_kwh', 'kWh', '反向有功谷电能', 'Exported energy, off-peak', true),
  ],
  pv: [
    p('p_kw', 'kW', '光伏功率', 'PV power'),
    p('e_total_kwh', 'kWh', '光伏累计发电量', 'PV energy total', true),
  ],
  air_conditioner: [
    p('state', '', '状态(0关/1制冷/2制热/3送风)', 'State (0 off / 1 cooling / 2 heating / 3 fan)'),
    p('t_supply_c', '°C', '出风温度', 'Supply air temperature'),
    p('t_return_c', '°C', '回风温度', 'Return air temperature'),
    p('cooling_start_c', '°C', '制冷开启温度', 'Cooling start temperature'),
    p('heating_start_c', '°C', '制热开启温度', 'Heating start temperature'),
    p('fault', '', '故障(0/1)', 'Fault (0/1)'),
  ],
  env_sensor: [
    p('t_c', '°C', '温度', 'Temperature'),
    p('rh_pct', '%', '湿度', 'Humidity'),
    p('smoke', '', '烟感(0/1)', 'Smoke (0/1)'),
    p('water', '', '水浸(0/1)', 'Water (0/1)'),
    p('door', '', '门磁(0关/1开)', 'Door (0 closed / 1 open)'),
  ],
};

/** The definition of `name` for `type`, if it is a standard point. */
export function pointDef(type: DeviceType, name: string): PointDef | undefined {
  return POINTS[type].find((d) => d.name === name);
}
