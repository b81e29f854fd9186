/**
 * Scheduled tasks (issue 18; spec §3, §4, §8 codes 2000–2007; contract api/job.ts): the operator's
 * rows of `scheduled_task` and their run log in `job_run`. The platform's (no company scope: the
 * permissions `monitor:job:*` come from a platform-only menu).
 *
 * Checks of a save or update, in this order, each with its reason in the caller's language:
 * the kind is registered (2001/2005), its parameters fit (2001/2005, contract
 * `jobParamsProblem`), a system task keeps its kind (2005), the end is after the start
 * (2001/2005), the expression reads and fires inside the window (2000, contract
 * `jobCronProblem`), the name is free in its group (2001/2005). Nothing is written on a refusal.
 * Every write is followed by a reload of this instance's scheduler; other instances pick the
 * change up within their table poll (scheduler.ts `DEFAULT_JOB_SYNC_MS`).
 */
import {
  ErrorCode,
  type ErrorCodeValue,
  type Job,
  type JobMisfirePolicy,
  type JobParams,
  type JobRun,
  type JobRunState,
  type JobRunTrigger,
  type JobStatus,
  jobCronMessages,
  jobCronProblem,
  jobNextRuns,
  jobParamsProblem,
  type Lang,
  type Page,
} from '@ess/contract';
import { and, asc, count, desc, eq, ilike, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../core/db/database';
import { likePattern } from '../../core/db/like';
import { jobRun, scheduledTask } from '../../core/db/schema';
import { isUniqueViolation } from '../../core/db/unique-violation';
import { ApiError } from '../../core/http/api-error';
import type { Scheduler } from '../../jobs/scheduler';
import type { TaskKinds } from '../../jobs/task-kinds';

type TaskRow = typeof scheduledTask.$inferSelect;
type RunRow = typeof jobRun.$inferSelect;

/** The fields of a save / update (contract `jobSaveRequest` after parsing). */
export interface JobInput {
  name: string;
  group: string;
  kind: string;
  params: JobParams;
  cron: string;
  timezone: string;
  startAt: string | null;
  endAt: string | null;
  misfire: JobMisfirePolicy;
  allowOverlap: boolean;
  timeoutS: number;
  remark: string | null;
}

const texts = {
  unknownKind: { zh: (k: string) => `未知的任务类型 ${k}`, en: (k: string) => `unknown task kind ${k}` },
  nameTaken: {
    zh: (g: string, n: string) => `分组 ${g} 中已有名为 ${n} 的任务`,
    en: (g: string, n: string) => `group ${g} already has a task named ${n}`,
  },
  systemKind: {
    zh: '系统任务不能更改任务类型',
    en: 'a system task keeps its kind',
  },
  systemDelete: { zh: '系统任务不能删除，可以暂停', en: 'a system task cannot be deleted; pause it instead' },
  alreadyPaused: { zh: '任务已是暂停状态', en: 'the task is already paused' },
  notPaused: { zh: '任务未暂停', en: 'the task is not paused' },
  running: {
    zh: '该任务正在执行，且不允许并发执行',
    en: 'a run of this task is going on and the task does not allow overlapping runs',
  },
  kindGone: {
    zh: (k: string) => `此服务器未注册任务类型 ${k}`,
    en: (k: string) => `this server has no task kind ${k}`,
  },
  stopping: { zh: '服务器正在停止', en: 'the server is stopping' },
} as const;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A run as the contract answers it. */
export function toJobRun(r: RunRow): JobRun {
  return {
    id: r.id,
    jobId: r.jobId ?? 0,
    fireAt: r.fireAt.toISOString(),
    trigger: r.trigger as JobRunTrigger,
    state: r.state as JobRunState,
    instance: r.claimedBy,
    startedAt: r.startedAt.toISOString(),
    finishedAt: iso(r.finishedAt),
    durationMs: r.finishedAt ? Math.max(0, r.finishedAt.getTime() - r.startedAt.getTime()) : null,
    attempts: r.attempts,
    result: r.result ?? null,
    error: r.error,
  };
}

export class JobService {
  constructor(
    private readonly db: Db,
    private readonly kinds: TaskKinds,
    private readonly scheduler: Scheduler,
    /** Now (ms) for the next fire time shown; default Date.now. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Tasks by group, then name; keyword in the name, group and status filters. */
  async pageList(q: {
    pageNum: number;
    pageSize: number;
    keyword?: string | undefined;
    group?: string | undefined;
    status?: JobStatus | undefined;
  }): Promise<Page<Job>> {
    const filters: SQL[] = [];
    if (q.keyword) filters.push(ilike(scheduledTask.name, likePattern(q.keyword)));
    if (q.group) filters.push(eq(scheduledTask.group, q.group));
    if (q.status) filters.push(eq(scheduledTask.status, q.status));
    const where = filters.length ? and(...filters) : undefined;
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(scheduledTask)
        .where(where)
        .orderBy(asc(scheduledTask.group), asc(scheduledTask.name), asc(scheduledTask.id))
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize),
      this.db.select({ n: count() }).from(scheduledTask).where(where),
    ]);
    return { list: await this.toJobs(rows), total: Number(total?.n ?? 0) };
  }

  /** One task; 2007 when it does not exist. */
  async detail(id: number): Promise<Job> {
    const [job] = await this.toJobs([await this.row(id)]);
    return job!;
  }

  /** Creates a task (status normal); answers its id. 2000, 2001. */
  async save(input: JobInput, lang: Lang): Promise<Job> {
    this.check(input, null, ErrorCode.TASK_CREATE_FAILED, lang);
    try {
      const [row] = await this.db
        .insert(scheduledTask)
        .values({ ...this.columns(input), status: 'normal', system: false })
        .returning();
      await this.scheduler.syncJobs(true);
      return this.detail(row!.id);
    } catch (err) {
      throw this.nameTaken(err, input, ErrorCode.TASK_CREATE_FAILED, lang);
    }
  }

  /** Updates a task (status and runs kept); answers before and after. 2000, 2005, 2007. */
  async update(id: number, input: JobInput, lang: Lang): Promise<{ before: Job; after: Job }> {
    const current = await this.row(id);
    this.check(input, current, ErrorCode.TASK_UPDATE_FAILED, lang);
    const [before] = await this.toJobs([current]);
    try {
      const changed = await this.db
        .update(scheduledTask)
        .set({ ...this.columns(input), updatedAt: sql`now()` })
        .where(eq(scheduledTask.id, id))
        .returning({ id: scheduledTask.id });
      if (changed.length === 0) throw new ApiError(ErrorCode.TASK_NOT_FOUND);
    } catch (err) {
      throw this.nameTaken(err, input, ErrorCode.TASK_UPDATE_FAILED, lang);
    }
    await this.scheduler.syncJobs(true);
    return { before: before!, after: await this.detail(id) };
  }

  /** Deletes a task and its runs (cascade). 2006 a system task, 2007. */
  async delete(id: number, lang: Lang): Promise<Job> {
    const current = await this.row(id);
    if (current.system) throw new ApiError(ErrorCode.TASK_DELETE_FAILED, {}, texts.systemDelete[lang]);
    const [before] = await this.toJobs([current]);
    const gone = await this.db
      .delete(scheduledTask)
      .where(and(eq(scheduledTask.id, id), eq(scheduledTask.system, false)))
      .returning({ id: scheduledTask.id });
    if (gone.length === 0) throw new ApiError(ErrorCode.TASK_NOT_FOUND);
    await this.scheduler.syncJobs(true);
    return before!;
  }

  /** normal → pause (2003 when paused), pause → normal (2004 when not paused); 2007. */
  async setStatus(id: number, to: JobStatus, lang: Lang): Promise<{ before: Job; after: Job }> {
    const from: JobStatus = to === 'pause' ? 'normal' : 'pause';
    const current = await this.row(id);
    const [before] = await this.toJobs([current]);
    const changed = await this.db
      .update(scheduledTask)
      .set({ status: to, updatedAt: sql`now()` })
      .where(and(eq(scheduledTask.id, id), eq(scheduledTask.status, from)))
      .returning({ id: scheduledTask.id });
    if (changed.length === 0) {
      if (to === 'pause') throw new ApiError(ErrorCode.TASK_PAUSE_FAILED, {}, texts.alreadyPaused[lang]);
      throw new ApiError(ErrorCode.TASK_RECOVER_FAILED, {}, texts.notPaused[lang]);
    }
    await this.scheduler.syncJobs(true);
    return { before: before!, after: await this.detail(id) };
  }

  /** Claims a manual run (whatever the status) and answers its id. 2002, 2007. */
  async trigger(id: number, lang: Lang): Promise<{ runId: number }> {
    const outcome = await this.scheduler.trigger(id);
    if (outcome === 'not-found') throw new ApiError(ErrorCode.TASK_NOT_FOUND);
    if (outcome === 'busy') throw new ApiError(ErrorCode.TASK_RUN_FAILED, {}, texts.running[lang]);
    if (outcome === 'stopped') throw new ApiError(ErrorCode.TASK_RUN_FAILED, {}, texts.stopping[lang]);
    if (outcome === 'unknown-kind') {
      const row = await this.row(id);
      throw new ApiError(ErrorCode.TASK_RUN_FAILED, {}, texts.kindGone[lang](row.kind));
    }
    return outcome;
  }

  /** The run log, newest start first; one task's (2007 when it does not exist) or all. */
  async runs(q: {
    pageNum: number;
    pageSize: number;
    jobId?: number | undefined;
    state?: JobRunState | undefined;
  }): Promise<Page<JobRun>> {
    if (q.jobId !== undefined) await this.row(q.jobId);
    const filters: SQL[] = [sql`${jobRun.jobId} IS NOT NULL`];
    if (q.jobId !== undefined) filters.push(eq(jobRun.jobId, q.jobId));
    if (q.state) filters.push(eq(jobRun.state, q.state));
    const where = and(...filters);
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(jobRun)
        .where(where)
        .orderBy(desc(jobRun.startedAt), desc(jobRun.id))
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize),
      this.db.select({ n: count() }).from(jobRun).where(where),
    ]);
    return { list: rows.map(toJobRun), total: Number(total?.n ?? 0) };
  }

  private async row(id: number): Promise<TaskRow> {
    const [row] = await this.db.select().from(scheduledTask).where(eq(scheduledTask.id, id));
    if (!row) throw new ApiError(ErrorCode.TASK_NOT_FOUND);
    return row;
  }

  /** Throws the refusal of `input` (see the module's order of checks); nothing when it fits. */
  private check(input: JobInput, current: TaskRow | null, refusal: ErrorCodeValue, lang: Lang): void {
    const kind = this.kinds.get(input.kind);
    if (!kind) throw new ApiError(refusal, {}, texts.unknownKind[lang](input.kind));
    const paramsProblem = jobParamsProblem(kind.params, input.params, lang);
    if (paramsProblem) throw new ApiError(refusal, {}, paramsProblem);
    if (current?.system && current.kind !== input.kind) {
      throw new ApiError(refusal, {}, texts.systemKind[lang]);
    }
    if (input.startAt && input.endAt && Date.parse(input.endAt) <= Date.parse(input.startAt)) {
      throw new ApiError(refusal, {}, jobCronMessages.endBeforeStart[lang]);
    }
    const window = { startAt: input.startAt, endAt: input.endAt };
    const cronProblem = jobCronProblem(input.cron, input.timezone, lang, window, new Date(this.clock()));
    if (cronProblem) throw new ApiError(ErrorCode.TASK_GET_TRIGGER_FAILED, {}, cronProblem);
  }

  private nameTaken(err: unknown, input: JobInput, refusal: ErrorCodeValue, lang: Lang): unknown {
    if (isUniqueViolation(err, 'scheduled_task_group_name_uq')) {
      return new ApiError(refusal, {}, texts.nameTaken[lang](input.group, input.name));
    }
    return err;
  }

  private columns(input: JobInput) {
    return {
      name: input.name,
      group: input.group,
      kind: input.kind,
      params: input.params,
      cron: input.cron.trim(),
      timezone: input.timezone,
      startAt: input.startAt ? new Date(input.startAt) : null,
      endAt: input.endAt ? new Date(input.endAt) : null,
      misfire: input.misfire,
      allowOverlap: input.allowOverlap,
      timeoutS: input.timeoutS,
      remark: input.remark,
    };
  }

  /** Rows as the contract answers them: next fire time (paused: null) and last run. */
  private async toJobs(rows: TaskRow[]): Promise<Job[]> {
    const ids = rows.map((r) => r.id);
    const last = new Map<number, RunRow>();
    if (ids.length) {
      const runs = await this.db
        .selectDistinctOn([jobRun.jobId])
        .from(jobRun)
        .where(inArray(jobRun.jobId, ids))
        .orderBy(jobRun.jobId, desc(jobRun.startedAt), desc(jobRun.id));
      for (const r of runs) if (r.jobId !== null) last.set(r.jobId, r);
    }
    const now = new Date(this.clock());
    return rows.map((r) => {
      const window = { startAt: iso(r.startAt), endAt: iso(r.endAt) };
      const next = r.status === 'normal' ? jobNextRuns(r.cron, r.timezone, window, 1, now)[0] : undefined;
      const lastRun = last.get(r.id);
      return {
        id: r.id,
        name: r.name,
        group: r.group,
        kind: r.kind,
        params: r.params ?? {},
        cron: r.cron,
        timezone: r.timezone,
        startAt: window.startAt,
        endAt: window.endAt,
        misfire: r.misfire as JobMisfirePolicy,
        allowOverlap: r.allowOverlap,
        timeoutS: r.timeoutS,
        status: r.status as JobStatus,
        remark: r.remark,
        system: r.system,
        nextRunAt: next ? next.toISOString() : null,
        lastRun: lastRun ? toJobRun(lastRun) : null,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
      };
    });
  }
}
