import {
  eventPayload,
  pointDef,
  replyPayload,
  SN_PATTERN,
  statusPayload,
  telemetryPayload,
} from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { buildFleet, siteKindAt } from '../src/fleet';
import { injectFault } from '../src/model/site';
import { buildEvents, buildStatus, buildTelemetry, handleCommand } from '../src/payloads';
import { createSimSite } from '../src/sim-site';
import { run, touPlan } from './support';

const START = Date.UTC(2025, 6, 15, 2, 0); // 10:00 in China
const fleet = buildFleet({ seed: 1, sites: 5 });

describe('fleet', () => {
  it('mixes C&I cabinets, a household and one large station, with valid unique SNs', () => {
    expect(fleet.map((s) => s.kind)).toEqual(['ci', 'ci', 'station', 'household', 'ci']);
    expect(fleet.map((s) => s.profile)).toEqual([
      'ci_cabinet_215kwh',
      'ci_cabinet_215kwh',
      'container_5mwh',
      'household_10kwh',
      'ci_cabinet_215kwh',
    ]);
    const sns = fleet.flatMap((s) => s.devices.map((d) => d.sn));
    expect(new Set(sns).size).toBe(sns.length);
    for (const sn of sns) expect(sn).toMatch(SN_PATTERN);
    for (const s of fleet) {
      expect(s.gatewaySn).toBe(`EMS-${s.siteCode}-01`);
      expect(s.devices[0]).toMatchObject({ sn: s.gatewaySn, type: 'ems' });
      expect(s.devices.map((d) => d.type).sort()).toEqual(
        [
          'air_conditioner',
          'bms',
          'ems',
          'env_sensor',
          'meter',
          'pcs',
          ...(s.pvKwp > 0 ? ['pv'] : []),
        ].sort(),
      );
      expect(s.timezone).toBe('Asia/Shanghai');
      expect(s.latitude).toBeGreaterThan(18);
      expect(s.latitude).toBeLessThan(42);
    }
    expect(fleet[2]!.capacityKwh).toBeCloseTo(5015.8, 0);
    expect(fleet[0]!.capacityKwh).toBeCloseTo(215, 0);
  });

  it('is the same for the same seed, different for another, and has one station in larger fleets', () => {
    expect(buildFleet({ seed: 1, sites: 5 })).toEqual(fleet);
    expect(buildFleet({ seed: 2, sites: 5 })).not.toEqual(fleet);
    const big = buildFleet({ seed: 1, sites: 40 });
    expect(big.filter((s) => s.kind === 'station')).toHaveLength(1);
    expect(big.filter((s) => s.kind === 'household').length).toBeGreaterThan(10);
    expect(new Set(big.map((s) => s.siteCode)).size).toBe(40);
    expect(siteKindAt(0)).toBe('ci');
    expect(() => buildFleet({ seed: 1, sites: 0 })).toThrow(RangeError);
  });
});

describe('payloads', () => {
  for (const site of fleet) {
    it(`${site.siteCode} (${site.profile}): telemetry parses with the contract, standard points only`, () => {
      let last: ReturnType<typeof buildTelemetry> | undefined;
      let withCells: ReturnType<typeof buildTelemetry> | undefined;
      run(createSimSite(site, 1, START), 10, 60, (r, k) => {
        last = buildTelemetry(site, r.readings, { id: String(k + 1), ts: r.state.timeMs, withCells: false });
        if (k === 4)
          withCells = buildTelemetry(site, r.readings, { id: '5', ts: r.state.timeMs, withCells: true });
      });
      expect(telemetryPayload.parse(last)).toEqual(last);
      expect(telemetryPayload.parse(withCells)).toEqual(withCells);
      const bms = withCells!.devices.find((d) => d.type === 'bms')!;
      const cells = site.profile === 'container_5mwh' ? 416 : site.profile === 'household_10kwh' ? 144 : 240;
      expect(bms.cells?.u_v).toHaveLength(cells);
      expect(bms.cells?.t_c).toHaveLength(cells);
      expect(last!.devices.find((d) => d.type === 'bms')!.cells).toBeUndefined();
      expect(last!.devices.map((d) => d.sn).sort()).toEqual(site.devices.map((d) => d.sn).sort());
      for (const d of last!.devices) {
        for (const name of Object.keys(d.points)) {
          expect(pointDef(d.type, name), `${d.type}.${name}`).toBeDefined();
        }
      }
    });
  }

  it('events and status payloads parse with the contract', () => {
    const site = fleet[0]!;
    let state = injectFault(createSimSite(site, 1, START), 'smoke');
    const events: Parameters<typeof buildEvents>[1][number][] = [];
    state = run(state, 3, 10, (r) => events.push(...r.events));
    expect(events.length).toBeGreaterThan(0);
    const ev = buildEvents(site, events, { id: 'e-1', ts: state.timeMs });
    expect(eventPayload.parse(ev)).toEqual(ev);
    expect(ev.events[0]).toMatchObject({
      deviceSn: `ENV-${site.siteCode}-01`,
      code: 'env.smoke',
      level: 'fault',
    });
    const birth = buildStatus(site, START, true, { intervalS: 60 });
    expect(statusPayload.parse(birth)).toEqual(birth);
    expect(birth).toMatchObject({ online: true, firmware: 'EMS-2.4.1', model: 'ESS-215-EMS', intervalS: 60 });
    for (const reason of ['lwt', 'clean'] as const) {
      const death = buildStatus(site, START, false, { reason });
      expect(statusPayload.parse(death)).toEqual({ v: 1, ts: START, online: false, reason });
    }
  });
});

describe('commands', () => {
  const site = fleet[0]!;
  const state = createSimSite(site, 1, START);
  const ctx = { state, clockOffsetMs: 0, simNowMs: START };
  const cmd = (name: string, params: Record<string, unknown>, id = 'c-1') =>
    JSON.stringify({ v: 1, id, ts: START, name, params });
  it('time_sync sets the device clock and replies ok', () => {
    const out = handleCommand(ctx, cmd('time_sync', { serverTs: START + 90_000 }));
    expect(out.clockOffsetMs).toBe(90_000);
    expect(replyPayload.parse(out.reply)).toEqual(out.reply);
    expect(out.reply).toMatchObject({
      id: 'c-1',
      ok: true,
      ts: START + 90_000,
      result: { offsetMs: 90_000 },
    });
    expect(handleCommand(ctx, cmd('time_sync', {})).reply).toMatchObject({ ok: false });
  });

  it('set_tou_plan runs the scheme and replies its version, or refuses with the rule broken', () => {
    const plan = touPlan(
      [
        ['00:00', 'charge', 50],
        ['08:00', 'idle'],
      ],
      { version: 3 },
    );
    const ok = handleCommand(ctx, cmd('set_tou_plan', plan));
    expect(replyPayload.parse(ok.reply)).toEqual(ok.reply);
    expect(ok.reply).toMatchObject({ id: 'c-1', ok: true, result: { version: 3 } });
    expect(ok.state.touPlan).toEqual(plan);

    const day = plan.scheme.dailyPlans[0]!;
    const refusals: Array<[string, unknown, string]> = [
      ['no params', {}, 'params: '],
      ['unknown zone', { ...plan, timezone: 'Mars/Olympus' }, 'params: timezone: unknown IANA time zone'],
      [
        '24:00',
        {
          ...plan,
          scheme: {
            ...plan.scheme,
            dailyPlans: [{ ...day, periods: [day.periods[0], { ...day.periods[1], end: '24:00' }] }],
          },
        },
        'daily plan "Test day", period 2: ',
      ],
      [
        'no price',
        {
          ...plan,
          scheme: {
            ...plan.scheme,
            dailyPlans: [{ ...day, periods: [{ ...day.periods[0], priceCnyPerKwh: null }, day.periods[1]] }],
          },
        },
        'daily plan "Test day", period 1: Every period needs a peak-valley type and a price',
      ],
    ];
    for (const [what, params, error] of refusals) {
      const r = handleCommand(ctx, cmd('set_tou_plan', params as Record<string, unknown>));
      expect(replyPayload.parse(r.reply), what).toEqual(r.reply);
      expect(r.reply?.ok, what).toBe(false);
      expect(r.reply?.error, what).toContain(error);
      expect(r.state, what).toBe(state);
    }
  });

  it('set_tou_plan runs a scheme whose yearly setting is of a past year (3076 is an editing rule)', () => {
    // Applied in December and resent after 1 January: the EMS must still take it.
    const plan = touPlan([['00:00', 'charge', 50]], { version: 2 });
    const lastYear = {
      ...plan,
      scheme: {
        ...plan.scheme,
        weeklyPlans: [{ key: 1, name: 'Week', days: [1, 1, 1, 1, 1, 1, 1] }],
        yearlyPlans: [{ key: 1, year: 2024, items: [{ from: '01-01', to: '12-31', weeklyPlanKey: 1 }] }],
      },
    };
    const r = handleCommand(ctx, cmd('set_tou_plan', lastYear));
    expect(r.reply).toMatchObject({ ok: true, result: { version: 2 } });
    expect(r.state.touPlan).toEqual(lastYear);
  });

  it('set_tou_plan ignores a lower version of the scheme it runs; the same version again or another scheme runs', () => {
    const v5 = touPlan([['00:00', 'charge', 50]], { version: 5 });
    const running = handleCommand(ctx, cmd('set_tou_plan', v5)).state;
    expect(running.touPlan?.version).toBe(5);
    const at = (params: object) =>
      handleCommand({ ...ctx, state: running }, cmd('set_tou_plan', params as Record<string, unknown>));

    const older = at(touPlan([['00:00', 'discharge', 50]], { version: 4 }));
    expect(older.reply).toMatchObject({
      ok: false,
      error: 'scheme 1 version 4 is older than version 5 in force; ignored',
    });
    expect(older.state).toBe(running);

    const again = at(v5);
    expect(again.reply).toMatchObject({ ok: true, result: { version: 5 } });
    const otherScheme = at({ ...touPlan([['00:00', 'idle']], { version: 1 }), schemeId: 2 });
    expect(otherScheme.reply).toMatchObject({ ok: true, result: { version: 1 } });
    expect(otherScheme.state.touPlan).toMatchObject({ schemeId: 2, version: 1 });
  });

  it('unknown commands are refused; messages without JSON or id get no reply', () => {
    expect(handleCommand(ctx, cmd('reboot', {})).reply).toMatchObject({
      id: 'c-1',
      ok: false,
      error: 'unknown command "reboot"',
    });
    expect(handleCommand(ctx, 'not json').reply).toBeUndefined();
    expect(handleCommand(ctx, JSON.stringify({ v: 1, name: 'time_sync', params: {} })).reply).toBeUndefined();
    const wrongVersion = handleCommand(
      ctx,
      JSON.stringify({ v: 2, id: 'c-2', ts: START, name: 'time_sync', params: {} }),
    );
    expect(wrongVersion.reply).toMatchObject({ id: 'c-2', ok: false });
  });
});
