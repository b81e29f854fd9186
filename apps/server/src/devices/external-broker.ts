/**
 * The server as a client of an external broker (MQTT_URL: Mosquitto, EMQX), design §2.
 * Ingest subscriptions are MQTT 5 shared subscriptions (`$share/ess-ingest/…`), so several
 * server instances split the device traffic. A message is acknowledged (PUBACK) only after it
 * is stored. The broker-side ACL the operator must set is in docs/device-protocol.md "External
 * broker".
 *
 * mqtt.js reads the next packet only once `handleMessage` calls back, and that callback sends the
 * PUBACK: waiting there for storage would store one message per ingest batch (about 15 msg/s).
 * So every message goes to ingest at once, mqtt.js is told to skip its own PUBACK, and the PUBACK
 * is sent when the message is stored, in the order the messages arrived (MQTT 4.6). The broker's
 * in-flight window (our Receive Maximum) and the ingest queue's bound are the back-pressure.
 */
import { parseDeviceTopic, TOPIC_ROOT } from '@ess/contract';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import type { DeviceDirectory } from './device-directory';
import type { BrokerHandlers } from './embedded-broker';

export const SHARE_GROUP = 'ess-ingest';

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

export class ExternalBroker {
  private client: MqttClient | null = null;
  /** Settles when every message received so far is handled and acknowledged. */
  private acks: Promise<unknown> = Promise.resolve();
  /** Telemetry and event messages acknowledged (PUBACK sent, so stored or dropped) so far. */
  acknowledgedData = 0;
  /** Status messages are applied one at a time, in the order received. */
  private statuses: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly directory: DeviceDirectory,
    private readonly handlers: BrokerHandlers,
    private readonly log: FastifyBaseLogger,
    private readonly credentials: { username?: string; password?: string } = {},
    private readonly shareGroup = SHARE_GROUP,
  ) {}

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(this.url, {
      protocolVersion: 5,
      clientId: `ess-server-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
      clean: true,
      reconnectPeriod: 2_000,
      properties: { receiveMaximum: RECEIVE_MAXIMUM },
      ...this.credentials,
    });
    client.handleMessage = (packet, done) => {
      const topic = parseDeviceTopic(packet.topic);
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      const handled = topic
        ? this.handle(topic.sn, topic.kind, payload, packet.retain).catch((err: Error) => {
            this.log.error({ err, topic: packet.topic }, 'device message handling failed');
          })
        : Promise.resolve();
      if (packet.qos !== 1 || packet.messageId === undefined) {
        // QoS 0 needs no acknowledgement (we subscribe with QoS 1, so nothing arrives with 2).
        done();
        return;
      }
      const stream = client.stream;
      const messageId = packet.messageId;
      const isData = topic?.kind === 'telemetry' || topic?.kind === 'event';
      this.acks = Promise.all([this.acks, handled]).then(() => {
        // Not on a newer connection: its message ids are not these.
        if (client.stream === stream && !stream.destroyed) {
          sendPuback(client, messageId);
          if (isData) this.acknowledgedData++;
        }
      });
      done(ACK_DEFERRED);
    };
    client.on('error', (err) => this.log.error({ err }, 'MQTT connection error'));
    client.on('reconnect', () => this.log.warn('reconnecting to the MQTT broker'));
    await client.subscribeAsync(
      [
        `$share/${this.shareGroup}/${TOPIC_ROOT}/+/telemetry`,
        `$share/${this.shareGroup}/${TOPIC_ROOT}/+/event`,
        `$share/${this.shareGroup}/${TOPIC_ROOT}/+/cmd/reply`,
        // Status is retained and small: every instance keeps its own view of who is online.
        `${TOPIC_ROOT}/+/status`,
      ],
      { qos: 1 },
    );
    this.client = client;
  }

  private async handle(sn: string, kind: string, payload: Buffer, retained: boolean): Promise<void> {
    if (kind === 'telemetry' || kind === 'event') return this.handlers.telemetry(sn, kind, payload);
    if (kind === 'reply') return this.handlers.reply(payload);
    if (kind === 'status') {
      const applied = this.statuses.then(async () => {
        const gateway = await this.directory.lookup(sn);
        if (gateway?.isGateway) await this.handlers.status(gateway, payload, retained);
      });
      this.statuses = applied.catch(() => undefined);
      return applied;
    }
  }

  publish(topic: string, payload: string, options: { qos: 1; retain: boolean }): Promise<void> {
    if (!this.client?.connected) return Promise.reject(new Error('not connected to the MQTT broker'));
    return this.client.publishAsync(topic, payload, options).then(() => undefined);
  }

  /** Acknowledges what was received (waiting at most 5 s for its storage), then disconnects. */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.acks, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
    await this.client?.endAsync();
  }
}
