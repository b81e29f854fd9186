/**
 * React side of the live connection: `useLiveChannel('fleet')` → the latest fleet snapshot
 * (overview, sites, alarms) and the connection status; `useLiveChannel('device:12')` → the
 * latest readings of device 12. Monitoring screens reuse it.
 */
import { LIVE_PATH, type LiveDeviceMessage, type LiveFleetMessage } from '@ess/contract';
import { useEffect, useState, useSyncExternalStore } from 'react';
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
