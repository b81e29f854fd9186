/**
 * The scheduled-task calls (modules/job, contract api/job.ts; issue 18) on both engines: the
 * seeded system tasks and the kinds; create, edit, delete with every refusal code 2000–2007 and
 * its reason in zh and en (nothing written on a refusal); pause / recover / trigger observable in
 * the API, in `job_run` rows and in the scheduler's tasks; a second trigger while a run goes on
 * refused (2002) unless overlap is allowed; the run log with its result; platform-only (a
 * company's administrator is refused); writes in the operation log. The app's scheduler is not
 * started (no timer): runs come from `trigger`, `fire` and `syncJobs`.
 */
import { ErrorCode, endpoints, JOB_SYSTEM_GROUP, jobKindsResponse, jobResponse } from '@ess/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRun, operationLog, scheduledTask } from '../src/core/db/schema';
import { jobTaskName } from '../src/jobs/scheduler';
import { call, signIn } from './support/client';
import { addCompany, addRole, addStaff, conforms } from './support/fixtures';
import { expectRefusal } from './support/org';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

const calls = endpoints.job;

describe.each(engines)('scheduled-task calls on %s', (engine) => {
  let ctx: TestContext;
  let token: string;
  /** Releases the runs of the `test-hold` kind waiting. */
  const held: (() => void)[] = [];
  const releaseHeld = () => {
    for (const release of held.splice(0)) release();
  };

  beforeAll(async () => {
    ctx = await createTestApp(engine, { MAIL_JOB_INTERVAL_S: '10' }, { scheduler: false });
    ctx.app.taskKinds.register({
      kind: 'test-echo',
      label: { zh: '回显', en: 'Echo' },
      description: { zh: '回显参数', en: 'Answers its parameters' },
      params: [
        {
          key: 'count',
          type: 'integer',
          label: { zh: '次数', en: 'Count' },
          help: null,
          unit: null,
          min: 1,
          max: 10,
          default: 3,
        },
      ],
      defaultCron: '0 * * * * *',
      defaultTimeoutS: 60,
      run: async ({ trigger }, params) => ({ params, trigger }),
    });
    ctx.app.taskKinds.register({
      kind: 'test-hold',
      label: { zh: '等待', en: 'Hold' },
      description: { zh: '等待测试放行', en: 'Waits for the test' },
      params: [],
      defaultCron: '0 * * * * *',
      defaultTimeoutS: 60,
      run: () => new Promise((resolve) => held.push(() => resolve({ held: true }))),
    });
    token = (await signIn(ctx.app)).token;
  });
  afterAll(async () => {
    releaseHeld();
    await ctx?.close();
  });

  const api = (path: string, body: object, lang: 'zh' | 'en' = 'zh') =>
    call(ctx.app, path, body, { token, lang });
  const base = {
    name: 'echo',
    group: 'TEST',
    kind: 'test-echo',
    params: { count: 2 },
    cron: '0 */5 * * * *',
    timezone: 'Asia/Shanghai',
    timeoutS: 30,
  };
  const create = async (over: object = {}) => {
    const answer = await api(calls.save.path, {
      ...base,
      name: `t-${Math.random().toString(36).slice(2)}`,
      ...over,
    });
    expect(answer).toMatchObject({ code: 0 });
    return answer.data.id as number;
  };
  const taskCount = async () => (await ctx.database.db.select().from(scheduledTask)).length;

  it('seeds one system task per kind with a seed, in UTC, and lists the kinds', async () => {
    const list = await api(calls.pageList.path, { pageNum: 1, pageSize: 50, group: JOB_SYSTEM_GROUP });
    expect(list.code).toBe(0);
    const byKind = Object.fromEntries(list.data.list.map((j: { kind: string }) => [j.kind, j]));
    expect(Object.keys(byKind).sort()).toEqual([
      'alarm-mail',
      'bill-draft',
      'delivery-retry',
      'device-clock-check',
      'energy-tier',
      'job-run-retention',
      'log-retention',
      'telemetry-partitions',
    ]);
    expect(byKind['telemetry-partitions']).toMatchObject({
      cron: '0 0 0,12 * * *',
      timezone: 'UTC',
      misfire: 'run_once',
      system: true,
      status: 'normal',
    });
    expect(byKind['alarm-mail']).toMatchObject({ cron: '*/10 * * * * *', misfire: 'skip' });
    expect(byKind['job-run-retention'].params).toEqual({ retentionDays: ctx.config.jobRunRetentionDays });
    for (const job of list.data.list) conforms(jobResponse, job);
    const kinds = conforms(jobKindsResponse, (await api(calls.kinds.path, {})).data);
    expect(kinds.map((k) => k.kind)).toContain('device-clock-check');
    expect(kinds.find((k) => k.kind === 'test-echo')!.params[0]!.key).toBe('count');
  });

  it('a second start seeds nothing and keeps what the operator changed', async () => {
    const [row] = await ctx.database.db
      .select()
      .from(scheduledTask)
      .where(eq(scheduledTask.kind, 'log-retention'));
    const answer = await api(calls.update.path, {
      ...base,
      id: row!.id,
      name: row!.name,
      group: row!.group,
      kind: 'log-retention',
      params: {},
      cron: '0 0 1 * * *',
      timezone: 'UTC',
    });
    expect(answer.code).toBe(0);
    const { seedSystemTasks } = await import('../src/jobs/task-kinds');
    expect(await seedSystemTasks(ctx.database.db, ctx.app.taskKinds)).toEqual([]);
    const [after] = await ctx.database.db.select().from(scheduledTask).where(eq(scheduledTask.id, row!.id));
    expect(after!.cron).toBe('0 0 1 * * *');
  });

  it('creates a task: next fire in its zone, no run yet', async () => {
    const id = await create({ cron: '0 0 3 * * *' });
    const detail = await api(calls.detail.path, { id });
    expect(detail.data).toMatchObject({
      status: 'normal',
      system: false,
      lastRun: null,
      params: { count: 2 },
    });
    // 03:00 Asia/Shanghai is 19:00Z.
    expect(detail.data.nextRunAt).toMatch(/T19:00:00\.000Z$/);
    conforms(jobResponse, detail.data);
  });

  it('refuses bad saves with the spec codes and a reason, writing nothing', async () => {
    const before = await taskCount();
    const cases: [object, number, { zh: string; en: string }][] = [
      [
        { cron: '0 * * *' },
        ErrorCode.TASK_GET_TRIGGER_FAILED,
        { zh: '运行时间表达式无效', en: 'Invalid run-time expression' },
      ],
      [
        { cron: '0 0 0 31 2 *' },
        ErrorCode.TASK_GET_TRIGGER_FAILED,
        { zh: '没有执行时间', en: 'No fire time' },
      ],
      [
        { startAt: '2020-01-01T00:00:00Z', endAt: '2020-01-02T00:00:00Z' },
        ErrorCode.TASK_GET_TRIGGER_FAILED,
        { zh: '没有执行时间', en: 'No fire time' },
      ],
      [
        { startAt: '2031-01-02T00:00:00Z', endAt: '2031-01-01T00:00:00Z' },
        ErrorCode.TASK_CREATE_FAILED,
        { zh: '结束时间必须晚于开始时间', en: 'The end time must be after the start time' },
      ],
      [
        { kind: 'no-such-kind' },
        ErrorCode.TASK_CREATE_FAILED,
        { zh: '未知的任务类型 no-such-kind', en: 'unknown task kind no-such-kind' },
      ],
      [
        { params: { count: 11 } },
        ErrorCode.TASK_CREATE_FAILED,
        { zh: '次数应在1到10之间', en: 'Count must be between 1 and 10' },
      ],
      [
        { params: { other: 1 } },
        ErrorCode.TASK_CREATE_FAILED,
        { zh: '未知参数 other', en: 'unknown parameter other' },
      ],
      [
        { name: 'echo' },
        ErrorCode.TASK_CREATE_FAILED,
        { zh: '分组 TEST 中已有名为 echo 的任务', en: 'group TEST already has a task named echo' },
      ],
    ];
    await create({ name: 'echo' });
    const count = await taskCount();
    expect(count).toBe(before + 1);
    for (const [over, code, reason] of cases) {
      for (const lang of ['zh', 'en'] as const) {
        const answer = await api(calls.save.path, { ...base, ...over }, lang);
        expect(answer.code, JSON.stringify(over)).toBe(code);
        expect(answer.data).toBeNull();
        expect(answer.msg).toContain(reason[lang]);
        expect(answer.msg.startsWith(lang === 'zh' ? '' : 'Failed')).toBe(true);
      }
    }
    expect(await taskCount()).toBe(count);
    // A field the schema refuses: -100 naming it.
    const bad = await api(calls.save.path, { ...base, timezone: 'Mars/Olympus' }, 'en');
    expect(bad.code).toBe(ErrorCode.PARAM_ERROR);
    expect(bad.msg).toContain('timezone');
  });

  it('refuses bad updates with 2005 / 2000 / 2007 and keeps the row', async () => {
    const id = await create();
    const [system] = await ctx.database.db
      .select()
      .from(scheduledTask)
      .where(eq(scheduledTask.kind, 'alarm-mail'));
    const rowBefore = await ctx.database.db.select().from(scheduledTask).where(eq(scheduledTask.id, id));
    for (const lang of ['zh', 'en'] as const) {
      const unknown = await api(calls.update.path, { ...base, id, kind: 'nope' }, lang);
      expectRefusal(
        unknown,
        ErrorCode.TASK_UPDATE_FAILED,
        lang,
        lang === 'zh' ? '未知的任务类型 nope' : 'unknown task kind nope',
      );
      const cron = await api(calls.update.path, { ...base, id, cron: 'x x x x x x' }, lang);
      expect(cron.code).toBe(ErrorCode.TASK_GET_TRIGGER_FAILED);
      const kind = await api(
        calls.update.path,
        { ...base, id: system!.id, name: system!.name, group: system!.group, kind: 'test-echo' },
        lang,
      );
      expectRefusal(
        kind,
        ErrorCode.TASK_UPDATE_FAILED,
        lang,
        lang === 'zh' ? '系统任务不能更改任务类型' : 'a system task keeps its kind',
      );
      const missing = await api(calls.update.path, { ...base, id: 999_999 }, lang);
      expectRefusal(missing, ErrorCode.TASK_NOT_FOUND, lang);
      expectRefusal(await api(calls.detail.path, { id: 999_999 }, lang), ErrorCode.TASK_NOT_FOUND, lang);
    }
    expect(await ctx.database.db.select().from(scheduledTask).where(eq(scheduledTask.id, id))).toEqual(
      rowBefore,
    );
  });

  it('pause and recover: 2003 / 2004 refusals, the scheduler drops and takes back the task', async () => {
    const id = await create();
    const name = jobTaskName(id);
    expect(ctx.app.scheduler.list().map((t) => t.name)).toContain(name);
    const paused = await api(calls.pause.path, { id });
    expect(paused.data).toMatchObject({ status: 'pause', nextRunAt: null });
    expect(ctx.app.scheduler.list().map((t) => t.name)).not.toContain(name);
    for (const lang of ['zh', 'en'] as const) {
      expectRefusal(
        await api(calls.pause.path, { id }, lang),
        ErrorCode.TASK_PAUSE_FAILED,
        lang,
        lang === 'zh' ? '任务已是暂停状态' : 'the task is already paused',
      );
      expectRefusal(await api(calls.pause.path, { id: 999_999 }, lang), ErrorCode.TASK_NOT_FOUND, lang);
    }
    // A paused task still runs when triggered by hand.
    const trigger = await api(calls.trigger.path, { id });
    expect(trigger.code).toBe(0);
    const run = await waitFor(async () => {
      const [row] = await ctx.database.db.select().from(jobRun).where(eq(jobRun.id, trigger.data.runId));
      return row?.state === 'succeeded' && row;
    });
    expect(run).toMatchObject({
      jobId: id,
      task: name,
      trigger: 'manual',
      result: { params: { count: 2 }, trigger: 'manual' },
    });
    const recovered = await api(calls.recover.path, { id });
    expect(recovered.data.status).toBe('normal');
    expect(recovered.data.nextRunAt).not.toBeNull();
    expect(recovered.data.lastRun).toMatchObject({
      id: trigger.data.runId,
      state: 'succeeded',
      trigger: 'manual',
    });
    expect(ctx.app.scheduler.list().map((t) => t.name)).toContain(name);
    for (const lang of ['zh', 'en'] as const) {
      expectRefusal(
        await api(calls.recover.path, { id }, lang),
        ErrorCode.TASK_RECOVER_FAILED,
        lang,
        lang === 'zh' ? '任务未暂停' : 'the task is not paused',
      );
    }
    // A scheduled fire of the recovered task is recorded as such.
    expect(await ctx.app.scheduler.fire(name, new Date(Date.UTC(2031, 0, 1, 0, 5)))).toBe('succeeded');
    const runs = await api(calls.runs.path, { pageNum: 1, pageSize: 10, jobId: id });
    expect(runs.data.total).toBe(2);
    expect(runs.data.list.map((r: { trigger: string }) => r.trigger).sort()).toEqual(['manual', 'schedule']);
  });

  it('a second trigger while a run goes on: 2002 unless overlap is allowed', async () => {
    const id = await create({ kind: 'test-hold', params: {} });
    const first = await api(calls.trigger.path, { id });
    expect(first.code).toBe(0);
    for (const lang of ['zh', 'en'] as const) {
      expectRefusal(
        await api(calls.trigger.path, { id }, lang),
        ErrorCode.TASK_RUN_FAILED,
        lang,
        lang === 'zh'
          ? '该任务正在执行，且不允许并发执行'
          : 'a run of this task is going on and the task does not allow overlapping runs',
      );
    }
    const running = await api(calls.runs.path, { pageNum: 1, pageSize: 10, jobId: id, state: 'running' });
    expect(running.data.total).toBe(1);
    releaseHeld();
    await waitFor(async () => {
      const [row] = await ctx.database.db.select().from(jobRun).where(eq(jobRun.id, first.data.runId));
      return row?.state === 'succeeded';
    });
    expect((await api(calls.trigger.path, { id })).code).toBe(0);
    releaseHeld();

    const overlapping = await create({ kind: 'test-hold', params: {}, allowOverlap: true });
    const a = await api(calls.trigger.path, { id: overlapping });
    const b = await api(calls.trigger.path, { id: overlapping });
    expect([a.code, b.code]).toEqual([0, 0]);
    await waitFor(() => held.length === 2 || (held.length > 2 && undefined));
    releaseHeld();
    await waitFor(async () => {
      const rows = await ctx.database.db.select().from(jobRun).where(eq(jobRun.jobId, overlapping));
      return rows.length === 2 && rows.every((r) => r.state === 'succeeded');
    });
    expectRefusal(await api(calls.trigger.path, { id: 999_999 }, 'en'), ErrorCode.TASK_NOT_FOUND, 'en');
  });

  it('deletes a task and its runs; a system task cannot be deleted (2006)', async () => {
    const id = await create();
    const trigger = await api(calls.trigger.path, { id });
    await waitFor(async () => {
      const [row] = await ctx.database.db.select().from(jobRun).where(eq(jobRun.id, trigger.data.runId));
      return row?.state === 'succeeded';
    });
    expect(await api(calls.delete.path, { id })).toMatchObject({ code: 0, data: null });
    expect(await ctx.database.db.select().from(jobRun).where(eq(jobRun.jobId, id))).toEqual([]);
    expect(ctx.app.scheduler.list().map((t) => t.name)).not.toContain(jobTaskName(id));
    const [system] = await ctx.database.db.select().from(scheduledTask).where(eq(scheduledTask.system, true));
    for (const lang of ['zh', 'en'] as const) {
      expectRefusal(
        await api(calls.delete.path, { id: system!.id }, lang),
        ErrorCode.TASK_DELETE_FAILED,
        lang,
        lang === 'zh' ? '系统任务不能删除，可以暂停' : 'a system task cannot be deleted; pause it instead',
      );
      expectRefusal(await api(calls.delete.path, { id }, lang), ErrorCode.TASK_NOT_FOUND, lang);
    }
    // The operation log holds the writes with the task as target.
    const logged = await ctx.database.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'job.delete'), eq(operationLog.targetId, String(id))));
    expect(logged.length).toBeGreaterThan(0);
  });

  it('is platform-only: a company administrator is refused every call', async () => {
    const companyId = (await addCompany(ctx.database.db)).id;
    const roleId = await addRole(ctx.database.db, { companyId, isAdmin: true });
    const staff = await addStaff(ctx.database.db, { companyId, roleIds: [roleId] });
    const other = (await signIn(ctx.app, staff.account, staff.password)).token;
    for (const endpoint of Object.values(calls)) {
      const answer = await call(
        ctx.app,
        endpoint.path,
        { id: 1, pageNum: 1, pageSize: 10 },
        { token: other },
      );
      expect(answer.code, endpoint.path).toBe(ErrorCode.NO_PERMISSION);
    }
  });
});
