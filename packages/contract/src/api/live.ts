/**
 * Live push over the WebSocket at `/ws` (devices issue). The browser cannot set headers on a
 * WebSocket, so the session token travels in the first message; the server checks the Origin.
 *
 * client → server: `{type:'auth', token}` then `{type:'subscribe', channels}`
 * server → client: `{type:'ready'}` | `{type:'error', code}` | snapshots and updates below,
 * at most one per channel per second.
 *
 * Channels: `fleet` (overview + sites + latest alarms of the caller's companies),
 * `device:<id>` (latest points of one device) and `delivery:<kind>` (every state change of a
 * desired-state delivery of that kind — `delivery:tou`, the sites' ToU schemes — for targets
 * whose site is in the caller's companies; docs/device-protocol.md "Delivery of desired
 * state"). After a drop the console reconnects with backoff, authenticates and subscribes
 * again; the server answers each `fleet`/`device:` subscribe with a full snapshot (resync).
 * A `delivery:` subscribe has no snapshot: the console reads the rows it shows over HTTP when it
 * (re)subscribes and applies the changes that follow. `upgrade` (issue 16): changes of upgrade
 * batches whose company is in the caller's scope ({@link liveUpgradeMessage}); no snapshot
 * either — the console reads `upgrade/pageList` or `upgrade/detail` and applies the changes.
 */
import { z } from 'zod';
import { alarmRowSchema, fleetOverviewSchema, siteStatusSchema } from './dashboard';
import { upgradeBatchRowSchema, upgradeDeviceRowSchema } from './firmware';

export const LIVE_PATH = '/ws';
/** Minimum time between two updates of one channel (ms). */
export const LIVE_MIN_INTERVAL_MS = 1000;

export const liveClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auth'), token: z.string().min(1).max(128) }),
  z.object({
    type: z.literal('subscribe'),
    channels: z.array(z.string().regex(/^(fleet|device:\d+|delivery:[a-z_]{1,32}|upgrade)$/)).max(32),
  }),
  z.object({ type: z.literal('unsubscribe'), channels: z.array(z.string()).max(32) }),
  z.object({ type: z.literal('ping') }),
]);
export type LiveClientMessage = z.infer<typeof liveClientMessage>;

export const liveFleetMessage = z.object({
  type: z.literal('fleet'),
  overview: fleetOverviewSchema,
  sites: z.array(siteStatusSchema),
  alarms: z.array(alarmRowSchema),
});
export type LiveFleetMessage = z.infer<typeof liveFleetMessage>;

export const liveDeviceMessage = z.object({
  type: z.literal('device'),
  deviceId: z.number().int(),
  ts: z.number().int(),
  points: z.record(z.string(), z.number()),
});
export type LiveDeviceMessage = z.infer<typeof liveDeviceMessage>;

/**
 * Kinds of desired-state delivery (devices/delivery.ts on the server): 'tou' the site's ToU scheme,
 * 'params' a device's parameters (api/params.ts).
 */
export const DELIVERY_KINDS = ['tou', 'params'] as const;
export type DeliveryKindName = (typeof DELIVERY_KINDS)[number];

/**
 * States of the delivery of the desired version: pending (not sent yet: the gateway is offline,
 * or a change waits for the send before it) → sent (waiting for the device's reply) → applied
 * (the device runs it; a later re-send of it keeps the row applied whatever comes back short of
 * a refusal) | failed (`reason`: the device's refusal, {@link DELIVERY_TIMEOUT} when no reply
 * came in time, or the send error; the device still runs its `appliedVersion`).
 */
export const DELIVERY_STATES = ['pending', 'sent', 'applied', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The `reason` of a send the device did not answer in time (retried, see docs/device-protocol.md). */
export const DELIVERY_TIMEOUT = 'timeout';

/**
 * One delivery row after a change of state, on channel `delivery:<kind>`: the target (its site,
 * and its device for a device target), what it should run (`desired`, the kind's identity of the
 * document — ToU `{schemeId}` — at `version`), the state of that delivery, and, kept apart from
 * it (issue 14), what the device is known to run: `appliedVersion` of `desired`, confirmed at
 * `appliedAt` (null: none confirmed). The last send: `sentAt`, `sending` while its command is
 * out, its failure in `reason` ('timeout': no answer; on an `applied` row that is a re-send of
 * the applied version that got no answer, which leaves it applied), and `retryAt` when an
 * unanswered send goes out again (null: no retry planned). Times ISO 8601, null until they happen.
 */
export const liveDeliveryMessage = z.object({
  type: z.literal('delivery'),
  kind: z.enum(DELIVERY_KINDS),
  siteId: z.number().int(),
  deviceId: z.number().int().nullable(),
  desired: z.record(z.string(), z.unknown()),
  version: z.number().int(),
  state: z.enum(DELIVERY_STATES),
  appliedVersion: z.number().int().nullable(),
  appliedAt: z.string().nullable(),
  attempt: z.number().int(),
  sending: z.boolean(),
  reason: z.string().nullable(),
  retryAt: z.string().nullable(),
  requestedAt: z.string(),
  sentAt: z.string().nullable(),
});
export type LiveDeliveryMessage = z.infer<typeof liveDeliveryMessage>;

/**
 * Channel `upgrade`: one batch after a change — its row as `upgrade/pageList` lists it (state,
 * counts per device state, wave) and the devices whose state, percent or reason changed since
 * the last message of the channel, each as `upgrade/detail` shows it (with its whole timeline).
 * Several changes within the channel's second are merged (the newest row of each device).
 */
export const liveUpgradeMessage = z.object({
  type: z.literal('upgrade'),
  batch: upgradeBatchRowSchema,
  devices: z.array(upgradeDeviceRowSchema),
});
export type LiveUpgradeMessage = z.infer<typeof liveUpgradeMessage>;

/** The channel of {@link liveUpgradeMessage}. */
export const LIVE_UPGRADE_CHANNEL = 'upgrade';

export type LiveServerMessage =
  | { type: 'ready' }
  | { type: 'pong' }
  | { type: 'error'; code: number; msg: string }
  | LiveFleetMessage
  | LiveDeviceMessage
  | LiveDeliveryMessage
  | LiveUpgradeMessage;
