/**
 * The server's registry of task kinds (issue 18 item 2; contract api/job.ts "Task kinds"): what
 * an operator's scheduled task may do. A kind is the contract's {@link JobKind} (label,
 * description zh/en, parameter descriptors, default expression and timeout) plus the code that
 * runs it, registered by the module that owns the work (jobs-plugin.ts, app.ts). Operators pick
 * a kind and fill its parameters (`job/kinds`, `job/save`); they never name code.
 *
 * A kind may carry a **system seed**: the task the server creates for it at start when none
 * exists ({@link seedSystemTasks}: group `SYSTEM`, name = the kind, `system = true`). The seed
 * only inserts what is missing — a seeded task the operator paused or re-timed stays as the
 * operator left it.
 */
import {
  JOB_SYSTEM_GROUP,
  type JobKind,
  type JobMisfirePolicy,
  type JobParams,
  type JobRunTrigger,
  type JobStatus,
  jobCronProblem,
  jobParamsProblem,
  jobParamsWithDefaults,
} from '@ess/contract';
import { sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { rowsOf } from '../core/db/rows';

/** What a run of a task is told (scheduler.ts passes it to every run). */
export interface TaskContext {
  /** The fire time this run is for (the scheduled time, or when a manual run was asked). */
  fireAt: Date;
  /** Aborted at the task's timeout and when the scheduler stops; a long task should end early. */
  signal: AbortSignal;
  /** How the run came about. */
  trigger: JobRunTrigger;
}

/** The seeded system task of a kind (cron read in UTC). */
export interface SystemSeed {
  cron: string;
  misfire: JobMisfirePolicy;
  /** Default normal. */
  status?: JobStatus;
  remark?: string;
}

/** A registered kind: the contract's descriptor and the code that runs a task of it. */
export interface TaskKind extends JobKind {
  /**
   * Runs one fire with the task's parameters (completed with the defaults). What it answers is
   * stored as the run's result (JSON); a throw records the run failed with the error. Long work
   * should watch `context.signal` (aborted at the task's timeout and at shutdown).
   */
  run(context: TaskContext, params: JobParams): Promise<unknown>;
  /** The system task seeded for this kind at start; absent: none. */
  system?: SystemSeed;
}

/** The registry; one per app (`app.taskKinds`). */
export class TaskKinds {
  private readonly kinds = new Map<string, TaskKind>();

  /** Adds a kind; throws on a duplicate or a default expression that cannot fire. */
  register(kind: TaskKind): void {
    if (this.kinds.has(kind.kind)) throw new Error(`task kind ${kind.kind} is registered twice`);
    for (const cron of [kind.defaultCron, kind.system?.cron]) {
      const problem = cron === undefined ? null : jobCronProblem(cron, 'UTC', 'en');
      if (problem) throw new Error(`task kind ${kind.kind}: ${problem}`);
    }
    const defaults = Object.fromEntries(kind.params.map((p) => [p.key, p.default]));
    const problem = jobParamsProblem(kind.params, defaults, 'en');
    if (problem) throw new Error(`task kind ${kind.kind}: default parameters: ${problem}`);
    this.kinds.set(kind.kind, kind);
  }

  get(kind: string): TaskKind | undefined {
    return this.kinds.get(kind);
  }

  /** The kinds as the contract describes them (no code), in registration order. */
  list(): JobKind[] {
    return [...this.kinds.values()].map(
      ({ kind, label, description, params, defaultCron, defaultTimeoutS }) => ({
        kind,
        label,
        description,
        params,
        defaultCron,
        defaultTimeoutS,
      }),
    );
  }

  /** Every registered kind with its code. */
  all(): TaskKind[] {
    return [...this.kinds.values()];
  }

  /** Runs `kind` with `params` completed by its defaults. */
  run(kind: TaskKind, context: TaskContext, params: JobParams): Promise<unknown> {
    return kind.run(context, jobParamsWithDefaults(kind.params, params));
  }
}

/**
 * Inserts the system task of every kind with a seed that has none (idempotent, every start, any
 * number of instances at once: `ON CONFLICT DO NOTHING` on the partial unique index of system
 * rows per kind and on (group, name)). Never changes an existing row. Answers the kinds seeded.
 */
export async function seedSystemTasks(db: Db, kinds: TaskKinds): Promise<string[]> {
  const seeded: string[] = [];
  for (const kind of kinds.all()) {
    if (!kind.system) continue;
    const params = jobParamsWithDefaults(kind.params, {});
    const rows = rowsOf<{ id: number }>(
      await db.execute(sql`
        INSERT INTO scheduled_task ("name", "group", kind, params, cron, timezone, misfire,
          allow_overlap, timeout_s, status, remark, system)
        VALUES (${kind.kind}, ${JOB_SYSTEM_GROUP}, ${kind.kind}, ${JSON.stringify(params)}::jsonb,
          ${kind.system.cron}, 'UTC', ${kind.system.misfire}, false, ${kind.defaultTimeoutS},
          ${kind.system.status ?? 'normal'}, ${kind.system.remark ?? null}, true)
        ON CONFLICT DO NOTHING
        RETURNING id`),
    );
    if (rows.length > 0) seeded.push(kind.kind);
  }
  return seeded;
}

/**
 * A six-field cron firing every `seconds` (1–3600), for periods given in seconds by the
 * configuration (MAIL_JOB_INTERVAL_S): below a minute `*\/s` seconds (exact when s divides 60,
 * else also at second 0 of each minute); from a minute on, every round(s / 60) minutes at second 0.
 */
export function cronEverySeconds(seconds: number): string {
  if (seconds <= 1) return '* * * * * *';
  if (seconds < 60) return `*/${seconds} * * * * *`;
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes >= 60 ? '0 0 * * * *' : minutes === 1 ? '0 * * * * *' : `0 */${minutes} * * * *`;
}
