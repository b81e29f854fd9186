/**
 * React side of the live connection: `useLiveChannel('fleet')` → the latest fleet snapshot
 * (overview, sites, alarms) and the connection status; `useLiveChannel('device:12')` → the
 * latest readings of device 12. Monitoring screens reuse it.
 */
import {
  LIVE_PATH,
  type LiveDeliveryMessage,
  type LiveDeviceMessage,
  type LiveFleetMessage,
  type LiveUpgradeMessage,
} from '@ess/contract';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { refreshExpiredToken } from '../api/client';
import { getCredentials } from '../storage/session';
import { type ChannelMessage, LiveConnection, type LiveStatus, type SocketLike } from './connection';

/** `ws://host/ws` or `wss://host/ws` for the page's origin. */
function liveUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}${LIVE_PATH}`;
}

/** The tab's one live connection. */
export const liveConnection = new LiveConnection({
  open: () => new WebSocket(liveUrl()) as unknown as SocketLike,
  token: () => getCredentials().token,
  refresh: refreshExpiredToken,
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
  now: () => Date.now(),
});

window.addEventListener('online', () => liveConnection.retryNow());

/** The connection status, re-rendering on change. */
export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (notify) => liveConnection.onStatus(notify),
    () => liveConnection.status,
  );
}

type ChannelData<C extends string> = C extends 'fleet'
  ? LiveFleetMessage
  : C extends `device:${number}`
    ? LiveDeviceMessage
    : C extends `delivery:${string}`
      ? LiveDeliveryMessage
      : C extends 'upgrade'
        ? LiveUpgradeMessage
        : ChannelMessage;

/**
 * Listen to `channel` while mounted (null: listen to nothing). Returns the latest message of
 * the channel (undefined until the first snapshot) and the connection status.
 */
export function useLiveChannel<C extends string>(
  channel: C | null,
): { data: ChannelData<C> | undefined; status: LiveStatus } {
  const [data, setData] = useState<ChannelMessage | undefined>(() =>
    channel ? liveConnection.last(channel) : undefined,
  );
  const status = useLiveStatus();
  useEffect(() => {
    if (!channel) {
      setData(undefined);
      return;
    }
    setData(liveConnection.last(channel));
    return liveConnection.listen(channel, setData);
  }, [channel]);
  return { data: data as ChannelData<C> | undefined, status };
}

/**
 * Calls `onMessage` with every message of `channel` while mounted (null: nothing), for channels
 * of changes such as `delivery:tou` where each message counts, not only the latest. The server
 * sends no snapshot on such a subscribe: read the data over HTTP and apply the changes that
 * follow (and read again when the connection comes back: the answer's status turns 'live').
 */
export function useLiveMessages<C extends string>(
  channel: C | null,
  onMessage: (message: ChannelData<C>) => void,
): LiveStatus {
  const handler = useRef(onMessage);
  useEffect(() => {
    handler.current = onMessage;
  });
  const status = useLiveStatus();
  useEffect(() => {
    if (!channel) return;
    return liveConnection.listen(channel, (message) => handler.current(message as ChannelData<C>));
  }, [channel]);
  return status;
}
