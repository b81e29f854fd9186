/**
 * Commands to gateways and their replies (docs/device-protocol.md "cmd and cmd/reply"):
 * each command gets an id (or the caller's, `send(…, {id})`); the reply with that id resolves
 * it; no reply within COMMAND_TIMEOUT_MS fails it with 3035 (detail NO_REPLY).
 * Errors: 3030 unknown SN, 3031 not a gateway, 3034 gateway offline, 3035 sending failed or
 * no reply in time.
 *
 * With several server instances every instance receives every reply (the external broker's
 * reply subscription is not shared): a valid reply no command of this instance waits for — to
 * another instance's command, or late — goes to the `onUnmatchedReply` listeners
 * (devices/delivery.ts settles it in the database when its sender has not: the sender stopped
 * with the command out). Such a reply arriving while nobody listens yet — the broker subscription
 * is made when the device side starts, the delivery service listens a moment later, and a
 * persistent session hands over at once what the broker kept for it — is kept for the reply
 * timeout (at most {@link MAX_HELD_REPLIES}) and handed to the first listener.
 */
import { randomUUID } from 'node:crypto';
import {
  COMMAND_TIMEOUT_MS,
  type CommandName,
  type CommandPayload,
  deviceTopic,
  ErrorCode,
  PROTOCOL_VERSION,
  type ReplyPayload,
  replyPayload,
} from '@ess/contract';
import { ApiError } from '../core/http/api-error';
import type { ConnectionTracker } from './connection-tracker';
import type { DeviceDirectory } from './device-directory';

/** Replies kept while no `onUnmatchedReply` listener is registered (oldest dropped first). */
export const MAX_HELD_REPLIES = 1000;

/** Detail of the 3035 a command waiting for its reply fails with when the server stops. */
export const STOPPING = 'server stopping';

/** Detail of the 3035 a command answers when the device sent no reply in time. */
export const NO_REPLY = 'no reply';

/** What a transport must offer to send a command. */
export type Publish = (topic: string, payload: string, options: { qos: 1; retain: boolean }) => Promise<void>;

interface Waiting {
  resolve(reply: ReplyPayload): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** A new command id (`c-<uuid>`, within the protocol's 64 characters). */
export function newCommandId(): string {
  return `c-${randomUUID()}`;
}

export class CommandService {
  private waiting = new Map<string, Waiting>();
  private readonly unmatched = new Set<(reply: ReplyPayload) => void>();
  /** Unmatched replies received while no listener was registered, with when (ms). */
  private held: Array<{ reply: ReplyPayload; at: number }> = [];

  constructor(
    private readonly directory: DeviceDirectory,
    private readonly tracker: ConnectionTracker,
    private publish: Publish,
    private readonly timeoutMs = COMMAND_TIMEOUT_MS,
  ) {}

  setPublisher(publish: Publish): void {
    this.publish = publish;
  }

  /** How long a command waits for its reply (ms). */
  get replyTimeoutMs(): number {
    return this.timeoutMs;
  }

  /**
   * Calls `listener` with every valid reply no command of this instance waits for (sent by
   * another instance, or late); answers the unsubscribe. The first listener also gets the
   * replies received before it, within the reply timeout, in the order received.
   */
  onUnmatchedReply(listener: (reply: ReplyPayload) => void): () => void {
    this.unmatched.add(listener);
    const since = Date.now() - this.timeoutMs;
    const held = this.held.filter((h) => h.at >= since);
    this.held = [];
    for (const h of held) listener(h.reply);
    return () => this.unmatched.delete(listener);
  }

  /**
   * Sends `name` to gateway `sn` and waits for its reply. `options.id`: the command's id (the
   * caller stored it before sending, so that any instance can match the reply); default a new one.
   */
  async send(
    sn: string,
    name: CommandName,
    params: Record<string, unknown>,
    options: { id?: string } = {},
  ): Promise<ReplyPayload> {
    const gateway = await this.directory.lookup(sn);
    if (!gateway) throw new ApiError(ErrorCode.DEVICE_NOT_FOUND);
    if (!gateway.isGateway) throw new ApiError(ErrorCode.DEVICE_NO_MQTT_CONFIG);
    if (!this.tracker.isOnline(gateway.deviceId)) throw new ApiError(ErrorCode.DEVICE_OFFLINE);
    const command: CommandPayload = {
      v: PROTOCOL_VERSION,
      id: options.id ?? newCommandId(),
      ts: Date.now(),
      name,
      params,
    };
    const reply = new Promise<ReplyPayload>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(command.id);
        reject(new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, NO_REPLY));
      }, this.timeoutMs);
      timer.unref();
      this.waiting.set(command.id, { resolve, reject, timer });
    });
    // The timeout or close() may reject it while the publish below is still pending, before the
    // caller holds it: that must not count as an unhandled rejection (the caller still sees it).
    reply.catch(() => undefined);
    try {
      await this.publish(deviceTopic(sn, 'cmd'), JSON.stringify(command), { qos: 1, retain: false });
    } catch (err) {
      const w = this.waiting.get(command.id);
      if (w) clearTimeout(w.timer);
      this.waiting.delete(command.id);
      throw new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, (err as Error).message);
    }
    return reply;
  }

  /** A message on `ess/v1/<sn>/cmd/reply`; unknown or malformed replies are ignored. */
  handleReply(payload: Buffer): void {
    let parsed: ReturnType<typeof replyPayload.safeParse>;
    try {
      parsed = replyPayload.safeParse(JSON.parse(payload.toString('utf8')));
    } catch {
      return;
    }
    if (!parsed.success) return;
    const w = this.waiting.get(parsed.data.id);
    if (!w) {
      if (this.unmatched.size === 0) {
        this.held.push({ reply: parsed.data, at: Date.now() });
        if (this.held.length > MAX_HELD_REPLIES) this.held.shift();
      }
      for (const listener of this.unmatched) listener(parsed.data);
      return;
    }
    clearTimeout(w.timer);
    this.waiting.delete(parsed.data.id);
    w.resolve(parsed.data);
  }

  /**
   * Stops waiting for command `id` (its outcome became known elsewhere): its `send` fails with
   * 3035 'abandoned', which the caller that abandoned it ignores.
   */
  abandon(id: string): void {
    const w = this.waiting.get(id);
    if (!w) return;
    clearTimeout(w.timer);
    this.waiting.delete(id);
    w.reject(new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, 'abandoned'));
  }

  /** Fails every waiting command (shutdown). */
  close(): void {
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new ApiError(ErrorCode.DEVICE_SEND_FAILED, {}, STOPPING));
      this.waiting.delete(id);
    }
  }
}
