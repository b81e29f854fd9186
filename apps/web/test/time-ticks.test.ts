/**
 * Time-axis ticks in a zone (apps/web/src/shared/charts/timeTicks.ts): the console's charts put
 * their ticks at round local times of the site (or the fleet's time base), whatever the
 * browser's zone — checked as the operator would read them (local wall-clock times), on an
 * ordinary Shanghai day, on Berlin's 23- and 25-hour days, with a half-hour zone and on longer
 * ranges (days, months).
 */
import { localDateStart, localDayOf, localTimeOf } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { zonedTicks } from '../src/shared/charts/timeTicks';

const utc = (iso: string) => Date.parse(iso);
/** The ticks as local `HH:mm` in `tz`. */
const clock = (ticks: number[], tz: string) =>
  ticks.map((t) => {
    const m = localTimeOf(t, tz).minuteOfDay;
    return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  });
const dates = (ticks: number[], tz: string) => ticks.map((t) => localTimeOf(t, tz).date);

describe('zonedTicks', () => {
  it('puts a Shanghai day’s ticks every 3 hours from its midnight (16:00 UTC), not at UTC hours', () => {
    const day = localDayOf(utc('2026-11-25T06:00:00Z'), 'Asia/Shanghai');
    const { ticks, unit, step } = zonedTicks(day.startMs, day.endMs, 'Asia/Shanghai');
    expect([unit, step]).toEqual(['hour', 3]);
    expect(ticks[0]).toBe(utc('2026-11-24T16:00:00Z'));
    expect(clock(ticks, 'Asia/Shanghai')).toEqual([
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      '00:00',
    ]);
  });

  it('gives Berlin’s 25-hour day 25 hourly ticks, the repeated 02:00 twice', () => {
    const day = localDayOf(utc('2026-10-25T12:00:00Z'), 'Europe/Berlin');
    const { ticks, unit, step } = zonedTicks(day.startMs, day.endMs - 1, 'Europe/Berlin', 25);
    expect([unit, step]).toEqual(['hour', 1]);
    expect(ticks).toHaveLength(25);
    expect(clock(ticks, 'Europe/Berlin').filter((c) => c === '02:00')).toHaveLength(2);
    // Hourly in real time: each tick one hour after the last.
    expect(ticks.slice(1).every((t, i) => t - ticks[i]! === 3_600_000)).toBe(true);
  });

  it('gives Berlin’s 23-hour day 23 hourly ticks and no 02:00', () => {
    const day = localDayOf(utc('2026-03-29T12:00:00Z'), 'Europe/Berlin');
    const { ticks } = zonedTicks(day.startMs, day.endMs - 1, 'Europe/Berlin', 24);
    expect(ticks).toHaveLength(23);
    expect(clock(ticks, 'Europe/Berlin')).not.toContain('02:00');
    expect(clock(ticks, 'Europe/Berlin').slice(0, 4)).toEqual(['00:00', '01:00', '03:00', '04:00']);
  });

  it('keeps 3-hour ticks on round local hours across the autumn change', () => {
    const day = localDayOf(utc('2026-10-25T12:00:00Z'), 'Europe/Berlin');
    const { ticks, step } = zonedTicks(day.startMs, day.endMs, 'Europe/Berlin', 9);
    expect(step).toBe(3);
    expect(clock(ticks, 'Europe/Berlin')).toEqual([
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      '00:00',
    ]);
  });

  it('puts hour ticks on the local whole hours of a half-hour zone (India, UTC+5:30)', () => {
    const day = localDayOf(utc('2026-11-25T06:00:00Z'), 'Asia/Kolkata');
    const { ticks } = zonedTicks(day.startMs, day.endMs, 'Asia/Kolkata');
    expect(clock(ticks, 'Asia/Kolkata').slice(0, 3)).toEqual(['00:00', '03:00', '06:00']);
    expect(new Date(ticks[0]!).toISOString()).toBe('2026-11-24T18:30:00.000Z');
  });

  it('steps by local minutes in a short window, aligned to the local clock', () => {
    const start = utc('2026-11-25T05:07:30Z'); // 13:07:30 in Shanghai
    const { ticks, unit, step } = zonedTicks(start, start + 3_600_000, 'Asia/Shanghai');
    expect([unit, step]).toEqual(['minute', 10]);
    expect(clock(ticks, 'Asia/Shanghai')).toEqual(['13:10', '13:20', '13:30', '13:40', '13:50', '14:00']);
  });

  it('puts a week’s ticks at the site’s midnights, a year’s on the 1st of months', () => {
    const tz = 'Asia/Shanghai';
    const week = zonedTicks(localDateStart('2026-11-19', tz), localDateStart('2026-11-26', tz), tz);
    expect(week.unit).toBe('day');
    expect(dates(week.ticks, tz)).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
    ]);
    expect(week.ticks.every((t) => localTimeOf(t, tz).minuteOfDay === 0)).toBe(true);
    const year = zonedTicks(localDateStart('2026-01-01', tz), localDateStart('2027-01-01', tz), tz);
    expect([year.unit, year.step]).toEqual(['month', 2]);
    expect(dates(year.ticks, tz)).toEqual([
      '2026-01-01',
      '2026-03-01',
      '2026-05-01',
      '2026-07-01',
      '2026-09-01',
      '2026-11-01',
      '2027-01-01',
    ]);
  });

  it('does not crowd a month’s last tick against the next month’s first', () => {
    const tz = 'Europe/Berlin';
    const month = zonedTicks(localDateStart('2026-10-01', tz), localDateStart('2026-11-01', tz), tz);
    expect([month.unit, month.step]).toEqual(['day', 5]);
    // 10-31 is left out (a day before the next 1st); the range's end, 11-01, is a tick.
    expect(dates(month.ticks, tz)).toEqual([
      '2026-10-01',
      '2026-10-06',
      '2026-10-11',
      '2026-10-16',
      '2026-10-21',
      '2026-10-26',
      '2026-11-01',
    ]);
  });
});
