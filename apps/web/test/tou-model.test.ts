/**
 * The timeline editor's period operations (features/tou/model.ts): what the operator sees after
 * splitting, deleting, dragging a boundary and applying the standard strategy, and that the
 * results pass (or fail) the contract's rules as expected.
 */
import { periodIssues, type TouPeriod, validateScheme } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  applyStandardStrategy,
  moveBoundary,
  newPeriod,
  newSchemeDocument,
  removePeriod,
  splitPeriod,
} from '../src/features/tou/model';

const times = (periods: readonly TouPeriod[]) => periods.map((p) => `${p.start}-${p.end}`);

function day(...bounds: Array<[string, string, TouPeriod['tier']]>): TouPeriod[] {
  return bounds.map(([start, end, tier]) => ({ ...newPeriod(start, end, tier), priceCnyPerKwh: 0.5 }));
}

describe('ToU timeline editing', () => {
  it('a new scheme is one off-peak period 00:00–00:00 that needs its price (3073), nothing else', () => {
    const doc = newSchemeDocument('日计划 1');
    expect(times(doc.dailyPlans[0]!.periods)).toEqual(['00:00-00:00']);
    expect(validateScheme(doc, { today: '2026-01-01' }).map((i) => [i.code, i.path.join('.')])).toEqual([
      [3073, 'dailyPlans.0.periods.0.priceCnyPerKwh'],
    ]);
  });

  it.each([
    ['the whole day at noon', day(['00:00', '00:00', 'off_peak']), 0, ['00:00-12:00', '12:00-00:00']],
    [
      '08:00–09:00 at 08:30',
      day(['00:00', '08:00', 'off_peak'], ['08:00', '09:00', 'peak'], ['09:00', '00:00', 'shoulder']),
      1,
      ['00:00-08:00', '08:00-08:30', '08:30-09:00', '09:00-00:00'],
    ],
    [
      '22:00–00:00 at 23:00',
      day(['00:00', '22:00', 'peak'], ['22:00', '00:00', 'off_peak']),
      1,
      ['00:00-22:00', '22:00-23:00', '23:00-00:00'],
    ],
  ])('splits %s; the day stays valid', (_, periods, index, expected) => {
    const split = splitPeriod(periods, index)!;
    expect(times(split)).toEqual(expected);
    expect(split[index + 1]!.tier).toBe(periods[index]!.tier);
    expect(periodIssues(split)).toEqual([]);
  });

  it('does not split a period shorter than 30 minutes', () => {
    expect(splitPeriod(day(['00:00', '00:15', 'peak'], ['00:15', '00:00', 'off_peak']), 0)).toBeNull();
  });

  it('gives a deleted period’s time to the one before it (or after it, for the first)', () => {
    const periods = day(
      ['00:00', '08:00', 'off_peak'],
      ['08:00', '12:00', 'peak'],
      ['12:00', '00:00', 'shoulder'],
    );
    expect(times(removePeriod(periods, 1))).toEqual(['00:00-12:00', '12:00-00:00']);
    expect(times(removePeriod(periods, 0))).toEqual(['00:00-12:00', '12:00-00:00']);
    expect(periodIssues(removePeriod(periods, 2))).toEqual([]);
  });

  it.each([
    [9 * 60 + 5, '09:00'],
    [9 * 60 + 8, '09:15'],
    [0, '00:15'], // at least 15 minutes of the period before remain
    [1440, '23:45'], // … and of the one after
  ])('drags the boundary to minute %i → %s (15-minute snap, within the neighbours)', (minutes, expected) => {
    const moved = moveBoundary(day(['00:00', '08:00', 'off_peak'], ['08:00', '00:00', 'peak']), 0, minutes);
    expect(times(moved)).toEqual([`00:00-${expected}`, `${expected}-00:00`]);
    expect(periodIssues(moved)).toEqual([]);
  });

  it('the standard strategy charges in off-peak, discharges in peak and sharp, idles in shoulder', () => {
    const periods = day(
      ['00:00', '06:00', 'off_peak'],
      ['06:00', '08:00', 'shoulder'],
      ['08:00', '12:00', 'peak'],
      ['12:00', '14:00', 'sharp'],
      ['14:00', '00:00', null],
    ).map((p) => ({ ...p, action: null, powerKw: 0, socMinPct: 90, socMaxPct: 10 }));
    const applied = applyStandardStrategy(periods);
    expect(applied.map((p) => p.action)).toEqual(['charge', 'idle', 'discharge', 'discharge', null]);
    expect(applied[0]).toMatchObject({ powerKw: 100, socMinPct: 5, socMaxPct: 95 });
  });

  it('with a site’s battery the standard strategy is price-aware: the morning peak waits for sharp', () => {
    const priced = (tier: 'off_peak' | 'shoulder' | 'peak' | 'sharp', price: number) => ({
      tier,
      priceCnyPerKwh: price,
    });
    const periods = day(
      ['00:00', '08:00', 'off_peak'],
      ['08:00', '12:00', 'peak'],
      ['12:00', '14:00', 'sharp'],
      ['14:00', '00:00', 'shoulder'],
    ).map((p, i) => ({
      ...p,
      ...[priced('off_peak', 0.3), priced('peak', 1.1), priced('sharp', 1.4), priced('shoulder', 0.7)][i]!,
    }));
    const site = {
      siteId: 1,
      siteName: 'S',
      siteCode: 'S',
      timezone: 'Asia/Shanghai',
      capacityKwh: 200,
      ratedPowerKw: 100,
    };
    const applied = applyStandardStrategy(periods, site);
    // 180 kWh of the 5–95 % window: sharp (2 h × 100 kW) takes it all; the peak before it idles.
    expect(applied.map((p) => p.action)).toEqual(['charge', 'idle', 'discharge', 'idle']);
    expect(applied[2]).toMatchObject({ powerKw: 100, socMinPct: 5, socMaxPct: 95 });
  });
});
