import { localDayStart } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { bucketStart } from '../src/devices/rollup-buckets';

describe('rollup buckets', () => {
  it('15-minute and hourly buckets align to UTC', () => {
    const ts = Date.UTC(2026, 10, 21, 14, 37, 12, 345);
    expect(bucketStart(900, ts, 'Asia/Shanghai')).toBe(Date.UTC(2026, 10, 21, 14, 30));
    expect(bucketStart(3600, ts, 'Asia/Shanghai')).toBe(Date.UTC(2026, 10, 21, 14, 0));
  });

  it('a day starts at local midnight of the site (Shanghai is UTC+8)', () => {
    // 2026-11-21 22:37 in Shanghai → the day began 2026-11-21 00:00 local = 11-20 16:00 UTC.
    expect(localDayStart(Date.UTC(2026, 10, 21, 14, 37), 'Asia/Shanghai')).toBe(
      Date.UTC(2026, 10, 20, 16, 0),
    );
    // 2026-11-22 00:30 in Shanghai → that day's midnight.
    expect(localDayStart(Date.UTC(2026, 10, 21, 16, 30), 'Asia/Shanghai')).toBe(
      Date.UTC(2026, 10, 21, 16, 0),
    );
  });

  it('follows daylight saving time: Berlin’s 2026-03-29 starts at UTC+1, the next day at UTC+2', () => {
    expect(localDayStart(Date.UTC(2026, 2, 29, 12, 0), 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 28, 23, 0));
    expect(localDayStart(Date.UTC(2026, 2, 30, 12, 0), 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 29, 22, 0));
    // 2026-10-25 23:30 UTC is 00:30 on 10-26 in Berlin (back on UTC+1 since that morning).
    expect(bucketStart(86400, Date.UTC(2026, 9, 25, 23, 30), 'Europe/Berlin')).toBe(
      Date.UTC(2026, 9, 25, 23, 0),
    );
  });
});
