/**
 * The embedded MQTT broker (aedes) used when MQTT_URL is not set (design §2). Devices connect
 * with username = SN and password = their secret; a gateway may publish and subscribe only
 * below `ess/v1/<its SN>/` (docs/device-protocol.md "Connecting").
 *
 * Ingest happens in `authorizePublish`, which aedes runs before it sends PUBACK: the PUBACK of
 * a QoS 1 message therefore leaves only after the message is stored (or deliberately dropped).
 * If MQTT_PORT is taken, the next free ports are tried (the port in use is logged and shown in
 * the console), so `npm start` works where 1883 belongs to another broker. The same holds for
 * the TLS listener ({@link EmbeddedBroker.listenTls}, MQTT_TLS_PORT, 8883 by default), which
 * feeds its decrypted connections to the same broker; either listener may be off.
 */
import net from 'node:net';
import tls from 'node:tls';
import { parseDeviceTopic, TOPIC_ROOT } from '@ess/contract';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import type { DeviceDirectory, DirectoryEntry } from './device-directory';
import { verifyDeviceSecret } from './device-secret';

/** What the broker hands over for each message a gateway publishes. */
export interface BrokerHandlers {
  telemetry(sn: string, kind: 'telemetry' | 'event', payload: Buffer): Promise<void>;
  /** `retained`: a stored copy the broker handed over with our subscription (it may be old). */
  status(gateway: DirectoryEntry, payload: Buffer, retained?: boolean): Promise<void>;
  reply(payload: Buffer): void;
  /** A `params` report (ess/v1/<sn>/params): resolves once stored (then acknowledged) or dropped. */
  params(gateway: DirectoryEntry, payload: Buffer): Promise<void>;
  /** An `ota` progress event (ess/v1/<sn>/ota): resolves once stored (then acknowledged) or dropped. */
  ota(gateway: DirectoryEntry, payload: Buffer): Promise<void>;
  /** The connection ended: `clean` after a DISCONNECT packet, else it was lost. */
  disconnected(gateway: DirectoryEntry, clean: boolean): Promise<void>;
}

type DeviceClient = Client & { essGateway?: DirectoryEntry };

function authError(message: string, returnCode: 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

/** True when `filter` stays below the gateway's own root (any wildcard comes after it). */
export function isOwnFilter(sn: string, filter: string): boolean {
  return filter.startsWith(`${TOPIC_ROOT}/${sn}/`);
}

export class EmbeddedBroker {
  readonly broker: Aedes;
  private readonly servers: net.Server[] = [];
  private started: Promise<void> | null = null;
  /** Port of the plain-TCP listener (0: none). */
  port = 0;
  /** Port of the TLS listener (0: none). */
  tlsPort = 0;

  constructor(
    private readonly directory: DeviceDirectory,
    private readonly handlers: BrokerHandlers,
    private readonly log: FastifyBaseLogger,
  ) {
    this.broker = new Aedes({ drainTimeout: 30_000, maxClientsIdLength: 64, connectTimeout: 10_000 });
    this.broker.authenticate = (client, username, password, done) => {
      void this.authenticate(client as DeviceClient, username, password).then(
        (ok) => done(null, ok),
        (err: AuthenticateError) => done(err, null),
      );
    };
    this.broker.authorizePublish = (client, packet, done) => {
      if (!client) return done(null); // the server's own publications (commands)
      const gateway = (client as DeviceClient).essGateway;
      const topic = parseDeviceTopic(packet.topic);
      if (!gateway || !topic || topic.sn !== gateway.sn || topic.kind === 'cmd') {
        this.log.warn(
          { clientId: client.id, topic: packet.topic },
          'publish outside the gateway’s own topics refused',
        );
        return done(new Error('not authorized'));
      }
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      switch (topic.kind) {
        case 'telemetry':
        case 'event':
          packet.retain = false;
          this.handlers.telemetry(gateway.sn, topic.kind, payload).then(
            () => done(null),
            (err: Error) => done(err),
          );
          return;
        case 'status':
          this.handlers.status(gateway, payload).then(
            () => done(null),
            (err: Error) => done(err),
          );
          return;
        case 'reply':
          this.handlers.reply(payload);
          return done(null);
        case 'params':
          packet.retain = false;
          this.handlers.params(gateway, payload).then(
            () => done(null),
            (err: Error) => done(err),
          );
          return;
        case 'ota':
          packet.retain = false;
          this.handlers.ota(gateway, payload).then(
            () => done(null),
            (err: Error) => done(err),
          );
          return;
      }
    };
    this.broker.authorizeSubscribe = (client, sub, done) => {
      const gateway = (client as DeviceClient).essGateway;
      if (gateway && isOwnFilter(gateway.sn, sub.topic)) return done(null, sub);
      this.log.warn(
        { clientId: client.id, filter: sub.topic },
        'subscription outside the gateway’s own topics refused',
      );
      return done(null, null);
    };
    this.broker.on('clientDisconnect', (client) => {
      const gateway = (client as DeviceClient).essGateway;
      // aedes marks a client that sent a valid DISCONNECT packet; any other end is a lost connection.
      const clean = (client as DeviceClient & { _disconnected?: boolean })._disconnected === true;
      if (gateway) void this.handlers.disconnected(gateway, clean);
    });
  }

  private async authenticate(
    client: DeviceClient,
    username: string | undefined,
    password: Buffer | undefined,
  ) {
    if (!username || !password) throw authError('anonymous connections are refused', 5);
    const gateway = await this.directory.lookup(username);
    if (!gateway?.isGateway || !verifyDeviceSecret(password.toString('utf8'), gateway.secretHash)) {
      this.log.warn({ username, clientId: client.id }, 'device authentication failed');
      throw authError('bad user name or password', 4);
    }
    const expectedClientId = gateway.mqttClientId ?? gateway.sn;
    if (client.id !== expectedClientId) {
      this.log.warn(
        { username, clientId: client.id, expectedClientId },
        'device client id does not match the registry',
      );
      throw authError('client id does not match the registered MQTT client ID', 5);
    }
    client.essGateway = gateway;
    return true;
  }

  /** Listens for plain TCP on `port` (0 = any), trying the next 10 ports when it is taken. */
  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    const server = net.createServer((socket) => this.broker.handle(socket));
    this.port = await this.bind(server, port, host, 'MQTT');
    return this.port;
  }

  /**
   * Listens for MQTT over TLS (TLS 1.2 or newer) on `port` (0 = any), trying the next 10 ports
   * when it is taken. A failed handshake (a client that does not trust the certificate, a
   * scanner) only closes that connection.
   */
  async listenTls(port: number, host: string, credentials: { cert: string; key: string }): Promise<number> {
    const server = tls.createServer({ ...credentials, minVersion: 'TLSv1.2' }, (socket) =>
      this.broker.handle(socket),
    );
    server.on('tlsClientError', (err, socket) =>
      this.log.debug({ err: err.message, remote: socket.remoteAddress }, 'MQTT TLS handshake failed'),
    );
    this.tlsPort = await this.bind(server, port, host, 'MQTT over TLS');
    return this.tlsPort;
  }

  private async bind(server: net.Server, port: number, host: string, what: string): Promise<number> {
    // aedes 1.x: start the broker's persistence and heartbeat (once, for every listener).
    this.started ??= this.broker.listen();
    await this.started;
    const candidates = port === 0 ? [0] : [...Array.from({ length: 11 }, (_, i) => port + i), 0];
    for (const candidate of candidates) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(candidate, host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        this.servers.push(server);
        const bound = (server.address() as net.AddressInfo).port;
        if (port !== 0 && bound !== port) {
          this.log.warn(
            { wanted: port, port: bound },
            `${what} port ${port} is taken; the embedded broker listens on ${bound}`,
          );
        }
        return bound;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    throw new Error(`no free port for the embedded broker's ${what} listener`);
  }

  /** Publishes from the server (commands). */
  publish(topic: string, payload: string, options: { qos: 1; retain: boolean }): Promise<void> {
    return new Promise((resolve, reject) =>
      this.broker.publish(
        {
          cmd: 'publish',
          topic,
          payload: Buffer.from(payload),
          qos: options.qos,
          retain: options.retain,
          dup: false,
        },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.broker.close(() => resolve()));
    await Promise.all(
      this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }
}
