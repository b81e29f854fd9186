/**
 * The simulated fleet: which sites exist, where they are, what equipment they have and the SNs
 * of their devices. Deterministic in `{seed, sites}`, so the server can register exactly the
 * fleet that the simulator (in-process or started alone) will run.
 *
 * Composition for N sites, in order: C&I cabinets (`ci_cabinet_215kwh`) in industrial cities,
 * one large storage station (`container_5mwh`) as the third site, and from the fourth site on
 * every other site a household system (`household_10kwh`) of a household cluster in the Pearl
 * River Delta (Foshan, then Guangzhou and Shenzhen). N = 5 gives 3 C&I, 1 household,
 * 1 station; N = 8 gives 4 C&I, 3 households, 1 station.
 *
 * SNs: `<TYPE>-<siteCode>-01` with TYPE EMS (the gateway), PCS, BMS, MTR (grid meter), AC (air
 * conditioner), ENV (environment sensor) and PV (inverter, only where the site has PV). Site
 * codes: `<city>-<kind><nnn>` with IATA-style city codes (SHA Shanghai, SUZ Suzhou, …), kind
 * C (C&I), H (household), S (station), nnn the 1-based position in the fleet.
 *
 * Character (drawn from a stream of its own per site, so adding it left the older draws as they
 * were): a C&I site has one to three cabinets (`units`, the first C&I site one), a load partly
 * drawn round the clock by its industry (`baseLoadShare`: a data centre most, an auto-parts plant
 * least), and a built-in strategy on its region's tariff (`TARIFF_OF_CITY`) at 50–100 % of its
 * rating within an SOC window of its own; the station arbitrages Chongqing's tariff at full
 * power. Households: the first of every three has PV and runs self-consumption, the second has
 * none and charges at night, the third has PV by chance (and the strategy that goes with it).
 * The first C&I site carries `touTemplateId`: the server's demo gives it a ToU scheme from that
 * template, which its EMS then follows (the others run their built-in strategy). Sites of one
 * city share their weather (`weatherKey`).
 *
 * Demand control: the first C&I site (Shanghai, `SHA-C…`) is the one the server's demo bills on
 * the Shanghai two-part tariff's basic charge on the month's maximum demand (apps/server
 * demo/demo-projects.ts). Its EMS runs with a demand-control target (`demandLimitKw` →
 * `demand_limit_kw`, {@link demandLimitKwOf}) from the start, as an operator of such a site sets
 * it: without one the ToU plan charges at full PCS power on top of the load and sets the month's
 * peak (the bill's demand charge change came out negative: about 280–350 kW measured against
 * 200–250 kW without storage). With it the EMS discharges to keep grid import at the target and
 * charges less where charging would push import over it. It is the initial value of the EMS
 * parameter, so the demo's written past and its live run (and the console's parameter screen)
 * share it; an operator may change it like any parameter. The other sites leave it off.
 *
 * City coordinates are the city centres; sites are placed within ±0.1° of them. Climate normals
 * (January/July mean temperature, mean daily range, mean relative humidity) are approximate,
 * rounded values of the kind published for these cities (China Meteorological Administration
 * normals), not checked against a primary table; they only make the simulated weather plausible.
 */
import type { DeviceType } from '@ess/contract';
import { bdewProfile } from './data';
import { usualPeakLoadKw } from './model/load';
import { nominalEnergyKwh, PROFILES, type ProfileId, scaledProfile } from './model/profiles';
import { deriveSeed, Rng } from './model/random';
import type { SiteStrategy } from './model/schedule';
import type { SiteSpec } from './model/site';
import type { Climate } from './model/weather';

export type SiteKind = 'ci' | 'household' | 'station';

export interface City {
  code: string;
  zh: string;
  en: string;
  latitude: number;
  longitude: number;
  climate: Climate;
}

const city = (
  code: string,
  zh: string,
  en: string,
  latitude: number,
  longitude: number,
  janMeanC: number,
  julMeanC: number,
  dailyRangeC: number,
  rhMeanPct: number,
): City => ({ code, zh, en, latitude, longitude, climate: { janMeanC, julMeanC, dailyRangeC, rhMeanPct } });

export const CITIES = {
  SHA: city('SHA', '上海', 'Shanghai', 31.2304, 121.4737, 4.8, 28.6, 7, 73),
  SUZ: city('SUZ', '苏州', 'Suzhou', 31.299, 120.5853, 4.2, 28.6, 8, 75),
  HGH: city('HGH', '杭州', 'Hangzhou', 30.2741, 120.1551, 4.6, 29.0, 8, 74),
  SZX: city('SZX', '深圳', 'Shenzhen', 22.5431, 114.0579, 15.4, 28.9, 6, 74),
  FOS: city('FOS', '佛山', 'Foshan', 23.0215, 113.1214, 13.9, 29.2, 7, 76),
  CAN: city('CAN', '广州', 'Guangzhou', 23.1291, 113.2644, 13.9, 28.9, 7, 76),
  PEK: city('PEK', '北京', 'Beijing', 39.9042, 116.4074, -3.1, 26.7, 10, 55),
  CKG: city('CKG', '重庆', 'Chongqing', 29.563, 106.5516, 7.8, 28.5, 7, 78),
  NKG: city('NKG', '南京', 'Nanjing', 32.0603, 118.7969, 2.8, 28.1, 8, 73),
  WUH: city('WUH', '武汉', 'Wuhan', 30.5928, 114.3055, 4.0, 29.3, 8, 75),
} satisfies Record<string, City>;

const CI_CITIES: City[] = [
  CITIES.SHA,
  CITIES.SUZ,
  CITIES.HGH,
  CITIES.SZX,
  CITIES.PEK,
  CITIES.CKG,
  CITIES.NKG,
  CITIES.WUH,
];
const HOUSEHOLD_CITIES: City[] = [CITIES.FOS, CITIES.FOS, CITIES.FOS, CITIES.CAN, CITIES.SZX];
const STATION_CITY: City = CITIES.CKG;

/** Industries of C&I sites: names, and the share of their load drawn round the clock. */
const INDUSTRIES: Array<[string, string, number]> = [
  ['精密制造', 'Precision Manufacturing', 0.35],
  ['电子科技', 'Electronics', 0.4],
  ['冷链物流', 'Cold-Chain Logistics', 0.6],
  ['汽车零部件', 'Auto Parts', 0.25],
  ['食品加工', 'Food Processing', 0.3],
  ['生物医药', 'Biopharma', 0.5],
  ['纺织印染', 'Textiles', 0.45],
  ['数据中心', 'Data Centre', 0.85],
];

/**
 * The ToU tariff template (`TOU_TEMPLATES` of the contract) a site of each city runs on: its
 * own where there is one, else the nearest we have (Jiangsu and Zhejiang → Shanghai, Wuhan →
 * Chongqing), an approximation that only shapes the demo's daily rhythm.
 */
export const TARIFF_OF_CITY: Record<string, string> = {
  SHA: 'CN-SH-2025-07-10kV-2part-general',
  SUZ: 'CN-SH-2025-07-10kV-2part-general',
  HGH: 'CN-SH-2025-07-10kV-2part-general',
  NKG: 'CN-SH-2025-07-10kV-2part-general',
  PEK: 'CN-BJ-2024-07-1-10kV-2part',
  CKG: 'CN-CQ-2024-07-1-10kV-2part',
  WUH: 'CN-CQ-2024-07-1-10kV-2part',
  SZX: 'CN-SZ-2025-02-10kV-101-3000kVA',
  FOS: 'CN-GD-GZFS-2021-10-1-10kV',
  CAN: 'CN-GD-GZFS-2021-10-1-10kV',
};
const COMMUNITIES: Array<[string, string]> = [
  ['翠湖苑', 'Cuihu Garden'],
  ['滨江花园', 'Binjiang Garden'],
  ['南庄新村', 'Nanzhuang Village'],
  ['桂城雅居', 'Guicheng Residence'],
];

export interface FleetDevice {
  sn: string;
  type: DeviceType;
  model: string;
  /** Firmware it runs when the fleet is built (an upgrade changes what the gateway reports: ota.ts). */
  firmware: string;
}

/**
 * Firmware the devices behind a gateway run out of the box, by type (vendor strings; the EMS's
 * own is its profile's `firmware`).
 */
export const DEVICE_FIRMWARE: Readonly<Record<Exclude<DeviceType, 'ems'>, string>> = {
  pcs: 'PCS-1.6.2',
  bms: 'BMS-3.0.4',
  meter: 'MTR-1.2.0',
  pv: 'PVI-2.1.5',
  air_conditioner: 'AC-1.0.7',
  env_sensor: 'ENV-1.1.0',
};

/** A site of the fleet: what the model needs plus what the server registers. */
export interface FleetSite extends SiteSpec {
  /** e.g. `SHA-C001` */
  siteCode: string;
  /** Chinese name (the console's default language). */
  name: string;
  nameEn: string;
  kind: SiteKind;
  city: string;
  cityEn: string;
  /** The EMS: the one device of the site with an MQTT connection. */
  gatewaySn: string;
  devices: FleetDevice[];
  /** Nominal battery energy, kWh, and PCS rating, kW (for display; all `units` together). */
  capacityKwh: number;
  ratedPowerKw: number;
  firmware: string;
  /**
   * The tariff template of the ToU scheme the server's demo assigns to this site at its
   * registration (its EMS follows the pushed plan); absent for the sites that run their own.
   */
  touTemplateId?: string;
}

export interface FleetOptions {
  seed: number;
  /** Number of sites, 1–999. */
  sites: number;
}

const KIND_PROFILE: Record<SiteKind, ProfileId> = {
  ci: 'ci_cabinet_215kwh',
  household: 'household_10kwh',
  station: 'container_5mwh',
};

/**
 * The demand-control target, kW, an operator sets on the EMS of a site billed on its maximum
 * demand (module comment): 90 % of the site's usual peak load ({@link usualPeakLoadKw}: the
 * lowest month's workday 15-minute peak of its BDEW G25 load), rounded down to 10 kW — just under
 * the peak import every month reaches without storage, so the storage shaves each month's peak
 * while it has energy, and valley and shoulder charging is held under it. Not lower: every kW
 * below the peak is energy the battery owes before the arbitrage plan's own discharge, and a
 * lower target holds back the charging the plan's discharge needs. Seed 1: 1,260,000 kWh/a, half
 * of it round the clock → 205 kW usual peak → 180 kW; over its simulated year the month's peak
 * import without storage is 198–253 kW.
 */
export function demandLimitKwOf(annualLoadKwh: number, baseLoadShare: number): number {
  return Math.floor((0.9 * usualPeakLoadKw(bdewProfile('G25'), annualLoadKwh, baseLoadShare)) / 10) * 10;
}

/** Kind of the site at 0-based position `i` (see the module comment). */
export function siteKindAt(i: number): SiteKind {
  if (i === 2) return 'station';
  if (i >= 3 && i % 2 === 1) return 'household';
  return 'ci';
}

/** Device SN of `type` prefix at a site, e.g. `deviceSn('PCS', 'SHA-C001')` → `PCS-SHA-C001-01`. */
export function deviceSn(prefix: string, siteCode: string): string {
  return `${prefix}-${siteCode}-01`;
}

const DEVICE_PREFIX: Record<DeviceType, string> = {
  ems: 'EMS',
  pcs: 'PCS',
  bms: 'BMS',
  meter: 'MTR',
  pv: 'PV',
  air_conditioner: 'AC',
  env_sensor: 'ENV',
};

/** Builds the fleet for `{seed, sites}`. Throws on a site count outside 1–999. */
export function buildFleet(opts: FleetOptions): FleetSite[] {
  if (!Number.isInteger(opts.sites) || opts.sites < 1 || opts.sites > 999) {
    throw new RangeError(`sites must be an integer 1–999, got ${opts.sites}`);
  }
  const rng = Rng.fromSeed(deriveSeed(opts.seed, 'fleet'));
  const counters: Record<SiteKind, number> = { ci: 0, household: 0, station: 0 };
  const out: FleetSite[] = [];
  for (let i = 0; i < opts.sites; i++) {
    const kind = siteKindAt(i);
    const k = counters[kind]++;
    const c =
      kind === 'station'
        ? STATION_CITY
        : kind === 'household'
          ? HOUSEHOLD_CITIES[k % HOUSEHOLD_CITIES.length]!
          : CI_CITIES[k % CI_CITIES.length]!;
    const character = Rng.fromSeed(deriveSeed(opts.seed, `${kind}/${i}/character`));
    let units = 1;
    let baseLoadShare = 0;
    let strategy: SiteStrategy;
    const siteCode = `${c.code}-${kind === 'ci' ? 'C' : kind === 'household' ? 'H' : 'S'}${String(i + 1).padStart(3, '0')}`;
    let name: string;
    let nameEn: string;
    let pvKwp: number;
    let annualLoadKwh: number;
    if (kind === 'ci') {
      const [zh, en, share] = INDUSTRIES[(k + rng.int(0, INDUSTRIES.length - 1)) % INDUSTRIES.length]!;
      name = `${c.zh}${zh}园区储能站`;
      nameEn = `${c.en} ${en} Park ESS`;
      pvKwp = rng.chance(0.7) ? rng.int(10, 40) * 10 : 0;
      annualLoadKwh = rng.int(50, 150) * 10_000;
      units = k === 0 ? 1 : character.int(1, 3);
      annualLoadKwh *= units;
      baseLoadShare = share;
      strategy = {
        kind: 'tariff',
        templateId: TARIFF_OF_CITY[c.code]!,
        powerKw: (PROFILES.ci_cabinet_215kwh.ratedPowerKw * units * character.int(5, 10)) / 10,
        socMinPct: character.int(1, 3) * 5,
        socMaxPct: character.int(18, 20) * 5,
      };
    } else if (kind === 'household') {
      const [zh, en] = COMMUNITIES[k % COMMUNITIES.length]!;
      const house = rng.int(1, 60);
      name = `${c.zh}${zh}${house}号户用储能`;
      nameEn = `${c.en} ${en} No. ${house} Home Battery`;
      pvKwp = rng.chance(0.7) ? rng.int(8, 20) / 2 : 0;
      annualLoadKwh = rng.int(30, 70) * 100;
      if (k % 3 === 0 && pvKwp === 0) pvKwp = character.int(8, 20) / 2;
      if (k % 3 === 1) pvKwp = 0;
      strategy =
        pvKwp > 0
          ? { kind: 'self_consumption', socMinPct: 10, socMaxPct: 100 }
          : { kind: 'night_charge', chargeKw: character.int(2, 4), socMinPct: 10, socMaxPct: 100 };
    } else {
      name = `${c.zh}共享储能电站`;
      nameEn = `${c.en} Shared Storage Station`;
      pvKwp = 0;
      annualLoadKwh = 150_000; // station auxiliaries (HVAC, lighting, control)
      baseLoadShare = 0.6;
      strategy = {
        kind: 'tariff',
        templateId: TARIFF_OF_CITY[c.code]!,
        powerKw: PROFILES.container_5mwh.ratedPowerKw,
        socMinPct: 5,
        socMaxPct: 95,
      };
    }
    const profile = scaledProfile(PROFILES[KIND_PROFILE[kind]], units);
    const types: DeviceType[] = ['ems', 'pcs', 'bms', 'meter', 'air_conditioner', 'env_sensor'];
    if (pvKwp > 0) types.push('pv');
    const devices = types.map((type) => ({
      sn: deviceSn(DEVICE_PREFIX[type], siteCode),
      type,
      model: profile.models[type],
      firmware: type === 'ems' ? profile.firmware : DEVICE_FIRMWARE[type],
    }));
    out.push({
      siteCode,
      name,
      nameEn,
      kind,
      city: c.zh,
      cityEn: c.en,
      timezone: 'Asia/Shanghai',
      latitude: Math.round((c.latitude + rng.range(-0.1, 0.1)) * 1e4) / 1e4,
      longitude: Math.round((c.longitude + rng.range(-0.1, 0.1)) * 1e4) / 1e4,
      profile: profile.id,
      pvKwp,
      annualLoadKwh,
      climate: c.climate,
      units,
      baseLoadShare,
      weatherKey: c.code,
      strategy,
      gatewaySn: devices[0]!.sn,
      devices,
      capacityKwh: Math.round(nominalEnergyKwh(profile) * 10) / 10,
      ratedPowerKw: profile.ratedPowerKw,
      firmware: profile.firmware,
      ...(kind === 'ci' && k === 0
        ? {
            touTemplateId: TARIFF_OF_CITY[c.code]!,
            demandLimitKw: demandLimitKwOf(annualLoadKwh, baseLoadShare),
          }
        : {}),
    });
  }
  return out;
}
