/**
 * One simulated site gateway (its EMS) on MQTT: one mqtt.js client per site, speaking device
 * protocol v1 (docs/device-protocol.md).
 *
 * - Connects with client id = username = the gateway SN, password = its secret, clean session
 *   false, keep-alive 60 s, and the protocol's last will (`{online:false, reason:'lwt'}`,
 *   retained, QoS 1, on `ess/v1/<SN>/status`). User name and password in the broker URL are
 *   ignored (mqtt.js would let them override the gateway's own: with the server's `MQTT_URL`, every
 *   demo gateway would log in as the server, which the broker's ACL rightly refuses). A refused
 *   connection is retried like a lost one (every 2 s).
 * - On every (re)connect: subscribes to `ess/v1/<SN>/cmd`, then publishes its birth retained.
 * - `advance(simNowMs)` steps the site model (fixed `stepS` of simulated time) up to the
 *   simulation clock; publishes telemetry every `intervalS` of simulated time (BMS cell arrays
 *   on every 5th message) and alarm events as soon as a step raises or clears them.
 * - Answers commands on `cmd/reply` (payloads.ts `handleCommand`), `debug_frame` after its bus
 *   time (or its timeout, when no device answers).
 * - Keeps its devices' parameters (params.ts): in a JSON file per gateway in `paramsDir` when
 *   given (so they survive a restart), the model following them; publishes each device's
 *   `params` report (`cause: 'startup'`) after every birth, and (`cause: 'local'`) after a
 *   change made on the device ({@link SimGateway.localChange}, a register write).
 * - Firmware upgrades (ota.ts `OtaAgent`): `ota_upgrade` answered at once, then a real HTTP
 *   download with resume, progress events on `ess/v1/<SN>/ota`, and a reboot: the gateway's own
 *   upgrade ends its MQTT connection (clean death) for the reboot time and reconnects with a
 *   birth carrying the new firmware; a device behind it drops out of telemetry for that time,
 *   then the gateway publishes its birth again. What each device runs is kept in
 *   `paramsDir/<SN>.firmware.json` when `paramsDir` is given.
 * - Test switches: {@link SimGateway.refuseParam} (a device refuses a key with its own reason),
 *   {@link SimGateway.silence} (a command name is never answered), {@link SimGateway.localChange}
 *   (drift).
 * - `stop()` publishes `{online:false, reason:'clean'}` retained, then disconnects.
 *
 * Timestamps (`ts`) are the device clock: simulation time plus the offset set by `time_sync`.
 * Message ids are unique per gateway across restarts (the server deduplicates by them): the
 * start's stamp (device time at construction, base 36) and one counter (telemetry
 * `"<stamp>-<n>"`, events `"e-<stamp>-<n>"`).
 * While disconnected, QoS 1 messages are queued by mqtt.js (bounded by `maxOfflineQueue`;
 * beyond that telemetry is dropped and counted) and sent after the reconnect; before the first
 * subscription (the gateway never connected yet, e.g. refused) nothing is queued (dropped and
 * counted).
 *
 * Dropouts (`dropouts: true`, the demo's flaky gateway): in the outage windows of
 * {@link dropoutAt} (simulation time) the gateway loses its connection without a DISCONNECT
 * (the broker publishes its last will), stays away for the window's minutes and reconnects; what
 * it measured meanwhile is kept (bounded like the offline queue) and sent after its birth, as a
 * gateway with local storage does.
 */
import {
  type CommandName,
  deviceTopic,
  type ParamChangeResult,
  type ParamsSnapshot,
  type ParamValue,
  PROTOCOL_VERSION,
} from '@ess/contract';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { FleetSite } from './fleet';
import { deriveSeed, Rng } from './model/random';
import {
  applySettings,
  clearFault,
  type FaultKind,
  injectFault,
  type SiteReadings,
  type SiteState,
  step,
} from './model/site';
import {
  loadFirmware,
  OtaAgent,
  type OtaEvent,
  type OtaOptions,
  type OtaTestFailure,
  saveFirmware,
} from './ota';
import {
  brokerAddressOf,
  changeParams,
  type GatewayParams,
  hasParams,
  initialGatewayParams,
  loadGatewayParams,
  saveGatewayParams,
  settingsOf,
  snapshotOf,
} from './params';
import { buildEvents, buildParamsReport, buildStatus, buildTelemetry, handleCommand } from './payloads';

/** Minimal logger (pino-compatible: `logger.info('text')`). */
export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** The simulation clock shared by a fleet. */
export interface SimClock {
  /** Simulated seconds per real second. */
  readonly speed: number;
  /** Simulation time now, UTC ms. */
  now(): number;
}

export interface GatewayStats {
  connected: boolean;
  connects: number;
  telemetry: number;
  events: number;
  commands: number;
  /** Messages dropped: the offline queue was full, or the gateway never connected yet. */
  dropped: number;
  errors: number;
  /** Connections it dropped on purpose ({@link GatewayOptions.dropouts}). */
  dropouts: number;
}

/** Chance per simulated hour that the flaky gateway drops its connection. */
const DROPOUT_CHANCE_PER_HOUR = 1 / 8;

/**
 * The outage window (simulation time, UTC ms, `[fromMs, toMs)`) of gateway `sn` holding
 * `simMs`, or null: per UTC hour a 1-in-8 chance of an outage starting in its first 50 minutes
 * and lasting 3–9 minutes. Pure: the same seed, SN and hour always give the same outage.
 */
export function dropoutAt(seed: number, sn: string, simMs: number): { fromMs: number; toMs: number } | null {
  const hour = Math.floor(simMs / 3_600_000);
  for (const h of [hour, hour - 1]) {
    const r = Rng.fromSeed(deriveSeed(seed, `${sn}/dropout/${h}`));
    if (!r.chance(DROPOUT_CHANCE_PER_HOUR)) continue;
    const fromMs = h * 3_600_000 + r.int(0, 50) * 60_000;
    const toMs = fromMs + r.int(3, 9) * 60_000;
    if (simMs >= fromMs && simMs < toMs) return { fromMs, toMs };
  }
  return null;
}

export interface GatewayOptions {
  site: FleetSite;
  url: string;
  /** The gateway's secret (MQTT password); undefined connects without a password (test brokers). */
  secret: string | undefined;
  /** Initial model state (sim-site.ts `createSimSite`). */
  state: SiteState;
  /** Simulation clock (for command replies and time_sync); default: the model's last step time. */
  clock?: SimClock;
  /** Seconds of simulated time between telemetry messages (default 60). */
  intervalS?: number;
  /** Model step, seconds of simulated time (default 10; at most `intervalS`). */
  stepS?: number;
  /** BMS cell arrays on every n-th telemetry message (default 5). */
  cellsEvery?: number;
  maxOfflineQueue?: number;
  logger?: Logger;
  /** Extra mqtt.js options (e.g. `reconnectPeriod` in tests). */
  mqtt?: Partial<IClientOptions>;
  /** Drop the connection now and then ({@link dropoutAt}, seeded by `seed`); default false. */
  dropouts?: boolean;
  /** Seed of the dropouts (default 1). */
  seed?: number;
  /**
   * Folder of the devices' parameter files (`<gatewaySn>.json`, params.ts): read at start,
   * written at every change. Absent: the parameters live only as long as the gateway. The
   * devices' firmware is kept there too (`<gatewaySn>.firmware.json`, ota.ts).
   */
  paramsDir?: string;
  /** Firmware upgrades: SOC threshold, phase times, download tuning (ota.ts). */
  ota?: OtaOptions;
}

const MAX_STEPS_PER_ADVANCE = 20_000;

export class SimGateway {
  readonly site: FleetSite;
  readonly sn: string;
  readonly intervalS: number;
  readonly stepS: number;
  /** Current model state (read it, don't mutate it). */
  state: SiteState;
  /** Device clock − simulation clock, ms (set by `time_sync`). */
  clockOffsetMs = 0;
  readonly stats: GatewayStats = {
    connected: false,
    connects: 0,
    telemetry: 0,
    events: 0,
    commands: 0,
    dropped: 0,
    errors: 0,
    dropouts: 0,
  };

  private readonly opts: GatewayOptions;
  /** Prefix of this start's message ids (device time at construction, base 36). */
  private readonly stamp: string;
  /** In an outage: the connection was dropped on purpose; messages wait in `backlog`. */
  private away = false;
  private backlog: Array<{ topic: string; payload: object; retain: boolean }> = [];
  /** Reconnecting at the end of an outage (still `away` until connected). */
  private returning = false;
  /** Settles `start()` once subscribed (or at the first error). */
  private onReady: (() => void) | undefined;
  private readonly log: Logger;
  private client: MqttClient | undefined;
  private seq = 0;
  private telemetryCount = 0;
  private nextTelemetryMs: number;
  private offlineQueued = 0;
  private lastError = '';
  private stopping = false;
  /** Subscribed to its `cmd` topic once (the broker keeps the subscription in the session). */
  private subscribed = false;
  /** The devices' parameters (what get_params answers; the model follows them). */
  private deviceParams: GatewayParams;
  /** Readings of the last model step (the register map's input registers). */
  private readings: SiteReadings | undefined;
  private readonly refusals = new Map<string, Map<string, string>>();
  private readonly silenced = new Set<string>();
  private readonly pendingReplies = new Set<ReturnType<typeof setTimeout>>();
  /** What each device runs, by SN (the gateway's own included). */
  private firmwareBySn: Record<string, string>;
  /** The gateway's upgrades. */
  readonly ota: OtaAgent;
  /** Rebooting after its own upgrade: offline on purpose, reconnecting when the time is up. */
  private rebooting = false;
  /** Devices behind the gateway rebooting after an upgrade (left out of telemetry). */
  private readonly rebootingDevices = new Set<string>();
  private readonly rebootTimers = new Set<ReturnType<typeof setTimeout>>();
  /** Called after each birth is published. */
  private readonly birthWaiters: Array<() => void> = [];

  constructor(opts: GatewayOptions) {
    this.opts = opts;
    this.site = opts.site;
    this.sn = opts.site.gatewaySn;
    this.state = opts.state;
    this.intervalS = opts.intervalS ?? 60;
    this.stepS = Math.min(opts.stepS ?? 10, this.intervalS);
    if (!(this.stepS > 0) || !(this.intervalS >= 1))
      throw new RangeError('intervalS ≥ 1 and stepS > 0 required');
    const intervalMs = this.intervalS * 1000;
    this.nextTelemetryMs = Math.floor(this.state.timeMs / intervalMs) * intervalMs + intervalMs;
    this.log = opts.logger ?? silentLogger;
    this.stamp = Math.max(0, this.deviceTime(this.state.timeMs)).toString(36);
    const broker = brokerAddressOf(opts.url);
    this.deviceParams = opts.paramsDir
      ? loadGatewayParams(opts.paramsDir, this.site, broker, (m) => this.log.warn(`${this.sn}: ${m}`))
      : initialGatewayParams(this.site, broker);
    this.state = applySettings(this.state, settingsOf(this.deviceParams));
    this.firmwareBySn = loadFirmware(opts.paramsDir, this.site, (m) => this.log.warn(`${this.sn}: ${m}`));
    this.ota = new OtaAgent(
      {
        site: this.site,
        publish: (e) => this.publishOta(e),
        readings: () => this.readings,
        speed: () => this.opts.clock?.speed ?? 1,
        firmware: (sn) => this.firmwareBySn[sn] ?? '',
        install: (sn, version) => this.install(sn, version),
        reboot: (sn, offMs) => this.reboot(sn, offMs),
        log: (m) => this.log.info(m),
      },
      opts.ota,
    );
  }

  /** Firmware device `sn` (the gateway or a device behind it) runs now; undefined for another SN. */
  firmwareOf(sn: string): string | undefined {
    return this.firmwareBySn[sn];
  }

  /**
   * Test switch: upgrades of `deviceSn` (every device when omitted) fail in way `mode` (ota.ts
   * `OTA_TEST_FAILURES`) until {@link clearOtaFailures}.
   */
  failOta(mode: OtaTestFailure, deviceSn?: string): void {
    this.ota.failWith(mode, deviceSn);
  }

  /** Test switch: the next download of `deviceSn` (of any device) drops its connection halfway, once. */
  dropOtaDownloadOnce(deviceSn?: string): void {
    this.ota.dropOnce(deviceSn);
  }

  /** Ends the OTA test switches (of one device, or all). */
  clearOtaFailures(deviceSn?: string): void {
    this.ota.clearFailures(deviceSn);
  }

  /** Device `sn` now runs `version`: kept (file when `paramsDir`), reported in the next birth. */
  private install(sn: string, version: string): void {
    this.firmwareBySn = { ...this.firmwareBySn, [sn]: version };
    if (this.opts.paramsDir) {
      try {
        saveFirmware(this.opts.paramsDir, this.sn, this.firmwareBySn);
      } catch (e) {
        this.fail(`firmware not saved: ${(e as Error).message}`);
      }
    }
  }

  /** Publishes an upgrade progress event on `ess/v1/<SN>/ota`. */
  private publishOta(e: OtaEvent): void {
    this.publish(
      deviceTopic(this.sn, 'ota'),
      {
        v: PROTOCOL_VERSION,
        id: `o-${this.stamp}-${++this.seq}`,
        ts: this.deviceTime(this.opts.clock?.now() ?? this.state.timeMs),
        ...e,
      },
      false,
    );
  }

  /** The birth payload now (what every device runs). */
  private birth(): object {
    return buildStatus(this.site, this.deviceTime(this.opts.clock?.now() ?? this.state.timeMs), true, {
      intervalS: this.intervalS,
      firmware: this.firmwareBySn,
    });
  }

  /** Resolves after the next birth is published (or at once when stopping). */
  private nextBirth(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => this.birthWaiters.push(resolve));
  }

  /**
   * The reboot after an upgrade. The gateway itself: clean death (retained), MQTT connection
   * closed for `offMs`, then reconnect (birth with the new firmware; what it measured meanwhile
   * follows, as after a dropout). A device behind it: out of telemetry for `offMs`, then the
   * gateway's birth again. Resolves once that birth is published.
   */
  private async reboot(sn: string, offMs: number): Promise<void> {
    const client = this.client;
    if (!client || this.stopping) return;
    const back = this.nextBirth();
    if (sn !== this.sn) {
      this.rebootingDevices.add(sn);
      const t = setTimeout(() => {
        this.rebootTimers.delete(t);
        this.rebootingDevices.delete(sn);
        this.publish(deviceTopic(this.sn, 'status'), this.birth(), true);
        this.births();
      }, offMs);
      this.rebootTimers.add(t);
      return back;
    }
    this.rebooting = true;
    this.log.info(`${this.sn}: rebooting for ${offMs} ms`);
    if (client.connected && !this.away) {
      const death = buildStatus(
        this.site,
        this.deviceTime(this.opts.clock?.now() ?? this.state.timeMs),
        false,
        {
          reason: 'clean',
        },
      );
      await Promise.race([
        client
          .publishAsync(deviceTopic(this.sn, 'status'), JSON.stringify(death), { qos: 1, retain: true })
          .catch(() => {}),
        sleep(3000),
      ]);
    }
    this.away = true; // what it measures meanwhile waits in the backlog
    // The old connection ends (DISCONNECT once what is in flight is acknowledged; cut after 5 s)
    // and a new one is made after the reboot, as a restarted device does.
    client.removeAllListeners('connect');
    client.removeAllListeners('message');
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => client.end(true), 5000);
      const gone = setTimeout(resolve, 6000); // already closed: no 'close' comes
      client.once('close', () => {
        clearTimeout(cut);
        clearTimeout(gone);
        resolve();
      });
      client.end(false);
    });
    client.removeAllListeners('close');
    if (this.stopping) return;
    const t = setTimeout(() => {
      this.rebootTimers.delete(t);
      if (this.stopping) return;
      this.rebooting = false;
      this.returning = true;
      this.client = this.connect();
    }, offMs);
    this.rebootTimers.add(t);
    return back;
  }

  /** Tells the birth waiters. */
  private births(): void {
    for (const w of this.birthWaiters.splice(0)) w();
  }

  /** The devices' parameters now (read them, don't mutate them). */
  get params(): GatewayParams {
    return this.deviceParams;
  }

  /** What device `deviceSn` runs now; undefined for a device the gateway does not have. */
  paramsOf(deviceSn: string): ParamsSnapshot | undefined {
    return snapshotOf(this.deviceParams, deviceSn);
  }

  /**
   * Test switch: device `deviceSn` refuses every change of `key` with `reason` (its own, in
   * English: no validator message) until {@link clearRefusals}.
   */
  refuseParam(deviceSn: string, key: string, reason: string): void {
    const keys = this.refusals.get(deviceSn) ?? new Map<string, string>();
    keys.set(key, reason);
    this.refusals.set(deviceSn, keys);
  }

  /** Ends the refusals of {@link refuseParam} (of one device, or all). */
  clearRefusals(deviceSn?: string): void {
    if (deviceSn) this.refusals.delete(deviceSn);
    else this.refusals.clear();
  }

  /**
   * Test switch: commands named `name` are dropped unanswered (and not carried out), as by a
   * gateway that never replies, until {@link unsilence}.
   */
  silence(name: CommandName): void {
    this.silenced.add(name);
  }

  /** Answers commands named `name` again (all names when omitted). */
  unsilence(name?: CommandName): void {
    if (name) this.silenced.delete(name);
    else this.silenced.clear();
  }

  /**
   * A change made on the device itself (its own screen; drift as the server sees it): each
   * value through the contract's validator, the version unchanged; when a value changed, the
   * model follows and a `params` report (`cause: 'local'`, `changed`) is published. Returns the
   * per-key results. Throws for a device the gateway does not have.
   */
  localChange(
    deviceSn: string,
    values: Readonly<Record<string, ParamValue>>,
  ): Record<string, ParamChangeResult> {
    const out = changeParams(this.deviceParams, deviceSn, values);
    if (out.changed.length > 0) {
      this.setParams(out.params);
      this.reportParams(deviceSn, 'local', out.changed);
    }
    return out.results;
  }

  /** Takes new parameters: the model follows, the file is written. */
  private setParams(params: GatewayParams): void {
    this.deviceParams = params;
    this.state = applySettings(this.state, settingsOf(params));
    if (this.opts.paramsDir) {
      try {
        saveGatewayParams(this.opts.paramsDir, this.sn, params);
      } catch (e) {
        this.fail(`parameters not saved: ${(e as Error).message}`);
      }
    }
  }

  /** Publishes the `params` report of `deviceSn`. */
  private reportParams(deviceSn: string, cause: 'local' | 'startup', changed?: string[]): void {
    const payload = buildParamsReport(this.deviceParams, deviceSn, {
      id: `p-${this.stamp}-${++this.seq}`,
      ts: this.deviceTime(this.opts.clock?.now() ?? this.state.timeMs),
      cause,
      ...(changed ? { changed } : {}),
    });
    if (payload) this.publish(deviceTopic(this.sn, 'params'), payload, false);
  }

  /** Device clock for simulation time `simMs`. */
  deviceTime(simMs: number): number {
    return Math.round(simMs + this.clockOffsetMs);
  }

  /**
   * Connects. Resolves once connected and subscribed to its `cmd` topic (so that what it
   * publishes next is sent, not dropped), or at the first error (the client keeps retrying in
   * the background); never rejects.
   */
  start(): Promise<void> {
    const client = this.connect();
    return new Promise((resolve) => {
      const done = () => {
        this.onReady = undefined;
        client.off('error', done);
        resolve();
      };
      this.onReady = done;
      client.on('error', done);
    });
  }

  /** A new MQTT client of this gateway, connecting, with its handlers (the connection of {@link start}). */
  private connect(): MqttClient {
    const statusTopic = deviceTopic(this.sn, 'status');
    const client = mqtt.connect(withoutCredentials(this.opts.url), {
      clientId: this.sn,
      username: this.sn,
      ...(this.opts.secret !== undefined ? { password: this.opts.secret } : {}),
      clean: false,
      keepalive: 60,
      protocolVersion: 4,
      reconnectPeriod: 2000,
      // Refused (unknown user or wrong secret): keep trying, as a device does; the broker may
      // learn the secret later (an external broker's password file).
      reconnectOnConnackError: true,
      connectTimeout: 10_000,
      will: {
        topic: statusTopic,
        payload: Buffer.from(
          JSON.stringify(
            buildStatus(this.site, this.deviceTime(this.state.timeMs), false, { reason: 'lwt' }),
          ),
        ),
        qos: 1,
        retain: true,
      },
      ...this.opts.mqtt,
    });
    this.client = client;
    client.on('connect', () => {
      this.stats.connected = true;
      this.stats.connects++;
      this.offlineQueued = 0;
      this.lastError = '';
      // Subscribed before the birth: the server sends commands (time_sync, the ToU plan) as soon
      // as it sees the gateway online.
      client.subscribe(deviceTopic(this.sn, 'cmd'), { qos: 1 }, (err) => {
        if (err) this.fail(`subscribe failed: ${err.message}`);
        this.subscribed = true;
        // back from a dropout: birth first, then what it measured while away, in order
        const backlog = this.backlog.splice(0);
        this.away = false;
        this.returning = false;
        this.publish(statusTopic, this.birth(), true);
        this.births();
        for (const m of backlog) this.publish(m.topic, m.payload, m.retain);
        // what each device runs, after every start and reconnect
        for (const d of this.site.devices) if (hasParams(d.type)) this.reportParams(d.sn, 'startup');
        this.onReady?.();
      });
    });
    client.on('close', () => {
      this.stats.connected = false;
    });
    client.on('error', (err) => this.fail(err.message));
    client.on('message', (topic, payload) => {
      if (topic === deviceTopic(this.sn, 'cmd')) this.onCommand(payload);
    });
    return client;
  }

  /**
   * Steps the model up to simulation time `simNowMs` and publishes what falls due. Steps are
   * aligned to multiples of `stepS`; at most 20,000 steps per call (a fleet far behind its clock
   * catches up over several calls).
   */
  advance(simNowMs: number): void {
    if (this.opts.dropouts) this.dropout(simNowMs);
    const stepMs = this.stepS * 1000;
    const intervalMs = this.intervalS * 1000;
    for (let n = 0; n < MAX_STEPS_PER_ADVANCE; n++) {
      const t = Math.floor(this.state.timeMs / stepMs) * stepMs + stepMs;
      if (t > simNowMs) return;
      const r = step(this.state, (t - this.state.timeMs) / 1000, t);
      this.state = r.state;
      this.readings = r.readings;
      if (r.events.length > 0) {
        this.stats.events += r.events.length;
        const ts = this.deviceTime(t);
        for (let i = 0; i < r.events.length; i += 64) {
          const payload = buildEvents(this.site, r.events.slice(i, i + 64), {
            id: `e-${this.stamp}-${++this.seq}`,
            ts,
          });
          this.publish(deviceTopic(this.sn, 'event'), payload, false);
        }
      }
      if (t >= this.nextTelemetryMs) {
        while (this.nextTelemetryMs <= t) this.nextTelemetryMs += intervalMs;
        this.telemetryCount++;
        const withCells = this.telemetryCount % (this.opts.cellsEvery ?? 5) === 0;
        const payload = buildTelemetry(this.site, r.readings, {
          id: `${this.stamp}-${++this.seq}`,
          ts: this.deviceTime(t),
          withCells,
          ...(this.rebootingDevices.size > 0 ? { skip: this.rebootingDevices } : {}),
        });
        if (this.publish(deviceTopic(this.sn, 'telemetry'), payload, false)) this.stats.telemetry++;
      }
    }
  }

  injectFault(kind: FaultKind): void {
    this.state = injectFault(this.state, kind);
    this.log.info(`${this.sn}: fault injected: ${kind}`);
  }

  clearFault(kind?: FaultKind): void {
    this.state = clearFault(this.state, kind);
    this.log.info(`${this.sn}: fault cleared: ${kind ?? 'all'}`);
  }

  /** Publishes `{online:false, reason:'clean'}` (if connected) and disconnects. */
  async stop(): Promise<void> {
    const client = this.client;
    if (!client || this.stopping) return;
    this.stopping = true;
    this.ota.stop();
    for (const t of this.pendingReplies) clearTimeout(t);
    this.pendingReplies.clear();
    for (const t of this.rebootTimers) clearTimeout(t);
    this.rebootTimers.clear();
    this.births();
    if (client.connected) {
      const death = buildStatus(this.site, this.deviceTime(this.state.timeMs), false, { reason: 'clean' });
      await Promise.race([
        client
          .publishAsync(deviceTopic(this.sn, 'status'), JSON.stringify(death), { qos: 1, retain: true })
          .catch(() => {}),
        sleep(3000),
      ]);
      await Promise.race([client.endAsync(), sleep(3000)]);
    }
    client.end(true);
    this.stats.connected = false;
  }

  /** Drops the connection at the start of an outage window, reconnects at its end. */
  private dropout(simNowMs: number): void {
    const client = this.client;
    if (!client || this.stopping || this.rebooting) return;
    const out = dropoutAt(this.opts.seed ?? 1, this.sn, simNowMs) !== null;
    if (out && !this.away && client.connected) {
      this.away = true;
      this.stats.dropouts++;
      this.log.info(`${this.sn}: connection dropped (simulated outage)`);
      client.end(true); // no DISCONNECT: the broker publishes the last will
    } else if (!out && this.away && !this.returning) {
      this.returning = true; // messages keep going to the backlog until it is sent after the birth
      client.reconnect();
    }
  }

  private publish(topic: string, payload: object, retain: boolean): boolean {
    const client = this.client;
    if (!client || this.stopping) return false;
    if (this.away) {
      if (this.backlog.length >= (this.opts.maxOfflineQueue ?? 5000)) {
        this.stats.dropped++;
        return false;
      }
      this.backlog.push({ topic, payload, retain });
      return true;
    }
    if (!this.subscribed) {
      // Never connected yet: nothing is queued before the first subscription (a device
      // subscribes before it publishes, or a command sent at its first message would be lost).
      this.stats.dropped++;
      return false;
    }
    if (!client.connected) {
      if (this.offlineQueued >= (this.opts.maxOfflineQueue ?? 5000)) {
        this.stats.dropped++;
        return false;
      }
      this.offlineQueued++;
    }
    client.publish(topic, JSON.stringify(payload), { qos: 1, retain }, (err) => {
      if (err && !this.stopping) this.fail(`publish to ${topic} failed: ${err.message}`);
    });
    return true;
  }

  private onCommand(raw: Buffer): void {
    this.stats.commands++;
    if (this.silenced.size > 0) {
      const name = commandName(raw);
      if (name !== undefined && this.silenced.has(name)) {
        this.log.info(`${this.sn}: command ${name} dropped unanswered (silenced)`);
        return;
      }
    }
    const out = handleCommand(
      {
        state: this.state,
        clockOffsetMs: this.clockOffsetMs,
        simNowMs: this.opts.clock?.now() ?? this.state.timeMs,
        devices: {
          site: this.site,
          params: this.deviceParams,
          ...(this.readings ? { readings: this.readings } : {}),
          refusals: this.refusals,
        },
        ota: (params) => this.ota.command(params),
      },
      raw,
    );
    this.state = out.state;
    this.clockOffsetMs = out.clockOffsetMs;
    if (out.params) this.setParams(out.params);
    for (const c of out.localChanges ?? []) this.reportParams(c.deviceSn, 'local', c.changed);
    if (out.reply) {
      const reply = out.reply;
      const send = () => {
        this.publish(deviceTopic(this.sn, 'reply'), reply, false);
        this.log.info(
          `${this.sn}: command ${out.name ?? '?'} ${reply.ok ? 'ok' : `refused: ${reply.error ?? ''}`}`,
        );
      };
      if (out.delayMs) {
        const timer = setTimeout(() => {
          this.pendingReplies.delete(timer);
          send();
        }, out.delayMs);
        this.pendingReplies.add(timer);
      } else {
        send();
      }
    } else {
      this.log.warn(`${this.sn}: dropped a command message without JSON or id`);
    }
  }

  private fail(message: string): void {
    this.stats.errors++;
    if (message !== this.lastError) this.log.warn(`${this.sn}: ${message}`);
    this.lastError = message;
  }
}

const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** The `name` of a command message, if it has one. */
function commandName(raw: Buffer): string | undefined {
  try {
    const name = (JSON.parse(raw.toString()) as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** `url` without a user name and password (a gateway logs in as itself). */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
