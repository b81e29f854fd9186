/**
 * "Newest value wins": how the live screens lay the values pushed on the `device:<id>` and
 * `fleet` channels (contract api/live.ts) over the values of their HTTP query.
 *
 * The one rule ({@link liveWins}): a live value replaces the query's value when its report time
 * (UTC ms) is the same as or newer than the query's (`>=`), or when the query's value has no
 * time. The server pushes what it stores, so a live message with the query's time carries the
 * same value and `>=` is harmless; `>=` also lets the live snapshot a channel sends on subscribe
 * stand in for a query answer of the same reading. An older live value never replaces a newer
 * query value (the query may have been re-read after the message).
 *
 * Device readings are kept per point: each point keeps its own report time, so a message that
 * carries only some points never makes the others look newer than they are.
 */

/** A value with its report time (UTC ms). */
export interface TimedValue {
  value: number;
  ts: number;
}

/** The newest live values of one device, per point name. */
export type LivePoints = ReadonlyMap<string, TimedValue>;

/** True when a live value of time `liveTs` replaces a query value of time `queryTs` (see module comment). */
export function liveWins(liveTs: number, queryTs: number | null | undefined): boolean {
  return queryTs === null || queryTs === undefined || liveTs >= queryTs;
}

/**
 * `current` with the points of one device message (`ts`, `points`), each point kept only if
 * it is not older than the one already kept. Returns `current` itself when nothing changed.
 */
export function mergeLivePoints(
  current: LivePoints | undefined,
  message: { ts: number; points: Record<string, number> },
): LivePoints {
  let next: Map<string, TimedValue> | undefined;
  for (const [name, value] of Object.entries(message.points)) {
    const kept = current?.get(name);
    if (kept && !liveWins(message.ts, kept.ts)) continue;
    next ??= new Map(current);
    next.set(name, { value, ts: message.ts });
  }
  return next ?? current ?? new Map();
}

/**
 * A device reading of the query (one `ts` for all its `points`; `ts` null: never reported) with
 * the winning live points laid over it; its `ts` becomes the newest time shown. Returns
 * `reading` itself when no live point wins.
 */
export function overlayReading<R extends { ts: number | null; points: Record<string, number> }>(
  reading: R,
  live: LivePoints | undefined,
): R {
  if (!live || live.size === 0) return reading;
  let points: Record<string, number> | undefined;
  let ts = reading.ts;
  for (const [name, v] of live) {
    if (!liveWins(v.ts, reading.ts)) continue;
    points ??= { ...reading.points };
    points[name] = v.value;
    if (ts === null || v.ts > ts) ts = v.ts;
  }
  return points ? { ...reading, ts, points } : reading;
}

/**
 * Points of the query that each carry their own time, with the live points laid over them:
 * per name, the newer value (see {@link liveWins}); live points the query lacks are added.
 */
export function overlayPoints(
  points: readonly ({ name: string } & TimedValue)[],
  live: LivePoints | undefined,
): Map<string, TimedValue> {
  const out = new Map<string, TimedValue>();
  for (const p of points) out.set(p.name, { value: p.value, ts: p.ts });
  for (const [name, v] of live ?? []) {
    const q = out.get(name);
    if (!q || liveWins(v.ts, q.ts)) out.set(name, v);
  }
  return out;
}
