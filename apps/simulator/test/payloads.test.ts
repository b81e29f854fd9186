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
import { run } from './support';

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
          // the EMS also reports the site's load and PV power (not standard points, stored as is)
          if (d.type === 'ems' && (name === 'load_kw' || name === 'pv_kw')) continue;
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
  const period = {
    start: '08:00',
    end: '10:00',
    action: 'charge',
    powerKw: 50,
    socMinPct: 10,
    socMaxPct: 90,
  };

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

  it('set_tou_plan replaces the schedule, or refuses with a reason', () => {
    const ok = handleCommand(ctx, cmd('set_tou_plan', { periods: [period] }));
    expect(ok.reply).toMatchObject({ ok: true });
    expect(ok.state.schedule).toEqual([period]);

    const tooMany = handleCommand(ctx, cmd('set_tou_plan', { periods: Array(25).fill(period) }));
    expect(tooMany.reply).toMatchObject({ ok: false, error: 'plan has 25 periods, max 24' });
    expect(tooMany.state).toBe(state);

    const overlap = handleCommand(
      ctx,
      cmd('set_tou_plan', { periods: [period, { ...period, start: '09:00', end: '11:00' }] }),
    );
    expect(overlap.reply?.ok).toBe(false);
    expect(overlap.reply?.error).toMatch(/overlaps/);

    for (const bad of [undefined, [], [{ ...period, start: '8:00' }], [{ ...period, action: 'boost' }]]) {
      const r = handleCommand(ctx, cmd('set_tou_plan', { periods: bad }));
      expect(r.reply?.ok).toBe(false);
      expect(replyPayload.parse(r.reply)).toEqual(r.reply);
    }
  });

  it('set_params sets the air-conditioner thresholds within their ranges', () => {
    const ok = handleCommand(ctx, cmd('set_params', { cooling_start_c: 30, heating_start_c: 8 }));
    expect(ok.reply).toMatchObject({ ok: true });
    expect([ok.state.coolingStartC, ok.state.heatingStartC]).toEqual([30, 8]);
    expect(handleCommand(ctx, cmd('set_params', { cooling_start_c: 45 })).reply?.ok).toBe(false);
    expect(handleCommand(ctx, cmd('set_params', { fan: 1 })).reply?.ok).toBe(false);
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
