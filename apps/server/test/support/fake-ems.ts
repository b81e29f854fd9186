/**
 * Test support: a site's EMS on an MQTT broker (the test server's embedded one, or
 * TEST_MQTT_URL), logged in as the site's gateway, that answers `set_tou_plan` with ok, with a
 * refusal, not at all ('silent'), or when the test says so ('hold'); and {@link announceOnly}, a
 * client that publishes the gateway's birth and answers nothing — what `mosquitto_pub` does in
 * the README's "Connect a device".
 *
 * Any other command is answered by the handler registered for its name (`on`): it answers the
 * reply's `{ok, result?, error?}`, or null to stay silent; without one the command is only
 * recorded. `publish` sends any message of the gateway (e.g. a `params` report).
 */
import { type CommandPayload, deviceTopic, setTouPlanParams } from '@ess/contract';
import mqtt, { type MqttClient } from 'mqtt';

export type EmsAnswer = { ok: true } | { ok: false; error: string };

/** A reply body for a command (null: no answer). */
export type CommandAnswer = { ok: boolean; result?: Record<string, unknown>; error?: string } | null;

export type EmsMode =
  | { kind: 'accept' }
  | { kind: 'refuse'; error: string }
  | { kind: 'silent' }
  | { kind: 'hold' };

/** The birth (`online: true`, retained) or last word of gateway `sn`, as the protocol has it. */
function publishStatus(client: MqttClient, sn: string, body: object) {
  return client.publishAsync(deviceTopic(sn, 'status'), JSON.stringify({ v: 1, ts: Date.now(), ...body }), {
    qos: 1,
    retain: true,
  });
}

export class FakeEms {
  mode: EmsMode = { kind: 'accept' };
  readonly received: CommandPayload[] = [];
  /** Commands held in 'hold' mode, oldest first, with the connection they came on. */
  readonly held: Array<{ command: CommandPayload; client: MqttClient }> = [];
  private client: MqttClient | null = null;
  private readonly handlers = new Map<string, (command: CommandPayload) => CommandAnswer>();

  /** `url`: the broker's, read at each connection (the embedded broker's port is known late). */
  constructor(
    private readonly url: () => string,
    readonly sn: string,
    private readonly secret: string,
  ) {}

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(this.url(), {
      clientId: this.sn,
      username: this.sn,
      password: this.secret,
      reconnectPeriod: 0,
      clean: true,
    });
    this.client = client;
    await client.subscribeAsync(deviceTopic(this.sn, 'cmd'), { qos: 1 });
    client.on('message', (_topic, payload) => {
      const command = JSON.parse(payload.toString()) as CommandPayload;
      this.received.push(command);
      const handler = this.handlers.get(command.name);
      if (handler) {
        const answer = handler(command);
        if (answer) this.reply(client, command, answer);
        return;
      }
      if (command.name !== 'set_tou_plan' || this.mode.kind === 'silent') return;
      if (this.mode.kind === 'hold') {
        this.held.push({ command, client });
        return;
      }
      this.answer(
        client,
        command,
        this.mode.kind === 'accept' ? { ok: true } : { ok: false, error: this.mode.error },
      );
    });
    await this.announce();
  }

  /** Publishes the birth message (`online: true`) again, as after a reconnect. */
  announce(): Promise<unknown> {
    return publishStatus(this.client!, this.sn, { online: true });
  }

  /** Answers command `name` with `handler` from now on (instead of the ToU behaviour). */
  on(name: CommandPayload['name'], handler: (command: CommandPayload) => CommandAnswer): void {
    this.handlers.set(name, handler);
  }

  /** Publishes `body` (v, ts added) on the gateway's `kind` topic, QoS 1. */
  async publish(kind: 'params' | 'telemetry' | 'event', body: object): Promise<void> {
    await this.client!.publishAsync(
      deviceTopic(this.sn, kind),
      JSON.stringify({ v: 1, ts: Date.now(), ...body }),
      {
        qos: 1,
      },
    );
  }

  /** Commands named `name` received so far. */
  commands(name: CommandPayload['name']): CommandPayload[] {
    return this.received.filter((c) => c.name === name);
  }

  private reply(client: MqttClient, command: CommandPayload, answer: NonNullable<CommandAnswer>): void {
    client.publish(
      deviceTopic(this.sn, 'reply'),
      JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ...answer }),
      { qos: 1 },
    );
  }

  /** Answers the oldest held command. */
  release(answer: EmsAnswer = { ok: true }): void {
    const next = this.held.shift();
    if (!next) throw new Error('no command held');
    this.answer(next.client, next.command, answer);
  }

  private answer(client: MqttClient, command: CommandPayload, answer: EmsAnswer): void {
    const body = answer.ok
      ? { ok: true, result: { version: (command.params as { version: number }).version } }
      : answer;
    client.publish(
      deviceTopic(this.sn, 'reply'),
      JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ...body }),
      { qos: 1 },
    );
  }

  /** Says goodbye (`online: false`, clean) and disconnects; `clearRetained` also drops its birth. */
  async disconnect(clearRetained = false): Promise<void> {
    if (!this.client) return;
    await publishStatus(this.client, this.sn, { online: false, reason: 'clean' });
    if (clearRetained)
      await this.client.publishAsync(deviceTopic(this.sn, 'status'), '', { qos: 1, retain: true });
    await this.client.endAsync();
    this.client = null;
  }

  /** The set_tou_plan commands received, their params checked against the contract. */
  plans() {
    return this.received
      .filter((c) => c.name === 'set_tou_plan')
      .map((c) => setTouPlanParams.parse(c.params));
  }
}

/**
 * A client that connects as gateway `sn`, publishes its birth (retained, as the README's
 * `mosquitto_pub -r` does) and answers nothing. `stay`: it stays connected, subscribed to its
 * commands without answering them, until `end` (the commands it got are in `received`; `goodbye`
 * says `online: false` first, which an external broker needs to show the gateway offline);
 * without it, it disconnects at once as `mosquitto_pub` does.
 */
export async function announceOnly(
  url: string,
  sn: string,
  secret: string,
  options: { stay?: boolean } = {},
): Promise<{ received: CommandPayload[]; end(options?: { goodbye?: boolean }): Promise<void> }> {
  const client = await mqtt.connectAsync(url, {
    clientId: sn,
    username: sn,
    password: secret,
    reconnectPeriod: 0,
    clean: true,
  });
  const received: CommandPayload[] = [];
  if (options.stay) {
    await client.subscribeAsync(deviceTopic(sn, 'cmd'), { qos: 1 });
    client.on('message', (_topic, payload) => received.push(JSON.parse(payload.toString())));
  }
  await publishStatus(client, sn, { online: true });
  const end = async (how: { goodbye?: boolean } = {}) => {
    if (how.goodbye) await publishStatus(client, sn, { online: false, reason: 'clean' });
    await client.endAsync();
  };
  if (!options.stay) await end();
  return { received, end };
}

/** Drops gateway `sn`'s retained status from the broker (an external one keeps it across runs). */
export async function clearStatus(url: string, sn: string, secret: string): Promise<void> {
  const client = await mqtt.connectAsync(url, {
    clientId: sn,
    username: sn,
    password: secret,
    reconnectPeriod: 0,
  });
  await client.publishAsync(deviceTopic(sn, 'status'), '', { qos: 1, retain: true });
  await client.endAsync();
}
