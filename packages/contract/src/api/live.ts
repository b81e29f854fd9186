/**
 * Live push over the WebSocket at `/ws` (devices issue). The browser cannot set headers on a
 * WebSocket, so the session token travels in the first message; the server checks the Origin.
 *
 * client → server: `{type:'auth', token}` then `{type:'subscribe', channels}`
 * server → client: `{type:'ready'}` | `{type:'error', code}` | snapshots and updates below,
 * at most one per channel per second.
 *
 * Channels: `fleet` (overview + sites + latest alarms of the caller's companies) and
 * `device:<id>` (latest points of one device). After a drop the console reconnects with
 * backoff, authenticates and subscribes again; the server answers each subscribe with a full
 * snapshot (resync).
 */
import { z } from 'zod';
import { alarmRowSchema, fleetOverviewSchema, siteStatusSchema } from './dashboard';

export const LIVE_PATH = '/ws';
/** Minimum time between two updates of one channel (ms). */
export const LIVE_MIN_INTERVAL_MS = 1000;

export const liveClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auth'), token: z.string().min(1).max(128) }),
  z.object({
    type: z.literal('subscribe'),
    channels: z.array(z.string().regex(/^(fleet|device:\d+)$/)).max(32),
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

export type LiveServerMessage =
  | { type: 'ready' }
  | { type: 'pong' }
  | { type: 'error'; code: number; msg: string }
  | LiveFleetMessage
  | LiveDeviceMessage;
