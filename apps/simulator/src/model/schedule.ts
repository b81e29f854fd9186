/**
 * What the EMS runs: the ToU scheme the server pushed (`set_tou_plan`, docs/device-protocol.md)
 * or, until one arrives, the built-in default plan; and the one rule that turns the period in
 * force into a PCS setpoint.
 *
 * A pushed scheme is resolved by the contract's `activePeriodAt` (exception date > yearly
 * setting > default weekly cycle > default daily plan, local wall-clock time of the scheme's
 * time zone; packages/contract/src/tou/resolve.ts), the same function the console's calendar
 * and the server use. The default plan is the valley-charge / evening-peak-discharge pattern of
 * Chinese C&I peak-valley arbitrage: charge at rated power 00:00–06:00 up to the SOC ceiling,
 * discharge at rated power 18:00–22:00 down to the floor, idle otherwise; it carries no tariff
 * (tier and price null), only the strategy.
 */
import {
  activePeriodAt,
  type DailyPlan,
  periodAtMinute,
  type SetTouPlanParams,
  type TouPeriod,
} from '@ess/contract';
import type { EquipmentProfile } from './profiles';

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
 * The period in force at instant `ms` (UTC ms): the pushed scheme's, resolved in its time zone,
 * or, without one, the default plan's at `defaultMinuteOfDay` (minutes since local midnight of
 * the site). Undefined where no period runs (never for a valid scheme).
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
