/**
 * The scheduler of the server's periodic work (design §2 "scheduled jobs"; issue 18; docs/
 * operations.md "Scheduled jobs"). It runs two sorts of task through one claim path:
 *
 * - **operator tasks**: rows of `scheduled_task` (modules/job, contract api/job.ts), each a kind
 *   from the registry (task-kinds.ts) with its parameters, a six-field cron read in the task's
 *   time zone, a fire window `[startAt, endAt)`, misfire policy, overlap and timeout. Status
 *   `pause` does not fire. Their runs are keyed `job:<id>` with `job_id`. Rows changed on any
 *   instance are picked up by polling a cheap fingerprint (`count, max(updated_at), sum(id)`)
 *   every {@link SchedulerOptions.jobSyncMs} (default {@link DEFAULT_JOB_SYNC_MS}); a write through
 *   this instance's API reloads at once ({@link Scheduler.syncJobs}).
 * - **code-registered tasks** ({@link Scheduler.register}): the engine internals (heartbeat,
 *   firmware and upgrade sweeps, all local to their instance) and tests. Schedule
 *   `{ cron }` (UTC) or `{ everyMs }` (multiples since the epoch, so instances agree).
 *
 * **Claimed runs** (every operator task; code tasks unless `claimed: false`) run once per fire
 * time across all instances on one database: the fire is claimed by inserting its `job_run` row
 * (unique `(task, fire_at)`, `ON CONFLICT DO NOTHING`); the instance whose insert went in runs
 * it. The claim carries a lease (`claimed_by`, `lease_until`) renewed every third of
 * {@link SchedulerOptions.leaseMs} while the run goes on. A run whose lease ran out unfinished
 * (its instance died) is taken over — run again, `attempts` + 1 — by the next instance that
 * fires the task; after {@link MAX_ATTEMPTS} it is given up (`failed`). Start, end, state
 * (`running | succeeded | failed`), trigger (`schedule | manual | misfire`), result (JSON) or
 * error are stored per run; {@link purgeJobRuns} deletes old ones.
 *
 * **Overlap**: unless a task allows it, a fire is skipped (`busy`) while this instance runs the
 * task, and a claim is not made while any instance holds a live lease on an unfinished run of
 * it (claims of one task are serialised by an advisory lock) — also for "trigger now" (2002).
 * **Timeout**: a run past its task's timeout has its signal aborted and is recorded failed
 * ("timeout after N s"); the scheduler stops waiting for it, so a hung run never holds up other
 * tasks nor the task's next fire. A task that throws is logged and recorded; the scheduler goes
 * on. **Misfire**: fire times missed while the instance was busy or asleep collapse into the
 * latest; at start (for operator tasks: at the first load of the table) a task with `catchUp`
 * (misfire policy `run_once`) fires its latest fire time before now if no instance claimed it,
 * recorded with trigger `misfire`. **Outage**: a claim or reload that fails is logged; the timer
 * goes on and fires resume when the database answers.
 *
 * Time comes from an injectable clock (ms since the epoch): tests move it and call
 * {@link Scheduler.runDue}, or fire a task with {@link Scheduler.fire}. Timeouts, lease renewal
 * and the table poll use real timers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type JobRunTrigger, jobCron } from '@ess/contract';
import type { Cron } from 'croner';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';
import { scheduledTask } from '../core/db/schema';
import type { TaskContext, TaskKinds } from './task-kinds';

/**
 * When a task fires: a croner pattern (six fields, seconds first) read in `timezone` (default
 * UTC) within `[startAt, endAt)` (ISO; absent: open), or a fixed period aligned to the epoch.
 */
export type Schedule =
  | { cron: string; timezone?: string; startAt?: string | null; endAt?: string | null }
  | { everyMs: number };

/** What a run is told (defined beside the task kinds, which the scheduler runs). */
export type { TaskContext } from './task-kinds';

export interface TaskDefinition {
  /** Unique; the key of its runs in `job_run` (`job:<id>` for operator tasks). */
  name: string;
  schedule: Schedule;
  /** Claimed in the database, once per fire across instances (default true). */
  claimed?: boolean;
  /** At start, fire the latest fire time before now when no instance claimed it (claimed tasks). */
  catchUp?: boolean;
  /** Catch-up only for fire times at or after this (ms): an operator task's creation. */
  catchUpFrom?: number;
  /** Runs may overlap: no `busy`, no refusal while another run holds a live lease (default false). */
  allowOverlap?: boolean;
  /** A run still going after this (ms) is aborted and recorded failed (default: none). */
  timeoutMs?: number;
  /** The operator's task (`scheduled_task.id`) the runs belong to. */
  jobId?: number;
  /** What the task does; what it answers is stored as the run's result (JSON). */
  run(context: TaskContext): Promise<unknown>;
}

/**
 * What one fire did: `succeeded` / `failed` (this instance ran it), `claimed-elsewhere` (another
 * instance claimed this fire time, or holds a live run of the task), `busy` (this instance is
 * still running the task), `stopped` (the scheduler is stopping).
 */
export type FireOutcome = 'succeeded' | 'failed' | 'claimed-elsewhere' | 'busy' | 'stopped';

/** What "trigger now" did: the claimed run, or why none was claimed. */
export type TriggerOutcome = { runId: number } | 'not-found' | 'busy' | 'unknown-kind' | 'stopped';

export interface SchedulerOptions {
  /** This instance's id in `claimed_by` (default `host:pid:random`). */
  instanceId?: string;
  /** Now in ms since the epoch (default Date.now); tests inject one. */
  clock?: () => number;
  /** How long a claim holds without renewal (ms; default {@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** How long `stop` waits for running tasks (ms; default 10 s); their leases then run out. */
  stopGraceMs?: number;
  /** The task kinds: with them the scheduler runs the operator's tasks of `scheduled_task`. */
  kinds?: TaskKinds;
  /** How often the task table's fingerprint is polled (ms; default {@link DEFAULT_JOB_SYNC_MS}). */
  jobSyncMs?: number;
}

/** Default lease of a claimed run: renewed every third of it while the task runs. */
export const DEFAULT_LEASE_MS = 120_000;
/** Attempts of one fire (the first run and takeovers) before it is given up. */
export const MAX_ATTEMPTS = 3;
/** How often the operator's task table is checked for changes made on any instance (ms). */
export const DEFAULT_JOB_SYNC_MS = 5_000;
/** Longest sleep of the timer: a clock jump (suspend, NTP step) is noticed within it. */
const MAX_SLEEP_MS = 60_000;

interface TaskState {
  def: TaskDefinition;
  cron: Cron | null;
  /** Next fire time (ms) the timer waits for. */
  next: number;
  /** This instance's runs of the task going on (shared with the state that replaces it on reload). */
  active: Set<Promise<FireOutcome>>;
  /** What the operator's row looked like when loaded (a changed row replaces the state). */
  stamp?: string;
}

/** A row of `job_run` this instance holds. */
interface Claim {
  id: number;
  fireAt: Date;
}

type TaskRow = typeof scheduledTask.$inferSelect;

/** The default instance id: host, process and a random part (a restarted process is another). */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** The `job_run.task` key of an operator task's runs. */
export function jobTaskName(jobId: number): string {
  return `job:${jobId}`;
}

export class Scheduler {
  readonly instanceId: string;
  private readonly clock: () => number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly kinds: TaskKinds | null;
  private readonly jobSyncMs: number;
  private readonly tasks = new Map<string, TaskState>();
  /** Every run going on here (also of tasks removed meanwhile): `stop` waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | null = null;
  private syncTimer: NodeJS.Timeout | null = null;
  private syncing: Promise<boolean> | null = null;
  /** The task table's fingerprint at the last load; null before the first. */
  private jobsVersion: string | null = null;
  private readonly unknownKinds = new Set<string>();
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
    this.kinds = options.kinds ?? null;
    this.jobSyncMs = options.jobSyncMs ?? DEFAULT_JOB_SYNC_MS;
  }

  /** Adds a code task; throws on a duplicate name, a bad pattern or a period ≤ 0. */
  register(def: TaskDefinition): void {
    if (this.tasks.has(def.name)) throw new Error(`task ${def.name} is registered twice`);
    this.tasks.set(def.name, this.stateOf(def, new Set()));
    if (this.started) this.arm();
  }

  /** The tasks (code and operator): name, schedule, claimed, job id, next fire time. */
  list(): { name: string; schedule: Schedule; claimed: boolean; jobId: number | null; next: Date }[] {
    return [...this.tasks.values()].map((t) => ({
      name: t.def.name,
      schedule: t.def.schedule,
      claimed: t.def.claimed !== false,
      jobId: t.def.jobId ?? null,
      next: new Date(t.next),
    }));
  }

  /**
   * Arms the timer, fires the code tasks' catch-up runs and (with kinds) loads the operator's
   * tasks, whose catch-up follows their first load; nothing here waits for the database.
   */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    const now = this.clock();
    for (const t of this.tasks.values()) {
      t.next = this.nextAfter(t, now);
      if (t.def.jobId === undefined) this.catchUp(t, now);
    }
    this.arm();
    if (this.kinds) {
      void this.syncJobs();
      this.syncTimer = setInterval(() => void this.syncJobs(), this.jobSyncMs);
      this.syncTimer.unref();
    }
  }

  /**
   * Stops the timers, aborts the tasks' signal and waits (up to `stopGraceMs`) for the runs in
   * progress to record their outcome. A run still going after that keeps its row `running`; its
   * lease runs out and another instance takes it over.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.syncTimer) clearInterval(this.syncTimer);
    this.timer = null;
    this.syncTimer = null;
    this.abort.abort();
    const running = [...this.inFlight];
    if (this.syncing) running.push(this.syncing);
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
   * Reloads the operator's tasks when the table's fingerprint changed since the last load (or
   * always with `force`): new and changed rows (re)scheduled from now, deleted and paused ones
   * dropped (a run going on finishes). The first load after `start` fires the catch-up runs.
   * Answers whether it reloaded; a database failure is logged and answers false.
   */
  syncJobs(force = false): Promise<boolean> {
    if (!this.kinds || this.stopping) return Promise.resolve(false);
    const previous = this.syncing;
    if (previous && !force) return previous;
    const sync: Promise<boolean> = (async () => {
      await Promise.resolve();
      if (previous) await previous.catch(() => false);
      try {
        const [fp] = rowsOf<{ n: number; at: string | null; ids: string | null }>(
          await this.db.execute(sql`
            SELECT count(*)::int AS n, max(updated_at)::text AS at, sum(id)::text AS ids FROM scheduled_task`),
        );
        const version = `${fp?.n}|${fp?.at}|${fp?.ids}`;
        if (!force && version === this.jobsVersion) return false;
        const rows = await this.db.select().from(scheduledTask);
        const first = this.jobsVersion === null;
        this.jobsVersion = version;
        this.applyJobs(rows);
        if (first && this.started) {
          const now = this.clock();
          for (const t of this.tasks.values()) if (t.def.jobId !== undefined) this.catchUp(t, now);
        }
        return true;
      } catch (err) {
        this.log.warn({ err }, 'scheduled tasks not reloaded (database); the timer goes on');
        return false;
      } finally {
        if (this.syncing === sync!) this.syncing = null;
      }
    })();
    this.syncing = sync;
    return sync;
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
   * the claim went in. Never rejects for a known task (a failing task or claim is logged).
   */
  fire(name: string, fireAt: Date, trigger: JobRunTrigger = 'schedule'): Promise<FireOutcome> {
    const t = this.tasks.get(name);
    if (!t) return Promise.reject(new Error(`no task ${name}`));
    if (this.stopping) return Promise.resolve('stopped');
    if (!t.def.allowOverlap && t.active.size > 0) return Promise.resolve('busy');
    const run = (async (): Promise<FireOutcome> => {
      try {
        if (t.def.claimed === false) return await this.runLocal(t.def, fireAt, trigger);
        return await this.runClaimed(t.def, fireAt, trigger);
      } catch (err) {
        // The database failed under the claim itself: the fire is not run here.
        this.log.error({ err, task: name }, 'scheduled task could not be claimed');
        return 'failed';
      }
    })();
    this.track(run, t.active);
    return run;
  }

  /**
   * "Trigger now" of the operator's task `jobId` (also when paused): claims a run with trigger
   * `manual` and fire time now, answers its id and runs it in the background. `busy` when a run
   * of the task is going on (on any instance, live lease) and the task does not allow overlap.
   * Throws when the database fails.
   */
  async trigger(jobId: number): Promise<TriggerOutcome> {
    if (this.stopping) return 'stopped';
    const [row] = await this.db.select().from(scheduledTask).where(sql`${scheduledTask.id} = ${jobId}`);
    if (!row) return 'not-found';
    const def = this.jobDefinition(row);
    if (!def) return 'unknown-kind';
    const claim = await this.claim(def, new Date(this.clock()), 'manual');
    if (!claim) return 'busy';
    const active = this.tasks.get(def.name)?.active ?? new Set<Promise<FireOutcome>>();
    this.track(this.execute(def, claim, 'manual'), active);
    return { runId: claim.id };
  }

  private track(run: Promise<FireOutcome>, active: Set<Promise<FireOutcome>>): void {
    active.add(run);
    this.inFlight.add(run);
    void run.finally(() => {
      active.delete(run);
      this.inFlight.delete(run);
    });
  }

  private async runLocal(def: TaskDefinition, fireAt: Date, trigger: JobRunTrigger): Promise<FireOutcome> {
    try {
      await this.runWithTimeout(def, fireAt, trigger);
      return 'succeeded';
    } catch (err) {
      this.log.error({ err, task: def.name }, 'scheduled task failed');
      return 'failed';
    }
  }

  private async runClaimed(def: TaskDefinition, fireAt: Date, trigger: JobRunTrigger): Promise<FireOutcome> {
    const stale = await this.takeOver(def.name);
    if (stale) {
      this.log.warn({ task: def.name, fireAt: stale.fireAt }, 'scheduled run taken over (lease expired)');
      await this.execute(def, stale, 'schedule');
      if (this.stopping) return 'stopped';
    }
    const claim = await this.claim(def, fireAt, trigger);
    if (!claim) return 'claimed-elsewhere';
    return this.execute(def, claim, trigger);
  }

  /**
   * Inserts the claim row for (task, fireAt) unless it exists or — when the task does not allow
   * overlap — a live run of the task does. The one claim path of scheduled, misfire and manual runs.
   */
  private claim(def: TaskDefinition, fireAt: Date, trigger: JobRunTrigger): Promise<Claim | null> {
    const now = new Date(this.clock()).toISOString();
    const task = def.name;
    const noLiveRun = def.allowOverlap
      ? sql``
      : sql`WHERE NOT EXISTS (
            SELECT 1 FROM job_run WHERE task = ${task} AND finished_at IS NULL
              AND lease_until > ${now}::timestamptz)`;
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ess-job:${task}`}))`);
      const rows = rowsOf<{ id: number }>(
        await tx.execute(sql`
          INSERT INTO job_run (task, job_id, "trigger", fire_at, claimed_by, lease_until, started_at, state, attempts)
          SELECT ${task}, ${def.jobId ?? null}::int, ${trigger}, ${fireAt.toISOString()}::timestamptz,
                 ${this.instanceId}, ${new Date(this.clock() + this.leaseMs).toISOString()}::timestamptz,
                 ${now}::timestamptz, 'running', 1
          ${noLiveRun}
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
  private async takeOver(task: string): Promise<Claim | null> {
    const now = new Date(this.clock()).toISOString();
    // The common case — nothing to take over — costs one indexed read, not a locked transaction.
    const stale = rowsOf(
      await this.db.execute(sql`
        SELECT 1 FROM job_run WHERE task = ${task} AND finished_at IS NULL
          AND lease_until <= ${now}::timestamptz LIMIT 1`),
    );
    if (stale.length === 0) return null;
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

  /**
   * Runs a claimed fire, renewing its lease meanwhile, and records the outcome under the lease
   * (a failure to record is logged: the lease then runs out and the run is taken over).
   */
  private async execute(def: TaskDefinition, claim: Claim, trigger: JobRunTrigger): Promise<FireOutcome> {
    const renew = setInterval(
      () => {
        void this.db
          .execute(sql`
            UPDATE job_run SET lease_until = ${new Date(this.clock() + this.leaseMs).toISOString()}::timestamptz
            WHERE id = ${claim.id} AND claimed_by = ${this.instanceId} AND finished_at IS NULL`)
          .catch((err: unknown) => this.log.warn({ err, task: def.name }, 'job lease not renewed'));
      },
      Math.max(1000, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let outcome: FireOutcome;
    let result: unknown = null;
    let error: string | null = null;
    try {
      result = (await this.runWithTimeout(def, claim.fireAt, trigger)) ?? null;
      outcome = 'succeeded';
    } catch (err) {
      this.log.error({ err, task: def.name, fireAt: claim.fireAt }, 'scheduled task failed');
      error = err instanceof Error ? err.message || String(err) : String(err);
      outcome = 'failed';
    } finally {
      clearInterval(renew);
    }
    try {
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
          { task: def.name, fireAt: claim.fireAt },
          'scheduled run finished after its lease was taken over: outcome not recorded',
        );
      }
    } catch (err) {
      this.log.error(
        { err, task: def.name, fireAt: claim.fireAt },
        'scheduled run outcome not recorded (database)',
      );
    }
    return outcome;
  }

  /**
   * Runs the task with a signal aborted at its timeout or at stop; past the timeout it rejects
   * with "timeout after N s" without waiting for the task any longer.
   */
  private async runWithTimeout(def: TaskDefinition, fireAt: Date, trigger: JobRunTrigger): Promise<unknown> {
    const controller = new AbortController();
    const onStop = () => controller.abort(new Error('the scheduler is stopping'));
    if (this.abort.signal.aborted) onStop();
    else this.abort.signal.addEventListener('abort', onStop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = Promise.resolve().then(() => def.run({ fireAt, signal: controller.signal, trigger }));
      if (!def.timeoutMs) return await work;
      const timeoutMs = def.timeoutMs;
      // A run that ends (or throws) after its timeout is past caring about.
      work.catch(() => undefined);
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const err = new Error(`timeout after ${timeoutMs / 1000} s`);
            controller.abort(err);
            reject(err);
          }, timeoutMs);
          timer.unref();
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.abort.signal.removeEventListener('abort', onStop);
    }
  }

  /** At start: fires the latest fire time before `now` of a catch-up task (trigger `misfire`). */
  private catchUp(t: TaskState, now: number): void {
    if (!t.def.catchUp || t.def.claimed === false) return;
    const latest = this.latestAtOrBefore(t, now);
    if (latest === null || latest < (t.def.catchUpFrom ?? Number.NEGATIVE_INFINITY)) return;
    void this.fire(t.def.name, new Date(latest), 'misfire');
  }

  /** Replaces the operator tasks with `rows` (normal ones of a known kind), keeping unchanged states. */
  private applyJobs(rows: TaskRow[]): void {
    const seen = new Set<string>();
    for (const row of rows) {
      if (row.status !== 'normal') continue;
      const name = jobTaskName(row.id);
      const stamp = JSON.stringify(row);
      const existing = this.tasks.get(name);
      if (existing?.stamp === stamp) {
        seen.add(name);
        continue;
      }
      const def = this.jobDefinition(row);
      if (!def) continue;
      try {
        const state = this.stateOf(def, existing?.active ?? new Set());
        state.stamp = stamp;
        this.tasks.set(name, state);
        seen.add(name);
      } catch (err) {
        this.log.warn({ err, task: name }, 'scheduled task not scheduled: its expression cannot be read');
      }
    }
    for (const [name, t] of this.tasks) {
      if (t.def.jobId !== undefined && !seen.has(name)) this.tasks.delete(name);
    }
    if (this.started) this.arm();
  }

  /** The definition of an operator's row; null (logged once) when its kind is not registered here. */
  private jobDefinition(row: TaskRow): TaskDefinition | null {
    const kind = this.kinds?.get(row.kind);
    if (!kind || !this.kinds) {
      if (!this.unknownKinds.has(row.kind)) {
        this.unknownKinds.add(row.kind);
        this.log.warn(
          { kind: row.kind, jobId: row.id },
          'scheduled task of a kind this server does not know',
        );
      }
      return null;
    }
    const kinds = this.kinds;
    const params = row.params ?? {};
    return {
      name: jobTaskName(row.id),
      jobId: row.id,
      schedule: {
        cron: row.cron,
        timezone: row.timezone,
        startAt: row.startAt?.toISOString() ?? null,
        endAt: row.endAt?.toISOString() ?? null,
      },
      claimed: true,
      catchUp: row.misfire === 'run_once',
      catchUpFrom: row.createdAt.getTime(),
      allowOverlap: row.allowOverlap,
      timeoutMs: row.timeoutS * 1000,
      run: (context) => kinds.run(kind, context, params),
    };
  }

  /** A task's state: its parsed schedule and next fire time. Throws on a bad schedule. */
  private stateOf(def: TaskDefinition, active: Set<Promise<FireOutcome>>): TaskState {
    let cron: Cron | null = null;
    if ('cron' in def.schedule) {
      const { cron: expression, timezone, startAt, endAt } = def.schedule;
      cron = jobCron(expression, timezone ?? 'UTC', { startAt, endAt });
    } else if (!(def.schedule.everyMs > 0)) {
      throw new Error(`task ${def.name}: everyMs must be > 0`);
    }
    const state: TaskState = { def, cron, next: 0, active };
    state.next = this.nextAfter(state, this.clock());
    return state;
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

  /** The first fire time strictly after `ms` (inside the task's window). */
  private nextAfter(t: TaskState, ms: number): number {
    if (t.cron) return t.cron.nextRun(new Date(ms))?.getTime() ?? Number.POSITIVE_INFINITY;
    const every = (t.def.schedule as { everyMs: number }).everyMs;
    return (Math.floor(ms / every) + 1) * every;
  }

  /** The latest fire time at or before `ms` inside the task's window (null: none). */
  private latestAtOrBefore(t: TaskState, ms: number): number | null {
    if (t.cron) {
      const { startAt, endAt } = t.def.schedule as { startAt?: string | null; endAt?: string | null };
      const end = endAt ? Math.min(ms + 1, Date.parse(endAt)) : ms + 1;
      const latest = t.cron.previousRuns(1, new Date(end))[0]?.getTime() ?? null;
      if (latest === null || (startAt && latest < Date.parse(startAt))) return null;
      return latest;
    }
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
