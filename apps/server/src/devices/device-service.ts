/**
 * The device side of the server, assembled: directory → broker transport (embedded aedes, or a
 * client of MQTT_URL) → ingest pipeline, connection tracker and command service.
 *
 * Plugin `ess-devices` ({@link devicesPlugin}, after `ess-db`) builds and starts it and closes it
 * in `onClose`, before the database. The heartbeat sweep (`tracker.sweep()`) is not timed here:
 * the scheduler runs it every {@link DeviceService.heartbeatSweepMs} (jobs/jobs-plugin.ts); a
 * service used alone (benchmarks, some tests) does not sweep unless told to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { ConfigError } from '../core/config';
import type { Db } from '../core/db/database';
import {
  type BrokerCertificate,
  type BrokerTlsOptions,
  describeCertificate,
  loadBrokerCertificate,
} from './broker-tls';
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
  /**
   * Hold connection changes for the listeners until `openListeners()` (the app's devices plugin:
   * until Fastify `onReady`); default false: handed over as they happen.
   */
  holdStatusUntilOpen?: boolean;
  /** External broker; without it the embedded broker listens on `mqttPort`. */
  mqttUrl?: string | undefined;
  mqttPort: number;
  /** The embedded broker listens for plain TCP on `mqttPort` (default true; MQTT_PLAIN). */
  mqttPlain?: boolean;
  /** The embedded broker also listens for MQTT over TLS (MQTT_TLS…; default: no TLS listener). */
  mqttTls?: BrokerTlsOptions | null;
  /** PEM file of the CA of an external `mqtts://` broker (MQTT_CA); default: the system's CAs. */
  mqttCa?: string | undefined;
  mqttHost?: string;
  heartbeatTimeoutMs?: number;
  /** How often the scheduler checks gateways against the heartbeat timeout (ms; default 15 s). */
  heartbeatSweepMs?: number;
  /** The clock the heartbeat timeout is measured on (ms since the epoch; default Date.now). */
  clock?: () => number;
  /**
   * Shared-subscription group of the ingest subscriptions on an external broker
   * (`MQTT_SHARE_GROUP`; null or absent = `off`, the configuration's one default).
   * Instances on one database that split the traffic share a group; a separate deployment on the
   * same broker (or a test) needs its own, or it takes messages of devices it does not know.
   * null: plain subscriptions — every instance stores every message (deduplicated), and
   * Mosquitto 2.0 keeps them across its restart (it does not keep shared ones).
   */
  mqttShareGroup?: string | null;
  /**
   * This instance's MQTT client id on an external broker (MQTT_CLIENT_ID; the config derives a
   * stable one). With it the session is persistent: the broker queues for this instance while
   * it or the broker restarts, and re-delivers what it had not acknowledged. Without it (a
   * service used alone: tests, benchmarks) the id is random and the session ends with the
   * connection.
   */
  mqttClientId?: string;
  /** How long the broker keeps that session while the instance is away (s; MQTT_SESSION_EXPIRY_S). */
  mqttSessionExpiryS?: number;
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

/** See {@link DeviceService.brokerAddress}. */
export interface BrokerAddress {
  /** The external broker (absent: the embedded one, on the console's host). */
  url?: string;
  /** Plain-TCP port; absent when there is no plain listener. */
  port?: number;
  /** TLS port, the PEM certificate devices trust and its SHA-256 fingerprint; absent: no TLS. */
  tls?: { port: number; ca: string | null; fingerprint: string | null };
}

/** URL schemes of MQTT over TLS (mqtt.js). */
const SECURE_SCHEMES = new Set(['mqtts:', 'ssl:', 'tls:']);

/** Reads MQTT_CA (a PEM file); a missing or unreadable file is a configuration error. */
function readCa(file: string): Buffer {
  try {
    const ca = readFileSync(file);
    describeCertificate(ca.toString('utf8'));
    return ca;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? 'not a PEM certificate';
    throw new ConfigError(`MQTT_CA: cannot use ${file} (${why})`);
  }
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
  /** The embedded broker's TLS certificate, once its TLS listener is up. */
  private certificate: BrokerCertificate | null = null;
  /** MQTT_CA's content, for an external broker. */
  private externalCa: Buffer | null = null;
  private lastTimeSync = new Map<number, number>();
  private readonly listeners = new Set<DeviceListeners>();
  /**
   * Connection changes held until {@link openListeners} (option `holdStatusUntilOpen`): the
   * broker hands a resumed session's queued deaths and births over as soon as the service
   * connects, before the app's delivery services have attached their listeners; null once open.
   */
  private heldStatus: Array<() => void> | null;

  constructor(
    db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly options: DeviceServiceOptions,
  ) {
    this.heldStatus = options.holdStatusUntilOpen ? [] : null;
    this.directory = new DeviceDirectory(db, undefined, log);
    this.tracker = new ConnectionTracker(
      db,
      this.directory,
      log,
      {
        onChange: (change) =>
          this.toListeners(() => {
            for (const l of this.listeners) l.onStatus?.(change);
          }),
        onReannounce: (change) =>
          this.toListeners(() => {
            for (const l of this.listeners) l.onReannounce?.(change);
          }),
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

  /** Runs a connection-change dispatch now, or holds it until {@link openListeners}. */
  private toListeners(dispatch: () => void): void {
    if (this.heldStatus) this.heldStatus.push(dispatch);
    else dispatch();
  }

  /**
   * Hands the connection changes held since the start to the listeners, in order, and every later
   * one at once. The app calls it when all its services listen (Fastify `onReady`): a gateway
   * that dropped and came back while no instance ran is otherwise seen by the tracker but by no
   * delivery service, and gets no resend (two-instances test "both restarting…").
   */
  openListeners(): void {
    const held = this.heldStatus;
    this.heldStatus = null;
    for (const dispatch of held ?? []) dispatch();
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

  /** Telemetry/event messages acknowledged to an external broker (null on the embedded one). */
  get acknowledgedData(): number | null {
    return this.external ? this.external.acknowledgedData : null;
  }

  /**
   * Where devices connect: the external broker's URL, or nothing (the console's own host); the
   * plain port (absent when there is no plain listener); the TLS port with the certificate
   * devices are to trust (`--cafile`: the embedded broker's own, or MQTT_CA) and its SHA-256
   * fingerprint (null when devices use their system CAs).
   */
  get brokerAddress(): BrokerAddress {
    if (this.options.mqttUrl) {
      const url = new URL(this.options.mqttUrl);
      const secure = SECURE_SCHEMES.has(url.protocol);
      const port = Number(url.port || (secure ? 8883 : 1883));
      if (!secure) return { url: this.options.mqttUrl, port };
      const ca = this.externalCa?.toString('utf8') ?? null;
      return {
        url: this.options.mqttUrl,
        tls: { port, ca, fingerprint: ca ? describeCertificate(ca).fingerprint : null },
      };
    }
    const embedded = this.embedded;
    return {
      ...(embedded?.port ? { port: embedded.port } : {}),
      ...(embedded?.tlsPort && this.certificate
        ? {
            tls: {
              port: embedded.tlsPort,
              ca: this.certificate.cert,
              fingerprint: this.certificate.fingerprint,
            },
          }
        : {}),
    };
  }

  async start(): Promise<void> {
    await this.directory.refresh();
    await this.tracker.start();
    // Hour and day rollups a crash left behind their 15-minute ones (rollup-derive.ts).
    this.ingest.scheduleDerive();
    const handlers = {
      telemetry: (sn: string, kind: 'telemetry' | 'event', payload: Buffer) =>
        this.ingest.accept(sn, kind, payload),
      status: (gateway: DirectoryEntry, payload: Buffer, retained?: boolean) =>
        this.tracker.handleStatus(gateway, payload, retained),
      reply: (payload: Buffer) => this.commands.handleReply(payload),
      params: (gateway: DirectoryEntry, payload: Buffer) => this.ingest.acceptParams(gateway, payload),
      ota: (gateway: DirectoryEntry, payload: Buffer) => this.ingest.acceptOta(gateway, payload),
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
      if (this.options.mqttCa) this.externalCa = readCa(this.options.mqttCa);
      this.external = new ExternalBroker(url.toString(), this.directory, handlers, this.log, {
        credentials,
        shareGroup: this.options.mqttShareGroup,
        clientId: this.options.mqttClientId,
        sessionExpiryS: this.options.mqttSessionExpiryS,
        ca: this.externalCa ?? undefined,
      });
      await this.external.connect();
      this.commands.setPublisher((t, p, o) => this.external!.publish(t, p, o));
      this.log.info({ url: url.toString() }, 'connected to the external MQTT broker');
    } else {
      this.embedded = new EmbeddedBroker(this.directory, handlers, this.log);
      const host = this.options.mqttHost ?? '0.0.0.0';
      if (this.options.mqttPlain !== false) {
        const port = await this.embedded.listen(this.options.mqttPort, host);
        this.log.info({ port }, 'embedded MQTT broker listening (plain TCP)');
      }
      if (this.options.mqttTls) {
        const certificate = await loadBrokerCertificate(this.options.mqttTls);
        this.certificate = certificate;
        const port = await this.embedded.listenTls(this.options.mqttTls.port, host, certificate);
        this.log.info(
          {
            port,
            fingerprint: certificate.fingerprint,
            certificate: certificate.certFile,
            source: certificate.source,
          },
          'embedded MQTT broker listening (TLS)',
        );
        if (certificate.validTo < Date.now()) {
          this.log.warn({ certificate: certificate.certFile }, 'the MQTT TLS certificate has expired');
        }
      }
      this.commands.setPublisher((t, p, o) => this.embedded!.publish(t, p, o));
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
      mqttPlain: config.mqttPlain,
      mqttTls: config.mqttTls && {
        ...config.mqttTls,
        dir: path.join(config.dataDir, 'mqtt-tls'),
        hosts: [new URL(config.mail.publicUrl).hostname],
      },
      mqttCa: config.mqttCa,
      mqttShareGroup: config.mqttShareGroup,
      mqttClientId: config.mqttClientId,
      mqttSessionExpiryS: config.mqttSessionExpiryS,
      mqttHost: config.host,
      holdStatusUntilOpen: true,
      ...overrides,
    });
    app.addHook('onClose', () => devices.close());
    // Connection changes reach the services once all of them listen (the plugins after this one).
    app.addHook('onReady', async () => devices.openListeners());
    await devices.start();
    app.decorate('devices', devices);
  },
  { name: 'ess-devices', dependencies: ['ess-config', 'ess-db'], fastify: '5.x' },
);
