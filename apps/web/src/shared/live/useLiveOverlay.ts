/**
 * React side of "newest value wins" (overlay.ts): the newest live values of devices, and query
 * data with them laid over it. Used by the real-time data page, the site monitor and the site
 * big screens.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ChannelMessage } from './connection';
import { type LivePoints, mergeLivePoints, overlayReading } from './overlay';
import { liveConnection } from './useLiveChannel';

/**
 * The newest live values, per point, of each device of `ids` while mounted (channels
 * `device:<id>`, starting from the connection's last message of each). Reset when `ids` change.
 */
export function useLiveDevices(ids: readonly number[]): ReadonlyMap<number, LivePoints> {
  const [readings, setReadings] = useState<ReadonlyMap<number, LivePoints>>(() => new Map());
  const key = ids.join(',');
  useEffect(() => {
    const list = key ? key.split(',').map(Number) : [];
    const apply = (id: number, message: ChannelMessage) => {
      if (message.type !== 'device' || message.deviceId !== id) return;
      setReadings((prev) => {
        const cur = prev.get(id);
        const merged = mergeLivePoints(cur, message);
        if (merged === cur) return prev;
        const next = new Map(prev);
        next.set(id, merged);
        return next;
      });
    };
    setReadings(new Map());
    const stops = list.map((id) => {
      const channel = `device:${id}`;
      const last = liveConnection.last(channel);
      if (last) apply(id, last);
      return liveConnection.listen(channel, (message) => apply(id, message));
    });
    return () => {
      for (const stop of stops) stop();
    };
  }, [key]);
  return readings;
}

/**
 * `devices` (query data: each with `id`, its reading time `ts` and `points`) with the newer
 * live values of each laid over it (overlay.ts: per point, live wins when not older). Listens to
 * the devices' channels while mounted; undefined while the query has no data.
 */
export function useLiveOverlay<D extends { id: number; ts: number | null; points: Record<string, number> }>(
  devices: readonly D[] | undefined,
): D[] | undefined {
  const ids = useMemo(() => (devices ?? []).map((d) => d.id), [devices]);
  const live = useLiveDevices(ids);
  return useMemo(() => devices?.map((d) => overlayReading(d, live.get(d.id))), [devices, live]);
}
