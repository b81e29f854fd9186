/**
 * Local wall-clock fields (local-time.ts): the one conversion from UTC ms to a site's local date
 * and time, checked on ordinary instants, around midnight and on daylight-saving days.
 */
import { describe, expect, it } from 'vitest';
import { localDateTimeText, localPartsOf, localTimeOf } from '../src/local-time';

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
