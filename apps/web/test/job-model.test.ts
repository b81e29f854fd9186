/**
 * The scheduled-task screen's logic (features/job/model.ts): the expression's live check and
 * preview come from the contract's rule (invalid → the field's text in zh and en, valid → five
 * fire times in the task's zone), parameters are checked one by one with the contract's rule, a
 * form's values become a body the contract's `job/save` schema accepts, durations and results
 * read as people read them.
 */
import { type Job, type JobKind, jobSaveRequest, jobUpdateRequest } from '@ess/contract';
import { describe, expect, it } from 'vitest';
import {
  anyJobRunning,
  anyRunning,
  compactResult,
  cronPreview,
  defaultParams,
  formatDurationMs,
  groupChoices,
  jobBody,
  jobValues,
  newJobValues,
  paramProblem,
  timeZoneChoices,
} from '../src/features/job/model';

const FROM = new Date('2026-03-10T12:00:00Z');

const RETENTION: JobKind = {
  kind: 'job-run-retention',
  label: { zh: '执行日志保留', en: 'Run log retention' },
  description: { zh: '删除过期的执行日志', en: 'Deletes old run log rows' },
  params: [
    {
      key: 'keepDays',
      type: 'integer',
      label: { zh: '保留天数', en: 'Days kept' },
      help: null,
      unit: 'd',
      min: 1,
      max: 365,
      default: 30,
    },
    {
      key: 'dryRun',
      type: 'boolean',
      label: { zh: '仅统计', en: 'Count only' },
      help: null,
      unit: null,
      min: null,
      max: null,
      default: false,
    },
  ],
  defaultCron: '0 30 3 * * *',
  defaultTimeoutS: 600,
};

describe('the expression field', () => {
  it('refuses five fields and a bad field at the field, in the UI language', () => {
    const zh = cronPreview('0 0 2 * *', 'Asia/Shanghai', {}, 'zh', '必填', FROM);
    expect(zh).toEqual({ problem: expect.stringContaining('运行时间表达式无效'), times: [] });
    const en = cronPreview('0 61 2 * * *', 'Asia/Shanghai', {}, 'en', 'required', FROM);
    expect(en.problem).toMatch(/^Invalid run-time expression/);
    expect(cronPreview('  ', 'UTC', {}, 'en', 'required', FROM)).toEqual({ problem: 'required', times: [] });
  });

  it('previews the next five fire times in the task zone', () => {
    const preview = cronPreview('0 0 2 * * *', 'Asia/Shanghai', {}, 'en', '', FROM);
    expect(preview.problem).toBeNull();
    // 02:00 in Shanghai (UTC+8) is 18:00 UTC the day before.
    expect(preview.times.map((d) => d.toISOString())).toEqual([
      '2026-03-10T18:00:00.000Z',
      '2026-03-11T18:00:00.000Z',
      '2026-03-12T18:00:00.000Z',
      '2026-03-13T18:00:00.000Z',
      '2026-03-14T18:00:00.000Z',
    ]);
  });

  it('names a window with no fire time and an end before the start', () => {
    const window = { startAt: '2026-03-11T00:00:00Z', endAt: '2026-03-11T01:00:00Z' };
    expect(cronPreview('0 0 12 * * *', 'UTC', window, 'zh', '', FROM).problem).toBe(
      '在开始与结束时间之间没有执行时间',
    );
    expect(
      cronPreview('0 0 12 * * *', 'UTC', { startAt: window.endAt, endAt: window.startAt }, 'en', '', FROM)
        .problem,
    ).toBe('The end time must be after the start time');
  });
});

describe('parameters', () => {
  const keepDays = RETENTION.params[0]!;
  it('checks one parameter with the contract rule, naming it', () => {
    expect(paramProblem(keepDays, 30, 'en', 'required')).toBeNull();
    expect(paramProblem(keepDays, 0, 'zh', '必填')).toBe('保留天数应在1到365之间');
    expect(paramProblem(keepDays, 2.5, 'en', 'required')).toBe('Days kept must be a whole number');
    expect(paramProblem(keepDays, null, 'en', 'required')).toBe('required');
    expect(paramProblem(RETENTION.params[1]!, true, 'en', 'required')).toBeNull();
  });

  it("a kind's defaults", () => {
    expect(defaultParams(RETENTION)).toEqual({ keepDays: 30, dryRun: false });
    expect(defaultParams(undefined)).toEqual({});
  });
});

describe('the request body', () => {
  it('is what job/save accepts: trimmed, the kind’s parameters only, times in UTC', () => {
    const body = jobBody(
      {
        ...newJobValues('Asia/Shanghai'),
        name: '  Run log cleanup ',
        group: ' OPS ',
        kind: RETENTION.kind,
        params: { keepDays: 7, dryRun: false, stale: 1 },
        cron: ' 0  30 3 * * * ',
        startAtMs: Date.parse('2026-04-01T00:00:00+08:00'),
        timeoutS: 600,
        remark: '  ',
      },
      RETENTION.params,
    );
    expect(body).toEqual({
      name: 'Run log cleanup',
      group: 'OPS',
      kind: 'job-run-retention',
      params: { keepDays: 7, dryRun: false },
      cron: '0 30 3 * * *',
      timezone: 'Asia/Shanghai',
      startAt: '2026-03-31T16:00:00.000Z',
      endAt: null,
      misfire: 'run_once',
      allowOverlap: false,
      timeoutS: 600,
      remark: null,
    });
    expect(jobSaveRequest.safeParse(body).success).toBe(true);
  });

  it('round-trips a task through the form', () => {
    const job: Job = {
      id: 7,
      name: 'Partitions',
      group: 'SYSTEM',
      kind: RETENTION.kind,
      params: { keepDays: 90, dryRun: true },
      cron: '0 0 1 * * *',
      timezone: 'Europe/Berlin',
      startAt: '2026-01-01T00:00:00.000Z',
      endAt: '2027-01-01T00:00:00.000Z',
      misfire: 'skip',
      allowOverlap: true,
      timeoutS: 120,
      status: 'pause',
      remark: 'kept',
      system: true,
      nextRunAt: null,
      lastRun: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const body = jobBody(jobValues(job), RETENTION.params);
    const {
      id: _,
      status: __,
      system: ___,
      nextRunAt: ____,
      lastRun: _____,
      createdAt,
      updatedAt,
      ...kept
    } = job;
    expect(body).toEqual(kept);
    expect(jobUpdateRequest.safeParse({ ...body, id: job.id }).success).toBe(true);
  });
});

describe('display', () => {
  it('durations', () => {
    expect(formatDurationMs(null)).toBe('—');
    expect(formatDurationMs(850)).toBe('850 ms');
    expect(formatDurationMs(1234)).toBe('1.23 s');
    expect(formatDurationMs(12_345)).toBe('12.3 s');
    expect(formatDurationMs(125_000)).toBe('2 min 5 s');
    expect(formatDurationMs(120_000)).toBe('2 min');
    expect(formatDurationMs(3_720_000)).toBe('1 h 2 min');
    expect(formatDurationMs(7_200_000)).toBe('2 h');
  });

  it('a result in one line, cut with the whole kept', () => {
    expect(compactResult(null)).toEqual({ text: '', full: '' });
    expect(compactResult({ deleted: 12 })).toEqual({ text: '{"deleted":12}', full: '{"deleted":12}' });
    const long = compactResult({ ids: Array.from({ length: 100 }, (_, i) => i) }, 20);
    expect(long.text).toHaveLength(20);
    expect(long.text.endsWith('…')).toBe(true);
    expect(long.full.startsWith('{"ids":[0,1,2')).toBe(true);
  });

  it('groups: the system group first, then the others once, by name', () => {
    expect(groupChoices(['OPS', 'SYSTEM', 'BILLING', 'OPS'])).toEqual(['SYSTEM', 'BILLING', 'OPS']);
    expect(groupChoices([])).toEqual(['SYSTEM']);
  });

  it('time zones include UTC and the ones to keep', () => {
    const zones = timeZoneChoices(['Asia/Shanghai', 'Etc/GMT-8']);
    expect(zones).toContain('UTC');
    expect(zones).toContain('Asia/Shanghai');
    expect(zones).toContain('Etc/GMT-8');
    expect(new Set(zones).size).toBe(zones.length);
  });

  it('polls only while a run is going on', () => {
    expect(anyRunning([{ state: 'succeeded' }, { state: 'failed' }])).toBe(false);
    expect(anyRunning([{ state: 'succeeded' }, { state: 'running' }])).toBe(true);
    expect(anyRunning(undefined)).toBe(false);
    expect(anyJobRunning([{ lastRun: null }])).toBe(false);
  });
});
