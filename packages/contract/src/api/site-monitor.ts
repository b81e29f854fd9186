/**
 * Site monitoring (spec §2 `/zdjkshow`, permission `monitor:site:list`):
 * every site the caller may see, with position and status for the map and the list, and one
 * site's detail — energy flow and the EMS (gateway), PCS, BMS, meter, PV, environment and
 * air-conditioner panels — built from `device_latest`. The site's SOC, power and energy figures
 * follow the rule of device/site-figures.ts (a gateway that reports them itself provides them
 * where no BMS, PCS, meter or PV device does).
 *
 * Live: the list follows the `fleet` channel (its `sites` carry the same {@link SiteStatus}
 * figures; {@link siteMonitorStatus} derives the map status), the detail follows `device:<id>`
 * for each device of the site; the console merges the pushed points into
 * {@link SiteDetailDevice.points} and calls {@link buildSitePanels} again — the same function the
 * server uses, so HTTP and live show the same figures.
 *
 * Units: power kW (battery/PCS + = discharging, − = charging; grid meter + = import), energy
 * kWh, voltage V, current A, frequency Hz, temperature °C, humidity %, cell spread mV, SOC/SOH %,
 * times UTC ms. A reading the device did not report is `null`, never 0.
 */
import { z } from 'zod';
import { siteFigureSource, siteFigures } from '../device/site-figures';
import { type SiteStatus, siteStatusSchema } from './dashboard';
import { userInfoEcho } from './envelope';
import { pointOrder } from './monitor';
import { idSchema } from './primitives';

/** Map/list status: offline (no gateway online), alarm (online with active alarms), online. */
export const SITE_MONITOR_STATUSES = ['online', 'offline', 'alarm'] as const;
export type SiteMonitorStatus = (typeof SITE_MONITOR_STATUSES)[number];

/** The status of a site as the monitoring map and list show it. */
export function siteMonitorStatus(site: Pick<SiteStatus, 'online' | 'activeAlarms'>): SiteMonitorStatus {
  if (!site.online) return 'offline';
  return site.activeAlarms > 0 ? 'alarm' : 'online';
}

export const siteMonitorSiteSchema = siteStatusSchema.extend({
  status: z.enum(SITE_MONITOR_STATUSES),
  /** WGS-84 degrees as stored on the site; null when not set (then the site is not on the map). */
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  address: z.string().nullable(),
  /** IANA zone of the site ("today" of its energy figures). */
  timezone: z.string(),
});
export type SiteMonitorSite = z.infer<typeof siteMonitorSiteSchema>;

export const siteMonitorListRequest = z.object({ userInfo: userInfoEcho });
export const siteMonitorListResponse = z.object({
  sites: z.array(siteMonitorSiteSchema),
  updatedAt: z.number().int(),
});
export type SiteMonitorList = z.infer<typeof siteMonitorListResponse>;

export const siteDetailDeviceSchema = z.object({
  id: z.number().int(),
  sn: z.string(),
  /** ems | pcs | bms | meter | pv | air_conditioner | env_sensor */
  type: z.string(),
  model: z.string().nullable(),
  /** Whether the device's gateway (or the gateway itself) is connected. */
  online: z.boolean(),
  /** Time of the newest reading (UTC ms); null when the device never reported. */
  ts: z.number().int().nullable(),
  /** Latest value of every point (docs/device-protocol.md "Points"). */
  points: z.record(z.string(), z.number()),
  /**
   * A meter a project declares as its storage meter: it provides no site figure
   * (device/site-figures.ts `FigureDevice.storageMeter`); its panel still shows its readings.
   */
  storageMeter: z.boolean(),
});
export type SiteDetailDevice = z.infer<typeof siteDetailDeviceSchema>;

const n = z.number().nullable();
const panelBase = { deviceId: z.number().int(), sn: z.string(), ts: z.number().int().nullable() };

export const FLOW_DIRECTIONS = ['in', 'out', 'idle'] as const;

export const energyFlowSchema = z.object({
  /** Grid power (meters, else the gateway's `grid_kw`): + import (flow grid → site), − export. */
  gridKw: n,
  /** PV output (≥ 0; PV devices, else the gateway's `pv_kw`). */
  pvKw: n,
  /** Battery power (PCS AC, else the gateway's `p_kw`): + discharging (flow battery → site), − charging. */
  batteryKw: n,
  /** Site load (device/site-figures.ts `siteLoadKw`): grid + PV + battery, else the gateway's `load_kw`; null when unknown. */
  loadKw: n,
  /** grid: 'in' importing, 'out' exporting; battery: 'in' charging, 'out' discharging. */
  gridDirection: z.enum(FLOW_DIRECTIONS),
  batteryDirection: z.enum(FLOW_DIRECTIONS),
  /** Newest reading among the devices in the flow (UTC ms). */
  ts: z.number().int().nullable(),
});
export type EnergyFlow = z.infer<typeof energyFlowSchema>;

/**
 * The three-phase AC side a PCS and a meter both report: power factor, grid frequency (Hz),
 * phase voltages (V) and phase currents (A).
 */
const acSideFields = {
  pf: n,
  freqHz: n,
  uAV: n,
  uBV: n,
  uCV: n,
  iAA: n,
  iBA: n,
  iCA: n,
};

/**
 * The gateway's (EMS's) own points: standard ones (device/points.ts, labelled there) in their
 * standard order, then any others by name. The console labels them with `pointLabel`/`pointUnit`.
 */
export const emsPanelSchema = z.object({
  ...panelBase,
  points: z.array(z.object({ name: z.string(), value: z.number() })),
});
export type EmsPanel = z.infer<typeof emsPanelSchema>;

/** PCS `state`: 0 standby, 1 charging, 2 discharging, 3 fault. */
export const pcsPanelSchema = z.object({
  ...panelBase,
  pKw: n,
  qKvar: n,
  ...acSideFields,
  dcUV: n,
  dcIA: n,
  tIgbtC: n,
  state: n,
  eChargeTotalKwh: n,
  eDischargeTotalKwh: n,
});
export type PcsPanel = z.infer<typeof pcsPanelSchema>;

export const bmsPanelSchema = z.object({
  ...panelBase,
  socPct: n,
  sohPct: n,
  uPackV: n,
  iPackA: n,
  uCellMaxV: n,
  /** Cell number (1-based, in the pack's cell order) of the highest cell voltage. */
  uCellMaxNo: n,
  uCellMinV: n,
  uCellMinNo: n,
  /** Highest − lowest cell voltage in mV (reported, else computed from the extremes). */
  uCellDiffMv: n,
  tCellMaxC: n,
  tCellMaxNo: n,
  tCellMinC: n,
  tCellMinNo: n,
  chargeLimitKw: n,
  dischargeLimitKw: n,
  insulationKohm: n,
});
export type BmsPanel = z.infer<typeof bmsPanelSchema>;

export const meterPanelSchema = z.object({
  ...panelBase,
  pKw: n,
  ...acSideFields,
  eImportTotalKwh: n,
  eExportTotalKwh: n,
});
export type MeterPanel = z.infer<typeof meterPanelSchema>;

export const pvPanelSchema = z.object({ ...panelBase, pKw: n, eTotalKwh: n });
export type PvPanel = z.infer<typeof pvPanelSchema>;

/** `smoke`, `water`: 0 normal, 1 detected; `door`: 0 closed, 1 open. */
export const envPanelSchema = z.object({ ...panelBase, tC: n, rhPct: n, smoke: n, water: n, door: n });
export type EnvPanel = z.infer<typeof envPanelSchema>;

/** Air conditioner `state`: 0 off, 1 cooling, 2 heating, 3 fan; `fault`: 0 none, else a code. */
export const airConditionerPanelSchema = z.object({
  ...panelBase,
  state: n,
  tSupplyC: n,
  tReturnC: n,
  coolingStartC: n,
  heatingStartC: n,
  fault: n,
});
export type AirConditionerPanel = z.infer<typeof airConditionerPanelSchema>;

export const sitePanelsSchema = z.object({
  energyFlow: energyFlowSchema,
  ems: z.array(emsPanelSchema),
  pcs: z.array(pcsPanelSchema),
  bms: z.array(bmsPanelSchema),
  meter: z.array(meterPanelSchema),
  pv: z.array(pvPanelSchema),
  env: z.array(envPanelSchema),
  airConditioner: z.array(airConditionerPanelSchema),
});
export type SitePanels = z.infer<typeof sitePanelsSchema>;

export const siteMonitorDetailRequest = z.object({
  userInfo: userInfoEcho,
  siteId: idSchema,
});
export const siteMonitorDetailResponse = z.object({
  site: siteMonitorSiteSchema,
  devices: z.array(siteDetailDeviceSchema),
  panels: sitePanelsSchema,
});
export type SiteMonitorDetail = z.infer<typeof siteMonitorDetailResponse>;

/** Below this magnitude (kW) a flow counts as idle (no arrow). */
export const FLOW_IDLE_KW = 0.05;

const pick = (points: Record<string, number>, key: string): number | null => {
  const v = points[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/** The {@link acSideFields} of a PCS's or a meter's points. */
const acSideOf = (points: Record<string, number>) => ({
  pf: pick(points, 'pf'),
  freqHz: pick(points, 'freq_hz'),
  uAV: pick(points, 'u_a_v'),
  uBV: pick(points, 'u_b_v'),
  uCV: pick(points, 'u_c_v'),
  iAA: pick(points, 'i_a_a'),
  iBA: pick(points, 'i_b_a'),
  iCA: pick(points, 'i_c_a'),
});

const round2 = (v: number): number => Math.round(v * 100) / 100;

function newest(devices: SiteDetailDevice[]): number | null {
  let ts: number | null = null;
  for (const d of devices) if (d.ts !== null && (ts === null || d.ts > ts)) ts = d.ts;
  return ts;
}

/**
 * BMS cell voltage spread (`u_cell_diff_mv`, mV) above which the site-monitoring BMS panel shows
 * the spread in the warning tone. Deliberately half the device's own `bms.cell_voltage_diff`
 * warning (spread ≥ 200 mV; fault ≥ 400 mV — docs/device-protocol.md "Alarm codes"), so an
 * operator sees a drifting pack before the alarm is raised.
 */
export const CELL_SPREAD_WARN_MV = 100;

/**
 * The panels of a site from its devices' latest points (pure; used by the server for the HTTP
 * answer and by the console after each live update). Devices of a type appear in `devices`
 * order (by id). Energy flow: grid, PV, battery and load by the site-figure rule
 * ({@link siteFigures}: meters, PV devices and PCSs, else what the gateway reports); its time is
 * the newest reading among the devices that provide them.
 */
export function buildSitePanels(devices: SiteDetailDevice[]): SitePanels {
  const ofType = (type: string) => devices.filter((d) => d.type === type);
  const base = (d: SiteDetailDevice) => ({ deviceId: d.id, sn: d.sn, ts: d.ts });
  const meters = ofType('meter');
  const pvs = ofType('pv');
  const pcss = ofType('pcs');
  const { gridKw, pvKw, batteryKw, loadKw } = siteFigures(devices);
  const flowDevices = new Set<SiteDetailDevice>();
  for (const figure of ['gridKw', 'pvKw', 'batteryKw', 'reportedLoadKw'] as const) {
    for (const d of siteFigureSource(devices, figure)?.devices ?? []) flowDevices.add(d);
  }
  const direction = (kw: number | null, positive: 'in' | 'out') =>
    kw === null || Math.abs(kw) < FLOW_IDLE_KW
      ? 'idle'
      : kw > 0
        ? positive
        : positive === 'in'
          ? 'out'
          : 'in';
  return {
    energyFlow: {
      gridKw,
      pvKw,
      batteryKw,
      loadKw,
      gridDirection: direction(gridKw, 'in'),
      batteryDirection: direction(batteryKw, 'out'),
      ts: newest([...flowDevices]),
    },
    ems: ofType('ems').map((d) => ({
      ...base(d),
      points: Object.entries(d.points)
        .filter(([, v]) => Number.isFinite(v))
        .sort(([a], [b]) => pointOrder(a, 'ems') - pointOrder(b, 'ems') || a.localeCompare(b))
        .map(([name, value]) => ({ name, value })),
    })),
    pcs: pcss.map((d) => {
      const p = (k: string) => pick(d.points, k);
      return {
        ...base(d),
        pKw: p('p_kw'),
        qKvar: p('q_kvar'),
        ...acSideOf(d.points),
        dcUV: p('dc_u_v'),
        dcIA: p('dc_i_a'),
        tIgbtC: p('t_igbt_c'),
        state: p('state'),
        eChargeTotalKwh: p('e_charge_total_kwh'),
        eDischargeTotalKwh: p('e_discharge_total_kwh'),
      };
    }),
    bms: ofType('bms').map((d) => {
      const p = (k: string) => pick(d.points, k);
      const max = p('u_cell_max_v');
      const min = p('u_cell_min_v');
      const diff = p('u_cell_diff_mv') ?? (max !== null && min !== null ? round2((max - min) * 1000) : null);
      return {
        ...base(d),
        socPct: p('soc_pct'),
        sohPct: p('soh_pct'),
        uPackV: p('u_pack_v'),
        iPackA: p('i_pack_a'),
        uCellMaxV: max,
        uCellMaxNo: p('u_cell_max_no'),
        uCellMinV: min,
        uCellMinNo: p('u_cell_min_no'),
        uCellDiffMv: diff,
        tCellMaxC: p('t_cell_max_c'),
        tCellMaxNo: p('t_cell_max_no'),
        tCellMinC: p('t_cell_min_c'),
        tCellMinNo: p('t_cell_min_no'),
        chargeLimitKw: p('charge_limit_kw'),
        dischargeLimitKw: p('discharge_limit_kw'),
        insulationKohm: p('insulation_kohm'),
      };
    }),
    meter: meters.map((d) => {
      const p = (k: string) => pick(d.points, k);
      return {
        ...base(d),
        pKw: p('p_kw'),
        ...acSideOf(d.points),
        eImportTotalKwh: p('e_import_total_kwh'),
        eExportTotalKwh: p('e_export_total_kwh'),
      };
    }),
    pv: pvs.map((d) => ({
      ...base(d),
      pKw: pick(d.points, 'p_kw'),
      eTotalKwh: pick(d.points, 'e_total_kwh'),
    })),
    env: ofType('env_sensor').map((d) => {
      const p = (k: string) => pick(d.points, k);
      return {
        ...base(d),
        tC: p('t_c'),
        rhPct: p('rh_pct'),
        smoke: p('smoke'),
        water: p('water'),
        door: p('door'),
      };
    }),
    airConditioner: ofType('air_conditioner').map((d) => {
      const p = (k: string) => pick(d.points, k);
      return {
        ...base(d),
        state: p('state'),
        tSupplyC: p('t_supply_c'),
        tReturnC: p('t_return_c'),
        coolingStartC: p('cooling_start_c'),
        heatingStartC: p('heating_start_c'),
        fault: p('fault'),
      };
    }),
  };
}
