/**
 * The simulated site obeys its devices' parameters, set the way the server sets them
 * (`set_params` through the command handler): export limit, SOC window and backup reserve,
 * operating mode and manual setpoint, PCS limit and ramp rate, the air conditioner's switching
 * thresholds and the BMS's alarm thresholds.
 */
import type { DeviceType, ParamValue } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import { buildFleet, demandLimitKwOf, type FleetSite } from '../src/fleet';
import { type SiteState, type StepResult, step } from '../src/model/site';
import { type GatewayParams, initialGatewayParams } from '../src/params';
import { handleCommand } from '../src/payloads';
import { createSimSite } from '../src/sim-site';
import { JULY_MIDNIGHT_CN } from './support';

const fleet = buildFleet({ seed: 1, sites: 5 });
const ci = fleet.find((s) => s.kind === 'ci')!;
const household = fleet.find((s) => s.kind === 'household')!;
const station = fleet.find((s) => s.kind === 'station')!;

/** A site with its devices' parameters, configured like the server does. */
class Site {
  params: GatewayParams;
  state: SiteState;
  private version = new Map<string, number>();
  constructor(
    readonly site: FleetSite,
    opts: { soc?: number; start?: number } = {},
  ) {
    this.params = initialGatewayParams(site);
    this.state = createSimSite(site, 1, opts.start ?? JULY_MIDNIGHT_CN, {
      ...(opts.soc !== undefined ? { initialSocPct: opts.soc } : {}),
    });
  }

  /** `set_params` to the site's device of `type`; expects every change applied. */
  set(type: DeviceType, values: Record<string, ParamValue>): void {
    const sn = this.site.devices.find((d) => d.type === type)!.sn;
    const version = (this.version.get(sn) ?? 0) + 1;
    this.version.set(sn, version);
    const out = handleCommand(
      {
        state: this.state,
        clockOffsetMs: 0,
        simNowMs: this.state.timeMs,
        devices: { site: this.site, params: this.params },
      },
      JSON.stringify({
        v: 1,
        id: `c-${sn}-${version}`,
        ts: this.state.timeMs,
        name: 'set_params',
        params: { deviceSn: sn, version, values },
      }),
    );
    expect(out.reply?.error).toBeUndefined();
    expect(out.reply?.ok).toBe(true);
    this.state = out.state;
    this.params = out.params!;
  }

  /** `count` steps of `dtS` seconds; the step results. */
  run(count: number, dtS = 60): StepResult[] {
    const out: StepResult[] = [];
    for (let k = 0; k < count; k++) {
      const r = step(this.state, dtS, this.state.timeMs + dtS * 1000);
      this.state = r.state;
      out.push(r);
    }
    return out;
  }
}

const grid = (rs: StepResult[]) => rs.map((r) => r.readings.meter.p_kw!);
const pcs = (rs: StepResult[]) => rs.map((r) => r.readings.pcs.p_kw!);
const soc = (rs: StepResult[]) => rs.map((r) => r.readings.bms.soc_pct!);

describe('the EMS obeys its parameters', () => {
  it('export limit: discharge is capped so grid export never exceeds it, a lower limit holds from the next step', () => {
    const s = new Site(household, { soc: 80 }); // midnight: no PV, a small load
    s.set('ems', { operating_mode: 'manual', manual_power_kw: 5 });
    // the default 0 kW: no export at all (anti-backflow)
    expect(Math.min(...grid(s.run(10)))).toBeGreaterThanOrEqual(0);
    s.set('ems', { export_limit_kw: 2 });
    const limited = grid(s.run(20));
    expect(Math.min(...limited)).toBeGreaterThanOrEqual(-2);
    expect(Math.min(...limited)).toBeLessThan(-1.5); // it does export, up to the limit
    s.set('ems', { export_limit_kw: 0.5 });
    const [next] = s.run(1, 10); // one control step
    expect(next!.readings.meter.p_kw).toBeGreaterThanOrEqual(-0.5);
    expect(next!.readings.pcs.p_kw).toBeGreaterThan(0);
  });

  it('SOC floor and ceiling: discharging stops at the floor, charging at the ceiling', () => {
    const s = new Site(household, { soc: 70 });
    // the reserve must lie within the window (the contract's rule): both move together
    s.set('ems', {
      operating_mode: 'manual',
      manual_power_kw: 5,
      export_limit_kw: 10,
      soc_min_pct: 60,
      backup_reserve_pct: 60,
    });
    const down = s.run(60);
    expect(Math.min(...soc(down))).toBeGreaterThanOrEqual(59.9);
    expect(Math.min(...soc(down))).toBeLessThan(60.5);
    expect(pcs(down).slice(-5)).toEqual([0, 0, 0, 0, 0]);
    s.set('ems', { manual_power_kw: -5, soc_max_pct: 66 });
    const up = s.run(60);
    expect(Math.max(...soc(up))).toBeLessThanOrEqual(66.1);
    expect(Math.max(...soc(up))).toBeGreaterThan(65.5);
    expect(pcs(up).slice(-5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('manual mode runs at its setpoint (PCS limit and ramp rate apply); standby idles', () => {
    const s = new Site(station, { soc: 50 });
    s.set('ems', { operating_mode: 'manual', manual_power_kw: 1000 });
    const [first] = s.run(1, 10);
    expect(first!.readings.pcs.p_kw).toBe(1000);
    expect(first!.readings.ems).toMatchObject({ run_mode: 1, p_setpoint_kw: 1000 });
    s.set('ems', { manual_power_kw: -500 });
    expect(pcs(s.run(1, 10))).toEqual([-500]);
    s.set('pcs', { active_power_limit_kw: 300 });
    expect(pcs(s.run(1, 10))).toEqual([-300]);
    s.set('pcs', { ramp_rate_kw_s: 10 });
    s.set('ems', { manual_power_kw: 300 });
    // from −300 kW at 10 kW/s: 100 kW a 10 s step
    expect(pcs(s.run(7, 10))).toEqual([-200, -100, 0, 100, 200, 300, 300]);
    s.set('ems', { operating_mode: 'standby' });
    expect(pcs(s.run(4, 10))).toEqual([200, 100, 0, 0]);
  });

  it('backup mode charges up to the reserve and holds it, never discharging', () => {
    const s = new Site(station, { soc: 50 });
    s.set('ems', { operating_mode: 'backup', backup_reserve_pct: 55 });
    const rs = s.run(120);
    expect(Math.min(...pcs(rs))).toBeLessThan(0);
    expect(Math.max(...pcs(rs))).toBe(0);
    expect(Math.max(...soc(rs))).toBeLessThanOrEqual(55.1);
    expect(soc(rs).at(-1)).toBeGreaterThan(54.5);
    expect(pcs(rs).slice(-3)).toEqual([0, 0, 0]);
  });
});

describe('demand control of the site billed on its maximum demand (fleet.ts demandLimitKwOf)', () => {
  it('starts with a target just under its usual peak, in the gateway’s parameters and the model alike', () => {
    expect(ci.siteCode).toBe('SHA-C001');
    // seed 1: 1,260,000 kWh/a, half round the clock → usual peak 205 kW → 90 %, down to 10 kW
    expect(ci.demandLimitKw).toBe(180);
    expect(ci.demandLimitKw).toBe(demandLimitKwOf(ci.annualLoadKwh, ci.baseLoadShare!));
    const s = new Site(ci);
    expect(s.params.devices[ci.gatewaySn]!.values.demand_limit_kw).toBe(180);
    expect(s.state.settings.demandLimitKw).toBe(180);
    for (const other of [household, station, ...fleet.filter((f) => f.kind === 'ci' && f !== ci)]) {
      expect(
        initialGatewayParams(other).devices[other.gatewaySn]!.values.demand_limit_kw,
        other.siteCode,
      ).toBe(0);
    }
  });

  it('charging is held so that grid import stays at the target; without it the charge sets a higher peak', () => {
    // a July workday morning, 09:00–11:00, the load's peak hours (load less PV about 150–220 kW), with
    // a charge setpoint at full PCS power: the demand rule raises it to keep import at 180 kW
    const charge = (target?: number) => {
      const s = new Site(ci, { soc: 30, start: JULY_MIDNIGHT_CN + 9 * 3600_000 });
      s.set('ems', { operating_mode: 'manual', manual_power_kw: -100 });
      if (target !== undefined) s.set('ems', { demand_limit_kw: target });
      return s.run(720, 10);
    };
    const held = charge();
    expect(Math.max(...grid(held)), 'import held at the target').toBeLessThanOrEqual(180.5);
    // where load − PV is under the target it charges, by less than asked …
    expect(Math.min(...pcs(held))).toBeLessThan(-10);
    expect(Math.min(...pcs(held))).toBeGreaterThan(-90);
    // … and where it is over, it discharges instead of charging: the peak is shaved
    expect(Math.max(...pcs(held))).toBeGreaterThan(10);
    const free = charge(0);
    expect(Math.min(...pcs(free))).toBe(-100);
    expect(Math.max(...grid(free)), 'without a target the charge sets the peak').toBeGreaterThan(250);
  });
});

describe('the air conditioner and the BMS obey theirs', () => {
  it('the cabinet’s AC starts cooling at the new cooling start value and stops at the new stop value', () => {
    const s = new Site(ci, { start: JULY_MIDNIGHT_CN + 10 * 3600_000 });
    s.state = { ...s.state, cabinetC: 27, acState: 0 };
    const before = new Site(ci, { start: JULY_MIDNIGHT_CN + 10 * 3600_000 });
    before.state = s.state;
    expect(before.run(1, 10)[0]!.readings.air_conditioner).toMatchObject({ state: 0, cooling_start_c: 28 });

    s.set('air_conditioner', { cooling_start_c: 26, cooling_stop_c: 24.5 });
    const [next] = s.run(1, 10);
    expect(next!.readings.air_conditioner).toMatchObject({ state: 1, cooling_start_c: 26 });
    const rs = s.run(1440, 10);
    const temps = rs.map((r) => r.readings.air_conditioner.t_return_c!);
    const states = rs.map((r) => r.readings.air_conditioner.state);
    expect(states).toContain(0); // it stopped …
    // … once the cabinet was down to the new stop value (not 3 K below the start, the old fixed band)
    expect(Math.min(...temps)).toBeLessThanOrEqual(24.5);
    expect(Math.min(...temps)).toBeGreaterThanOrEqual(24.2);
    expect(Math.max(...temps.slice(180))).toBeLessThan(27); // and restarted below the default start (28 °C)
  });

  it('a lower cell over-voltage warning value raises the alarm at the new value', () => {
    const charge = (warningV?: number) => {
      const s = new Site(household, { soc: 85 });
      s.set('ems', { operating_mode: 'manual', manual_power_kw: -5 });
      if (warningV !== undefined) s.set('bms', { cell_ov_warning_v: warningV });
      return s.run(90).flatMap((r) => r.events);
    };
    const ov = (events: ReturnType<typeof charge>) =>
      events.filter((e) => e.code === 'bms.cell_overvoltage' && e.kind === 'produce');
    expect(ov(charge())).toEqual([]);
    const raised = ov(charge(3.45));
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ level: 'warning' });
    expect(raised[0]!.content).toContain('limit ≥ 3.450 V');
    expect(raised[0]!.value).toBeGreaterThanOrEqual(3.45);
  });
});
