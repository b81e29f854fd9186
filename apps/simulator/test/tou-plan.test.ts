/**
 * A ToU scheme pushed with `set_tou_plan` changes what the simulated EMS does: the
 * site charges and discharges in the scheme's periods, local wall-clock time of its zone; a
 * refused scheme changes nothing.
 */
import { describe, expect, it } from 'vitest';
import type { SiteState, StepResult } from '../src/model/site';
import { handleCommand } from '../src/payloads';
import { newSite, run, touPlan } from './support';

/** 2026-07-15 00:00 Asia/Shanghai. */
const SHANGHAI_MIDNIGHT = Date.UTC(2026, 6, 14, 16, 0);

/** Pushes `params` as a `set_tou_plan` command; answers the new state and the reply. */
function push(state: SiteState, params: unknown, id = 'c-tou') {
  const raw = JSON.stringify({ v: 1, id, ts: state.timeMs, name: 'set_tou_plan', params });
  return handleCommand({ state, clockOffsetMs: 0, simNowMs: state.timeMs }, raw);
}

/** PCS power (kW, + discharging) of each one-minute step, keyed by the step's start (UTC ms). */
function pcsByMinute(state: SiteState, minutes: number): Map<number, number> {
  const out = new Map<number, number>();
  run(state, minutes, 60, (r: StepResult) => out.set(r.state.timeMs - 60_000, r.readings.pcs.p_kw!));
  return out;
}

const HOUR = 3600_000;
const chargeAndPeak = (timezone: string) =>
  touPlan(
    [
      ['00:00', 'charge', 50],
      ['06:00', 'idle'],
      ['08:00', 'discharge', 50],
      ['12:00', 'idle'],
    ],
    { timezone, version: 7 },
  );

describe('set_tou_plan drives the EMS', () => {
  it('charges at 03:00 and discharges at 10:00 local time of the site’s zone', () => {
    // The container has no anti-backflow limit, so the setpoint shows unaltered.
    const site = newSite('container_5mwh', { soc: 50, start: SHANGHAI_MIDNIGHT });
    const before = pcsByMinute(site, 24 * 60);
    // the default plan: charge at rated power at 00:00, idle at 10:00
    expect(before.get(SHANGHAI_MIDNIGHT)).toBeLessThan(-2000);
    expect(before.get(SHANGHAI_MIDNIGHT + 10 * HOUR)).toBe(0);

    const out = push(site, chargeAndPeak('Asia/Shanghai'));
    expect(out.reply).toMatchObject({ id: 'c-tou', ok: true, result: { version: 7 } });
    const after = pcsByMinute(out.state, 24 * 60);
    expect(after.get(SHANGHAI_MIDNIGHT + 3 * HOUR)).toBe(-50);
    expect(after.get(SHANGHAI_MIDNIGHT + 7 * HOUR)).toBe(0);
    expect(after.get(SHANGHAI_MIDNIGHT + 10 * HOUR)).toBe(50);
    expect(after.get(SHANGHAI_MIDNIGHT + 20 * HOUR)).toBe(0); // the default's evening discharge is gone
    // exactly the scheme's bounds: charging 00:00–06:00, discharging 08:00–12:00
    const minutes = (test: (p: number) => boolean) => [...after.values()].filter(test).length;
    expect(minutes((p) => p < 0)).toBe(6 * 60);
    expect(minutes((p) => p > 0)).toBe(4 * 60);
  });

  it('a refused scheme (overlapping periods) keeps the previous one and says why', () => {
    const site = push(
      newSite('container_5mwh', { soc: 50, start: SHANGHAI_MIDNIGHT }),
      chargeAndPeak('Asia/Shanghai'),
    ).state;
    const overlapping = touPlan(
      [
        ['00:00', 'discharge', 80],
        ['09:00', 'idle'],
        ['08:00', 'charge', 80],
        ['12:00', 'idle'],
      ],
      { version: 8 },
    );
    const out = push(site, overlapping, 'c-bad');
    expect(out.reply).toMatchObject({ id: 'c-bad', ok: false });
    expect(out.reply!.error).toContain('Periods must not overlap or conflict');
    expect(out.reply!.error).toMatch(/^daily plan "Test day", period \d+: /);
    expect(out.state).toBe(site);
    expect(out.state.touPlan!.version).toBe(7);
    const after = pcsByMinute(out.state, 24 * 60);
    expect(after.get(SHANGHAI_MIDNIGHT + 3 * HOUR)).toBe(-50);
    expect(after.get(SHANGHAI_MIDNIGHT + 10 * HOUR)).toBe(50);

    // without a previous scheme, the default plan stays
    const fresh = newSite('container_5mwh', { soc: 50, start: SHANGHAI_MIDNIGHT });
    const refused = push(fresh, overlapping);
    expect(refused.reply).toMatchObject({ ok: false });
    expect(refused.state.touPlan).toBeNull();
  });

  it('follows wall-clock time across a DST change (Europe/Berlin, spring forward 2026-03-29)', () => {
    // Charge 01:00–04:00 spans the skipped hour 02:00–03:00: it lasts two real hours that day.
    // Discharge 06:00–08:00 is 05:00–07:00 UTC on the 28th (CET) and 04:00–06:00 UTC on the 29th.
    const plan = touPlan(
      [
        ['00:00', 'idle'],
        ['01:00', 'charge', 40],
        ['04:00', 'idle'],
        ['06:00', 'discharge', 40],
        ['08:00', 'idle'],
      ],
      { timezone: 'Europe/Berlin' },
    );
    const march28 = Date.UTC(2026, 2, 27, 23, 0); // 2026-03-28 00:00 CET
    const site = newSite('container_5mwh', {
      soc: 50,
      start: march28,
      spec: { timezone: 'Europe/Berlin', latitude: 52.52, longitude: 13.4 },
    });
    const out = push(site, plan);
    expect(out.reply).toMatchObject({ ok: true });
    const power = pcsByMinute(out.state, 48 * 60);
    const spans = (from: number, to: number, test: (p: number) => boolean) => {
      const at = [...power].filter(([t, p]) => t >= from && t < to && test(p)).map(([t]) => t);
      return at.length ? { first: new Date(at[0]!).toISOString(), minutes: at.length } : undefined;
    };
    const march29 = Date.UTC(2026, 2, 28, 23, 0); // 2026-03-29 00:00 CET
    expect(spans(march28, march29, (p) => p < 0)).toEqual({
      first: '2026-03-28T00:00:00.000Z',
      minutes: 180,
    });
    expect(spans(march28, march29, (p) => p > 0)).toEqual({
      first: '2026-03-28T05:00:00.000Z',
      minutes: 120,
    });
    const march30 = Date.UTC(2026, 2, 29, 22, 0); // 2026-03-30 00:00 CEST
    expect(spans(march29, march30, (p) => p < 0)).toEqual({
      first: '2026-03-29T00:00:00.000Z',
      minutes: 120,
    });
    expect(spans(march29, march30, (p) => p > 0)).toEqual({
      first: '2026-03-29T04:00:00.000Z',
      minutes: 120,
    });
  });
});
