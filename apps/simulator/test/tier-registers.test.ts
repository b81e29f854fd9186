/**
 * The grid meter's per-tier registers (issue 17 item 3), as a DL/T 645 meter keeps them: import
 * and export accumulate in the register of the ToU tier in force by the site's tariff, and the
 * four tiers of a direction add up to the total register.
 */
import { TOU_TIERS } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { type SiteReadings, setTouPlan } from '../src/model/site';
import { JULY_MIDNIGHT_CN, newSite, run, touPlan } from './support';

const tiersOf = (r: SiteReadings, dir: 'import' | 'export') =>
  TOU_TIERS.map((t) => r.meter[`e_${dir}_${t}_kwh`]!);

describe('per-tier meter registers', () => {
  it('import in the off-peak charge goes to the off-peak register; the tiers add up to the total', () => {
    // 00:00–06:00 charge (off-peak), 06:00–18:00 idle (shoulder), 18:00–22:00 discharge (peak)
    const plan = touPlan([
      ['00:00', 'charge', 100],
      ['06:00', 'idle'],
      ['18:00', 'discharge', 100],
      ['22:00', 'idle'],
    ]);
    const tierOf = (i: number) => plan.scheme.dailyPlans[0]!.periods[i]!.tier;
    expect([tierOf(0), tierOf(1), tierOf(2)]).toEqual(['off_peak', 'shoulder', 'peak']);
    const site = setTouPlan(newSite('ci_cabinet_215kwh', { soc: 10, start: JULY_MIDNIGHT_CN }), plan);
    const rs: SiteReadings[] = [];
    run(site, 24 * 60, 60, (r) => rs.push(r.readings));
    for (const r of [rs[0]!, rs[359]!, rs.at(-1)!]) {
      for (const dir of ['import', 'export'] as const) {
        const sum = tiersOf(r, dir).reduce((a, b) => a + b, 0);
        expect(Math.abs(sum - r.meter[`e_${dir}_total_kwh`]!)).toBeLessThan(0.01);
      }
    }
    // 00:01 → 05:59: the import moved only the off-peak register (index 3)
    const night = tiersOf(rs[358]!, 'import').map((v, i) => v - tiersOf(rs[0]!, 'import')[i]!);
    expect(night[3]).toBeGreaterThan(100);
    expect(night.slice(0, 3).every((d) => Math.abs(d) < 1e-6)).toBe(true);
    // 08:00 → 12:00 (shoulder): only the shoulder register (index 2) moves
    const noon = tiersOf(rs[719]!, 'import').map((v, i) => v - tiersOf(rs[480]!, 'import')[i]!);
    expect([noon[0], noon[1], noon[3]].every((d) => Math.abs(d!) < 1e-6)).toBe(true);
  });
});
