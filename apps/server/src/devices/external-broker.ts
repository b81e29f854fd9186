/**
 * The server as a client of an external broker (MQTT_URL: Mosquitto, EMQX), design §2.
 * Ingest subscriptions (telemetry, event) are plain by default (`MQTT_SHARE_GROUP=off`: every
 * instance stores every message, deduplicated), or MQTT 5 shared subscriptions
 * (`$share/<group>/…`) so that several server instances split the device traffic; command
 * replies and status reach every instance. A message is acknowledged (PUBACK) only after it
 * is stored (or settled otherwise: dropped as malformed or unknown, dead-lettered). The
 * broker-side ACL and settings the operator must set are in docs/device-protocol.md "External
 * broker"; what survives a broker restart, a database outage or an instance's death is in
 * docs/operations.md "What survives what".
 *
 * mqtt.js reads the next packet only once `handleMessage` calls back, and that callback sends the
 * PUBACK: waiting there for storage would store one message per ingest batch (about 15 msg/s).
 * So every message goes to ingest at once, mqtt.js is told to skip its own PUBACK, and the PUBACK
 * is sent when the message is stored, in the order the messages arrived (MQTT 4.6). The broker's
 * in-flight window (our Receive Maximum) and the ingest queue's bound are the back-pressure.
 *
 * A handling that fails (the database is unreachable: the directory cannot tell whether an SN is
 * registered, a status cannot be written) is not acknowledged: it is tried again with backoff
 * until it settles, and the PUBACKs behind it wait, so the broker stops sending once our window
 * is full and keeps the rest. With a client id (`MQTT_CLIENT_ID`, stable per instance) the
 * session is persistent (clean start off, MQTT 5 session expiry): across a broker restart (with
 * broker persistence) or a restart of this server, the broker keeps queuing for us and
 * re-delivers what we had not acknowledged; ingest stores a re-delivery once (telemetry by
 * device + ts, events by gateway + message id + index).
 */
import { parseDeviceTopic, TOPIC_ROOT } from '@ess/contract';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { DeviceDirectory } from './device-directory';
import type { BrokerHandlers } from './embedded-broker';

/** Unacknowledged messages the broker may send us at once (MQTT 5 Receive Maximum). */
const RECEIVE_MAXIMUM = 1000;

/** Handed to mqtt.js's `handleMessage` callback: it then skips its PUBACK (we send it later). */
const ACK_DEFERRED = new Error('PUBACK deferred until the message is stored');

/** mqtt.js has no public call for a PUBACK of our own: use the one its handlers use. */
function sendPuback(client: MqttClient, messageId: number): void {
  const internal = client as unknown as {
    _sendPacket(packet: { cmd: 'puback'; messageId: number; reasonCode: number }, cb?: () => void): void;
  };
  internal._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 });
}

/** First and longest wait (ms) before a failed handling is tried again. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/** Default session expiry with a client id: one day (s). */
export const DEFAULT_SESSION_EXPIRY_S = 86_400;

export interface ExternalBrokerOptions {
  /** User name and password for the broker (from MQTT_URL). */
  credentials?: { username?: string; password?: string };
  /**
   * Shared-subscription group of the ingest subscriptions (`MQTT_SHARE_GROUP`); null or absent
   * (the configuration's default, `off`): plain subscriptions, every instance storing every message (Mosquitto 2.0 keeps plain
   * subscriptions across its restart, but not shared ones: docs/operations.md "What survives
   * what").
   */
  shareGroup?: string | null;
  /**
   * This instance's client id, stable across its restarts and different from every other
   * instance's (`MQTT_CLIENT_ID`). With it the session is persistent; without it (a service
   * used alone: tests, benchmarks) the id is random and the session ends with the connection.
   */
  clientId?: string;
  /** How long the broker keeps our session while we are away (s; with `clientId` only). */
  sessionExpiryS?: number;
  /** PEM of the CA that signed an `mqtts://` broker's certificate (MQTT_CA); default: the system's. */
  ca?: Buffer;
}

export class ExternalBroker {
  private client: MqttClient | null = null;
  /** Settles when every message received so far is handled and acknowledged. */
  private acks: Promise<unknown> = Promise.resolve();
  /** Telemetry and event messages acknowledged (PUBACK sent, so stored or dropped) so far. */
  acknowledgedData = 0;
  /** Handlings that failed and were tried again (each try counts). */
  handlingRetries = 0;
  /** Connections whose subscriptions are in place: the first, and each reconnect once renewed. */
  subscribedConnections = 0;
  /** Status messages are applied one at a time, in the order received. */
  private statuses: Promise<unknown> = Promise.resolve();
  private closing = false;
  /** The client id in use (the configured one, or a random one). */
  readonly clientId: string;
  private stopRetrying!: () => void;
  /** Resolves when {@link close} begins: retries waiting for their next try give up. */
  private readonly closed = new Promise<void>((resolve) => {
    this.stopRetrying = resolve;
  });

  constructor(
    private readonly url: string,
    private readonly directory: DeviceDirectory,
    private readonly handlers: BrokerHandlers,
    private readonly log: FastifyBaseLogger,
    private readonly options: ExternalBrokerOptions = {},
  ) {
    this.clientId = options.clientId ?? `ess-server-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  /**
   * Connects (retrying every 0.5 s until the broker answers) and subscribes, and subscribes again
   * after every reconnect. The message handler is in place before the CONNECT goes out: a resumed
   * session delivers what the broker queued for us right after the CONNACK, before our SUBSCRIBE
   * is answered.
   */
  async connect(): Promise<void> {
    const persistent = this.options.clientId !== undefined;
    const connectOptions: IClientOptions = {
      protocolVersion: 5,
      clientId: this.clientId,
      clean: !persistent,
      // Soon after a broker restart: on Mosquitto 2.0 a shared subscription exists again only once
      // we have renewed it, and what gateways send before that has no subscriber.
      reconnectPeriod: 500,
      // Subscriptions are renewed on every connection (below), whatever the broker says it kept.
      resubscribe: false,
      properties: {
        receiveMaximum: RECEIVE_MAXIMUM,
        ...(persistent
          ? { sessionExpiryInterval: this.options.sessionExpiryS ?? DEFAULT_SESSION_EXPIRY_S }
          : {}),
      },
      ...this.options.credentials,
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    };
    const client = mqtt.connect(this.url, connectOptions);
    client.handleMessage = (packet, done) => {
      const topic = parseDeviceTopic(packet.topic);
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      const stream = client.stream;
      // An SN unknown to a registry read before this moment is looked up again (another instance
      // may have registered it just now); one read after it settles "unregistered" at once.
      const receivedAt = this.directory.clock();
      let settled: Promise<boolean> = Promise.resolve(true);
      if (topic) {
        const attempt = () =>
          this.handleUntilSettled(client, stream, packet.topic, () =>
            this.handle(topic.sn, topic.kind, payload, packet.retain, receivedAt),
          );
        // Statuses are applied one at a time, in the order received: one being retried holds
        // the later ones (a death must not overtake the birth before it).
        settled = topic.kind === 'status' ? this.statuses.then(attempt) : attempt();
        if (topic.kind === 'status') this.statuses = settled;
      }
      if (packet.qos !== 1 || packet.messageId === undefined) {
        // QoS 0 needs no acknowledgement (we subscribe with QoS 1, so nothing arrives with 2).
        done();
        return;
      }
      const messageId = packet.messageId;
      const isData = topic?.kind === 'telemetry' || topic?.kind === 'event';
      this.acks = Promise.all([this.acks, settled]).then(([, ok]) => {
        // Not when the handling was given up (the broker re-delivers it), nor on a newer
        // connection: its message ids are not these.
        if (ok && client.stream === stream && !stream.destroyed) {
          sendPuback(client, messageId);
          if (isData) this.acknowledgedData++;
        }
      });
      done(ACK_DEFERRED);
    };
    client.on('error', (err) => this.log.error({ err }, 'MQTT connection error'));
    client.on('reconnect', () => this.log.warn('reconnecting to the MQTT broker'));
    client.on('connect', (connack) => {
      if (connack.sessionPresent) this.log.info({ clientId: this.clientId }, 'MQTT session resumed');
    });
    await new Promise<void>((resolve, reject) => {
      const onConnect = () => {
        client.off('end', onEnd);
        resolve();
      };
      const onEnd = () => {
        client.off('connect', onConnect);
        reject(new Error('MQTT client ended before it connected'));
      };
      client.once('connect', onConnect);
      client.once('end', onEnd);
    });
    this.client = client;
    // On every later connection too: a broker that restarted may have restored our session
    // (sessionPresent) without its shared subscriptions (Mosquitto 2.0 does not persist them).
    client.on('connect', () => {
      this.subscribe(client).catch((err: Error) =>
        this.log.error({ err }, 'MQTT subscriptions could not be renewed after a reconnect'),
      );
    });
    await this.subscribe(client);
  }

  private async subscribe(client: MqttClient): Promise<void> {
    const group = this.options.shareGroup ?? null;
    const ingest = (filter: string) => (group ? `$share/${group}/${filter}` : filter);
    await client.subscribeAsync(
      [
        ingest(`${TOPIC_ROOT}/+/telemetry`),
        ingest(`${TOPIC_ROOT}/+/event`),
        // Parameter reports (issue 15): stored by whichever instance gets them, then acknowledged.
        ingest(`${TOPIC_ROOT}/+/params`),
        // Upgrade progress (issue 16): stored by whichever instance gets it, then acknowledged.
        ingest(`${TOPIC_ROOT}/+/ota`),
        // Replies are not shared: each reaches the instance that sent the command at once (and
        // never a share member that is away, whose session would hold it until the command timed
        // out); other instances settle it in the database too, if the sender is gone
        // (commands.ts, delivery.ts).
        `${TOPIC_ROOT}/+/cmd/reply`,
        // Status is retained and small: every instance keeps its own view of who is online.
        `${TOPIC_ROOT}/+/status`,
      ],
      { qos: 1 },
    );
    this.subscribedConnections++;
  }

  /**
   * Runs `handle` until it resolves (true: acknowledge); never rejects. A failure is logged and tried again
   * after 0.1, 0.2, 0.4 … 5 s; the message stays unacknowledged meanwhile. Answers false, without
   * trying again, once the connection it came on is gone (the broker re-delivers it on the next
   * one) or the broker client is closing.
   */
  private async handleUntilSettled(
    client: MqttClient,
    stream: MqttClient['stream'],
    topic: string,
    handle: () => Promise<void>,
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await handle();
        return true;
      } catch (err) {
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
        this.log.error(
          { err, topic, attempt, retryInMs: delay },
          'device message handling failed; not acknowledged, retrying',
        );
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.closed, new Promise((r) => (timer = setTimeout(r, delay)))]);
        clearTimeout(timer);
        if (this.closing || client.stream !== stream || stream.destroyed) return false;
        this.handlingRetries++;
      }
    }
  }

  private async handle(
    sn: string,
    kind: string,
    payload: Buffer,
    retained: boolean,
    receivedAt: number,
  ): Promise<void> {
    if (kind === 'telemetry' || kind === 'event') return this.handlers.telemetry(sn, kind, payload);
    if (kind === 'reply') return this.handlers.reply(payload);
    if (kind === 'params') {
      const gateway = await this.directory.lookup(sn, receivedAt);
      if (gateway?.isGateway) await this.handlers.params(gateway, payload);
      return;
    }
    if (kind === 'ota') {
      const gateway = await this.directory.lookup(sn, receivedAt);
      if (gateway?.isGateway) await this.handlers.ota(gateway, payload);
      return;
    }
    if (kind === 'status') {
      const gateway = await this.directory.lookup(sn, receivedAt);
      if (gateway?.isGateway) await this.handlers.status(gateway, payload, retained);
    }
  }

  publish(topic: string, payload: string, options: { qos: 1; retain: boolean }): Promise<void> {
    if (!this.client?.connected) return Promise.reject(new Error('not connected to the MQTT broker'));
    return this.client.publishAsync(topic, payload, options).then(() => undefined);
  }

  /**
   * Acknowledges what was received (waiting at most 5 s for its storage), then disconnects; what
   * is still unacknowledged then is re-delivered by the broker to this client id's next session
   * (or, without a client id, to another instance of the share group).
   */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.acks, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
    this.closing = true;
    this.stopRetrying();
    await this.client?.endAsync();
  }
}
