/**
 * The demo fleet's past (issue 14): when a demo site is first registered, `DEMO_HISTORY_DAYS`
 * days of it up to its registration are written in the background, so that history, energy
 * statistics, export and the alarm history have content from the first minutes on.
 *
 * - What is written is what the site's gateway would have sent: the simulator's model stepped
 *   a quarter hour at a time from the seed (`@ess/simulator` history.ts: one reading per
 *   15-minute rollup bucket, with the alarm events the steps raise and clear), running the ToU
 *   scheme the site is assigned (as `set_tou_plan` delivers it, devices/tou-push.ts) or its
 *   built-in strategy.
 * - It is written through the ingest (devices/ingest.ts `acceptHistory`): the same validation,
 *   SN mapping, batches, raw rows, 15 min / 1 h / site-local day rollups, latest values, alarm
 *   events and alarm lifecycle as a live message, so daily energy and every screen read it as
 *   they read live data. Its alarms are history, not news: they are not mailed.
 * - The past of a site ends where the site's live run begins: at its registration (`site.
 *   created_at`, down to the quarter hour). The live simulator starts from the model's state
 *   there ({@link demoStartStates}), so registers, SOC and alarms run on without a seam; after
 *   a restart it resumes from what the server last stored instead (`resumeSite`).
 * - Idempotent: the readings already stored (of the gateway, by time) are skipped, events carry
 *   ids that name their time (stored once), so a restart during the backfill continues where it
 *   stopped and one after it writes nothing. A site with telemetry but none of this past (one
 *   registered by an older version, which has a past of its own since) gets none.
 * - Throughput: the backfill keeps a few thousand rows in flight and yields to the event loop
 *   between steps, so the console and the live fleet stay responsive; progress is logged every
 *   10 % (rows, rows/s), and the month partitions of the window are created first.
 */
import { type SetTouPlanParams, TOU_TIERS } from '@ess/contract';
import {
  type FleetSite,
  HISTORY_STEP_S,
  historyAdvance,
  historyStart,
  historyStep,
  type ResumeValues,
  resumeSite,
  type SiteState,
} from '@ess/simulator';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import type { IngestPipeline } from '../devices/ingest';
import { ensurePartitions } from '../devices/telemetry-partitions';
import { touKind, touTarget } from '../devices/tou-push';

const STEP_MS = HISTORY_STEP_S * 1000;
const DAY_MS = 86_400_000;

/** Rows kept in flight in the ingest by the backfill (a few batches: the pipeline stays busy). */
const MAX_ROWS_IN_FLIGHT = 6_000;

/** A live run that would start more than this behind its past's end starts at now instead. */
const MAX_CATCH_UP_MS = 6 * 3_600_000;

/** A registered demo site. */
export interface DemoSite {
  site: FleetSite;
  siteId: number;
  /** The gateway's (EMS's) device id. */
  gatewayId: number;
  /** When the site was registered. */
  createdAt: Date;
}

/** The past to write of one demo site. */
export interface HistoryPlan {
  site: FleetSite;
  siteId: number;
  /** The past's start, UTC ms (a quarter hour); its readings are at `fromMs + 15 min` … `toMs`. */
  fromMs: number;
  /** The past's end: the site's registration, down to the quarter hour. */
  toMs: number;
  /** Reading times (UTC ms) of the window already stored for the gateway: skipped. */
  stored: ReadonlySet<number>;
  /** The ToU scheme the site runs, as delivered to its EMS; null: its built-in strategy. */
  touPlan: SetTouPlanParams | null;
}

/** `await`-able pause that lets timers and I/O run (the backfill's CPU work is done in slices). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The pasts still to write for `sites` (`days` each; none for 0): a site whose past is complete
 * (its last reading stored) or that has telemetry but none of this past is left out.
 */
export async function planDemoHistory(
  db: Db,
  sites: readonly DemoSite[],
  days: number,
): Promise<HistoryPlan[]> {
  if (days <= 0) return [];
  const plans: HistoryPlan[] = [];
  for (const s of sites) {
    const toMs = Math.floor(s.createdAt.getTime() / STEP_MS) * STEP_MS;
    const fromMs = toMs - days * DAY_MS;
    const stored = new Set(
      rowsOf<{ t: number }>(
        await db.execute(sql`
          SELECT (extract(epoch FROM ts) * 1000)::float8 AS t FROM telemetry
          WHERE device_id = ${s.gatewayId} AND ts > ${new Date(fromMs)} AND ts <= ${new Date(toMs)}`),
      ).map((r) => Math.round(Number(r.t))),
    );
    if (stored.has(toMs)) continue; // complete
    if (stored.size === 0) {
      const [own] = rowsOf<{ any: boolean }>(
        await db.execute(
          sql`SELECT EXISTS (SELECT 1 FROM telemetry WHERE device_id = ${s.gatewayId}) AS any`,
        ),
      );
      if (own?.any) continue; // a past of its own
    }
    const desired = await db.transaction((tx) => touKind.readDesired(tx, touTarget(s.siteId)));
    plans.push({
      site: s.site,
      siteId: s.siteId,
      fromMs,
      toMs,
      stored,
      touPlan: (desired?.params as SetTouPlanParams | undefined) ?? null,
    });
  }
  return plans;
}

/** What the server last stored of each demo site (latest points, active alarms), by site code. */
async function storedValues(db: Db, sites: readonly DemoSite[]): Promise<Map<string, ResumeValues>> {
  const out = new Map<string, ResumeValues>();
  if (sites.length === 0) return out;
  const ids = JSON.stringify(sites.map((s) => s.siteId));
  const codeOf = new Map(sites.map((s) => [s.siteId, s.site.siteCode]));
  const latest = rowsOf<{ siteId: number; type: string; points: Record<string, number> }>(
    await db.execute(sql`
      SELECT d.site_id AS "siteId", d.type, l.points FROM device_latest l JOIN device d ON d.id = l.device_id
      WHERE d.site_id IN (SELECT x::int FROM jsonb_array_elements_text(${ids}::jsonb) AS x)`),
  );
  for (const r of latest) {
    const code = codeOf.get(Number(r.siteId))!;
    const v = out.get(code) ?? { points: {}, alarms: [] };
    (v.points as Record<string, Record<string, number>>)[r.type] = r.points;
    out.set(code, v);
  }
  const alarms = rowsOf<{ siteId: number; code: string; level: 'warning' | 'fault' }>(
    await db.execute(sql`
      SELECT site_id AS "siteId", code, level FROM alarm
      WHERE cleared_at IS NULL AND site_id IN (SELECT x::int FROM jsonb_array_elements_text(${ids}::jsonb) AS x)`),
  );
  for (const a of alarms) {
    const v = out.get(codeOf.get(Number(a.siteId))!);
    if (v) (v.alarms as ResumeValues['alarms'][number][]).push({ code: a.code, level: a.level });
  }
  return out;
}

/**
 * The model state each demo site's live run starts from, by site code: resumed from what the
 * server stored of it when there is something (a restart); else, for a site whose past is
 * written now, the model's state at the past's end (computed here, in slices; a live run more
 * than 6 h behind that starts at `nowMs` with its registers, SOC and alarms); else none (the
 * simulator starts it fresh).
 */
export async function demoStartStates(
  db: Db,
  sites: readonly DemoSite[],
  plans: readonly HistoryPlan[],
  opts: { seed: number; nowMs: number; signal?: AbortSignal },
): Promise<Map<string, SiteState>> {
  const states = new Map<string, SiteState>();
  const stored = await storedValues(db, sites);
  for (const s of sites) {
    const values = stored.get(s.site.siteCode);
    if (values) states.set(s.site.siteCode, resumeSite(s.site, opts.seed, opts.nowMs, values));
  }
  for (const plan of plans) {
    if (states.has(plan.site.siteCode)) continue;
    let state = historyStart(plan.site, opts.seed, plan.fromMs, plan.touPlan);
    const steps = Math.round((plan.toMs - plan.fromMs) / STEP_MS);
    for (let done = 0; done < steps && !opts.signal?.aborted; done += 96) {
      state = historyAdvance(state, Math.min(96, steps - done));
      await breathe();
    }
    if (opts.nowMs - plan.toMs > MAX_CATCH_UP_MS) {
      state = resumeSite(plan.site, opts.seed, opts.nowMs, {
        points: {
          pcs: {
            e_charge_total_kwh: state.registers.pcsChargeKwh,
            e_discharge_total_kwh: state.registers.pcsDischargeKwh,
          },
          meter: {
            e_import_total_kwh: state.registers.importKwh,
            e_export_total_kwh: state.registers.exportKwh,
            ...Object.fromEntries(
              TOU_TIERS.flatMap((tier, i) => [
                [`e_import_${tier}_kwh`, state.registers.importTierKwh[i]!],
                [`e_export_${tier}_kwh`, state.registers.exportTierKwh[i]!],
              ]),
            ),
          },
          pv: { e_total_kwh: state.registers.pvKwh },
          bms: { soc_pct: (100 * state.energyKwh) / state.params.capacityKwh },
        },
        alarms: state.alarms.map((key) => {
          const [code, level] = key.split('/') as [string, 'warning' | 'fault'];
          return { code, level };
        }),
      });
    }
    states.set(plan.site.siteCode, state);
  }
  return states;
}

/** What a backfill wrote. */
export interface HistoryResult {
  /** Telemetry messages and their rows (one per device), events messages; skipped readings excluded. */
  messages: number;
  rows: number;
  eventMessages: number;
  ms: number;
  /** False when stopped before the end (`signal`). */
  complete: boolean;
}

/**
 * Writes the pasts of `plans` through `ingest` (see the module comment), all sites side by
 * side in time order. `onFirst` runs once the first reading of every site is stored (the live
 * run may start then: a restart finds the past begun). Resolves when done or stopped
 * (`signal`); rejects when the ingest fails for good (closed).
 */
export async function writeDemoHistory(
  db: Db,
  ingest: IngestPipeline,
  log: FastifyBaseLogger,
  plans: readonly HistoryPlan[],
  opts: { seed: number; signal?: AbortSignal; onFirst?: () => Promise<void> | void },
): Promise<HistoryResult> {
  const started = performance.now();
  const result: HistoryResult = { messages: 0, rows: 0, eventMessages: 0, ms: 0, complete: false };
  if (plans.length === 0) {
    await opts.onFirst?.();
    result.complete = true;
    return result;
  }
  const fromMs = Math.min(...plans.map((p) => p.fromMs));
  const toMs = Math.max(...plans.map((p) => p.toMs));
  for (
    let m = new Date(fromMs);
    m.getTime() <= toMs;
    m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))
  ) {
    await ensurePartitions(db, log, m);
  }
  const cursors = plans.map((plan) => ({
    plan,
    state: historyStart(plan.site, opts.seed, plan.fromMs, plan.touPlan),
  }));
  const total = plans.reduce((n, p) => n + Math.round((p.toMs - p.fromMs) / STEP_MS), 0);
  log.info(
    {
      sites: plans.length,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      readings: total,
    },
    'demo history: writing the demo sites’ past in the background',
  );
  const inFlight: Array<{ done: Promise<void>; rows: number }> = [];
  let rowsInFlight = 0;
  const send = async (sn: string, kind: 'telemetry' | 'event', payload: object, rows: number) => {
    const done = ingest.acceptHistory(sn, kind, Buffer.from(JSON.stringify(payload)));
    inFlight.push({ done, rows });
    rowsInFlight += rows;
    while (rowsInFlight > MAX_ROWS_IN_FLIGHT) {
      const oldest = inFlight.shift()!;
      await oldest.done;
      rowsInFlight -= oldest.rows;
    }
  };
  const drain = async () => {
    for (const f of inFlight.splice(0)) await f.done;
    rowsInFlight = 0;
  };
  let stepped = 0;
  let nextReport = 0.1;
  for (let first = true; ; first = false) {
    let moved = false;
    for (const c of cursors) {
      if (c.state.timeMs >= c.plan.toMs) continue;
      const { state, reading } = historyStep(c.plan.site, c.state);
      c.state = state;
      moved = true;
      stepped++;
      const sn = c.plan.site.gatewaySn;
      for (const e of reading.events) {
        await send(sn, 'event', e, e.events.length);
        result.eventMessages++;
      }
      if (!c.plan.stored.has(reading.ts)) {
        await send(sn, 'telemetry', reading.telemetry, reading.telemetry.devices.length);
        result.messages++;
        result.rows += reading.telemetry.devices.length;
      }
    }
    if (first) {
      await drain();
      await opts.onFirst?.();
    }
    if (!moved || opts.signal?.aborted) break;
    if (stepped / total >= nextReport) {
      const seconds = (performance.now() - started) / 1000;
      log.info(
        {
          percent: Math.round((100 * stepped) / total),
          rows: result.rows,
          rowsPerS: Math.round(result.rows / seconds),
          reached: new Date(Math.min(...cursors.map((c) => c.state.timeMs))).toISOString(),
        },
        `demo history: ${Math.round((100 * stepped) / total)} % written`,
      );
      while (stepped / total >= nextReport) nextReport += 0.1;
    }
    await breathe();
  }
  await drain();
  // Large backfill batches leave their hour and day rollups to a derivation pass
  // (devices/rollup-derive.ts): the past is complete once they are derived too.
  await ingest.deriveNow();
  result.ms = performance.now() - started;
  result.complete = cursors.every((c) => c.state.timeMs >= c.plan.toMs);
  log.info(
    {
      sites: plans.length,
      messages: result.messages,
      rows: result.rows,
      eventMessages: result.eventMessages,
      seconds: Math.round(result.ms / 100) / 10,
      rowsPerS: Math.round(result.rows / (result.ms / 1000)),
    },
    result.complete
      ? 'demo history written'
      : 'demo history stopped before the end (continued at the next start)',
  );
  return result;
}
