/**
 * The device side of the server, assembled: directory → broker transport (embedded aedes, or a
 * client of MQTT_URL) → ingest pipeline, connection tracker and command service.
 *
 * Plugin `ess-devices` ({@link devicesPlugin}, after `ess-db`) builds and starts it and closes it
 * in `onClose`, before the database. The heartbeat sweep (`tracker.sweep()`) is not timed here:
 * the scheduler runs it every {@link DeviceService.heartbeatSweepMs} (jobs/jobs-plugin.ts); a
 * service used alone (benchmarks, some tests) does not sweep unless told to.
 */
import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../core/db/database';
import { CommandService } from './commands';
import { ConnectionTracker, type StatusChange } from './connection-tracker';
import { DeviceDirectory, type DirectoryEntry } from './device-directory';
import { EmbeddedBroker } from './embedded-broker';
import { ExternalBroker } from './external-broker';
import { IngestPipeline } from './ingest';
import { ensurePartitions } from './telemetry-partitions';
import type { StoredEvent, TelemetryRow } from './telemetry-store';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The device side (plugin `ess-devices`); null when the app runs without it (some tests).
     * Tests that start their own service may put it here after the build.
     */
    devices: DeviceService | null;
  }
}

export interface DeviceServiceOptions {
  /** External broker; without it the embedded broker listens on `mqttPort`. */
  mqttUrl?: string | undefined;
  mqttPort: number;
  mqttHost?: string;
  heartbeatTimeoutMs?: number;
  /** How often the scheduler checks gateways against the heartbeat timeout (ms; default 15 s). */
  heartbeatSweepMs?: number;
  /** The clock the heartbeat timeout is measured on (ms since the epoch; default Date.now). */
  clock?: () => number;
  /**
   * Shared-subscription group of the ingest subscriptions on an external broker (default
   * `ess-ingest`). Instances on one database share a group; a separate deployment on the same
   * broker (or a test) needs its own, or it receives messages of devices it does not know.
   */
  mqttShareGroup?: string;
  /** How long a command waits for its reply (ms; default COMMAND_TIMEOUT_MS, 10 s). */
  commandTimeoutMs?: number;
}

export interface DeviceListeners {
  onStored?(rows: (TelemetryRow & { siteId: number })[]): void;
  onEvents?(events: StoredEvent[]): void;
  /** A gateway came online or went offline. */
  onStatus?(change: StatusChange): void;
  /** A gateway already online announced itself online again (connection-tracker.ts). */
  onReannounce?(change: StatusChange): void;
}

/** Default of {@link DeviceServiceOptions.heartbeatSweepMs}. */
export const DEFAULT_HEARTBEAT_SWEEP_MS = 15_000;

/** Minimum time between two automatic time-sync commands to one gateway. */
const TIME_SYNC_EVERY_MS = 10 * 60_000;

export class DeviceService {
  readonly directory: DeviceDirectory;
  readonly tracker: ConnectionTracker;
  readonly commands: CommandService;
  readonly ingest: IngestPipeline;
  private embedded: EmbeddedBroker | null = null;
  private external: ExternalBroker | null = null;
  private lastTimeSync = new Map<number, number>();
  private readonly listeners = new Set<DeviceListeners>();

  constructor(
    db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly options: DeviceServiceOptions,
  ) {
    this.directory = new DeviceDirectory(db);
    this.tracker = new ConnectionTracker(
      db,
      this.directory,
      log,
      {
        onChange: (change) => {
          for (const l of this.listeners) l.onStatus?.(change);
        },
        onReannounce: (change) => {
          for (const l of this.listeners) l.onReannounce?.(change);
        },
        onClockSkew: (gateway) => this.timeSync(gateway),
      },
      options.heartbeatTimeoutMs,
      options.clock,
    );
    this.commands = new CommandService(
      this.directory,
      this.tracker,
      () => Promise.reject(new Error('the device transport is not started')),
      options.commandTimeoutMs,
    );
    this.ingest = new IngestPipeline(db, this.directory, log, {
      onSeen: (gateway) => this.tracker.seen(gateway),
      onClockSkew: (gateway) => this.timeSync(gateway),
      onStored: (rows) => {
        for (const l of this.listeners) l.onStored?.(rows);
      },
      onEvents: (events) => {
        for (const l of this.listeners) l.onEvents?.(events);
      },
    });
  }

  /** Subscribes to stored telemetry, events and connection changes; answers an unsubscribe. */
  listen(listener: DeviceListeners): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How often gateways are to be checked against the heartbeat timeout (`tracker.sweep()`), ms. */
  get heartbeatSweepMs(): number {
    return this.options.heartbeatSweepMs ?? DEFAULT_HEARTBEAT_SWEEP_MS;
  }

  /** Where devices connect: the embedded broker's port, or the external URL. */
  /** Telemetry/event messages acknowledged to an external broker (null on the embedded one). */
  get acknowledgedData(): number | null {
    return this.external ? this.external.acknowledgedData : null;
  }

  get brokerAddress(): { url?: string; port?: number } {
    return this.external ? { url: this.options.mqttUrl } : { port: this.embedded?.port };
  }

  async start(): Promise<void> {
    await this.directory.refresh();
    await this.tracker.start();
    const handlers = {
      telemetry: (sn: string, kind: 'telemetry' | 'event', payload: Buffer) =>
        this.ingest.accept(sn, kind, payload),
      status: (gateway: DirectoryEntry, payload: Buffer, retained?: boolean) =>
        this.tracker.handleStatus(gateway, payload, retained),
      reply: (payload: Buffer) => this.commands.handleReply(payload),
      disconnected: (gateway: DirectoryEntry, clean: boolean) => this.tracker.disconnected(gateway, clean),
    };
    if (this.options.mqttUrl) {
      const url = new URL(this.options.mqttUrl);
      const credentials = {
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      };
      url.username = '';
      url.password = '';
      this.external = new ExternalBroker(
        url.toString(),
        this.directory,
        handlers,
        this.log,
        credentials,
        this.options.mqttShareGroup,
      );
      await this.external.connect();
      this.commands.setPublisher((t, p, o) => this.external!.publish(t, p, o));
      this.log.info({ url: url.toString() }, 'connected to the external MQTT broker');
    } else {
      this.embedded = new EmbeddedBroker(this.directory, handlers, this.log);
      const port = await this.embedded.listen(this.options.mqttPort, this.options.mqttHost);
      this.commands.setPublisher((t, p, o) => this.embedded!.publish(t, p, o));
      this.log.info({ port }, 'embedded MQTT broker listening');
    }
  }

  async close(): Promise<void> {
    this.commands.close();
    await this.embedded?.close();
    await this.external?.close();
    await this.ingest.close();
  }

  private timeSync(gateway: DirectoryEntry): void {
    const last = this.lastTimeSync.get(gateway.deviceId) ?? 0;
    if (Date.now() - last < TIME_SYNC_EVERY_MS) return;
    this.lastTimeSync.set(gateway.deviceId, Date.now());
    this.commands.send(gateway.sn, 'time_sync', { serverTs: Date.now() }).then(
      (reply) => this.log.info({ sn: gateway.sn, ok: reply.ok }, 'time sync sent'),
      (err: Error) => this.log.warn({ sn: gateway.sn, err: err.message }, 'time sync failed'),
    );
  }
}

export interface DevicesPluginOptions {
  /** Run the device side (default true); false: `app.devices` is null. */
  enabled?: boolean;
  /** Overrides of the options taken from the config (MQTT_URL, MQTT_PORT, HOST), e.g. `mqttPort: 0`. */
  overrides?: Partial<DeviceServiceOptions>;
}

/**
 * Plugin `ess-devices`: ensures this month's telemetry partitions (so that ingest never writes
 * into the default partition), then starts the device service on the configured broker and
 * decorates `devices`; closes it in `onClose` (storing what the broker acknowledged).
 */
export const devicesPlugin = fp<DevicesPluginOptions>(
  async (app, { enabled = true, overrides = {} }) => {
    if (!enabled) {
      app.decorate('devices', null);
      return;
    }
    const { config } = app;
    await ensurePartitions(app.db, app.log);
    const devices = new DeviceService(app.db, app.log, {
      mqttUrl: config.mqttUrl,
      mqttPort: config.mqttPort,
      mqttHost: config.host,
      ...overrides,
    });
    app.addHook('onClose', () => devices.close());
    await devices.start();
    app.decorate('devices', devices);
  },
  { name: 'ess-devices', dependencies: ['ess-config', 'ess-db'], fastify: '5.x' },
);
