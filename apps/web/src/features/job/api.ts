/**
 * Scheduled-task calls (issue 18; contract `jobEndpoints`, shapes and rules in api/job.ts). Every
 * function resolves with the answer's `data` or rejects with `ApiError` after the client's
 * spec §8 handling.
 *
 * Actions on a row (pause, recover, trigger, delete) show the server's msg on a refusal
 * (`errorText: 'server'`): it carries the reason after the code's text (2002 a run is going on,
 * 2003 already paused, 2004 not paused, 2006 a system task, 2007 gone). Save and update show
 * nothing themselves: the form shows the refusal in place ({@link saveJob}).
 */
import {
  type EndpointRequest,
  type Job,
  type JobKind,
  type JobRun,
  type JobSaveRequest,
  jobEndpoints,
  MAX_PAGE_SIZE,
  type Page,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type JobQuery = Omit<EndpointRequest<typeof jobEndpoints.pageList>, 'userInfo'>;
export type JobRunsQuery = Omit<EndpointRequest<typeof jobEndpoints.runs>, 'userInfo'>;
/** The body of `job/save` (and of `job/update` without its id). */
export type JobBody = Omit<JobSaveRequest, 'userInfo'>;

/** `job/pageList`: tasks by group then name, each with its next fire time and last run. */
export function fetchJobs(q: JobQuery): Promise<Page<Job>> {
  return request(jobEndpoints.pageList, q);
}

/**
 * The groups in use (for the group filter and the form's suggestions): read from the first
 * {@link MAX_PAGE_SIZE} tasks, enough for any fleet's hand-made groups.
 */
export async function fetchJobGroups(): Promise<string[]> {
  const page = await request(jobEndpoints.pageList, { pageNum: 1, pageSize: MAX_PAGE_SIZE });
  return [...new Set(page.list.map((j) => j.group))];
}

/** `job/kinds`: the server's registry of task kinds with their parameters. */
export function fetchJobKinds(): Promise<JobKind[]> {
  return request(jobEndpoints.kinds, {});
}

/**
 * `job/save` (no `id`) or `job/update`. Shows nothing on a refusal: -100 a field, 2000 the
 * expression gives no trigger, 2001/2005 kind, parameter, window or name, 2007 gone.
 */
export function saveJob(body: JobBody, id?: number): Promise<unknown> {
  return id === undefined
    ? request(jobEndpoints.save, body, { errorText: 'none' })
    : request(jobEndpoints.update, { ...body, id }, { errorText: 'none' });
}

/** `job/delete`: the task and its run log. Errors: 2006 a system task, 2007. */
export function deleteJob(id: number): Promise<unknown> {
  return request(jobEndpoints.delete, { id }, { errorText: 'server' });
}

/** `job/pause` (normal → pause). Errors: 2003, 2007. */
export function pauseJob(id: number): Promise<Job> {
  return request(jobEndpoints.pause, { id }, { errorText: 'server' });
}

/** `job/recover` (pause → normal). Errors: 2004, 2007. */
export function recoverJob(id: number): Promise<Job> {
  return request(jobEndpoints.recover, { id }, { errorText: 'server' });
}

/** `job/trigger`: one run now; answers the claimed run's id. Errors: 2002, 2007. */
export function triggerJob(id: number): Promise<{ runId: number }> {
  return request(jobEndpoints.trigger, { id }, { errorText: 'server' });
}

/** `job/runs`: a task's runs, newest start first. */
export function fetchJobRuns(q: JobRunsQuery): Promise<Page<JobRun>> {
  return request(jobEndpoints.runs, q);
}

/** TanStack Query keys of the scheduled-task screen. */
export const jobKeys = {
  all: ['job'] as const,
  list: (q: JobQuery) => ['job', 'list', q] as const,
  groups: ['job', 'groups'] as const,
  kinds: ['job', 'kinds'] as const,
  runs: (q: JobRunsQuery) => ['job', 'runs', q] as const,
};
