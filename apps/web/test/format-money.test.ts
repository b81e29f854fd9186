/**
 * Money and energy as the console shows them (apps/web/src/shared/format: formatCny,
 * formatCnyAmount, formatPrice, formatKwh — the one formatter of the bill, its print page,
 * revenue, the ToU preview, the cockpit and the big screens), in Chinese and English: CNY always
 * to the fen (rounded as the server rounds, 1.005 → 1.01), prices to four decimals, energies to
 * the Wh, no '-0', '—' for a missing figure. The UI language comes from the i18n module, replaced
 * here by a switch (the real one needs a browser document).
 */
import type { Lang } from '@ess/contract';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { formatCny, formatCnyAmount, formatKwh, formatPrice, NO_VALUE } from '../src/shared/format';

const ui = vi.hoisted(() => ({ lang: 'zh' as Lang }));
vi.mock('../src/shared/i18n', () => ({
  currentLang: () => ui.lang,
  localeOf: (lang: Lang) => (lang === 'en' ? 'en-US' : 'zh-CN'),
}));

describe('money and energy formatting', () => {
  beforeEach(() => {
    ui.lang = 'zh';
  });

  it('shows CNY with two decimals in zh and en, rounded to the fen half away from zero', () => {
    for (const lang of ['zh', 'en'] as const) {
      ui.lang = lang;
      expect(formatCny(1234.5)).toBe('1,234.50');
      expect(formatCny(780)).toBe('780.00');
      expect(formatCny(1234567.891)).toBe('1,234,567.89');
      // 1.005 × 100 is 100.4999… in binary: the server's roundCny still makes it 1.01.
      expect(formatCny(1.005)).toBe('1.01');
      expect(formatCny(-1900)).toBe('-1,900.00');
      expect(formatCny(-0.004)).toBe('0.00');
      expect(formatCny(null)).toBe(NO_VALUE);
      expect(formatCny(Number.NaN)).toBe(NO_VALUE);
    }
  });

  it('puts the currency sign of the language before a standalone amount', () => {
    ui.lang = 'zh';
    expect(formatCnyAmount(780)).toBe('¥780.00');
    expect(formatCnyAmount(-1234.567)).toBe('-¥1,234.57');
    ui.lang = 'en';
    expect(formatCnyAmount(780)).toBe('CN¥780.00');
    expect(formatCnyAmount(-1234.567)).toBe('-CN¥1,234.57');
    expect(formatCnyAmount(undefined)).toBe(NO_VALUE);
    // An explicit language wins over the UI's (the bill print page's own switch).
    expect(formatCnyAmount(1, 'zh')).toBe('¥1.00');
  });

  it('shows a CNY/kWh price with four decimals, not as an energy', () => {
    for (const lang of ['zh', 'en'] as const) {
      ui.lang = lang;
      expect(formatPrice(1.2)).toBe('1.2000');
      expect(formatPrice(0.65125)).toBe('0.6513');
      expect(formatPrice(0.31575)).toBe('0.3158');
      expect(formatPrice(null)).toBe(NO_VALUE);
    }
  });

  it('shows kWh and register readings to the Wh, without trailing zeros', () => {
    for (const lang of ['zh', 'en'] as const) {
      ui.lang = lang;
      expect(formatKwh(12345.6789)).toBe('12,345.679');
      expect(formatKwh(1010.5)).toBe('1,010.5');
      expect(formatKwh(40)).toBe('40');
      expect(formatKwh(-0.0001)).toBe('0');
      expect(formatKwh(null)).toBe(NO_VALUE);
    }
  });
});
