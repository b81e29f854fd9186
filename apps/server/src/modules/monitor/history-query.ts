/**
 * The history query path (docs/architecture.md "History queries"): which source answers a
 * range, and the reads from raw rows (`telemetry`) or rollups (`telemetry_rollup`).
 *
 * Choice ({@link chooseResolution}): raw rows when the range is at most RAW_MAX_SPAN_MS and each
 * device has at most MAX_POINTS_PER_SERIES rows in it (counted with a LIMIT, on the primary
 * key); otherwise the finest rollup — 15 min, 1 h, site-local day — whose bucket count over the
 * range is at most MAX_POINTS_PER_SERIES. A year therefore comes from ~365 daily rows per
 * point, read by primary key (device_id, bucket_s, point, bucket_start).
 *
 * Every read also answers totals over exactly [start, end) (n, sum, min, max): from raw rows they
 * are computed over the readings; from rollups over the n/sum/min/max of the buckets wholly inside
 * the range, plus the part of each edge bucket inside the range read from raw rows (a rolled-up
 * series shows whole buckets: its first may start before `start`, its last end after `end`). So
 * both give the same figures for the same readings, whatever the range's alignment.
 */
import {
  type HistoryResolution,
  type HistorySeries,
  MAX_POINTS_PER_SERIES,
  RAW_MAX_SPAN_MS,
  type SeriesStats,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import type { Db } from '../../core/db/database';
import { numOrNull, rowsOf } from '../../core/db/rows';
import { bucketStart } from '../../devices/rollup-buckets';

/** A device whose points are read: id, labels and the site's time zone (day buckets). */
export interface SeriesDevice {
  id: number;
  sn: string;
  type: HistorySeries['type'];
  timezone: string;
}

export interface SeriesRequest {
  device: SeriesDevice;
  points: string[];
}

/**
 * Where a read comes from: `auto` (the rule above), or forced — `raw`, a rollup, or
 * `raw-buckets` (raw rows grouped into the rollup's buckets in SQL: the "same query over raw
 * data" of the bench and the totals test; never offered to the browser).
 */
export type SourceChoice =
  | { kind: 'auto' }
  | { kind: 'raw' }
  | { kind: 'rollup'; bucketS: 900 | 3600 | 86400 }
  | { kind: 'raw-buckets'; bucketS: 900 | 3600 | 86400 };

const ROLLUPS = [900, 3600, 86400] as const;

/** Buckets of `bucketS` seconds touched by [startMs, endMs) (a day bucket counted as 24 h). */
export function bucketCount(bucketS: number, startMs: number, endMs: number): number {
  const size = bucketS * 1000;
  return Math.floor((endMs - 1) / size) - Math.floor(startMs / size) + 1;
}

/** The rollup used for a range when raw rows are too many or the range too long. */
export function rollupFor(startMs: number, endMs: number): 900 | 3600 | 86400 {
  for (const b of ROLLUPS) {
    // Day buckets are site-local: allow one extra for a bucket straddling the range's start.
    if (bucketCount(b, startMs, endMs) + (b === 86400 ? 1 : 0) <= MAX_POINTS_PER_SERIES) return b;
  }
  return 86400;
}

/** Raw rows of one device in [startMs, endMs), counting at most `limit + 1`. */
async function rawRowCount(db: Db, deviceId: number, startMs: number, endMs: number, limit: number) {
  const rows = rowsOf<{ n: number }>(
    await db.execute(sql`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM telemetry
        WHERE device_id = ${deviceId} AND ts >= to_timestamp(${startMs / 1000}) AND ts < to_timestamp(${endMs / 1000})
        LIMIT ${limit + 1}) x`),
  );
  return Number(rows[0]?.n ?? 0);
}

/** The resolution the server answers [startMs, endMs) with for these devices (module comment). */
export async function chooseResolution(
  db: Db,
  deviceIds: number[],
  startMs: number,
  endMs: number,
): Promise<HistoryResolution> {
  if (endMs - startMs <= RAW_MAX_SPAN_MS) {
    let fits = true;
    for (const id of new Set(deviceIds)) {
      if ((await rawRowCount(db, id, startMs, endMs, MAX_POINTS_PER_SERIES)) > MAX_POINTS_PER_SERIES) {
        fits = false;
        break;
      }
    }
    if (fits) return 'raw';
  }
  return String(rollupFor(startMs, endMs)) as HistoryResolution;
}

function emptyStats(): SeriesStats {
  return { n: 0, sum: 0, avg: null, min: null, max: null };
}

function finishStats(s: SeriesStats): SeriesStats {
  return { ...s, avg: s.n > 0 ? s.sum / s.n : null };
}

function emptySeries(device: SeriesDevice, point: string, rolled: boolean): HistorySeries {
  return {
    deviceId: device.id,
    sn: device.sn,
    type: device.type,
    point,
    ts: [],
    avg: [],
    min: rolled ? [] : null,
    max: rolled ? [] : null,
    stats: emptyStats(),
  };
}

/** Readings of `points` of one device, one row per reading time. */
async function readRaw(db: Db, req: SeriesRequest, startMs: number, endMs: number): Promise<HistorySeries[]> {
  const out = new Map(req.points.map((p) => [p, emptySeries(req.device, p, false)]));
  const result = await db.execute(sql`
    SELECT (extract(epoch FROM ts) * 1000)::float8 AS t,
           ${sql.join(
             req.points.map((p, i) => sql`(points->>${p})::float8 AS ${sql.raw(`v${i}`)}`),
             sql`, `,
           )}
    FROM telemetry
    WHERE device_id = ${req.device.id} AND ts >= to_timestamp(${startMs / 1000}) AND ts < to_timestamp(${endMs / 1000})
    ORDER BY ts`);
  for (const row of rowsOf<Record<string, unknown>>(result)) {
    const t = Math.round(Number(row.t));
    req.points.forEach((p, i) => {
      const raw = row[`v${i}`];
      if (raw === null || raw === undefined) return;
      const v = Number(raw);
      const s = out.get(p)!;
      s.ts.push(t);
      s.avg.push(v);
      addStats(s.stats, 1, v, v, v);
    });
  }
  return finishedSeries(req, out);
}

/** The series of `req.points` in order, their stats finished (average, rounding). */
function finishedSeries(req: SeriesRequest, out: Map<string, HistorySeries>): HistorySeries[] {
  return req.points.map((p) => {
    const s = out.get(p)!;
    return { ...s, stats: finishStats(s.stats) };
  });
}

interface BucketRow {
  point: string;
  t: number;
  n: number;
  sum: number;
  min: number;
  max: number;
}

function seriesFromBuckets(req: SeriesRequest, rows: BucketRow[]): HistorySeries[] {
  const out = new Map(req.points.map((p) => [p, emptySeries(req.device, p, true)]));
  for (const r of rows) {
    const s = out.get(r.point);
    if (!s) continue;
    const n = Number(r.n);
    const sum = Number(r.sum);
    const min = Number(r.min);
    const max = Number(r.max);
    s.ts.push(Math.round(Number(r.t)));
    s.avg.push(sum / n);
    s.min!.push(min);
    s.max!.push(max);
    addStats(s.stats, n, sum, min, max);
  }
  return finishedSeries(req, out);
}

/** End (UTC ms, exclusive) of the bucket of `bucketS` starting at `t` (next local midnight for days, DST included). */
function bucketEnd(bucketS: number, t: number, timezone: string): number {
  return bucketStart(bucketS, t + bucketS * 1500, timezone);
}

/** Adds raw totals (n, sum, min, max) to `s`. */
function addStats(s: SeriesStats, n: number, sum: number, min: number | null, max: number | null): void {
  if (n === 0 || min === null || max === null) return;
  s.n += n;
  s.sum += sum;
  s.min = s.min === null ? min : Math.min(s.min, min);
  s.max = s.max === null ? max : Math.max(s.max, max);
}

/**
 * Series of whole buckets from `rows`, with `stats` over exactly [startMs, endMs): buckets wholly
 * inside count by their n/sum/min/max, the in-range part of an edge bucket (at most two: the first
 * and the last) is aggregated from raw rows.
 */
async function seriesInRange(
  db: Db,
  req: SeriesRequest,
  bucketS: number,
  startMs: number,
  endMs: number,
  rows: BucketRow[],
): Promise<HistorySeries[]> {
  const inside: BucketRow[] = [];
  const edges: [number, number][] = [];
  for (const r of rows) {
    const t = Math.round(Number(r.t));
    const end = bucketEnd(bucketS, t, req.device.timezone);
    if (t >= startMs && end <= endMs) inside.push(r);
    else if (!edges.some(([from]) => from === Math.max(t, startMs)))
      edges.push([Math.max(t, startMs), Math.min(end, endMs)]);
  }
  const series = seriesFromBuckets(req, rows);
  const totals = seriesFromBuckets(req, inside).map((s) => s.stats);
  for (const [from, to] of edges) {
    if (from >= to) continue;
    const [edge] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`
        SELECT ${sql.join(
          req.points.map(
            (_, i) =>
              sql`count(${sql.raw(`v${i}`)})::int AS ${sql.raw(`n${i}`)}, sum(${sql.raw(`v${i}`)}) AS ${sql.raw(`s${i}`)},
                  min(${sql.raw(`v${i}`)}) AS ${sql.raw(`lo${i}`)}, max(${sql.raw(`v${i}`)}) AS ${sql.raw(`hi${i}`)}`,
          ),
          sql`, `,
        )}
        FROM (SELECT ${sql.join(
          req.points.map((p, i) => sql`(points->>${p})::float8 AS ${sql.raw(`v${i}`)}`),
          sql`, `,
        )}
              FROM telemetry
              WHERE device_id = ${req.device.id} AND ts >= to_timestamp(${from / 1000}) AND ts < to_timestamp(${to / 1000})) x`),
    );
    if (!edge) continue;
    req.points.forEach((_, i) => {
      addStats(
        totals[i]!,
        Number(edge[`n${i}`] ?? 0),
        Number(edge[`s${i}`] ?? 0),
        numOrNull(edge[`lo${i}`]),
        numOrNull(edge[`hi${i}`]),
      );
    });
  }
  return series.map((s, i) => ({ ...s, stats: finishStats(totals[i]!) }));
}

/** Rollup buckets of `points` of one device (primary-key range read). */
async function readRollup(
  db: Db,
  req: SeriesRequest,
  bucketS: number,
  startMs: number,
  endMs: number,
): Promise<HistorySeries[]> {
  const from = bucketStart(bucketS, startMs, req.device.timezone);
  const result = await db.execute(sql`
    SELECT point, (extract(epoch FROM bucket_start) * 1000)::float8 AS t, n, sum, min, max
    FROM telemetry_rollup
    WHERE device_id = ${req.device.id} AND bucket_s = ${bucketS}
      AND point IN (${sql.join(
        req.points.map((p) => sql`${p}`),
        sql`, `,
      )})
      AND bucket_start >= to_timestamp(${from / 1000}) AND bucket_start < to_timestamp(${endMs / 1000})
    ORDER BY point, bucket_start`);
  return seriesInRange(db, req, bucketS, startMs, endMs, rowsOf<BucketRow>(result));
}

/** The same buckets computed from raw rows in SQL (the slow path the rollups replace). */
async function readRawBuckets(
  db: Db,
  req: SeriesRequest,
  bucketS: number,
  startMs: number,
  endMs: number,
): Promise<HistorySeries[]> {
  const from = bucketStart(bucketS, startMs, req.device.timezone);
  const tz = req.device.timezone;
  const bucket =
    bucketS === 86400
      ? sql`(date_trunc('day', ts AT TIME ZONE ${tz}) AT TIME ZONE ${tz})`
      : sql`to_timestamp(floor(extract(epoch FROM ts) / ${bucketS}) * ${bucketS})`;
  const parts = req.points.map(
    (p) => sql`
      SELECT ${p}::text AS point, (extract(epoch FROM b) * 1000)::float8 AS t,
             count(v)::int AS n, sum(v) AS sum, min(v) AS min, max(v) AS max
      FROM (SELECT ${bucket} AS b, (points->>${p})::float8 AS v FROM telemetry
            WHERE device_id = ${req.device.id} AND ts >= to_timestamp(${from / 1000})
              AND ts < to_timestamp(${endMs / 1000}) AND points ? ${p}) x
      GROUP BY b`,
  );
  const result = await db.execute(sql`${sql.join(parts, sql` UNION ALL `)} ORDER BY 1, 2`);
  return seriesInRange(db, req, bucketS, startMs, endMs, rowsOf<BucketRow>(result));
}

/**
 * Series of every (device, points) request over [startMs, endMs), from the chosen source, with
 * the resolution answered. Devices without data give empty series (not an error).
 */
export async function readSeries(
  db: Db,
  requests: SeriesRequest[],
  startMs: number,
  endMs: number,
  source: SourceChoice = { kind: 'auto' },
): Promise<{ resolution: HistoryResolution; series: HistorySeries[] }> {
  let resolution: HistoryResolution;
  if (source.kind === 'auto') {
    resolution = await chooseResolution(
      db,
      requests.map((r) => r.device.id),
      startMs,
      endMs,
    );
  } else if (source.kind === 'raw') {
    resolution = 'raw';
  } else {
    resolution = String(source.bucketS) as HistoryResolution;
  }
  const series: HistorySeries[] = [];
  for (const req of requests) {
    if (resolution === 'raw') series.push(...(await readRaw(db, req, startMs, endMs)));
    else if (source.kind === 'raw-buckets')
      series.push(...(await readRawBuckets(db, req, Number(resolution), startMs, endMs)));
    else series.push(...(await readRollup(db, req, Number(resolution), startMs, endMs)));
  }
  return { resolution, series };
}
