/**
 * What the EMS runs: the ToU scheme the server pushed (`set_tou_plan`, docs/device-protocol.md)
 * or, until one arrives, its built-in strategy; and the rules that turn them into a PCS setpoint.
 *
 * A pushed scheme is resolved by the contract's `activePeriodAt` (exception date > yearly
 * setting > default weekly cycle > default daily plan, local wall-clock time of the scheme's
 * time zone; packages/contract/src/tou/resolve.ts), the same function the console's calendar
 * and the server use. The default plan is the valley-charge / evening-peak-discharge pattern of
 * Chinese C&I peak-valley arbitrage: charge at rated power 00:00–06:00 up to the SOC ceiling,
 * discharge at rated power 18:00–22:00 down to the floor, idle otherwise; it carries no tariff
 * (tier and price null), only the strategy.
 *
 * A site of the demo fleet has a built-in strategy of its own ({@link SiteStrategy}), so that
 * sites differ as real ones do: C&I cabinets and the station arbitrage the real tariff of their
 * region (the contract's `TOU_TEMPLATES` through `schemeFromTemplate`: charge in the valley,
 * discharge in peak and sharp hours, the season's table of each month) at a power and SOC window
 * of their own; a household with PV uses its battery for self-consumption; one without PV
 * charges at night and covers its evening load.
 */
import {
  activePeriodAt,
  type DailyPlan,
  periodAtMinute,
  type SetTouPlanParams,
  schemeFromTemplate,
  TOU_TEMPLATES,
  type TouPeriod,
} from '@ess/contract';
import type { EquipmentProfile } from './profiles';

/** A site's built-in strategy (what its EMS runs until a ToU scheme is pushed). */
export type SiteStrategy =
  /** Peak–valley arbitrage on the tariff `templateId` (a `TOU_TEMPLATES` id) at `powerKw`. */
  | { kind: 'tariff'; templateId: string; powerKw: number; socMinPct: number; socMaxPct: number }
  /** Charge 00:00–06:00 at `chargeKw`; 17:00–23:00 cover the house's load; idle otherwise. */
  | { kind: 'night_charge'; chargeKw: number; socMinPct: number; socMaxPct: number }
  /** Store PV surplus, cover the load from the battery when PV falls short (grid ≈ 0). */
  | { kind: 'self_consumption'; socMinPct: number; socMaxPct: number };

/** The default daily plan of a site with PCS rating `ratedKw` and SOC window floor–ceiling, %. */
export function defaultDailyPlan(ratedKw: number, socFloorPct: number, socCeilingPct: number): DailyPlan {
  const period = (start: string, end: string, action: TouPeriod['action']): TouPeriod => ({
    start,
    end,
    tier: null,
    priceCnyPerKwh: null,
    action,
    powerKw: action === 'idle' ? 0 : ratedKw,
    socMinPct: socFloorPct,
    socMaxPct: socCeilingPct,
  });
  return {
    key: 1,
    name: 'default',
    periods: [
      period('00:00', '06:00', 'charge'),
      period('06:00', '18:00', 'idle'),
      period('18:00', '22:00', 'discharge'),
      period('22:00', '00:00', 'idle'),
    ],
  };
}

/**
 * The built-in daily plan of each month (index 0 = January) of a site with equipment `profile`
 * running `strategy` (undefined: the default plan every month), or null for self-consumption,
 * which follows the power flows instead ({@link selfConsumptionSetpointKw}). A tariff strategy's
 * SOC limits are computed for the site's own battery: `capacityKwh` (the energy its SOC is a
 * share of, kWh) and the round-trip efficiency of its PCS (`efficiency` each way), not for the
 * template's assumed two-hour battery. Throws on an unknown template id.
 */
export function builtInPlans(
  strategy: SiteStrategy | undefined,
  profile: Pick<EquipmentProfile, 'ratedPowerKw' | 'socFloorPct' | 'socCeilingPct' | 'efficiency'>,
  capacityKwh: number,
): DailyPlan[] | null {
  if (!strategy) {
    const plan = defaultDailyPlan(profile.ratedPowerKw, profile.socFloorPct, profile.socCeilingPct);
    return Array.from({ length: 12 }, () => plan);
  }
  if (strategy.kind === 'self_consumption') return null;
  if (strategy.kind === 'night_charge') {
    const period = (start: string, end: string, action: TouPeriod['action'], powerKw: number): TouPeriod => ({
      start,
      end,
      tier: null,
      priceCnyPerKwh: null,
      action,
      powerKw,
      socMinPct: strategy.socMinPct,
      socMaxPct: strategy.socMaxPct,
    });
    const plan: DailyPlan = {
      key: 1,
      name: 'night charge',
      periods: [
        period('00:00', '06:00', 'charge', strategy.chargeKw),
        period('06:00', '17:00', 'idle', 0),
        period('17:00', '23:00', 'discharge', profile.ratedPowerKw),
        period('23:00', '00:00', 'idle', 0),
      ],
    };
    return Array.from({ length: 12 }, () => plan);
  }
  const template = TOU_TEMPLATES.find((t) => t.id === strategy.templateId);
  if (!template) throw new RangeError(`unknown tariff template ${strategy.templateId}`);
  const scheme = schemeFromTemplate(template, {
    ...strategy,
    capacityKwh,
    roundTripEfficiencyPct: profile.efficiency * profile.efficiency * 100,
    year: 2000,
    lang: 'en',
  });
  return Array.from({ length: 12 }, (_, m) => {
    const season = template.seasons.findIndex((s) => s.months.includes(m + 1));
    return scheme.dailyPlans[Math.max(0, season)]!;
  });
}

/**
 * Self-consumption setpoint, kW (+ discharging): the site's deficit `loadKw − pvKw` from the
 * battery, its surplus into it, capped by the PCS rating, within the SOC window (the lower of
 * the strategy's and the profile's ceiling, the higher of the floors).
 */
export function selfConsumptionSetpointKw(
  loadKw: number,
  pvKw: number,
  socPct: number,
  window: { socMinPct: number; socMaxPct: number },
  profile: Pick<EquipmentProfile, 'ratedPowerKw' | 'socFloorPct' | 'socCeilingPct'>,
): number {
  const net = loadKw - pvKw;
  if (net > 0 && socPct > Math.max(window.socMinPct, profile.socFloorPct)) {
    return Math.min(net, profile.ratedPowerKw);
  }
  if (net < 0 && socPct < Math.min(window.socMaxPct, profile.socCeilingPct)) {
    return Math.max(net, -profile.ratedPowerKw);
  }
  return 0;
}

/**
 * The period in force at instant `ms` (UTC ms): the pushed scheme's, resolved in its time zone,
 * or, without one, the built-in plan's (`defaultPlan`, the plan of the site's local month) at
 * `defaultMinuteOfDay` (minutes since local midnight of the site). Undefined where no period
 * runs (never for a valid scheme).
 */
export function periodInForce(
  touPlan: SetTouPlanParams | null,
  defaultPlan: DailyPlan,
  ms: number,
  defaultMinuteOfDay: number,
): TouPeriod | undefined {
  if (touPlan) return activePeriodAt(touPlan.scheme, ms, touPlan.timezone).period;
  return periodAtMinute(defaultPlan, defaultMinuteOfDay);
}

/**
 * PCS setpoint, kW (+ discharging, − charging), that `period` asks for at SOC `socPct`:
 * charge at the period's power, capped by the PCS rating, while the SOC is below the lower of
 * the period's ceiling and the profile's; discharge likewise while the SOC is above the higher
 * of the two floors; 0 when idle, outside the window or without a period. (The PCS and BMS
 * limits and anti-backflow act on this setpoint afterwards, site.ts.)
 */
export function periodSetpointKw(
  period: TouPeriod | undefined,
  socPct: number,
  profile: Pick<EquipmentProfile, 'ratedPowerKw' | 'socFloorPct' | 'socCeilingPct'>,
): number {
  if (period?.action === 'charge' && socPct < Math.min(period.socMaxPct, profile.socCeilingPct)) {
    return -Math.min(period.powerKw, profile.ratedPowerKw);
  }
  if (period?.action === 'discharge' && socPct > Math.max(period.socMinPct, profile.socFloorPct)) {
    return Math.min(period.powerKw, profile.ratedPowerKw);
  }
  return 0;
}
