/**
 * The bill screen's display helpers (features/bill/model.ts): a line's check re-adds its periods
 * (or its registers × multiplier) and says whether that equals the line's kWh — a tampered period
 * makes it say "differs"; ranges end on their last day; the months offered are the ended ones; a
 * maximum demand reads in kW to 0.001, or "not measured", in Chinese and English.
 * (Money and kWh on the bill are shown by shared/format: format-money.test.ts.) The UI language
 * comes from the i18n module, replaced here by a switch (the real one needs a browser document).
 */
import type { BillLine, Lang } from '@ess/contract';
import type { TFunction } from 'i18next';
import { describe, expect, it, vi } from 'vitest';
import {
  checkLine,
  dateRange,
  demandKwText,
  endedMonths,
  periodRegisterKwh,
} from '../src/features/bill/model';
import enUS from '../src/shared/i18n/locales/en-US';
import zhCN from '../src/shared/i18n/locales/zh-CN';

const ui = vi.hoisted(() => ({ lang: 'zh' as Lang }));
vi.mock('../src/shared/i18n', () => ({
  currentLang: () => ui.lang,
  localeOf: (lang: Lang) => (lang === 'en' ? 'en-US' : 'zh-CN'),
}));

const base: BillLine = {
  siteId: 1,
  meterId: 2,
  meterSn: 'MTR-1',
  from: '2025-07-01',
  to: '2025-08-01',
  startMs: 0,
  endMs: 1,
  tier: 'peak',
  multiplier: 40,
  importStartKwh: null,
  importEndKwh: null,
  exportStartKwh: null,
  exportEndKwh: null,
  chargedKwh: 0,
  dischargedKwh: 0,
  chargedSource: 'register',
  dischargedSource: 'register',
  priceCnyPerKwh: 1.2,
  costCny: 0,
  valueCny: 0,
  netCny: 0,
  problem: null,
  missingDates: [],
};

describe('bill model', () => {
  it('re-adds a line from its periods: (end − start) × CT×PT each, summed', () => {
    // Period 1: discharge (1010.5 − 1000) × 40 = 420 kWh; period 2: (1020.5 − 1010.5) × 40 = 400.
    const line: BillLine = {
      ...base,
      dischargedKwh: 820,
      valueCny: 984,
      periods: [
        {
          startMs: 0,
          endMs: 1,
          tier: 'peak',
          priceCnyPerKwh: 1.2,
          chargeStart: 500,
          chargeEnd: 500,
          dischargeStart: 1000,
          dischargeEnd: 1010.5,
          chargedKwh: 0,
          dischargedKwh: periodRegisterKwh(1000, 1010.5, 40)!,
          source: 'registers',
        },
        {
          startMs: 2,
          endMs: 3,
          tier: 'peak',
          priceCnyPerKwh: 1.2,
          chargeStart: 500,
          chargeEnd: 500,
          dischargeStart: 1010.5,
          dischargeEnd: 1020.5,
          chargedKwh: 0,
          dischargedKwh: 400,
          source: 'registers',
        },
      ],
    };
    expect(periodRegisterKwh(1000, 1010.5, 40)).toBe(420);
    const c = checkLine(line);
    expect(c).toMatchObject({
      chargedKwh: 0,
      dischargedKwh: 820,
      agrees: true,
      periods: 2,
      rollupPeriods: 0,
    });
    // A line whose figure is not the sum of its periods is shown as differing.
    expect(checkLine({ ...line, dischargedKwh: 821 }).agrees).toBe(false);
  });

  it('re-adds a line from its readings when it has no periods; a backwards register gives no register kWh', () => {
    const line: BillLine = { ...base, importStartKwh: 10, importEndKwh: 12.5, chargedKwh: 100 };
    expect(checkLine(line).chargedKwh).toBe(100);
    expect(checkLine(line).agrees).toBe(true);
    expect(checkLine({ ...line, chargedKwh: 99 }).agrees).toBe(false);
    expect(periodRegisterKwh(12, 10, 40)).toBeNull();
    expect(periodRegisterKwh(null, 10, 40)).toBeNull();
  });

  it('shows ranges by their last day', () => {
    expect(dateRange('2025-07-01', '2025-08-01')).toBe('2025-07-01 – 2025-07-31');
    expect(dateRange('2025-07-15', '2025-07-16')).toBe('2025-07-15');
  });

  it('offers the ended months, newest first', () => {
    expect(endedMonths('2026-01-15', 3)).toEqual(['2025-12', '2025-11', '2025-10']);
  });

  it('shows a maximum demand in kW to 0.001 in the UI language, and "not measured" for none', () => {
    const texts = { zh: zhCN, en: enUS };
    // The one key the helper asks for, in the language the test switched to.
    const t = ((key: string) => {
      expect(key).toBe('bill.demand.notMeasured');
      return texts[ui.lang].bill.demand.notMeasured;
    }) as TFunction;
    ui.lang = 'zh';
    expect(demandKwText(t, 1234.5678)).toBe('1,234.568 kW');
    expect(demandKwText(t, 40)).toBe('40 kW');
    expect(demandKwText(t, 0)).toBe('0 kW');
    expect(demandKwText(t, null)).toBe('未计量');
    ui.lang = 'en';
    expect(demandKwText(t, 1234.5678)).toBe('1,234.568 kW');
    expect(demandKwText(t, 12.3)).toBe('12.3 kW');
    expect(demandKwText(t, null)).toBe('Not measured');
  });
});
