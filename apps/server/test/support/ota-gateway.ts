/**
 * Test support: a gateway on an MQTT broker that answers `ota_upgrade` the way
 * docs/device-protocol.md "OTA" says a device does, scripted per test ({@link OtaScript}):
 *  - `upgrade`: accepts, reports `downloading` (50 %, then 100 %), `downloaded`, `verifying`,
 *    `installing`, `rebooting`, then publishes its birth with the new firmware (what confirms
 *    success) — `successEvent` also sends `success` with the version;
 *  - `checksum`: accepts, downloads, verifies and fails `checksum_mismatch`;
 *  - `refuse`: answers `ok: false` with `result.reason` (`low_soc_busy`);
 *  - `stall`: accepts, reports `downloading` 10 % and falls silent (a device that vanished);
 *  - `silent`: receives the command and answers nothing at all;
 *  - `hold`: accepts and reports `downloading` 0 %, then waits for the test (`finish(version)`).
 * Every `ota_upgrade` received is kept (`commands`) with its params checked against the
 * contract, so a test can count sends per batch and attempt. `bornWith` is the firmware its
 * birth messages carry.
 */
import {
  type CommandPayload,
  deviceTopic,
  type OtaFailureReason,
  type OtaPhase,
  type OtaUpgradeParams,
  otaUpgradeParams,
} from '@ess/contract';
import mqtt, { type MqttClient } from 'mqtt';

export type OtaScript =
  | { kind: 'upgrade'; successEvent?: boolean }
  | { kind: 'checksum' }
  | { kind: 'refuse'; reason: OtaFailureReason }
  | { kind: 'stall' }
  | { kind: 'silent' }
  | { kind: 'hold' };

let eventSeq = 0;

export class OtaGateway {
  script: OtaScript = { kind: 'upgrade' };
  readonly commands: OtaUpgradeParams[] = [];
  private client: MqttClient | null = null;
  /** Work started by commands (publishing phases), awaited by `idle`. */
  private readonly work = new Set<Promise<void>>();

  constructor(
    private readonly url: () => string,
    readonly sn: string,
    private readonly secret: string,
    public bornWith: string,
  ) {}

  get connected(): boolean {
    return this.client?.connected === true;
  }

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
      if (command.name !== 'ota_upgrade') return;
      const params = otaUpgradeParams.parse(command.params);
      this.commands.push(params);
      const job = this.run(command, params).catch(() => undefined);
      this.work.add(job);
      void job.finally(() => this.work.delete(job));
    });
    await this.birth();
  }

  /** Publishes the birth (`online: true`, retained) with `bornWith`. */
  birth(): Promise<unknown> {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'status'),
      JSON.stringify({ v: 1, ts: Date.now(), online: true, firmware: this.bornWith }),
      { qos: 1, retain: true },
    );
  }

  /** Resolves once every scripted reaction started so far has been published. */
  async idle(): Promise<void> {
    while (this.work.size) await Promise.allSettled([...this.work]);
  }

  /** `ota_upgrade` commands received for batch `batchId`. */
  sentFor(batchId: number): OtaUpgradeParams[] {
    return this.commands.filter((c) => c.batchId === batchId);
  }

  /** A `hold` upgrade goes on: the remaining phases and a birth with `version`. */
  async finish(version: string): Promise<void> {
    const last = this.commands.at(-1)!;
    for (const phase of ['downloaded', 'verifying', 'installing', 'rebooting'] as const)
      await this.event(last, phase);
    this.bornWith = version;
    await this.birth();
  }

  /** Publishes one progress event about the command's device. */
  async event(
    params: OtaUpgradeParams,
    phase: OtaPhase,
    extra: { percent?: number; version?: string; reason?: OtaFailureReason; detail?: string } = {},
  ): Promise<void> {
    eventSeq++;
    await this.client!.publishAsync(
      deviceTopic(this.sn, 'ota'),
      JSON.stringify({
        v: 1,
        id: `e-${eventSeq}`,
        ts: Date.now(),
        batchId: params.batchId,
        packageId: params.packageId,
        deviceSn: params.targetDeviceSn,
        phase,
        ...extra,
      }),
      { qos: 1 },
    );
  }

  private reply(command: CommandPayload, body: { ok: boolean; result?: object; error?: string }) {
    return this.client!.publishAsync(
      deviceTopic(this.sn, 'reply'),
      JSON.stringify({ v: 1, id: command.id, ts: Date.now(), ...body }),
      { qos: 1 },
    );
  }

  private async run(command: CommandPayload, params: OtaUpgradeParams): Promise<void> {
    const script = this.script;
    if (script.kind === 'silent') return;
    if (script.kind === 'refuse') {
      await this.reply(command, {
        ok: false,
        error: 'SOC 8 % while discharging',
        result: { reason: script.reason },
      });
      return;
    }
    await this.reply(command, { ok: true });
    if (script.kind === 'hold') {
      await this.event(params, 'downloading', { percent: 0 });
      return;
    }
    if (script.kind === 'stall') {
      await this.event(params, 'downloading', { percent: 10 });
      return;
    }
    await this.event(params, 'downloading', { percent: 50 });
    await this.event(params, 'downloading', { percent: 100 });
    await this.event(params, 'downloaded');
    await this.event(params, 'verifying');
    if (script.kind === 'checksum') {
      await this.event(params, 'failed', { reason: 'checksum_mismatch', detail: 'sha256 differs' });
      return;
    }
    await this.event(params, 'installing');
    await this.event(params, 'rebooting');
    this.bornWith = params.version;
    await this.birth();
    if (script.successEvent) await this.event(params, 'success', { version: params.version });
  }

  /** Says goodbye (`online: false`, clean) and disconnects. */
  async disconnect(): Promise<void> {
    if (!this.client) return;
    if (this.client.connected)
      await this.client.publishAsync(
        deviceTopic(this.sn, 'status'),
        JSON.stringify({ v: 1, ts: Date.now(), online: false, reason: 'clean' }),
        { qos: 1, retain: true },
      );
    await this.client.endAsync(true);
    this.client = null;
  }
}
