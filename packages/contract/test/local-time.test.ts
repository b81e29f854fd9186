/**
 * Local wall-clock fields (local-time.ts): the one conversion from UTC ms to a site's local date
 * and time, checked on ordinary instants, around midnight and on daylight-saving days; the way
 * back from a local day to its bounds (23 and 25 h days), offset labels and a fleet's time base.
 */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  fleetTimeBase,
  localDateStart,
  localDateTimeText,
  localDayOf,
  localDayStart,
  localPartsOf,
  localTimeOf,
  utcOffsetText,
} from '../src/local-time';

const utc = (iso: string) => Date.parse(iso);

describe('localPartsOf', () => {
  it('reads every field, seconds included, in the given zone', () => {
    expect(localPartsOf(utc('2026-07-01T06:03:22Z'), 'Asia/Shanghai')).toEqual({
      year: 2026,
      month: 7,
      day: 1,
      hour: 14,
      minute: 3,
      second: 22,
    });
  });

  it('gives hour 0, not 24, at local midnight', () => {
    expect(localPartsOf(utc('2026-06-30T16:00:00Z'), 'Asia/Shanghai')).toMatchObject({ day: 1, hour: 0 });
  });

  it('follows Berlin across the spring-forward and fall-back hours', () => {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00Z).
    expect(localPartsOf(utc('2026-03-29T00:59:59Z'), 'Europe/Berlin')).toMatchObject({ hour: 1, minute: 59 });
    expect(localPartsOf(utc('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toMatchObject({ hour: 3, minute: 0 });
    // 2026-10-25: 03:00 CEST goes back to 02:00 CET (01:00Z): 02:30 is met twice.
    expect(localPartsOf(utc('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toMatchObject({ hour: 2, minute: 30 });
    expect(localPartsOf(utc('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toMatchObject({ hour: 2, minute: 30 });
  });

  it('refuses a zone Intl does not know', () => {
    expect(() => localPartsOf(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('localTimeOf and localDateTimeText', () => {
  it('give the local date, minute of day and a padded date-time', () => {
    const ms = utc('2026-01-05T01:07:09Z');
    expect(localTimeOf(ms, 'Asia/Shanghai')).toEqual({ date: '2026-01-05', minuteOfDay: 9 * 60 + 7 });
    expect(localDateTimeText(ms, 'Asia/Shanghai')).toBe('2026-01-05 09:07:09');
    expect(localTimeOf(ms, 'America/Toronto')).toEqual({ date: '2026-01-04', minuteOfDay: 20 * 60 + 7 });
  });
});

describe('local days (addDays, localDateStart, localDayStart, localDayOf)', () => {
  const HOUR = 3_600_000;

  it('move calendar dates across month and year ends', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('start a Shanghai day at its midnight, 16:00 UTC the day before', () => {
    expect(localDateStart('2026-11-21', 'Asia/Shanghai')).toBe(utc('2026-11-20T16:00:00Z'));
    // 2026-11-21 22:37 in Shanghai and 2026-11-22 00:30 in Shanghai.
    expect(localDayStart(utc('2026-11-21T14:37:00Z'), 'Asia/Shanghai')).toBe(utc('2026-11-20T16:00:00Z'));
    expect(localDayStart(utc('2026-11-21T16:30:00Z'), 'Asia/Shanghai')).toBe(utc('2026-11-21T16:00:00Z'));
  });

  it('give Berlin’s daylight-saving days 23 and 25 hours', () => {
    const spring = localDayOf(utc('2026-03-29T12:00:00Z'), 'Europe/Berlin');
    expect(spring).toEqual({
      date: '2026-03-29',
      startMs: utc('2026-03-28T23:00:00Z'),
      endMs: utc('2026-03-29T22:00:00Z'),
    });
    expect((spring.endMs - spring.startMs) / HOUR).toBe(23);
    const autumn = localDayOf(utc('2026-10-25T12:00:00Z'), 'Europe/Berlin');
    expect(autumn.startMs).toBe(utc('2026-10-24T22:00:00Z'));
    expect((autumn.endMs - autumn.startMs) / HOUR).toBe(25);
    // An ordinary day: 24 hours.
    const day = localDayOf(utc('2026-07-01T12:00:00Z'), 'Europe/Berlin');
    expect((day.endMs - day.startMs) / HOUR).toBe(24);
  });

  it('put the last instant of a day in that day and local midnight in the next', () => {
    const end = localDateStart('2026-11-22', 'Asia/Shanghai');
    expect(localDayOf(end - 1, 'Asia/Shanghai').date).toBe('2026-11-21');
    expect(localDayOf(end, 'Asia/Shanghai').date).toBe('2026-11-22');
  });
});

describe('utcOffsetText', () => {
  it('writes whole, half and negative offsets, and daylight-saving ones', () => {
    const at = utc('2026-01-15T12:00:00Z');
    expect(utcOffsetText(at, 'Asia/Shanghai')).toBe('UTC+8');
    expect(utcOffsetText(at, 'Asia/Kolkata')).toBe('UTC+5:30');
    expect(utcOffsetText(at, 'America/Sao_Paulo')).toBe('UTC-3');
    expect(utcOffsetText(at, 'UTC')).toBe('UTC');
    expect(utcOffsetText(at, 'Europe/Berlin')).toBe('UTC+1');
    expect(utcOffsetText(utc('2026-07-15T12:00:00Z'), 'Europe/Berlin')).toBe('UTC+2');
  });
});

describe('fleetTimeBase', () => {
  it('is the sites’ zone when they share one, whatever the caller’s', () => {
    expect(fleetTimeBase(['Asia/Shanghai', 'Asia/Shanghai'], 'UTC')).toEqual({
      timezone: 'Asia/Shanghai',
      basis: 'sites',
    });
  });

  it('is the caller’s zone (UTC when none) when the sites differ or there are none', () => {
    expect(fleetTimeBase(['Asia/Shanghai', 'Europe/Berlin'], 'America/Toronto')).toEqual({
      timezone: 'America/Toronto',
      basis: 'caller',
    });
    expect(fleetTimeBase(['Asia/Shanghai', 'Europe/Berlin'])).toEqual({ timezone: 'UTC', basis: 'caller' });
    expect(fleetTimeBase([], 'Asia/Tokyo')).toEqual({ timezone: 'Asia/Tokyo', basis: 'caller' });
  });
});
