/**
 * Scheduled tasks (issue 18): `endpoints.job.*`. Part of the endpoint table (../endpoints.ts);
 * see define.ts for the fields and api/job.ts for the shapes, rules and refusals. Tasks are the
 * platform's (menu `/system/job` is platform-only): no company scope.
 */
import {
  jobIdRequest,
  jobKindsRequest,
  jobKindsResponse,
  jobPageListRequest,
  jobPageListResponse,
  jobResponse,
  jobRunsRequest,
  jobRunsResponse,
  jobSaveRequest,
  jobSaveResponse,
  jobTriggerResponse,
  jobUpdateRequest,
} from '../api/job';
import { nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const jobEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/job/pageList',
    request: jobPageListRequest,
    response: jobPageListResponse,
    access: { permission: Perm.jobList },
    summary: 'Scheduled tasks with their next fire time and last run, by group then name',
    tags: ['job'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/job/detail',
    request: jobIdRequest,
    response: jobResponse,
    access: { permission: Perm.jobList },
    summary: 'One scheduled task. Errors: 2007',
    tags: ['job'],
  }),
  kinds: defineEndpoint({
    path: '/api-bms/job/kinds',
    request: jobKindsRequest,
    response: jobKindsResponse,
    access: { permission: Perm.jobList },
    summary:
      'The server’s registry of task kinds: what each does, its parameters, default expression and timeout',
    tags: ['job'],
  }),
  save: defineEndpoint({
    path: '/api-bms/job/save',
    request: jobSaveRequest,
    response: jobSaveResponse,
    access: { permission: Perm.jobSave },
    audit: { action: 'job.create', targetType: 'job' },
    summary:
      'Create a scheduled task (status normal). Errors: -100 a field, 2000 the expression gives no trigger, 2001 unknown kind, bad parameter, end not after start, name taken in the group',
    tags: ['job'],
  }),
  update: defineEndpoint({
    path: '/api-bms/job/update',
    request: jobUpdateRequest,
    response: jobResponse,
    access: { permission: Perm.jobSave },
    audit: { action: 'job.update', targetType: 'job' },
    summary:
      'Update a scheduled task (status and run log kept). Errors: -100 a field, 2000 the expression gives no trigger, 2005 unknown kind, bad parameter, end not after start, name taken, a system task’s kind changed, 2007',
    tags: ['job'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/job/delete',
    request: jobIdRequest,
    response: nullResponse,
    access: { permission: Perm.jobDelete },
    audit: { action: 'job.delete', targetType: 'job' },
    summary: 'Delete a task and its run log. Errors: 2006 a system task, 2007',
    tags: ['job'],
  }),
  pause: defineEndpoint({
    path: '/api-bms/job/pause',
    request: jobIdRequest,
    response: jobResponse,
    access: { permission: Perm.jobStatus },
    audit: { action: 'job.pause', targetType: 'job' },
    summary:
      'Pause a task (normal → pause): no fire until recovered; a run going on finishes. Errors: 2003 already paused, 2007',
    tags: ['job'],
  }),
  recover: defineEndpoint({
    path: '/api-bms/job/recover',
    request: jobIdRequest,
    response: jobResponse,
    access: { permission: Perm.jobStatus },
    audit: { action: 'job.recover', targetType: 'job' },
    summary:
      'Recover a paused task (pause → normal): fires again from the next fire time. Errors: 2004 not paused, 2007',
    tags: ['job'],
  }),
  trigger: defineEndpoint({
    path: '/api-bms/job/trigger',
    request: jobIdRequest,
    response: jobTriggerResponse,
    access: { permission: Perm.jobTrigger },
    audit: { action: 'job.trigger', targetType: 'job' },
    summary:
      'Run a task once now (also when paused); answers the claimed run, which goes on in the background. Errors: 2002 a run is going on and the task does not allow overlap, 2007',
    tags: ['job'],
  }),
  runs: defineEndpoint({
    path: '/api-bms/job/runs',
    request: jobRunsRequest,
    response: jobRunsResponse,
    access: { permission: Perm.jobList },
    summary: 'The run log: one task’s runs (or all), newest first, with instance, duration, result or error',
    tags: ['job'],
  }),
} as const;
