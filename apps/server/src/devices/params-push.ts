/**
 * Device parameters on the wire (issue 15 items 2, 3, 6; docs/device-protocol.md "Parameters",
 * "Initialization"): the `params` kind of the desired-state delivery (delivery.ts), reading a
 * device (`get_params`), the `params` reports gateways publish, and the one-time `initialize`.
 *
 * **Delivery** (kind 'params', target `device:<id>`, sent to the device's gateway — itself for
 * a gateway): the desired document of a device is every key with a change of ours outstanding
 * (params-store.ts: pending, sent, timeout) at the device's current version, sent as
 * `set_params {deviceSn, version, values}`; the row's `desired` is `{deviceId}` and its version
 * the device's parameter version, so every rule of delivery.ts holds as for ToU: an offline
 * gateway's change waits and goes out at the reconnect, once across instances; no reply →
 * timeout, retried 1, 5, 15, 60 min after the request; a late reply to an older send settles
 * nothing. A device with nothing outstanding has nothing to send (a reconnect sends nothing).
 *
 * Per key, the reply's `setParamsResult` is stored by params-store.ts `storeAnswer` (applied,
 * or refused with the reason and the validator's messageKey); it is read from the reply in
 * `interpretReply`, which the delivery service calls for the reply of its own send and for one
 * another instance sent. A `stale` answer (the device runs a newer version than ours, e.g. a
 * restored server database) numbers the change above the device's version
 * (`nextParamsVersion`) and sends it again — once: the new version is above it. The delivery
 * row's states (sent, timeout, back to pending when the gateway went offline) reach the keys
 * through the delivery's change listener. Writes to the shadow run one after another in this
 * process (a reply's keys after their `sent`), and each is followed by a `delivery:params` live
 * message of the device's row, so the console reads the device again after its keys changed.
 *
 * **Reports** (`ess/v1/<gw>/params`, contract `paramsReportPayload`): stored as reported
 * (`storeSnapshot`: drift of applied keys, history of local changes) before the message is
 * acknowledged; malformed ones, or ones about a device that is not behind that gateway, are
 * dropped (logged). A database failure rejects, so the broker redelivers.
 *
 * **Initialization** (`site_params_init`): the `initialize` command ({timezone, network}) goes
 * to the site's gateway when it is online, else at its next connection (claimed by one atomic
 * UPDATE, so one instance sends it); no answer → pending again for the next connection; the
 * answer (applied, or failed with the gateway's reason — 'initialization already performed'
 * when it was initialized before) is stored on the row.
 */
import {
  DELIVERY_TIMEOUT,
  ErrorCode,
  type InitializeParams,
  nextParamsVersion,
  type ParamsReportPayload,
  type ParamsSnapshot,
  paramsReportPayload,
  paramsSnapshotSchema,
  type ReplyPayload,
  type SetParamsParams,
  setParamsError,
  setParamsResult,
  staleParamsError,
} from '@ess/contract';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import {
  device,
  deviceDelivery,
  deviceParamKey,
  deviceParams,
  site,
  siteParamsInit,
} from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import {
  type DeliveryChange,
  type DeliveryKind,
  type DeliveryOptions,
  type DeliveryPublisher,
  DeliveryService,
  type DeliveryTarget,
  deliveryMessage,
  siteGateway,
} from './delivery';
import type { DirectoryEntry } from './device-directory';
import type { DeviceService } from './device-service';
import {
  ensureShadow,
  markSent,
  markUnanswered,
  OUTSTANDING_STATES,
  storeAnswer,
  storeSnapshot,
  storeVersionInForce,
} from './params-store';

/** The delivery kind of device parameters. */
export const PARAMS_KIND = 'params' as const;

/** A device's parameter delivery target (its gateway receives). */
export const paramsTarget = (siteId: number, deviceId: number): DeliveryTarget => ({ siteId, deviceId });

type DeviceRow = Pick<typeof device.$inferSelect, 'id' | 'sn' | 'type' | 'siteId' | 'gatewayId'>;

/** `set_params` of every outstanding key of the device at its current version; null when none. */
function paramsKind(service: ParamsPushService): DeliveryKind {
  return {
    name: PARAMS_KIND,
    command: 'set_params',
    nothingToSend: ErrorCode.PARAMS_NOTHING_TO_SEND,
    async readDesired(tx, target) {
      if (target.deviceId === null) return null;
      const [shadow] = await tx
        .select({ version: deviceParams.version, sn: device.sn })
        .from(deviceParams)
        .innerJoin(device, eq(device.id, deviceParams.deviceId))
        .where(eq(deviceParams.deviceId, target.deviceId))
        .for('share', { of: deviceParams });
      if (!shadow || shadow.version === 0) return null;
      const keys = await tx
        .select({ key: deviceParamKey.key, desired: deviceParamKey.desired })
        .from(deviceParamKey)
        .where(
          and(
            eq(deviceParamKey.deviceId, target.deviceId),
            inArray(deviceParamKey.state, [...OUTSTANDING_STATES]),
            sql`${deviceParamKey.desired} IS NOT NULL`,
          ),
        );
      if (keys.length === 0) return null;
      const values: SetParamsParams['values'] = {};
      for (const k of keys) values[k.key] = k.desired!;
      const params: SetParamsParams = { deviceSn: shadow.sn, version: shadow.version, values };
      return { version: shadow.version, desired: { deviceId: target.deviceId }, params };
    },
    interpretReply: (reply, sent) => service.interpretReply(reply, sent.version),
  };
}

export class ParamsPushService {
  readonly delivery: DeliveryService;
  private devices: DeviceService | null = null;
  private publisher: DeliveryPublisher | null = null;
  /** Shadow writes of this process, one after another. */
  private chain: Promise<void> = Promise.resolve();
  private unlisten: Array<() => void> = [];
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    options: DeliveryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.delivery = new DeliveryService(db, log, paramsKind(this), options);
    this.delivery.onChange((change) => this.onDeliveryChange(change));
  }

  /**
   * Starts (or re-targets) delivery through `devices`: sends what is due, takes the gateways'
   * `params` reports and sends a pending `initialize` when a gateway comes online.
   */
  start(devices: DeviceService | null): void {
    for (const off of this.unlisten) off();
    this.unlisten = [];
    this.devices = devices;
    this.delivery.start(devices);
    if (devices) {
      this.unlisten.push(devices.ingest.onParams((gateway, payload) => this.handleReport(gateway, payload)));
      this.unlisten.push(
        devices.listen({
          onStatus: (change) => {
            if (change.online) this.initializeWhenDue(change.siteId);
          },
        }),
      );
    }
  }

  /** The device side delivery runs through (null: none; every change waits). */
  get deviceService(): DeviceService | null {
    return this.devices;
  }

  stop(): void {
    for (const off of this.unlisten) off();
    this.unlisten = [];
    this.delivery.stop();
  }

  /** Resolves once every background send and shadow write started so far has finished (tests). */
  async settled(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await this.delivery.settled();
      await chain;
      if (chain === this.chain) return;
    }
  }

  /** Publishes every change of a delivery row to `publisher` (the live hub, `delivery:params`). */
  publishTo(publisher: DeliveryPublisher): () => void {
    this.publisher = publisher;
    const off = this.delivery.publishTo(publisher);
    return () => {
      off();
      this.publisher = null;
    };
  }

  /** The devices' changes were stored: published and sent in the background when due. */
  changed(targets: readonly DeliveryTarget[]): void {
    this.delivery.changed(targets);
  }

  /**
   * The `retry` call: sends the device's outstanding changes now and waits for the answer.
   * Errors: 3048 nothing outstanding, 3033, 3034, 3035 (delivery.ts `sendNow`).
   */
  async sendNow(target: DeliveryTarget): Promise<void> {
    try {
      await this.delivery.sendNow(target);
    } finally {
      await this.settled();
    }
  }

  /**
   * Asks the device what it runs (`get_params` through its gateway `gatewaySn`), waits for the
   * answer and stores it as reported (drift computed). Errors: 3034 offline, 3035 no answer,
   * refused (msg: the device's error) or a malformed answer.
   */
  async read(gatewaySn: string, target: DeviceRow): Promise<ParamsSnapshot> {
    const devices = this.devices;
    if (!devices) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
    const reply = await devices.commands.send(gatewaySn, 'get_params', { deviceSn: target.sn });
    if (!reply.ok) throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, reply.error?.trim() || 'refused');
    const parsed = paramsSnapshotSchema.safeParse(reply.result);
    if (!parsed.success || parsed.data.deviceSn !== target.sn)
      throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, 'malformed answer');
    await this.serial(async () => {
      await storeSnapshot(
        this.db,
        target.id,
        target.type as ParamsSnapshot['deviceType'],
        parsed.data,
        'read',
        new Date(this.now()),
      );
    });
    return parsed.data;
  }

  /**
   * The reply to a `set_params` of `version`: its per-key results are stored (in the background,
   * in order); answers the row's outcome for the delivery (null: every change applied).
   */
  interpretReply(reply: ReplyPayload, version: number | null): string | null {
    const parsed = setParamsResult.safeParse(reply.result);
    if (!parsed.success) return reply.ok ? 'malformed answer' : reply.error?.trim() || 'refused';
    const result = parsed.data;
    const at = new Date(this.now());
    this.serial(async () => {
      const [row] = await this.db
        .select({ id: device.id, siteId: device.siteId })
        .from(device)
        .where(eq(device.sn, result.deviceSn));
      if (!row) return;
      if (result.stale) await this.restartAbove(row.id, row.siteId, result.version, at);
      else await storeAnswer(this.db, row.id, result.version, result.results, at);
      await this.publishRow(row.id);
    });
    if (result.stale)
      return `stale: ${reply.error?.trim() || staleParamsError(version ?? 0, result.version)}`;
    return reply.ok ? null : reply.error?.trim() || setParamsError(result.results) || 'refused';
  }

  /**
   * The device refused our version as stale (it runs `inForce`, newer): our next version is
   * numbered above it and the outstanding keys go out again (pending).
   */
  private async restartAbove(deviceId: number, siteId: number, inForce: number, at: Date): Promise<void> {
    await storeVersionInForce(this.db, deviceId, inForce, at);
    const moved = await this.db.transaction(async (tx) => {
      const shadow = await ensureShadow(tx, deviceId, true);
      if (shadow.version > inForce) return false;
      await tx
        .update(deviceParams)
        .set({ version: nextParamsVersion(shadow.version, inForce), updatedAt: at })
        .where(eq(deviceParams.deviceId, deviceId));
      await tx
        .update(deviceParamKey)
        .set({ state: 'pending', changedAt: at })
        .where(and(eq(deviceParamKey.deviceId, deviceId), eq(deviceParamKey.state, 'sent')));
      return true;
    });
    if (moved) {
      this.log.warn(
        { deviceId, inForce },
        'parameters refused as stale: sent again above the device’s version',
      );
      this.delivery.changed([paramsTarget(siteId, deviceId)]);
    }
  }

  /** A delivery row changed: its keys follow (sent; timeout; pending again when offline). */
  private onDeliveryChange(change: DeliveryChange): void {
    const m = change.message;
    if (m.kind !== PARAMS_KIND || m.deviceId === null) return;
    const deviceId = m.deviceId;
    const at = new Date(this.now());
    this.serial(async () => {
      if (m.sending) {
        await markSent(this.db, deviceId, m.version, at);
        return;
      }
      let changed = 0;
      if (m.reason === DELIVERY_TIMEOUT)
        changed = await markUnanswered(this.db, deviceId, m.version, 'timeout', DELIVERY_TIMEOUT, at);
      else if (m.state === 'pending')
        changed = await markUnanswered(this.db, deviceId, m.version, 'pending', null, at);
      else if (m.state === 'failed')
        // A failure without a per-key answer (the answer's keys were settled before this).
        changed = await markUnanswered(this.db, deviceId, m.version, 'timeout', m.reason, at);
      if (changed > 0) await this.publishRow(deviceId);
    });
  }

  /** Runs `task` after the shadow writes before it; failures are logged (background). */
  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task).catch((err: unknown) => {
      this.log.error({ err }, 'parameter shadow write failed');
    });
    this.chain = run;
    return run;
  }

  /** Sends the device's delivery row on `delivery:params` again (its keys changed). */
  private async publishRow(deviceId: number): Promise<void> {
    const publisher = this.publisher;
    if (!publisher) return;
    const [row] = await this.db
      .select({ row: deviceDelivery, companyId: site.companyId })
      .from(deviceDelivery)
      .innerJoin(site, eq(site.id, deviceDelivery.siteId))
      .where(and(eq(deviceDelivery.kind, PARAMS_KIND), eq(deviceDelivery.target, `device:${deviceId}`)));
    if (row) publisher.publishDelivery(row.companyId, deliveryMessage(row.row, this.delivery.retryAfterMs));
  }

  /**
   * A `params` report of gateway `gateway` (ess/v1/<sn>/params): stored as the device's reported
   * parameters. Resolves when stored or dropped (malformed, not a device behind that gateway);
   * rejects when the database failed (the broker delivers it again).
   */
  async handleReport(gateway: DirectoryEntry, payload: Buffer): Promise<void> {
    let report: ParamsReportPayload;
    try {
      const parsed = paramsReportPayload.safeParse(JSON.parse(payload.toString('utf8')));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid');
      report = parsed.data;
    } catch (err) {
      this.log.warn({ sn: gateway.sn, err: (err as Error).message }, 'malformed params report dropped');
      return;
    }
    const entry = await this.devices?.directory.lookup(report.deviceSn);
    if (!entry || entry.gatewayId !== gateway.deviceId) {
      this.log.warn(
        { sn: gateway.sn, deviceSn: report.deviceSn },
        'params report about a device not behind this gateway dropped',
      );
      return;
    }
    const at = new Date(this.now());
    let failure: unknown = null;
    await this.serial(async () => {
      try {
        await storeSnapshot(
          this.db,
          entry.deviceId,
          entry.type,
          report,
          report.cause,
          at,
          report.changed ?? [],
        );
        await this.publishRow(entry.deviceId);
      } catch (err) {
        failure = err;
      }
    });
    if (failure) throw failure;
  }

  // ---- initialization ------------------------------------------------------------------------

  /** Sends the site's pending `initialize` in the background when its gateway is online. */
  initializeWhenDue(siteId: number): void {
    void this.serialInit(siteId);
  }

  private async serialInit(siteId: number): Promise<void> {
    try {
      await this.sendInitialize(siteId);
    } catch (err) {
      this.log.error({ err, siteId }, 'initialize failed unexpectedly');
    }
  }

  /**
   * Claims the site's pending initialization (one instance), sends `initialize` to its gateway
   * and stores the answer; no answer or offline → pending again (next connection).
   */
  async sendInitialize(siteId: number): Promise<void> {
    const devices = this.devices;
    if (!devices) return;
    const gateways = await this.db
      .select({ id: device.id, sn: device.sn, type: device.type })
      .from(device)
      .where(and(eq(device.siteId, siteId), isNull(device.gatewayId)));
    const gateway = siteGateway(gateways);
    if (!gateway || !devices.tracker.isOnline(gateway.id)) return;
    const [claimed] = await this.db
      .update(siteParamsInit)
      .set({ commandState: 'sent' })
      .where(and(eq(siteParamsInit.siteId, siteId), eq(siteParamsInit.commandState, 'pending')))
      .returning();
    if (!claimed) return;
    const [s] = await this.db.select({ timezone: site.timezone }).from(site).where(eq(site.id, siteId));
    const params: InitializeParams = { timezone: s?.timezone ?? 'Asia/Shanghai', network: claimed.network };
    const settle = (state: 'applied' | 'failed' | 'pending', reason: string | null) =>
      this.db
        .update(siteParamsInit)
        .set({ commandState: state, reason, answeredAt: state === 'pending' ? null : new Date(this.now()) })
        .where(eq(siteParamsInit.siteId, siteId));
    try {
      const reply = await devices.commands.send(gateway.sn, 'initialize', params);
      await settle(reply.ok ? 'applied' : 'failed', reply.ok ? null : reply.error?.trim() || 'refused');
      this.log.info({ siteId, ok: reply.ok, error: reply.error }, 'initialize answered');
    } catch (err) {
      await settle(
        'pending',
        err instanceof ApiError ? (err.detail ?? String(err.code)) : (err as Error).message,
      );
    }
  }
}
