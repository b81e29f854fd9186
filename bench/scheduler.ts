/**
 * Scheduler overhead (issue 18 "scheduler overhead with 1,000 tasks"): 1,000 operator tasks of a
 * no-op kind, each firing every second (`* * * * * *`), on one {@link Scheduler} with the real
 * clock, on a fresh database (PGlite in the process, or a new PostgreSQL database dropped after).
 * For {@link MEASURE_S} seconds after a warm-up it measures: fires per second recorded
 * (`job_run` rows, each a database claim and an outcome write), the delay from a fire time to its
 * claim (`started_at - fire_at`, p50 / p99), fire times not run (missed: the scheduler was still
 * busy with the previous fire of the task), the event loop's delay (p50 / p99 / max) and the
 * process's CPU use.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { rowsOf } from '../apps/server/src/core/db/rows';
import { Scheduler } from '../apps/server/src/jobs/scheduler';
import { TaskKinds } from '../apps/server/src/jobs/task-kinds';
import { freshDatabase } from './device-ingest';
import { sleep } from './stats';

/** Tasks on the scheduler. */
export const SCHEDULER_TASKS = Number(process.env.BENCH_SCHEDULER_TASKS ?? 1000);
/** Seconds measured (after {@link WARMUP_S}). */
export const MEASURE_S = Number(process.env.BENCH_SCHEDULER_S ?? 20);
const WARMUP_S = 3;

export interface SchedulerFigures {
  engine: 'pglite' | 'postgres';
  tasks: number;
  seconds: number;
  expectedFires: number;
  fires: number;
  firesPerS: number;
  missed: number;
  failed: number;
  claimP50Ms: number;
  claimP99Ms: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** Samples of the event-loop histogram (0: the loop never got to sample it). */
  loopSamples: number;
  cpuPct: number;
}

export async function benchScheduler(postgresUrl: string | undefined): Promise<SchedulerFigures> {
  const { database, drop } = await freshDatabase(postgresUrl);
  const { db } = database;
  const log = Fastify({ logger: false }).log;
  try {
    const kinds = new TaskKinds();
    kinds.register({
      kind: 'bench-noop',
      label: { zh: '空任务', en: 'No-op' },
      description: { zh: '什么也不做', en: 'Does nothing' },
      params: [],
      defaultCron: '* * * * * *',
      defaultTimeoutS: 60,
      run: async () => null,
    });
    await db.execute(sql`
      INSERT INTO scheduled_task ("name", "group", kind, cron, timezone, timeout_s, misfire)
      SELECT 'noop-' || i, 'BENCH', 'bench-noop', '* * * * * *', 'UTC', 60, 'skip'
      FROM generate_series(1, ${SCHEDULER_TASKS}) AS i`);
    const scheduler = new Scheduler(db, log, { kinds, instanceId: 'bench' });
    scheduler.start();
    await scheduler.syncJobs();
    await sleep(WARMUP_S * 1000);
    // Whole seconds: fire times in [from, to) are the measured ones.
    const from = Math.ceil(Date.now() / 1000) * 1000;
    const to = from + MEASURE_S * 1000;
    await sleep(from - Date.now());
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await sleep(to - Date.now());
    const cpuUsed = process.cpuUsage(cpu);
    const wallMs = performance.now() - wall;
    loop.disable();
    await scheduler.stop();
    const [row] = rowsOf<{ n: number; failed: number; p50: number; p99: number }>(
      await db.execute(sql`
        SELECT count(*)::int AS n,
          count(*) FILTER (WHERE state <> 'succeeded')::int AS failed,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - fire_at) * 1000) AS p50,
          percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - fire_at) * 1000) AS p99
        FROM job_run
        WHERE fire_at >= ${new Date(from).toISOString()}::timestamptz
          AND fire_at < ${new Date(to).toISOString()}::timestamptz`),
    );
    const fires = Number(row?.n ?? 0);
    const expectedFires = SCHEDULER_TASKS * MEASURE_S;
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    return {
      engine: postgresUrl ? 'postgres' : 'pglite',
      tasks: SCHEDULER_TASKS,
      seconds: MEASURE_S,
      expectedFires,
      fires,
      firesPerS: Math.round(fires / MEASURE_S),
      missed: expectedFires - fires,
      failed: Number(row?.failed ?? 0),
      claimP50Ms: Math.round(Number(row?.p50 ?? 0)),
      claimP99Ms: Math.round(Number(row?.p99 ?? 0)),
      loopP50Ms: ms(loop.percentile(50)),
      loopP99Ms: ms(loop.percentile(99)),
      loopMaxMs: ms(loop.max),
      loopSamples: loop.count,
      cpuPct: Math.round(((cpuUsed.user + cpuUsed.system) / 1000 / wallMs) * 100),
    };
  } finally {
    await drop();
  }
}
