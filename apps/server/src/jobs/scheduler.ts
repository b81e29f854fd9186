/**
 * The scheduler of the server's periodic tasks (design §2 "scheduled jobs"; docs/operations.md
 * "Scheduled jobs"). Every periodic task is registered here with a name and a schedule:
 *
 * - `{ cron: '0 0 0,12 * * *' }`: a croner pattern (six fields, seconds first), read in UTC;
 * - `{ everyMs: 10_000 }`: every so many ms, at multiples of it since the epoch (so every
 *   instance computes the same fire times).
 *
 * **Claimed tasks** (the default) run once per fire time across all server instances on one
 * database. A fire is claimed by inserting its row in `job_run` (unique `(task, fire_at)`,
 * `ON CONFLICT DO NOTHING`); the instance whose insert went in runs it, the others skip it. The
 * claim carries a lease (`claimed_by`, `lease_until`) that the runner renews every third of
 * {@link SchedulerOptions.leaseMs} while the task runs. A run whose lease ran out without it
 * finishing (its instance died) is taken over — run again, `attempts` + 1 — by the next instance
 * that fires the task; after {@link MAX_ATTEMPTS} attempts it is given up (`failed`). Start,
 * end, state (`running` | `succeeded` | `failed`), the task's result (JSON) or error are stored
 * per run; rows past the retention go with {@link purgeJobRuns}.
 *
 * **Local tasks** (`claimed: false`) run on every instance, unrecorded (only logged when they
 * fail): work on the instance's own memory, such as the heartbeat sweep over the gateways this
 * instance tracks.
 *
 * A task never overlaps itself: within an instance a fire is skipped while the previous one
 * runs; across instances a claim is not made while another instance holds a live lease on an
 * unfinished run of the task (claims of one task are serialised by an advisory lock). A task
 * that throws is logged and recorded as failed; the scheduler goes on. Fire times missed while
 * the instance was busy or asleep collapse into one fire (the latest). A task with `catchUp`
 * also fires, at start, its latest fire time before the start if no instance claimed it (a
 * server that was down at 00:00 purges at start instead of at 12:00).
 *
 * Time comes from an injectable clock (ms since the epoch): tests move it and call
 * {@link Scheduler.runDue}, or fire a task directly with {@link Scheduler.fire}.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Cron } from 'croner';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

/** When a task fires: a croner pattern read in UTC, or a fixed period aligned to the epoch. */
export type Schedule = { cron: string } | { everyMs: number };

export interface TaskContext {
  /** The fire time this run is for (the scheduled time, not when it started). */
  fireAt: Date;
  /** Aborted when the scheduler stops; a long task may end early (its run is then failed). */
  signal: AbortSignal;
}

export interface TaskDefinition {
  /** Unique; the key of its runs in `job_run`. */
  name: string;
  schedule: Schedule;
  /** Claimed in the database, once per fire across instances (default true). */
  claimed?: boolean;
  /** At start, fire the latest fire time before now when no instance claimed it (claimed tasks). */
  catchUp?: boolean;
  /** What the task does; what it answers is stored as the run's result (JSON). */
  run(context: TaskContext): Promise<unknown>;
}

/**
 * What one fire did: `succeeded` / `failed` (this instance ran it), `claimed-elsewhere` (another
 * instance claimed this fire time, or holds a live run of the task), `busy` (this instance is
 * still running the task), `stopped` (the scheduler is stopping).
 */
export type FireOutcome = 'succeeded' | 'failed' | 'claimed-elsewhere' | 'busy' | 'stopped';

export interface SchedulerOptions {
  /** This instance's id in `claimed_by` (default `host:pid:random`). */
  instanceId?: string;
  /** Now in ms since the epoch (default Date.now); tests inject one. */
  clock?: () => number;
  /** How long a claim holds without renewal (ms; default {@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** How long `stop` waits for running tasks (ms; default 10 s); their leases then run out. */
  stopGraceMs?: number;
}

/** Default lease of a claimed run: renewed every third of it while the task runs. */
export const DEFAULT_LEASE_MS = 120_000;
/** Attempts of one fire (the first run and takeovers) before it is given up. */
export const MAX_ATTEMPTS = 3;
/** Longest sleep of the timer: a clock jump (suspend, NTP step) is noticed within it. */
const MAX_SLEEP_MS = 60_000;

interface TaskState {
  def: TaskDefinition;
  cron: Cron | null;
  /** Next fire time (ms) the timer waits for. */
  next: number;
  running: Promise<FireOutcome> | null;
}

/** A row of `job_run` this instance holds. */
interface Claim {
  id: number;
  fireAt: Date;
}

/** The default instance id: host, process and a random part (a restarted process is another). */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export class Scheduler {
  readonly instanceId: string;
  private readonly clock: () => number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly tasks = new Map<string, TaskState>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    options: SchedulerOptions = {},
  ) {
    this.instanceId = options.instanceId ?? newInstanceId();
    this.clock = options.clock ?? Date.now;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
  }

  /** Adds a task; throws on a duplicate name, a bad pattern or a period ≤ 0. */
  register(def: TaskDefinition): void {
    if (this.tasks.has(def.name)) throw new Error(`task ${def.name} is registered twice`);
    let cron: Cron | null = null;
    if ('cron' in def.schedule) {
      cron = new Cron(def.schedule.cron, { timezone: 'UTC', paused: true, mode: '6-part' });
    } else if (!(def.schedule.everyMs > 0)) {
      throw new Error(`task ${def.name}: everyMs must be > 0`);
    }
    const state: TaskState = { def, cron, next: 0, running: null };
    state.next = this.nextAfter(state, this.clock());
    this.tasks.set(def.name, state);
    if (this.started) this.arm();
  }

  /** The registered tasks: name, schedule, claimed, next fire time. */
  list(): { name: string; schedule: Schedule; claimed: boolean; next: Date }[] {
    return [...this.tasks.values()].map((t) => ({
      name: t.def.name,
      schedule: t.def.schedule,
      claimed: t.def.claimed !== false,
      next: new Date(t.next),
    }));
  }

  /** Arms the timer and fires the catch-up runs (in the background: start is never held up). */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    const now = this.clock();
    for (const t of this.tasks.values()) {
      t.next = this.nextAfter(t, now);
      if (t.def.catchUp && t.def.claimed !== false) {
        const latest = this.latestAtOrBefore(t, now);
        if (latest !== null) void this.fire(t.def.name, new Date(latest));
      }
    }
    this.arm();
  }

  /**
   * Stops the timer, aborts the tasks' signal and waits (up to `stopGraceMs`) for the runs in
   * progress to record their outcome. A run still going after that keeps its row `running`; its
   * lease runs out and another instance takes it over.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    const running = [...this.tasks.values()].flatMap((t) => (t.running ? [t.running] : []));
    if (running.length === 0) return;
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(running),
      new Promise((resolve) => {
        grace = setTimeout(resolve, this.stopGraceMs);
        grace.unref();
      }),
    ]);
    clearTimeout(grace);
  }

  /**
   * Fires every task whose next fire time has come by the clock (fire times missed meanwhile
   * collapse into the latest); answers the fires' outcomes by task name. The timer calls it; so
   * may tests, after moving the clock.
   */
  runDue(): Promise<Record<string, FireOutcome>> {
    const now = this.clock();
    const fires: Promise<[string, FireOutcome]>[] = [];
    for (const t of this.tasks.values()) {
      if (t.next > now) continue;
      const fireAt = this.latestAtOrBefore(t, now) ?? t.next;
      t.next = this.nextAfter(t, now);
      fires.push(this.fire(t.def.name, new Date(fireAt)).then((o) => [t.def.name, o]));
    }
    return Promise.all(fires).then(Object.fromEntries);
  }

  /**
   * One fire of `name` for `fireAt`: a local task runs; a claimed one first takes over an
   * unfinished run of the task whose lease ran out (if any), then claims `fireAt` and runs it if
   * the claim went in. Never rejects (a failing task is logged and recorded).
   */
  fire(name: string, fireAt: Date): Promise<FireOutcome> {
    const t = this.tasks.get(name);
    if (!t) return Promise.reject(new Error(`no task ${name}`));
    if (this.stopping) return Promise.resolve('stopped');
    if (t.running) return Promise.resolve('busy');
    const run = (async (): Promise<FireOutcome> => {
      try {
        if (t.def.claimed === false) return await this.runLocal(t, fireAt);
        return await this.runClaimed(t, fireAt);
      } catch (err) {
        // The database failed under the claim itself: the fire is not run here.
        this.log.error({ err, task: name }, 'scheduled task could not be claimed');
        return 'failed';
      } finally {
        t.running = null;
      }
    })();
    t.running = run;
    return run;
  }

  private async runLocal(t: TaskState, fireAt: Date): Promise<FireOutcome> {
    try {
      await t.def.run({ fireAt, signal: this.abort.signal });
      return 'succeeded';
    } catch (err) {
      this.log.error({ err, task: t.def.name }, 'scheduled task failed');
      return 'failed';
    }
  }

  private async runClaimed(t: TaskState, fireAt: Date): Promise<FireOutcome> {
    const stale = await this.takeOver(t.def.name);
    if (stale) {
      this.log.warn({ task: t.def.name, fireAt: stale.fireAt }, 'scheduled run taken over (lease expired)');
      await this.execute(t, stale);
      if (this.stopping) return 'stopped';
    }
    const claim = await this.claim(t.def.name, fireAt);
    if (!claim) return 'claimed-elsewhere';
    return this.execute(t, claim);
  }

  /** Inserts the claim row for (task, fireAt) unless it exists or a live run of the task does. */
  private claim(task: string, fireAt: Date): Promise<Claim | null> {
    const now = this.clock();
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ess-job:${task}`}))`);
      const rows = rowsOf<{ id: number }>(
        await tx.execute(sql`
          INSERT INTO job_run (task, fire_at, claimed_by, lease_until, started_at, state, attempts)
          SELECT ${task}, ${fireAt.toISOString()}::timestamptz, ${this.instanceId},
                 ${new Date(now + this.leaseMs).toISOString()}::timestamptz,
                 ${new Date(now).toISOString()}::timestamptz, 'running', 1
          WHERE NOT EXISTS (
            SELECT 1 FROM job_run WHERE task = ${task} AND finished_at IS NULL
              AND lease_until > ${new Date(now).toISOString()}::timestamptz)
          ON CONFLICT (task, fire_at) DO NOTHING
          RETURNING id`),
      );
      return rows[0] ? { id: Number(rows[0].id), fireAt } : null;
    });
  }

  /**
   * Claims the oldest unfinished run of `task` whose lease ran out (its runner died): gives it
   * up when it had {@link MAX_ATTEMPTS} attempts, else answers it under this instance's lease.
   */
  private takeOver(task: string): Promise<Claim | null> {
    const now = new Date(this.clock()).toISOString();
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ess-job:${task}`}))`);
      await tx.execute(sql`
        UPDATE job_run SET state = 'failed', finished_at = ${now}::timestamptz,
          error = 'given up: its runner stopped ' || attempts || ' times before finishing (lease expired)'
        WHERE task = ${task} AND finished_at IS NULL AND lease_until <= ${now}::timestamptz
          AND attempts >= ${MAX_ATTEMPTS}`);
      const rows = rowsOf<{ id: number; fire_at: Date | string }>(
        await tx.execute(sql`
          UPDATE job_run SET claimed_by = ${this.instanceId}, attempts = attempts + 1,
            started_at = ${now}::timestamptz, state = 'running', error = NULL,
            lease_until = ${new Date(this.clock() + this.leaseMs).toISOString()}::timestamptz
          WHERE id = (
            SELECT id FROM job_run WHERE task = ${task} AND finished_at IS NULL
              AND lease_until <= ${now}::timestamptz
            ORDER BY fire_at LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING id, fire_at`),
      );
      const row = rows[0];
      return row ? { id: Number(row.id), fireAt: new Date(row.fire_at) } : null;
    });
  }

  /** Runs a claimed fire, renewing its lease meanwhile, and records the outcome under the lease. */
  private async execute(t: TaskState, claim: Claim): Promise<FireOutcome> {
    const renew = setInterval(
      () => {
        void this.db
          .execute(sql`
            UPDATE job_run SET lease_until = ${new Date(this.clock() + this.leaseMs).toISOString()}::timestamptz
            WHERE id = ${claim.id} AND claimed_by = ${this.instanceId} AND finished_at IS NULL`)
          .catch((err: unknown) => this.log.warn({ err, task: t.def.name }, 'job lease not renewed'));
      },
      Math.max(1000, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let outcome: FireOutcome;
    let result: unknown = null;
    let error: string | null = null;
    try {
      result = (await t.def.run({ fireAt: claim.fireAt, signal: this.abort.signal })) ?? null;
      outcome = 'succeeded';
    } catch (err) {
      this.log.error({ err, task: t.def.name, fireAt: claim.fireAt }, 'scheduled task failed');
      error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      outcome = 'failed';
    } finally {
      clearInterval(renew);
    }
    const now = new Date(this.clock()).toISOString();
    const recorded = rowsOf<{ id: number }>(
      await this.db.execute(sql`
        UPDATE job_run SET state = ${outcome}, finished_at = ${now}::timestamptz,
          lease_until = ${now}::timestamptz, result = ${JSON.stringify(result)}::jsonb, error = ${error}
        WHERE id = ${claim.id} AND claimed_by = ${this.instanceId} AND finished_at IS NULL
        RETURNING id`),
    );
    if (recorded.length === 0) {
      this.log.warn(
        { task: t.def.name, fireAt: claim.fireAt },
        'scheduled run finished after its lease was taken over: outcome not recorded',
      );
    }
    return outcome;
  }

  private arm(): void {
    if (this.stopping || !this.started) return;
    if (this.timer) clearTimeout(this.timer);
    let next = Number.POSITIVE_INFINITY;
    for (const t of this.tasks.values()) next = Math.min(next, t.next);
    const wait = Math.min(MAX_SLEEP_MS, Math.max(0, next - this.clock()));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runDue();
      this.arm();
    }, wait);
    this.timer.unref();
  }

  /** The first fire time strictly after `ms`. */
  private nextAfter(t: TaskState, ms: number): number {
    if (t.cron) return t.cron.nextRun(new Date(ms))?.getTime() ?? Number.POSITIVE_INFINITY;
    const every = (t.def.schedule as { everyMs: number }).everyMs;
    return (Math.floor(ms / every) + 1) * every;
  }

  /** The latest fire time at or before `ms` (null for a pattern that never matched). */
  private latestAtOrBefore(t: TaskState, ms: number): number | null {
    if (t.cron) return t.cron.previousRuns(1, new Date(ms + 1))[0]?.getTime() ?? null;
    const every = (t.def.schedule as { everyMs: number }).everyMs;
    return Math.floor(ms / every) * every;
  }
}

/** Deletes finished runs whose fire time is more than `retentionDays` before `now`; answers how many. */
export async function purgeJobRuns(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const result = await db.execute(sql`
      WITH gone AS (
        DELETE FROM job_run WHERE id IN (
          SELECT id FROM job_run WHERE fire_at < ${cutoff}::timestamptz AND finished_at IS NOT NULL
          LIMIT 10000)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    const n = Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
    total += n;
    if (n < 10_000) return total;
  }
}
