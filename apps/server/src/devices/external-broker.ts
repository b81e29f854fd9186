/**
 * The server as a client of an external broker (MQTT_URL: Mosquitto, EMQX), design §2.
 * Ingest subscriptions are MQTT 5 shared subscriptions (`$share/ess-ingest/…`), so several
 * server instances split the device traffic. A message is acknowledged (PUBACK) only after
 * `handleMessage` finished storing it. The broker-side ACL the operator must set is in
 * docs/device-protocol.md "External broker".
 */
import { parseDeviceTopic, TOPIC_ROOT } from '@ess/contract';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import type { DeviceDirectory } from './device-directory';
import type { BrokerHandlers } from './embedded-broker';

export const SHARE_GROUP = 'ess-ingest';

export class ExternalBroker {
  private client: MqttClient | null = null;

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
      ...this.credentials,
    });
    client.handleMessage = (packet, done) => {
      const topic = parseDeviceTopic(packet.topic);
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      if (!topic) return done();
      this.handle(topic.sn, topic.kind, payload).then(
        () => done(),
        (err: Error) => {
          this.log.error({ err, topic: packet.topic }, 'device message handling failed');
          done();
        },
      );
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

  private async handle(sn: string, kind: string, payload: Buffer): Promise<void> {
    if (kind === 'telemetry' || kind === 'event') return this.handlers.telemetry(sn, kind, payload);
    if (kind === 'reply') return this.handlers.reply(payload);
    if (kind === 'status') {
      const gateway = await this.directory.lookup(sn);
      if (gateway?.isGateway) await this.handlers.status(gateway, payload);
    }
  }

  publish(topic: string, payload: string, options: { qos: 1; retain: boolean }): Promise<void> {
    if (!this.client?.connected) return Promise.reject(new Error('not connected to the MQTT broker'));
    return this.client.publishAsync(topic, payload, options).then(() => undefined);
  }

  async close(): Promise<void> {
    await this.client?.endAsync();
  }
}
