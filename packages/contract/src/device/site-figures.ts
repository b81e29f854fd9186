/**
 * Which devices of a site provide its figures (SOC, battery, grid, PV and load power, the
 * charge/discharge energy registers, capacity and rated power): the one rule behind the site
 * figures of the dashboard, the site list, site monitoring, the big screens and the live push.
 * The server applies it in SQL (apps/server `devices/site-figures.ts`, built from these tables);
 * the console and the contract's pure builders apply it with {@link siteFigures}.
 *
 * The rule: a figure comes from the devices of the first source type in its list that the site
 * has (registered); of those, the ones that report the point count (summed; SOC weighted by
 * capacity), and the figure is null while none of them reports. The gateway (EMS) comes last: it
 * stands in for the BMS, PCS, meter or PV of a site that has none — a gateway-only site such as
 * README's "Connect a device" example (an EMS sending `soc_pct`). A site with a BMS and a PCS
 * takes SOC and power from them even when its EMS reports some too, so a figure never jumps
 * between sources as readings come and go.
 *
 * A project's declared storage meter ({@link FigureDevice.storageMeter}) is no source of any
 * figure: it meters the battery's branch for the bill (issue 17 items 1 and 3: the project's
 * storage meters, CT × PT), not the site's grid connection. The site's grid power comes from its
 * other meters, else from the gateway's `grid_kw` — as if the storage meter were not registered —
 * so a grid meter and a storage meter are never summed, and a storage meter alone is never taken
 * for the grid (the dashboard's and site monitoring's grid power, the live push, the big screens
 * and the bill's maximum demand, issue 17 "demand charge change").
 *
 * Units as the point names say (kW, kWh, %); battery + = discharging, grid + = import.
 */
import type { DeviceType } from './protocol';

export const SITE_FIGURES = [
  'socPct',
  'batteryKw',
  'gridKw',
  'pvKw',
  /** The load a gateway reports; the site's load is computed when the grid is measured ({@link siteLoadKw}). */
  'reportedLoadKw',
  'chargeTotalKwh',
  'dischargeTotalKwh',
] as const;
export type SiteFigure = (typeof SITE_FIGURES)[number];

export interface FigureSource {
  readonly type: DeviceType;
  readonly point: string;
}

/** The sources of each figure, in order of preference (module comment). */
export const SITE_FIGURE_SOURCES: Readonly<Record<SiteFigure, readonly FigureSource[]>> = {
  socPct: [
    { type: 'bms', point: 'soc_pct' },
    { type: 'ems', point: 'soc_pct' },
  ],
  batteryKw: [
    { type: 'pcs', point: 'p_kw' },
    { type: 'ems', point: 'p_kw' },
  ],
  gridKw: [
    { type: 'meter', point: 'p_kw' },
    { type: 'ems', point: 'grid_kw' },
  ],
  pvKw: [
    { type: 'pv', point: 'p_kw' },
    { type: 'ems', point: 'pv_kw' },
  ],
  reportedLoadKw: [{ type: 'ems', point: 'load_kw' }],
  chargeTotalKwh: [
    { type: 'pcs', point: 'e_charge_total_kwh' },
    { type: 'ems', point: 'e_charge_total_kwh' },
  ],
  dischargeTotalKwh: [
    { type: 'pcs', point: 'e_discharge_total_kwh' },
    { type: 'ems', point: 'e_discharge_total_kwh' },
  ],
};

/**
 * The device types whose registered capacity (kWh) makes the site's storage capacity, in order
 * of preference: the BMSs' when any BMS has a capacity, else the gateway's (EMS).
 */
export const SITE_CAPACITY_TYPES: readonly DeviceType[] = ['bms', 'ems'];
/** Likewise for rated power (kW): the PCSs', else the gateway's (EMS). */
export const SITE_RATED_POWER_TYPES: readonly DeviceType[] = ['pcs', 'ems'];

/**
 * What the rule needs of a device: its type, its latest points, (for SOC weights) capacity, and
 * whether it is a declared storage meter.
 */
export interface FigureDevice {
  type: string;
  points: Readonly<Record<string, number>>;
  capacityKwh?: number | null;
  ratedPowerKw?: number | null;
  /**
   * True for a meter a project declares as its storage meter (server table `project_meter`,
   * issue 17 item 1; priced by the server's `devices/tier-energy.ts` `storageMeters`, item 3):
   * it provides no site figure (module note). Absent or false: an ordinary device.
   */
  storageMeter?: boolean;
}

const reading = (d: FigureDevice, point: string): number | null => {
  const v = d.points[point];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

const round2 = (v: number): number => Math.round(v * 100) / 100;

/**
 * The source of `figure` at a site whose devices (declared storage meters left out: module note)
 * have the types `types`: the first of its sources whose type the site has; null when it has
 * none of them.
 */
export function figureSourceOf(types: readonly string[], figure: SiteFigure): FigureSource | null {
  return SITE_FIGURE_SOURCES[figure].find((s) => types.includes(s.type)) ?? null;
}

/**
 * The source of `figure` at a site ({@link figureSourceOf} over its devices other than declared
 * storage meters) and the site's devices of that type that report the point (in `devices` order;
 * none while they are silent); null when the site has no such device of any source type.
 */
export function siteFigureSource<D extends FigureDevice>(
  devices: readonly D[],
  figure: SiteFigure,
): { source: FigureSource; devices: D[] } | null {
  const candidates = devices.filter((d) => !d.storageMeter);
  const source = figureSourceOf(
    candidates.map((d) => d.type),
    figure,
  );
  if (!source) return null;
  return {
    source,
    devices: candidates.filter((d) => d.type === source.type && reading(d, source.point) !== null),
  };
}

/** Sum of a figure over its source devices (two decimals); null when none reports. */
function sumFigure(devices: readonly FigureDevice[], figure: SiteFigure): number | null {
  const from = siteFigureSource(devices, figure);
  if (!from || from.devices.length === 0) return null;
  return round2(from.devices.reduce((n, d) => n + (reading(d, from.source.point) ?? 0), 0));
}

/**
 * The site's load (kW): grid + PV + battery when the grid is measured (energy balance at the
 * site's bus); else the load the gateway reports; else PV + battery when the battery reports
 * (a site without grid metering); else null.
 */
export function siteLoadKw(
  gridKw: number | null,
  pvKw: number | null,
  batteryKw: number | null,
  reportedLoadKw: number | null,
): number | null {
  if (gridKw !== null) return round2(gridKw + (pvKw ?? 0) + (batteryKw ?? 0));
  if (reportedLoadKw !== null) return reportedLoadKw;
  return batteryKw === null ? null : round2((pvKw ?? 0) + batteryKw);
}

export interface SiteFigureValues {
  /** Capacity-weighted SOC (%) of the source devices (weight 1 where no capacity is set). */
  socPct: number | null;
  batteryKw: number | null;
  gridKw: number | null;
  pvKw: number | null;
  loadKw: number | null;
}

/** The live figures of a site from its devices' latest points, by the rule of this module. */
export function siteFigures(devices: readonly FigureDevice[]): SiteFigureValues {
  const soc = siteFigureSource(devices, 'socPct');
  let socPct: number | null = null;
  if (soc && soc.devices.length > 0) {
    let weighted = 0;
    let weight = 0;
    for (const d of soc.devices) {
      const w = d.capacityKwh ?? 1;
      weighted += (reading(d, soc.source.point) ?? 0) * w;
      weight += w;
    }
    socPct = weight > 0 ? round2(weighted / weight) : null;
  }
  const batteryKw = sumFigure(devices, 'batteryKw');
  const gridKw = sumFigure(devices, 'gridKw');
  const pvKw = sumFigure(devices, 'pvKw');
  const loadKw = siteLoadKw(gridKw, pvKw, batteryKw, sumFigure(devices, 'reportedLoadKw'));
  return { socPct, batteryKw, gridKw, pvKw, loadKw };
}

/** Capacity (kWh) and rated power (kW) of a site from its registered devices (0 when none set). */
export function siteRatings(devices: readonly FigureDevice[]): { capacityKwh: number; ratedPowerKw: number } {
  const first = (types: readonly DeviceType[], field: 'capacityKwh' | 'ratedPowerKw'): number => {
    for (const type of types) {
      const set = devices.filter((d) => d.type === type && typeof d[field] === 'number');
      if (set.length > 0) return round2(set.reduce((n, d) => n + (d[field] ?? 0), 0));
    }
    return 0;
  };
  return {
    capacityKwh: first(SITE_CAPACITY_TYPES, 'capacityKwh'),
    ratedPowerKw: first(SITE_RATED_POWER_TYPES, 'ratedPowerKw'),
  };
}
