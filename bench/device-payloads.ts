/**
 * Benchmark support: telemetry payloads of a bench site (the EMS gateway and five devices
 * behind it, 12 points each, like a C&I cabinet). No server imports: the publisher child
 * process loads it too.
 */
import type { DeviceType } from '@ess/contract';

export interface BenchGateway {
  sn: string;
  secret: string;
  devices: { sn: string; type: DeviceType }[];
}

/** Twelve points per device type (standard names first, then plausible extras). */
const POINTS: Record<DeviceType, [string, number, number][]> = {
  ems: [
    ['run_mode', 0, 3],
    ['p_setpoint_kw', -100, 100],
    ['soc_pct', 10, 95],
    ['p_grid_kw', -50, 300],
    ['p_load_kw', 20, 400],
    ['p_pv_kw', 0, 120],
    ['e_charge_today_kwh', 0, 400],
    ['e_discharge_today_kwh', 0, 400],
    ['alarm_count', 0, 5],
    ['cpu_pct', 1, 60],
    ['mem_pct', 20, 70],
    ['uptime_s', 1000, 9_000_000],
  ],
  pcs: [
    ['p_kw', -100, 100],
    ['q_kvar', -10, 10],
    ['pf', 0.9, 1],
    ['freq_hz', 49.9, 50.1],
    ['u_a_v', 225, 235],
    ['u_b_v', 225, 235],
    ['u_c_v', 225, 235],
    ['i_a_a', 0, 150],
    ['i_b_a', 0, 150],
    ['i_c_a', 0, 150],
    ['dc_u_v', 700, 850],
    ['t_igbt_c', 30, 80],
  ],
  bms: [
    ['soc_pct', 10, 95],
    ['soh_pct', 95, 100],
    ['u_pack_v', 700, 850],
    ['i_pack_a', -150, 150],
    ['u_cell_max_v', 3.3, 3.45],
    ['u_cell_min_v', 3.2, 3.3],
    ['u_cell_diff_mv', 5, 60],
    ['t_cell_max_c', 25, 40],
    ['t_cell_min_c', 18, 25],
    ['charge_limit_kw', 50, 110],
    ['discharge_limit_kw', 50, 110],
    ['insulation_kohm', 500, 3000],
  ],
  meter: [
    ['p_kw', -50, 300],
    ['q_kvar', -20, 20],
    ['pf', 0.9, 1],
    ['freq_hz', 49.9, 50.1],
    ['u_a_v', 225, 235],
    ['u_b_v', 225, 235],
    ['u_c_v', 225, 235],
    ['i_a_a', 0, 400],
    ['i_b_a', 0, 400],
    ['i_c_a', 0, 400],
    ['e_import_total_kwh', 100_000, 900_000],
    ['e_export_total_kwh', 1000, 90_000],
  ],
  pv: [],
  air_conditioner: [
    ['state', 0, 3],
    ['t_supply_c', 15, 25],
    ['t_return_c', 22, 32],
    ['cooling_start_c', 25, 40],
    ['heating_start_c', 5, 30],
    ['fault', 0, 1],
    ['t_indoor_c', 20, 30],
    ['rh_indoor_pct', 30, 70],
    ['p_kw', 0, 5],
    ['e_total_kwh', 1000, 30_000],
    ['fan_speed_pct', 0, 100],
    ['compressor_on', 0, 1],
  ],
  env_sensor: [
    ['t_c', 15, 35],
    ['rh_pct', 30, 80],
    ['smoke', 0, 1],
    ['water', 0, 1],
    ['door', 0, 1],
    ['t2_c', 15, 35],
    ['rh2_pct', 30, 80],
    ['co_ppm', 0, 5],
    ['pm25_ugm3', 5, 80],
    ['noise_db', 30, 70],
    ['light_lux', 0, 500],
    ['vibration_mg', 0, 20],
  ],
};

/** The devices of each bench site: the EMS gateway and five behind it. */
export const SITE_TYPES: DeviceType[] = ['ems', 'pcs', 'bms', 'meter', 'air_conditioner', 'env_sensor'];
export const POINTS_PER_MESSAGE = SITE_TYPES.reduce((n, t) => n + POINTS[t].length, 0);

/** Plausible readings: integers for flags and modes, otherwise 1–3 decimals. */
function reading(lo: number, hi: number, seed: number): number {
  const x = lo + ((Math.sin(seed) + 1) / 2) * (hi - lo);
  if (hi - lo <= 5 && Number.isInteger(lo) && Number.isInteger(hi)) return Math.round(x);
  const decimals = hi - lo < 1 ? 3 : hi - lo < 100 ? 2 : 1;
  return Number(x.toFixed(decimals));
}

/** One telemetry message of `gateway` (message number `i`, device time `ts`). */
export function telemetryPayload(
  gateway: BenchGateway,
  i: number,
  ts: number,
  override?: Record<string, number>,
): string {
  return JSON.stringify({
    v: 1,
    id: String(i),
    ts,
    devices: gateway.devices.map((d, k) => {
      const points: Record<string, number> = {};
      for (const [j, [name, lo, hi]] of POINTS[d.type].entries())
        points[name] = reading(lo, hi, i * 97 + k * 13 + j);
      if (override && d.type === 'pcs') Object.assign(points, override);
      return { sn: d.sn, type: d.type, points };
    }),
  });
}
