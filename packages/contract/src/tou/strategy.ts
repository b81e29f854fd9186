/**
 * The "standard strategy" of a daily plan (issue 17 item 6): which periods charge, which
 * discharge, at what power and within which SOC limits — the one rule behind the charge-strategy
 * screen's "apply standard strategy", the tariff templates (templates.ts) and the arbitrage
 * preview's comparison (arbitrage.ts).
 *
 * Two rules live here:
 *
 * - {@link timeOrderStrategy}, the rule of thumb the console shipped first: charge in off-peak,
 *   discharge in peak and sharp, idle in shoulder, every period at one setpoint. The battery
 *   then discharges in time order, so a morning peak empties it before a later sharp period.
 *   Kept for the preview's comparison ("time order").
 * - {@link priceAwareStrategy}, the standard strategy now: the usable energy goes to the
 *   highest-priced periods first (sharp before peak, whatever their time order), it is bought in
 *   the cheapest periods, and a second cycle (a mid-day valley or shoulder between two peaks, or
 *   a second valley) is used only when it pays.
 *
 * Price-aware model (energies at the grid connection, as the preview counts them; round-trip
 * efficiency η split √η on the way in and √η on the way out, arbitrage.ts):
 * - discharge periods are those of the peak and sharp tiers (shoulder when a day has neither);
 *   every maximal run of other periods (off-peak, shoulder; the day wraps at midnight) is a
 *   *charge window*; the periods after a window until the next window used are its *segment*.
 * - for a chosen set of windows, each window's segment receives up to the usable energy
 *   E = capacity × (SOC ceiling − SOC floor) in its periods by price, highest first, each at
 *   most power × hours; the window buys it in its cheapest periods first. A delivered kWh is
 *   bought as 1/η kWh at the marginal charging price c, so it is placed only while
 *   `price − c ÷ η > degradation cost per kWh cycled` (a kWh cycled = a kWh discharged).
 * - every set of windows is tried (a day has at most 12 windows: ≤ 24 periods, spec §9) and the
 *   set with the highest net (value − cost − degradation) is taken, the fewest windows on a tie.
 * - the plan: a charging period charges at the setpoint with its SOC ceiling at the level the
 *   plan expects at its end; a discharging period discharges at the setpoint with its SOC floor
 *   at the level the later periods of its segment still need (the floor is what keeps energy
 *   back for sharp). A period of a discharge tier that gets no planned energy discharges too,
 *   with the same floor, when selling there pays against the next window's dearest bought kWh
 *   (price − that price ÷ η > degradation cost) and the plan does not expect a full battery
 *   there: as planned it moves nothing (the battery is at its floor), but energy held beyond the
 *   plan — a discharge that anti-backflow held back while PV covered the load, a demand limit, a
 *   larger battery — is sold instead of filling the battery so that its windows buy nothing.
 *   Other periods idle. Limits are rounded to 0.1 % (ceilings up, floors up).
 *
 * Limits respected: power setpoint ≤ PCS rating; energy per period ≤ setpoint × hours and, in
 * total per cycle, ≤ what the SOC window holds. A plan still being filled in (a period without
 * valid times, tier or price) gets the time-order rule, which needs only the tier.
 */
import { minutesOfDay, type TouAction, type TouPeriod, type TouTier } from './scheme';

/** The battery a strategy is made for. */
export interface StrategyBattery {
  /** Usable energy capacity, kWh. */
  capacityKwh: number;
  /** PCS rated power, kW. */
  ratedPowerKw: number;
  /** Charge and discharge setpoint, kW; the rated power when absent, never above it. */
  powerKw?: number;
  /** Round-trip efficiency, % (e.g. 90). */
  roundTripEfficiencyPct: number;
  /** Discharging stops at this SOC, %. */
  socMinPct: number;
  /** Charging stops at this SOC, %. */
  socMaxPct: number;
  /** Cost of wear per kWh cycled (discharged), CNY/kWh; 0 when absent. */
  degradationCostCnyPerKwh?: number;
}

/** Setpoint and SOC window of the time-order rule. */
export interface TimeOrderSettings {
  powerKw: number;
  socMinPct: number;
  socMaxPct: number;
}

/** What the time-order rule does in each tier: charge cheap, discharge dear. */
export const TIME_ORDER_ACTION: Record<TouTier, TouAction> = {
  off_peak: 'charge',
  shoulder: 'idle',
  peak: 'discharge',
  sharp: 'discharge',
};

/**
 * The time-order rule on every period with a tier (see the module note). With `settings`, every
 * charging or discharging period gets that setpoint and SOC window; without, it keeps its own
 * when usable and takes `fallback`'s otherwise. Periods without a tier are left as they are.
 */
export function timeOrderStrategy(
  periods: readonly TouPeriod[],
  settings?: TimeOrderSettings,
  fallback: TimeOrderSettings = { powerKw: 100, socMinPct: 5, socMaxPct: 95 },
): TouPeriod[] {
  return periods.map((p) => {
    if (!p.tier) return p;
    const action = TIME_ORDER_ACTION[p.tier];
    if (action === 'idle') return { ...p, action };
    if (settings) return { ...p, action, ...settings };
    const windowOk = p.socMinPct >= 0 && p.socMinPct < p.socMaxPct && p.socMaxPct <= 100;
    return {
      ...p,
      action,
      powerKw: p.powerKw > 0 ? p.powerKw : fallback.powerKw,
      ...(windowOk ? {} : { socMinPct: fallback.socMinPct, socMaxPct: fallback.socMaxPct }),
    };
  });
}

const EPS = 1e-9;
const ceil1 = (x: number) => Math.ceil(x * 10 - 1e-6) / 10;

/** √η of a round-trip efficiency in %, kept within (0, 1]. */
export function oneWayEfficiency(roundTripEfficiencyPct: number): number {
  return Math.sqrt(Math.min(Math.max(roundTripEfficiencyPct, 1), 100) / 100);
}

/** The setpoint a strategy uses: `powerKw` when set and positive, never above the rating. */
export function strategyPowerKw(battery: StrategyBattery): number {
  const rated = Math.max(battery.ratedPowerKw, 0);
  const wanted = battery.powerKw !== undefined && battery.powerKw > 0 ? battery.powerKw : rated;
  return Math.min(wanted, rated);
}

interface Slot {
  index: number;
  hours: number;
  price: number;
}

/** Grid energies per period of one choice of windows, and its net. */
interface Allocation {
  net: number;
  /** Energy drawn from the grid per period, kWh. */
  charged: number[];
  /** Energy delivered per period, kWh. */
  discharged: number[];
  /** How many windows were chosen. */
  windows: number;
}

/** The plan's periods when all have valid times, a tier and a positive price; else null. */
function slotsOf(periods: readonly TouPeriod[]): Slot[] | null {
  const ok = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
  const slots: Slot[] = [];
  for (const [index, p] of periods.entries()) {
    if (!ok.test(p.start) || !ok.test(p.end) || !p.tier || p.priceCnyPerKwh === null) return null;
    if (!(p.priceCnyPerKwh > 0)) return null;
    const hours = (minutesOfDay(p.end, true) - minutesOfDay(p.start)) / 60;
    if (!(hours > 0)) return null;
    slots.push({ index, hours, price: p.priceCnyPerKwh });
  }
  return slots.length > 0 ? slots : null;
}

/**
 * The price-aware standard strategy for `periods` (the day's tariff: times, tiers, prices) and
 * `battery` (see the module note for the model). Answers new periods with the same times, tiers
 * and prices; only action, power and SOC limits change.
 */
export function priceAwareStrategy(periods: readonly TouPeriod[], battery: StrategyBattery): TouPeriod[] {
  const slots = slotsOf(periods);
  const power = strategyPowerKw(battery);
  const settings = { powerKw: power, socMinPct: battery.socMinPct, socMaxPct: battery.socMaxPct };
  if (!slots) return timeOrderStrategy(periods, power > 0 ? settings : undefined);

  const n = slots.length;
  const eta1 = oneWayEfficiency(battery.roundTripEfficiencyPct);
  const eta = eta1 * eta1;
  const capacity = Math.max(battery.capacityKwh, 0);
  const usableKwh = (capacity * Math.max(battery.socMaxPct - battery.socMinPct, 0)) / 100;
  const degradation = Math.max(battery.degradationCostCnyPerKwh ?? 0, 0);
  // Idle periods keep the setpoint (ignored while idle) so that switching one to charge or
  // discharge in the editor starts from a usable power.
  const idle = (p: TouPeriod): TouPeriod => ({
    ...p,
    action: 'idle',
    powerKw: power,
    socMinPct: battery.socMinPct,
    socMaxPct: battery.socMaxPct,
  });

  const tiers = periods.map((p) => p.tier as TouTier);
  const hasPeak = tiers.some((t) => t === 'peak' || t === 'sharp');
  const isDischargeTier = (t: TouTier) => (hasPeak ? t === 'peak' || t === 'sharp' : t === 'shoulder');
  const isCharge = tiers.map((t) => !isDischargeTier(t));
  if (!(usableKwh > 0 && power > 0) || isCharge.every(Boolean) || !isCharge.some(Boolean)) {
    return periods.map(idle);
  }

  // Charge windows: maximal runs of charge periods, the day wrapping at midnight. Start at a
  // discharge period so that no window is cut in two.
  const first = isCharge.findIndex((c) => !c);
  const windows: number[][] = [];
  for (let k = 1; k <= n; k++) {
    const i = (first + k) % n;
    if (!isCharge[i]) continue;
    const prev = (i - 1 + n) % n;
    if (isCharge[prev] && windows.length > 0) windows[windows.length - 1]!.push(i);
    else windows.push([i]);
  }

  /** Energies of the cycles of the windows in `used` (a bit set over `windows`). */
  const allocate = (used: number): Allocation => {
    const charged = new Array<number>(n).fill(0);
    const discharged = new Array<number>(n).fill(0);
    const chosen = windows.filter((_, w) => used & (1 << w));
    let net = 0;
    chosen.forEach((window, w) => {
      const next = chosen[(w + 1) % chosen.length]!;
      // The segment: from the window's end to the next chosen window's start (around the day).
      const segment: number[] = [];
      for (let i = (window[window.length - 1]! + 1) % n; i !== next[0]; i = (i + 1) % n) segment.push(i);
      const sellers = [...segment].sort((a, b) => slots[b]!.price - slots[a]!.price || a - b);
      const buyers = [...window].sort((a, b) => slots[a]!.price - slots[b]!.price || a - b);
      // Stored energy each buying period can still take in, kWh.
      const supply = buyers.map((i) => power * slots[i]!.hours * eta1);
      let room = usableKwh;
      let b = 0;
      let pays = true;
      for (const d of sellers) {
        let draw = Math.min((power * slots[d]!.hours) / eta1, room); // stored kWh this period may take out
        while (draw > EPS && b < buyers.length) {
          const c = buyers[b]!;
          // Sellers come dearest first and buyers cheapest first: once a kWh does not pay, none will.
          pays = slots[d]!.price - slots[c]!.price / eta > degradation;
          if (!pays) break;
          const take = Math.min(draw, supply[b]!);
          charged[c]! += take / eta1;
          discharged[d]! += take * eta1;
          net += take * eta1 * (slots[d]!.price - degradation) - (take / eta1) * slots[c]!.price;
          supply[b]! -= take;
          room -= take;
          draw -= take;
          if (supply[b]! <= EPS) b++;
        }
        if (!pays || room <= EPS || b >= buyers.length) break;
      }
    });
    return { net, charged, discharged, windows: chosen.length };
  };

  let best: Allocation | null = null;
  const sets = 2 ** Math.min(windows.length, 12);
  for (let used = 1; used < sets; used++) {
    const a = allocate(used);
    if (
      !best ||
      a.net > best.net + 1e-6 ||
      (Math.abs(a.net - best.net) <= 1e-6 && a.windows < best.windows)
    ) {
      best = a;
    }
  }
  if (!best || !(best.net > EPS)) return periods.map(idle);

  // Stored energy (kWh above the floor) the plan expects at the end of each period: walk the day
  // from the start of a window that charges (the battery is at the floor then: each cycle
  // delivers what it bought).
  const stored = new Array<number>(n).fill(0);
  const startAt = windows.find((w) => w.some((i) => best!.charged[i]! > EPS))?.[0] ?? 0;
  let level = 0;
  for (let k = 0; k < n; k++) {
    const i = (startAt + k) % n;
    level += best.charged[i]! * eta1 - best.discharged[i]! / eta1;
    level = Math.max(level, 0);
    stored[i] = level;
  }
  const pctOf = (kwh: number) => battery.socMinPct + (kwh / capacity) * 100;
  // Energy held beyond the plan (a discharge that anti-backflow, a demand limit or a fault held
  // back, a battery larger than assumed) is carried into the next window that buys, where it saves
  // that window's dearest kWh: selling it in a dear period pays when price − that price ÷ η >
  // degradation. Without this a missed discharge is never sold: the battery stays full, its
  // windows buy nothing, and the site stops cycling.
  const buys = (i: number) => best!.charged[i]! > EPS;
  const carryPrice = (i: number): number => {
    let k = (i + 1) % n;
    for (let step = 0; step < n && !buys(k); step++) k = (k + 1) % n;
    const window = windows.find((w) => w.includes(k)) ?? [k];
    return Math.max(...window.filter(buys).map((j) => slots[j]!.price));
  };
  const floorOf = (i: number) => Math.max(ceil1(pctOf(stored[i]!)), battery.socMinPct);
  // (not where the plan expects a full battery: nothing can be held beyond it)
  const sellsSurplus = (i: number) =>
    isDischargeTier(tiers[i]!) &&
    floorOf(i) < battery.socMaxPct &&
    slots[i]!.price - carryPrice(i) / eta > degradation;
  return periods.map((p, i) => {
    if (best!.charged[i]! > EPS) {
      const ceiling = Math.min(ceil1(pctOf(stored[i]!)), battery.socMaxPct);
      return {
        ...p,
        action: 'charge',
        powerKw: power,
        socMinPct: battery.socMinPct,
        socMaxPct: Math.max(ceiling, battery.socMinPct + 0.1),
      };
    }
    if (best!.discharged[i]! > EPS || sellsSurplus(i)) {
      const floor = floorOf(i);
      return {
        ...p,
        action: 'discharge',
        powerKw: power,
        socMinPct: Math.min(floor, battery.socMaxPct - 0.1),
        socMaxPct: battery.socMaxPct,
      };
    }
    return idle(p);
  });
}
