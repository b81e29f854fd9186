/**
 * @ess/simulator: a deterministic simulated fleet of storage sites speaking device protocol v1
 * over MQTT, for the demo, tests and load tests.
 *
 * In-process use (the server seeds the same fleet into its registry and issues the secrets):
 *
 *     const sites = buildFleet({ seed: 1, sites: 5 });
 *     const fleet = await startFleet({ url: 'mqtt://127.0.0.1:1883', sites, credentials });
 *     fleet.injectFault('SHA-C001', 'overcharge');
 *     fleet.gateway('SHA-C001')?.refuseParam('AC-SHA-C001-01', 'cooling_start_c', 'locked on site');
 *     fleet.gateway('SHA-C001')?.failOta('checksum_mismatch', 'PCS-SHA-C001-01');
 *     await fleet.stop();
 *
 * Standalone: `npm run sim -- --url mqtt://host:1883 --sites 5` (cli.ts).
 */

import type { IClientOptions } from 'mqtt';
import type { FleetSite } from './fleet';
import { type GatewayStats, type Logger, type SimClock, SimGateway } from './gateway';
import { FAULT_KINDS, type FaultKind, type SiteState } from './model/site';
import type { OtaOptions } from './ota';
import { createSimSite } from './sim-site';

export {
  buildFleet,
  CITIES,
  DEVICE_FIRMWARE,
  deviceSn,
  type FleetDevice,
  type FleetOptions,
  type FleetSite,
  type SiteKind,
  TARIFF_OF_CITY,
} from './fleet';
export {
  dropoutAt,
  type GatewayOptions,
  type GatewayStats,
  type Logger,
  type SimClock,
  SimGateway,
  withoutCredentials,
} from './gateway';
export {
  HISTORY_STEP_S,
  type HistoryReading,
  historyAdvance,
  historyStart,
  historyStep,
  type ResumeValues,
  resumeSite,
} from './history';
export { PROFILES, type ProfileId } from './model/profiles';
export { type SiteSettings, settingsFromParams } from './model/settings';
export { FAULT_KINDS, type FaultKind, type SiteReadings, type SiteState } from './model/site';
export {
  DEFAULT_OTA_TIMINGS,
  firmwareFile,
  OTA_MIN_SOC_PCT,
  OTA_TEST_FAILURES,
  OtaAgent,
  type OtaOptions,
  type OtaStats,
  type OtaTestFailure,
  type OtaTimings,
} from './ota';
export { DownloadError, type DownloadResult, downloadPackage } from './ota-download';
export {
  type DeviceParams,
  type GatewayParams,
  initialGatewayParams,
  loadGatewayParams,
  paramsFile,
  saveGatewayParams,
} from './params';
export { buildEvents, buildParamsReport, buildStatus, buildTelemetry, handleCommand } from './payloads';
export { type BusDevice, REGISTER_MAP, type RegisterDef } from './registers';
export { createSimSite } from './sim-site';

export interface StartFleetOptions {
  /**
   * Broker URL, e.g. `mqtt://127.0.0.1:1883`. A user name and password in it are ignored: each
   * gateway logs in with its SN and its secret from `credentials`.
   */
  url: string;
  sites: FleetSite[];
  /**
   * Gateway SN → secret (MQTT password). A site without an entry is refused, unless
   * `allowMissingCredentials` (then it connects without a password: anonymous test brokers).
   */
  credentials: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  allowMissingCredentials?: boolean;
  /** Simulated seconds per real second (default 1; 60 → one telemetry message per second). */
  speed?: number;
  /** Seed of all randomness (default 1). Same seed, sites and start → same readings. */
  seed?: number;
  /** Simulation clock at start, UTC ms (default: now). */
  startTimeMs?: number;
  /** Simulated seconds between telemetry messages (default 60). */
  intervalS?: number;
  /** Model step, simulated seconds (default 10). */
  stepS?: number;
  /** Real milliseconds between clock ticks (default 100). */
  tickMs?: number;
  logger?: Logger;
  /** Extra mqtt.js options for every gateway. */
  mqtt?: Partial<IClientOptions>;
  /**
   * Model states to start from, by site code (a site's past computed by history.ts, or resumed
   * after a restart); other sites start fresh at `startTimeMs`. A state behind the clock is
   * stepped up to it at the first tick, publishing what falls due as it goes.
   */
  states?: ReadonlyMap<string, SiteState>;
  /**
   * One gateway drops off now and then (gateway.ts `dropoutAt`): the first household's, else
   * the last site's. Default false.
   */
  dropouts?: boolean;
  /**
   * Folder where each gateway keeps its devices' parameters (`<gatewaySn>.json`), so that they
   * survive a restart of the fleet (the demo: `DATA_DIR/demo-params`). Absent: kept in memory.
   */
  paramsDir?: string;
  /** Firmware upgrades of every gateway: SOC threshold, phase times, download tuning (ota.ts). */
  ota?: OtaOptions;
}

export interface RunningFleet {
  /** One gateway per site, in fleet order. */
  sites: SimGateway[];
  clock: SimClock;
  /** The gateway of a site code or gateway SN. */
  gateway(siteCodeOrSn: string): SimGateway | undefined;
  /** Provokes a fault at a site (site code or gateway SN); throws for an unknown site or kind. */
  injectFault(siteCodeOrSn: string, kind: FaultKind): void;
  /** Clears one injected fault, or all of them. */
  clearFault(siteCodeOrSn: string, kind?: FaultKind): void;
  /** Sum of the gateways' counters. */
  totals(): Omit<GatewayStats, 'connected'> & { connected: number };
  /** Stops the clock, publishes each gateway's clean death and disconnects. */
  stop(): Promise<void>;
}

/**
 * Starts a fleet: one MQTT gateway per site, all on one simulation clock. Resolves when every
 * gateway has connected or failed its first attempt (failed ones keep retrying). Throws (before
 * connecting anything) when a site has no credentials and `allowMissingCredentials` is not set.
 */
export async function startFleet(opts: StartFleetOptions): Promise<RunningFleet> {
  const speed = opts.speed ?? 1;
  if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
  const seed = opts.seed ?? 1;
  const startTimeMs = opts.startTimeMs ?? Date.now();
  const secretOf = (sn: string): string | undefined =>
    opts.credentials instanceof Map
      ? opts.credentials.get(sn)
      : (opts.credentials as Readonly<Record<string, string>>)[sn];
  const missing = opts.sites.filter((s) => secretOf(s.gatewaySn) === undefined).map((s) => s.gatewaySn);
  if (missing.length > 0 && !opts.allowMissingCredentials) {
    throw new Error(`no credentials for gateway(s) ${missing.join(', ')}`);
  }
  const realStart = performance.now();
  const clock: SimClock = {
    speed,
    now: () => startTimeMs + (performance.now() - realStart) * speed,
  };
  const flaky = opts.dropouts
    ? (opts.sites.find((s) => s.kind === 'household') ?? opts.sites.at(-1))?.siteCode
    : undefined;
  const sites = opts.sites.map(
    (site) =>
      new SimGateway({
        site,
        url: opts.url,
        secret: secretOf(site.gatewaySn),
        state: opts.states?.get(site.siteCode) ?? createSimSite(site, seed, startTimeMs),
        clock,
        seed,
        dropouts: site.siteCode === flaky,
        ...(opts.intervalS !== undefined ? { intervalS: opts.intervalS } : {}),
        ...(opts.stepS !== undefined ? { stepS: opts.stepS } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
        ...(opts.mqtt ? { mqtt: opts.mqtt } : {}),
        ...(opts.paramsDir ? { paramsDir: opts.paramsDir } : {}),
        ...(opts.ota ? { ota: opts.ota } : {}),
      }),
  );
  const bySite = new Map<string, SimGateway>();
  for (const g of sites) {
    bySite.set(g.site.siteCode, g);
    bySite.set(g.sn, g);
  }
  const find = (key: string): SimGateway => {
    const g = bySite.get(key);
    if (!g) throw new Error(`unknown site ${key}`);
    return g;
  };

  await Promise.all(sites.map((g) => g.start()));
  let ticking = false;
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    try {
      const now = clock.now();
      for (const g of sites) g.advance(now);
    } finally {
      ticking = false;
    }
  }, opts.tickMs ?? 100);
  let stopped: Promise<void> | undefined;

  return {
    sites,
    clock,
    gateway: (key) => bySite.get(key),
    injectFault(key, kind) {
      if (!FAULT_KINDS.includes(kind)) throw new Error(`unknown fault kind ${kind}`);
      find(key).injectFault(kind);
    },
    clearFault(key, kind) {
      find(key).clearFault(kind);
    },
    totals() {
      const t = {
        connected: 0,
        connects: 0,
        telemetry: 0,
        events: 0,
        commands: 0,
        dropped: 0,
        errors: 0,
        dropouts: 0,
      };
      for (const g of sites) {
        const s = g.stats;
        t.connected += s.connected ? 1 : 0;
        t.connects += s.connects;
        t.telemetry += s.telemetry;
        t.events += s.events;
        t.commands += s.commands;
        t.dropped += s.dropped;
        t.errors += s.errors;
        t.dropouts += s.dropouts;
      }
      return t;
    },
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await Promise.all(sites.map((g) => g.stop()));
      })();
      return stopped;
    },
  };
}
