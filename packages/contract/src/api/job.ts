/**
 * Scheduled tasks (issue 18; spec §3 "scheduled tasks (name, run-time expression, start and end
 * time)", §4 "Scheduled task: normal, pause; actions recover and manual trigger", §8 codes
 * 2000–2007). The console's `/system/job` screen and the server's `job/*` calls share this file.
 *
 * A **task** is an operator's row: a name and group, a **kind** chosen from the server's registry
 * of task kinds (`job/kinds`: what the task does and its parameters — never a code string), a
 * run-time expression (cron with seconds, six fields `second minute hour day month weekday`,
 * read by croner in the task's IANA `timezone`), an optional start and end time (no fire outside
 * `[startAt, endAt)`), a misfire policy, whether its runs may overlap, a timeout, and a status
 * `normal` (fires) or `pause` (does not). Actions: pause, recover (pause → normal), trigger now
 * (one run at once, whatever the status). Seeded **system** tasks (the server's own background
 * work: partitions, retention, alarm mail, ToU re-push, clock check) can be paused, re-timed and
 * triggered, not deleted (2006).
 *
 * A **run** is one execution: the fire time it is for, how it came (`schedule`, `manual`,
 * `misfire`), the instance that ran it, start, end, state and the kind's result or error. Every
 * fire time runs once across all server instances (claimed in the database, docs/operations.md
 * "Scheduled tasks").
 *
 * Refusals (the text of the code, then the reason in the caller's language):
 *  - 2000 the expression gives no trigger (invalid cron, or no fire time inside the window);
 *  - 2001 / 2005 create / update refused: unknown kind, a parameter out of its range, end not
 *    after start, the name taken in its group, a system task's kind changed;
 *  - 2002 trigger refused: a run of the task is going on and the task does not allow overlap;
 *  - 2003 pause refused: already paused; 2004 recover refused: not paused;
 *  - 2006 delete refused: a system task; 2007 the task does not exist.
 *
 * Times are ISO 8601 with offset (UTC from the server); the console shows fire times in the
 * operator's zone and names the task's zone when it differs.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import { timezoneSchema } from '../device/protocol';
import type { Lang } from '../lang';
import { fillTemplate, validationMessages } from '../validation';
import { idSchema as id, idRequest, keywordSchema, pageRequestShape, pageResponse } from './primitives';

type Labels = Readonly<Record<Lang, string>>;

// ---------------------------------------------------------------------------------------------
// States and policies

export const JOB_STATUSES = ['normal', 'pause'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Spec §4's names. */
export const JOB_STATUS_LABELS: Readonly<Record<JobStatus, Labels>> = {
  normal: { zh: '正常', en: 'Normal' },
  pause: { zh: '暂停', en: 'Paused' },
};

/**
 * What happens to a fire time missed while no instance ran (or the database was away), found at
 * the next start: `run_once` — one run at once for the latest missed fire time (older ones are
 * not run); `skip` — none, the next fire time as usual.
 */
export const JOB_MISFIRE_POLICIES = ['run_once', 'skip'] as const;
export type JobMisfirePolicy = (typeof JOB_MISFIRE_POLICIES)[number];
export const JOB_MISFIRE_LABELS: Readonly<Record<JobMisfirePolicy, Labels>> = {
  run_once: { zh: '立即执行一次', en: 'Run once now' },
  skip: { zh: '放弃执行', en: 'Skip' },
};

/** A run: `running` until it ends; `failed` holds the error (a timeout is a failure). */
export const JOB_RUN_STATES = ['running', 'succeeded', 'failed'] as const;
export type JobRunState = (typeof JOB_RUN_STATES)[number];
export const JOB_RUN_STATE_LABELS: Readonly<Record<JobRunState, Labels>> = {
  running: { zh: '运行中', en: 'Running' },
  succeeded: { zh: '成功', en: 'Succeeded' },
  failed: { zh: '失败', en: 'Failed' },
};

/** How a run came about. */
export const JOB_RUN_TRIGGERS = ['schedule', 'manual', 'misfire'] as const;
export type JobRunTrigger = (typeof JOB_RUN_TRIGGERS)[number];
export const JOB_RUN_TRIGGER_LABELS: Readonly<Record<JobRunTrigger, Labels>> = {
  schedule: { zh: '定时', en: 'Scheduled' },
  manual: { zh: '手动触发', en: 'Triggered by hand' },
  misfire: { zh: '补偿执行', en: 'Misfire run' },
};

// ---------------------------------------------------------------------------------------------
// Limits

/** Longest task name (characters). */
export const JOB_NAME_MAX = 64;
/** Longest group name. */
export const JOB_GROUP_MAX = 32;
/** Longest run-time expression. */
export const JOB_CRON_MAX = 120;
/** Longest remark. */
export const JOB_REMARK_MAX = 500;
/** Timeout of a run, seconds: a run still going after it is ended and recorded as failed. */
export const JOB_TIMEOUT_S = { min: 1, max: 86_400 } as const;
/** Fire times the form previews. */
export const JOB_PREVIEW_COUNT = 5;
/** The group of the seeded system tasks. */
export const JOB_SYSTEM_GROUP = 'SYSTEM';
/** Longest text parameter of a kind. */
export const JOB_PARAM_TEXT_MAX = 200;

// ---------------------------------------------------------------------------------------------
// The run-time expression (one rule for the form, the server's check and its scheduler)

/** croner's options for a task's expression: six fields, seconds first. */
export function jobCron(expression: string, timezone: string, window: JobWindow = {}): Cron {
  return new Cron(expression.trim(), {
    timezone,
    mode: '6-part',
    paused: true,
    ...(window.startAt ? { startAt: new Date(window.startAt) } : {}),
    ...(window.endAt ? { stopAt: new Date(window.endAt) } : {}),
  });
}

/** Start and end of the fire window (ISO 8601; null/absent: open). */
export interface JobWindow {
  startAt?: string | null;
  endAt?: string | null;
}

/** The text of a bad expression, zh/en, with croner's own detail (English) in brackets. */
export const jobCronMessages = {
  invalid: {
    zh: '运行时间表达式无效，应为六段：秒 分 时 日 月 周',
    en: 'Invalid run-time expression: six fields are needed (second minute hour day month weekday)',
  },
  noFire: { zh: '在开始与结束时间之间没有执行时间', en: 'No fire time between the start and end time' },
  endBeforeStart: { zh: '结束时间必须晚于开始时间', en: 'The end time must be after the start time' },
} as const satisfies Record<string, Labels>;

/**
 * Why `expression` in `timezone` (and the window) cannot schedule anything, in `lang`; null
 * when it can. The console shows it under the field; the server answers 2000 with it.
 */
export function jobCronProblem(
  expression: string,
  timezone: string,
  lang: Lang,
  window: JobWindow = {},
  from: Date = new Date(),
): string | null {
  if (window.startAt && window.endAt && Date.parse(window.endAt) <= Date.parse(window.startAt)) {
    return jobCronMessages.endBeforeStart[lang];
  }
  let cron: Cron;
  try {
    if (expression.trim().split(/\s+/).length !== 6) throw new Error('six fields');
    cron = jobCron(expression, timezone, window);
  } catch (err) {
    const detail = err instanceof Error && err.message !== 'six fields' ? ` (${err.message})` : '';
    return `${jobCronMessages.invalid[lang]}${detail}`;
  }
  const after = window.startAt && Date.parse(window.startAt) > from.getTime() ? undefined : from;
  if (!cron.nextRun(after)) return jobCronMessages.noFire[lang];
  return null;
}

/**
 * The next `count` fire times of `expression` in `timezone` after `from`, inside the window
 * (empty when there are none or the expression is invalid).
 */
export function jobNextRuns(
  expression: string,
  timezone: string,
  window: JobWindow = {},
  count = JOB_PREVIEW_COUNT,
  from: Date = new Date(),
): Date[] {
  try {
    if (expression.trim().split(/\s+/).length !== 6) return [];
    return jobCron(expression, timezone, window).nextRuns(count, from);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Task kinds (the server's registry; `job/kinds`)

export const JOB_PARAM_TYPES = ['integer', 'boolean', 'text'] as const;
export type JobParamType = (typeof JOB_PARAM_TYPES)[number];

/** One parameter of a task kind: the form field the console draws and the server's check. */
export const jobParamDescriptorSchema = z.object({
  key: z.string(),
  type: z.enum(JOB_PARAM_TYPES),
  label: z.object({ zh: z.string(), en: z.string() }),
  help: z.object({ zh: z.string(), en: z.string() }).nullable(),
  /** Unit of an integer (e.g. `d`, `min`), shown after the field. */
  unit: z.string().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  default: z.union([z.number(), z.boolean(), z.string()]),
});
export type JobParamDescriptor = z.infer<typeof jobParamDescriptorSchema>;

/** A value of a task's parameters, by key. */
export const jobParamsSchema = z.record(
  z.string().max(64),
  z.union([z.number(), z.boolean(), z.string().max(JOB_PARAM_TEXT_MAX)]),
);
export type JobParams = z.infer<typeof jobParamsSchema>;

export const jobKindSchema = z.object({
  kind: z.string(),
  label: z.object({ zh: z.string(), en: z.string() }),
  description: z.object({ zh: z.string(), en: z.string() }),
  params: z.array(jobParamDescriptorSchema),
  /** What a new task of this kind starts with. */
  defaultCron: z.string(),
  defaultTimeoutS: z.number().int(),
});
export type JobKind = z.infer<typeof jobKindSchema>;

/**
 * Why `params` do not fit the kind's descriptors, in `lang` (null: they fit). Keys the kind does
 * not name are refused; missing keys take their default.
 */
export function jobParamsProblem(
  descriptors: readonly JobParamDescriptor[],
  params: JobParams,
  lang: Lang,
): string | null {
  const known = new Map(descriptors.map((d) => [d.key, d]));
  for (const key of Object.keys(params)) {
    if (!known.has(key)) return lang === 'zh' ? `未知参数 ${key}` : `unknown parameter ${key}`;
  }
  for (const d of descriptors) {
    const value = params[d.key];
    if (value === undefined) continue;
    const label = d.label[lang];
    if (d.type === 'integer') {
      // The device parameters' texts (validation.ts): one wording for a number out of its rule.
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        return fillTemplate(validationMessages.paramNotInteger[lang], { label });
      }
      if ((d.min !== null && value < d.min) || (d.max !== null && value > d.max)) {
        return fillTemplate(validationMessages.paramOutOfRange[lang], {
          label,
          min: d.min ?? '-∞',
          max: d.max ?? '∞',
        });
      }
    } else if (d.type === 'boolean' && typeof value !== 'boolean') {
      return lang === 'zh' ? `${label}必须是是或否` : `${label} must be yes or no`;
    } else if (d.type === 'text' && typeof value !== 'string') {
      return lang === 'zh' ? `${label}必须是文本` : `${label} must be text`;
    }
  }
  return null;
}

/** `params` completed with the kind's defaults (after {@link jobParamsProblem} said they fit). */
export function jobParamsWithDefaults(
  descriptors: readonly JobParamDescriptor[],
  params: JobParams,
): JobParams {
  const out: JobParams = {};
  for (const d of descriptors) out[d.key] = params[d.key] ?? d.default;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rows

export const jobRunSchema = z.object({
  id,
  jobId: id,
  /** The fire time the run is for (for a manual run: when it was asked). */
  fireAt: z.string(),
  trigger: z.enum(JOB_RUN_TRIGGERS),
  state: z.enum(JOB_RUN_STATES),
  /** The server instance that ran it (`host:pid:random`). */
  instance: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  /** Attempts of this fire (a takeover after the runner died adds one). */
  attempts: z.number().int(),
  /** What the kind answered (JSON), e.g. `{ "deleted": 12 }`. */
  result: z.unknown(),
  error: z.string().nullable(),
});
export type JobRun = z.infer<typeof jobRunSchema>;

export const jobSchema = z.object({
  id,
  name: z.string(),
  group: z.string(),
  kind: z.string(),
  params: jobParamsSchema,
  cron: z.string(),
  timezone: z.string(),
  startAt: z.string().nullable(),
  endAt: z.string().nullable(),
  misfire: z.enum(JOB_MISFIRE_POLICIES),
  allowOverlap: z.boolean(),
  timeoutS: z.number().int(),
  status: z.enum(JOB_STATUSES),
  remark: z.string().nullable(),
  /** Seeded by the server: cannot be deleted. */
  system: z.boolean(),
  /** Next fire time (null: paused, or none left in the window). */
  nextRunAt: z.string().nullable(),
  lastRun: jobRunSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Job = z.infer<typeof jobSchema>;

// ---------------------------------------------------------------------------------------------
// Requests

export const jobPageListRequest = z.object({
  ...pageRequestShape,
  /** Name contains it. */
  keyword: keywordSchema,
  group: z.string().trim().max(JOB_GROUP_MAX).optional(),
  status: z.enum(JOB_STATUSES).optional(),
});
/** Group, then name. */
export const jobPageListResponse = pageResponse(jobSchema);

export const jobIdRequest = idRequest;
export const jobResponse = jobSchema;

export const jobKindsRequest = z.object({ userInfo: z.unknown().optional() });
export const jobKindsResponse = z.array(jobKindSchema);

/**
 * Create a task (`job/save`). The server checks the kind and its parameters (2001), the
 * expression and window (2000: invalid expression, no fire time in the window; 2001: end not
 * after start), the name within its group (2001). `startAt`/`endAt`: ISO 8601 with offset, or
 * null for an open window. A new task starts `normal`.
 */
export const jobSaveRequest = z.object({
  userInfo: z.unknown().optional(),
  name: z.string().trim().min(1).max(JOB_NAME_MAX),
  group: z.string().trim().min(1).max(JOB_GROUP_MAX),
  kind: z.string().trim().min(1).max(64),
  params: jobParamsSchema.default({}),
  cron: z.string().trim().min(1).max(JOB_CRON_MAX),
  timezone: timezoneSchema,
  startAt: z.iso.datetime({ offset: true }).nullable().default(null),
  endAt: z.iso.datetime({ offset: true }).nullable().default(null),
  misfire: z.enum(JOB_MISFIRE_POLICIES).default('run_once'),
  allowOverlap: z.boolean().default(false),
  timeoutS: z.number().int().min(JOB_TIMEOUT_S.min).max(JOB_TIMEOUT_S.max),
  remark: z.string().trim().max(JOB_REMARK_MAX).nullable().default(null),
});
export type JobSaveRequest = z.input<typeof jobSaveRequest>;

/**
 * Update a task (`job/update`): every field of {@link jobSaveRequest} and the `id`; the same
 * checks with 2005 for 2001. Status and run log stay. A system task keeps its kind (2005).
 */
export const jobUpdateRequest = jobSaveRequest.extend({ id });
export type JobUpdateRequest = z.input<typeof jobUpdateRequest>;

export const jobSaveResponse = z.object({ id });

/** A manual run: answered once the run is claimed (it goes on in the background). */
export const jobTriggerResponse = z.object({ runId: id });

export const jobRunsRequest = z.object({
  ...pageRequestShape,
  /** One task's runs; absent: every task's. */
  jobId: id.optional(),
  state: z.enum(JOB_RUN_STATES).optional(),
});
/** Newest start first. */
export const jobRunsResponse = pageResponse(jobRunSchema);
