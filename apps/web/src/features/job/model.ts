/**
 * The scheduled-task screen's logic, without React (tested in test/job-model.test.ts): tag
 * colours, the form's values to and from a task and a request, the expression's live check and
 * preview (the contract's `jobCronProblem` and `jobNextRuns`, the one rule the server applies
 * too: api/job.ts), a kind's parameter check per field (`jobParamsProblem`), durations, a run's
 * result in one line, the group suggestions and the time-zone choices.
 */
import {
  JOB_PREVIEW_COUNT,
  JOB_SYSTEM_GROUP,
  type Job,
  type JobKind,
  type JobMisfirePolicy,
  type JobParamDescriptor,
  type JobParams,
  type JobRun,
  type JobRunState,
  type JobStatus,
  type JobWindow,
  jobCronProblem,
  jobNextRuns,
  jobParamsProblem,
  type Lang,
} from '@ess/contract';
import type { JobBody } from './api';

export const JOB_STATUS_COLORS: Record<JobStatus, string> = {
  normal: 'success',
  pause: 'warning',
};

export const JOB_RUN_STATE_COLORS: Record<JobRunState, string> = {
  running: 'processing',
  succeeded: 'success',
  failed: 'error',
};

/**
 * Table props of a phone's one-column layout: the table keeps the card's width (no horizontal
 * scroll; the cell wraps) with fixed layout; none on a wider screen (the shared scroll to the
 * content's width).
 */
export function phoneTableProps(wide: boolean): { scroll?: object; tableLayout?: 'fixed' } {
  return wide ? {} : { scroll: {}, tableLayout: 'fixed' };
}

/** How often the run log and the list ask again while a run is `running` (ms). */
export const RUNNING_POLL_MS = 2_000;

/** True when one of `runs` is still going on (the run log polls until none is). */
export function anyRunning(runs: readonly Pick<JobRun, 'state'>[] | undefined): boolean {
  return (runs ?? []).some((r) => r.state === 'running');
}

/** True when a listed task's last run is still going on. */
export function anyJobRunning(jobs: readonly Pick<Job, 'lastRun'>[] | undefined): boolean {
  return (jobs ?? []).some((j) => j.lastRun?.state === 'running');
}

/**
 * A run's duration for people: `850` → '850 ms', `12_345` → '12.3 s', `125_000` → '2 min 5 s',
 * `3_720_000` → '1 h 2 min' (the same symbols in both languages); '—' for none (a run going on).
 */
export function formatDurationMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`;
  const totalS = Math.round(ms / 1000);
  if (totalS < 3600) {
    const s = totalS % 60;
    return s ? `${Math.floor(totalS / 60)} min ${s} s` : `${totalS / 60} min`;
  }
  const totalMin = Math.round(totalS / 60);
  const min = totalMin % 60;
  return min ? `${Math.floor(totalMin / 60)} h ${min} min` : `${totalMin / 60} h`;
}

/**
 * A run's result as one line of JSON, cut to `max` characters with '…' (the full text is the
 * cell's title); '' for no result (`null`/`undefined`).
 */
export function compactResult(result: unknown, max = 120): { text: string; full: string } {
  if (result === null || result === undefined) return { text: '', full: '' };
  let full: string;
  try {
    full = typeof result === 'string' ? result : (JSON.stringify(result) ?? String(result));
  } catch {
    full = String(result);
  }
  return { text: full.length > max ? `${full.slice(0, max - 1)}…` : full, full };
}

/** The group suggestions: the system group first, then the groups in use, by name. */
export function groupChoices(inUse: readonly string[]): string[] {
  const rest = [...new Set(inUse)].filter((g) => g !== JOB_SYSTEM_GROUP).sort((a, b) => a.localeCompare(b));
  return [JOB_SYSTEM_GROUP, ...rest];
}

/**
 * The IANA zones the browser knows (`Intl.supportedValuesOf`), with 'UTC' and every zone of
 * `keep` (the browser's, the task's) added when missing, sorted.
 */
export function timeZoneChoices(keep: readonly string[] = []): string[] {
  let known: string[] = [];
  try {
    known = Intl.supportedValuesOf('timeZone');
  } catch {
    known = [];
  }
  return [...new Set([...known, 'UTC', ...keep.filter(Boolean)])].sort((a, b) => a.localeCompare(b));
}

/** A zone as the form names it: 'UTC' alone, others with their offset ('Asia/Shanghai (UTC+8)', via `label`). */
export function zoneName(zone: string, label: (zone: string) => string): string {
  return zone === 'UTC' || zone === 'Etc/UTC' ? 'UTC' : label(zone);
}

/** Expressions offered under the field (six fields, seconds first); texts: `job.form.example.<key>`. */
export const CRON_EXAMPLES = [
  { key: 'everyMinute', cron: '0 * * * * *' },
  { key: 'every5Minutes', cron: '0 */5 * * * *' },
  { key: 'hourly', cron: '0 0 * * * *' },
  { key: 'daily2am', cron: '0 0 2 * * *' },
  { key: 'weekdays830', cron: '0 30 8 * * 1-5' },
  { key: 'monthly', cron: '0 0 3 1 * *' },
] as const;
export type CronExampleKey = (typeof CRON_EXAMPLES)[number]['key'];

/** The live state of the expression field: why it cannot schedule, or its next fire times. */
export type CronPreview = { problem: string; times: [] } | { problem: null; times: Date[] };

/**
 * Checks `cron` in `timezone` inside `window` with the contract's rule and, when it passes,
 * lists its next {@link JOB_PREVIEW_COUNT} fire times after `from`. An empty expression is a
 * problem too (the field is required): `emptyText`.
 */
export function cronPreview(
  cron: string | undefined,
  timezone: string,
  window: JobWindow,
  lang: Lang,
  emptyText: string,
  from: Date = new Date(),
): CronPreview {
  if (!cron?.trim()) return { problem: emptyText, times: [] };
  const problem = jobCronProblem(cron, timezone, lang, window, from);
  if (problem) return { problem, times: [] };
  return { problem: null, times: jobNextRuns(cron, timezone, window, JOB_PREVIEW_COUNT, from) };
}

/**
 * Why the value of parameter `d` does not fit, in `lang` (null: it fits): the contract's
 * `jobParamsProblem` on that one parameter, so each field shows its own error. An empty value
 * is refused here (the form sends every parameter of the kind).
 */
export function paramProblem(
  d: JobParamDescriptor,
  value: number | boolean | string | null | undefined,
  lang: Lang,
  emptyText: string,
): string | null {
  if (value === null || value === undefined || (d.type === 'integer' && value === '')) return emptyText;
  return jobParamsProblem([d], { [d.key]: value }, lang);
}

/** A kind's parameters with their defaults, for a new task or a change of kind. */
export function defaultParams(kind: JobKind | undefined): JobParams {
  return Object.fromEntries((kind?.params ?? []).map((d) => [d.key, d.default]));
}

/**
 * The form's values (dates as epoch ms so the model stays free of the date library; the dialog
 * converts to and from its pickers).
 */
export interface JobFormValues {
  name: string;
  group: string;
  kind: string | undefined;
  params: JobParams;
  cron: string;
  timezone: string;
  startAtMs: number | null;
  endAtMs: number | null;
  misfire: JobMisfirePolicy;
  allowOverlap: boolean;
  timeoutS: number | null;
  remark: string;
}

/** A new task's values: group 'DEFAULT' (as in RuoYi), the browser's zone, no kind yet (its choice fills the expression, timeout and parameters). */
export function newJobValues(timezone: string): JobFormValues {
  return {
    name: '',
    group: 'DEFAULT',
    kind: undefined,
    params: {},
    cron: '',
    timezone,
    startAtMs: null,
    endAtMs: null,
    misfire: 'run_once',
    allowOverlap: false,
    timeoutS: null,
    remark: '',
  };
}

/** The form's values of an existing task. */
export function jobValues(job: Job): JobFormValues {
  return {
    name: job.name,
    group: job.group,
    kind: job.kind,
    params: { ...job.params },
    cron: job.cron,
    timezone: job.timezone,
    startAtMs: job.startAt ? Date.parse(job.startAt) : null,
    endAtMs: job.endAt ? Date.parse(job.endAt) : null,
    misfire: job.misfire,
    allowOverlap: job.allowOverlap,
    timeoutS: job.timeoutS,
    remark: job.remark ?? '',
  };
}

/** The window of the form's start and end (ISO 8601 UTC, null for open). */
export function windowOf(v: Pick<JobFormValues, 'startAtMs' | 'endAtMs'>): JobWindow {
  return {
    startAt: v.startAtMs === null ? null : new Date(v.startAtMs).toISOString(),
    endAt: v.endAtMs === null ? null : new Date(v.endAtMs).toISOString(),
  };
}

/**
 * The `job/save` / `job/update` body of checked form values: texts trimmed, an empty remark as
 * null, only the chosen kind's parameters (`descriptors`), times as ISO 8601 UTC.
 */
export function jobBody(v: JobFormValues, descriptors: readonly JobParamDescriptor[]): JobBody {
  const params: JobParams = {};
  for (const d of descriptors) {
    const value = v.params[d.key];
    if (value !== undefined && value !== null)
      params[d.key] = typeof value === 'string' ? value.trim() : value;
  }
  const { startAt, endAt } = windowOf(v);
  return {
    name: v.name.trim(),
    group: v.group.trim(),
    kind: v.kind ?? '',
    params,
    cron: v.cron.trim().replace(/\s+/g, ' '),
    timezone: v.timezone,
    startAt: startAt ?? null,
    endAt: endAt ?? null,
    misfire: v.misfire,
    allowOverlap: v.allowOverlap,
    timeoutS: v.timeoutS ?? 0,
    remark: v.remark.trim() || null,
  };
}
