/**
 * The scheduler running operator tasks (jobs/scheduler.ts; issue 18 items 1 and 3) on both
 * engines, on clocks the test moves (fires come from `runDue`, `start` and `syncJobs`; nothing
 * waits on the wall clock except the one-second timeout of a hung task):
 * two schedulers (two connections on PostgreSQL) running a one-second task for a simulated
 * minute — every fire time exactly one row, both ran some; misfire `run_once` vs `skip` at start;
 * lease takeover after a "killed" runner; a throwing task; a hung task ended at its timeout
 * without holding up another task; a database outage and the resume; an edit on one scheduler
 * picked up by the other; the start/end window; the task's time zone.
 */
import type { JobMisfirePolicy } from '@ess/contract';
import { asc, eq, like, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/core/db/database';
import { openDatabase } from '../src/core/db/database';
import { jobRun, scheduledTask } from '../src/core/db/schema';
import { jobTaskName, Scheduler } from '../src/jobs/scheduler';
import { TaskKinds } from '../src/jobs/task-kinds';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

describe.each(engines)('operator tasks in the scheduler on %s', (engine) => {
  let ctx: TestContext;
  let now = 0;
  const clock = () => now;
  const schedulers: Scheduler[] = [];
  /** Releases the `test-hold` runs waiting. */
  const held: (() => void)[] = [];
  let boomLeft = 0;
  const kinds = new TaskKinds();
  kinds.register({
    kind: 'test-echo',
    label: { zh: '回显', en: 'Echo' },
    description: { zh: '回显', en: 'Echo' },
    params: [],
    defaultCron: '* * * * * *',
    defaultTimeoutS: 60,
    run: async ({ fireAt, trigger }) => ({ fireAt: fireAt.toISOString(), trigger }),
  });
  kinds.register({
    kind: 'test-hold',
    label: { zh: '等待', en: 'Hold' },
    description: { zh: '等待', en: 'Hold' },
    params: [],
    defaultCron: '* * * * * *',
    defaultTimeoutS: 60,
    run: () => new Promise((resolve) => held.push(() => resolve('released'))),
  });
  kinds.register({
    kind: 'test-boom',
    label: { zh: '失败', en: 'Boom' },
    description: { zh: '失败', en: 'Boom' },
    params: [],
    defaultCron: '* * * * * *',
    defaultTimeoutS: 60,
    run: async () => {
      if (boomLeft-- > 0) throw new Error('boom: the task failed');
      return 'fine';
    },
  });
  kinds.register({
    kind: 'test-hang',
    label: { zh: '挂起', en: 'Hang' },
    description: { zh: '挂起', en: 'Hang' },
    params: [],
    defaultCron: '* * * * * *',
    defaultTimeoutS: 1,
    run: () => new Promise(() => undefined),
  });

  beforeAll(async () => {
    ctx = await createTestApp(engine, { MAIL_JOB_INTERVAL_S: '0' }, { scheduler: false });
  });
  afterEach(async () => {
    for (const release of held.splice(0)) release();
    await Promise.all(schedulers.splice(0).map((s) => s.stop()));
    await ctx.database.db.delete(scheduledTask).where(like(scheduledTask.kind, 'test-%'));
  });
  afterAll(async () => ctx?.close());

  const make = (instanceId: string, options: { db?: Db; leaseMs?: number } = {}) => {
    const s = new Scheduler(options.db ?? ctx.database.db, ctx.app.log, {
      instanceId,
      clock,
      kinds,
      stopGraceMs: 100,
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    });
    schedulers.push(s);
    return s;
  };
  const addTask = async (
    over: Partial<{
      kind: string;
      cron: string;
      timezone: string;
      misfire: JobMisfirePolicy;
      startAt: Date;
      endAt: Date;
      timeoutS: number;
      allowOverlap: boolean;
      status: string;
    }> = {},
  ) => {
    const [row] = await ctx.database.db
      .insert(scheduledTask)
      .values({
        name: `t-${Math.random().toString(36).slice(2)}`,
        group: 'TEST',
        kind: 'test-echo',
        cron: '* * * * * *',
        timezone: 'UTC',
        timeoutS: 60,
        misfire: 'skip',
        // Created long ago: a catch-up may reach back to any fire time of the tests' clocks.
        createdAt: new Date(Date.UTC(2020, 0, 1)),
        ...over,
      })
      .returning();
    return row!;
  };
  const runsOf = (jobId: number) =>
    ctx.database.db
      .select()
      .from(jobRun)
      .where(eq(jobRun.jobId, jobId))
      .orderBy(asc(jobRun.fireAt), asc(jobRun.id));

  it('two schedulers run a one-second task for a minute: each fire time exactly once, both ran some', async () => {
    const second =
      engine === 'postgres'
        ? await openDatabase({
            databaseUrl: ctx.config.databaseUrl!,
            dataDir: ctx.config.dataDir,
            poolSize: 4,
          })
        : null;
    try {
      const t0 = Date.UTC(2030, 1, 1, 0, 0, 0);
      now = t0;
      const task = await addTask();
      const a = make('instance-a');
      const b = make('instance-b', { db: second?.db ?? ctx.database.db });
      await Promise.all([a.syncJobs(), b.syncJobs()]);
      const name = jobTaskName(task.id);
      for (let s = 1; s <= 60; s++) {
        now = t0 + s * 1000 + 150;
        // Each starts first every other second; on PostgreSQL they also race on two connections.
        const pair = s % 2 ? [a, b] : [b, a];
        const outcomes = await Promise.all(pair.map((x) => x.runDue()));
        expect(outcomes.map((o) => o[name]).sort(), `second ${s}`).toEqual([
          'claimed-elsewhere',
          'succeeded',
        ]);
      }
      const rows = await runsOf(task.id);
      expect(rows.map((r) => r.fireAt.getTime())).toEqual(
        Array.from({ length: 60 }, (_, i) => t0 + (i + 1) * 1000),
      );
      expect(rows.every((r) => r.state === 'succeeded' && r.attempts === 1 && r.trigger === 'schedule')).toBe(
        true,
      );
      const byA = rows.filter((r) => r.claimedBy === 'instance-a').length;
      expect(byA).toBeGreaterThan(0);
      expect(byA).toBeLessThan(60);
    } finally {
      await second?.close();
    }
  });

  it('misfire at start: run_once runs the latest missed fire once (trigger misfire), skip runs none', async () => {
    now = Date.UTC(2030, 2, 5, 0, 0, 30);
    const once = await addTask({ cron: '0 0 0 * * *', misfire: 'run_once' });
    const skip = await addTask({ cron: '0 0 0 * * *', misfire: 'skip' });
    const a = make('instance-a');
    a.start();
    await waitFor(async () => (await runsOf(once.id))[0]?.state === 'succeeded');
    // A second instance starting later finds the fire claimed: no second run.
    const b = make('instance-b');
    b.start();
    await b.syncJobs();
    await Promise.all([a.stop(), b.stop()]);
    const rows = await runsOf(once.id);
    expect(rows.map((r) => [r.fireAt.toISOString(), r.trigger, r.claimedBy])).toEqual([
      ['2030-03-05T00:00:00.000Z', 'misfire', 'instance-a'],
    ]);
    expect(await runsOf(skip.id)).toEqual([]);
  });

  it('a run whose runner was killed is taken over once its lease ran out', async () => {
    const t0 = Date.UTC(2030, 3, 1, 0, 0, 0);
    now = t0;
    const task = await addTask({ kind: 'test-hold', cron: '0 * * * * *' });
    const dead = make('dead', { leaseMs: 60_000 });
    const alive = make('alive', { leaseMs: 60_000 });
    await Promise.all([dead.syncJobs(), alive.syncJobs()]);
    now = t0 + 60_000 + 100;
    void dead.runDue(); // hangs: its process is "killed" (never finishes nor renews in time)
    await waitFor(() => held.length === 1);
    const name = jobTaskName(task.id);
    // Within the lease: the other instance neither takes over nor claims beside the live run.
    now = t0 + 90_000;
    expect(await alive.fire(name, new Date(t0 + 60_000))).toBe('claimed-elsewhere');
    // Past the lease: taken over (attempt 2), then the new fire claimed.
    now = t0 + 240_000 + 100;
    const takeover = alive.runDue();
    await waitFor(() => held.length === 2);
    held[1]!(); // the takeover run ends
    await waitFor(() => held.length === 3);
    held[2]!(); // the new fire ends
    expect(await takeover).toEqual({ [name]: 'succeeded' });
    held[0]!(); // the killed runner's late end is not recorded
    await new Promise((r) => setTimeout(r, 50));
    const rows = await runsOf(task.id);
    expect(rows.map((r) => [new Date(r.fireAt).getTime() - t0, r.claimedBy, r.attempts, r.state])).toEqual([
      [60_000, 'alive', 2, 'succeeded'],
      [240_000, 'alive', 1, 'succeeded'],
    ]);
    held.splice(0);
  });

  it('a task that throws is recorded with its error; the next fire still runs', async () => {
    const t0 = Date.UTC(2030, 4, 1);
    now = t0;
    const task = await addTask({ kind: 'test-boom' });
    const s = make('instance-a');
    await s.syncJobs();
    boomLeft = 1;
    now = t0 + 1000;
    expect(await s.runDue()).toEqual({ [jobTaskName(task.id)]: 'failed' });
    now = t0 + 2000;
    expect(await s.runDue()).toEqual({ [jobTaskName(task.id)]: 'succeeded' });
    const rows = await runsOf(task.id);
    expect(rows.map((r) => [r.state, r.error, r.result])).toEqual([
      ['failed', 'boom: the task failed', null],
      ['succeeded', null, 'fine'],
    ]);
  });

  it('a hung task is ended at its timeout and holds up neither another task nor its own next fire', async () => {
    const t0 = Date.UTC(2030, 5, 1);
    now = t0;
    const hang = await addTask({ kind: 'test-hang', cron: '0 * * * * *', timeoutS: 1 });
    const other = await addTask({ kind: 'test-echo', cron: '* * * * * *' });
    const s = make('instance-a');
    await s.syncJobs();
    now = t0 + 60_000 + 100;
    let hungSettled = false;
    const hung = s.fire(jobTaskName(hang.id), new Date(t0 + 60_000)).then((o) => {
      hungSettled = true;
      return o;
    });
    expect(await s.fire(jobTaskName(other.id), new Date(t0 + 60_000))).toBe('succeeded');
    expect(hungSettled).toBe(false);
    expect(await hung).toBe('failed');
    const [row] = await runsOf(hang.id);
    expect(row).toMatchObject({ state: 'failed', error: 'timeout after 1 s' });
    expect(row!.finishedAt!.getTime() - row!.startedAt.getTime()).toBeGreaterThanOrEqual(0);
    // The next fire is not refused as busy: the hung run is no longer this instance's.
    now = t0 + 120_000 + 100;
    expect(await s.fire(jobTaskName(hang.id), new Date(t0 + 120_000))).toBe('failed');
  });

  it('a database outage: claims and reloads fail and are logged, fires resume afterwards', async () => {
    let down = false;
    const unreachable = () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failing = new Set(['select', 'insert', 'update', 'delete', 'execute', 'transaction']);
    const db = ctx.database.db;
    const proxied = new Proxy(db, {
      get: (target, prop, receiver) => {
        const value = Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || !failing.has(prop) || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!down) return value.apply(target, args);
          if (prop === 'transaction' || prop === 'execute') return Promise.reject(unreachable());
          throw unreachable();
        };
      },
    }) as Db;
    const t0 = Date.UTC(2030, 6, 1);
    now = t0;
    const task = await addTask();
    const s = make('instance-a', { db: proxied });
    await s.syncJobs();
    const name = jobTaskName(task.id);
    down = true;
    now = t0 + 1000;
    expect(await s.runDue()).toEqual({ [name]: 'failed' });
    expect(await s.syncJobs(true)).toBe(false);
    now = t0 + 2000;
    expect(await s.runDue()).toEqual({ [name]: 'failed' });
    down = false;
    now = t0 + 3000;
    expect(await s.runDue()).toEqual({ [name]: 'succeeded' });
    expect((await runsOf(task.id)).map((r) => r.fireAt.getTime() - t0)).toEqual([3000]);
  });

  it('an edit, a pause and a delete made through one instance are picked up by the other', async () => {
    now = Date.UTC(2030, 7, 1);
    const task = await addTask({ cron: '0 0 1 * * *' });
    const a = make('instance-a');
    const b = make('instance-b');
    await Promise.all([a.syncJobs(), b.syncJobs()]);
    const name = jobTaskName(task.id);
    const nextOf = (s: Scheduler) =>
      s
        .list()
        .find((t) => t.name === name)
        ?.next.toISOString();
    expect(nextOf(b)).toBe('2030-08-01T01:00:00.000Z');
    await ctx.database.db
      .update(scheduledTask)
      .set({ cron: '0 0 2 * * *', updatedAt: sql`now()` })
      .where(eq(scheduledTask.id, task.id));
    expect(await b.syncJobs()).toBe(true);
    expect(nextOf(b)).toBe('2030-08-01T02:00:00.000Z');
    expect(await b.syncJobs()).toBe(false); // nothing changed since
    await ctx.database.db
      .update(scheduledTask)
      .set({ status: 'pause', updatedAt: sql`now()` })
      .where(eq(scheduledTask.id, task.id));
    await b.syncJobs();
    expect(nextOf(b)).toBeUndefined();
    await ctx.database.db
      .update(scheduledTask)
      .set({ status: 'normal', updatedAt: sql`now()` })
      .where(eq(scheduledTask.id, task.id));
    await b.syncJobs();
    expect(nextOf(b)).toBe('2030-08-01T02:00:00.000Z');
    await ctx.database.db.delete(scheduledTask).where(eq(scheduledTask.id, task.id));
    await b.syncJobs();
    expect(nextOf(b)).toBeUndefined();
  });

  it('fires only inside [startAt, endAt)', async () => {
    const t0 = Date.UTC(2030, 8, 1);
    now = t0;
    const task = await addTask({ startAt: new Date(t0 + 10_000), endAt: new Date(t0 + 20_000) });
    const s = make('instance-a');
    await s.syncJobs();
    for (let i = 1; i <= 30; i++) {
      now = t0 + i * 1000 + 100;
      await s.runDue();
    }
    const fired = (await runsOf(task.id)).map((r) => (r.fireAt.getTime() - t0) / 1000);
    expect(fired).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it("reads the expression in the task's zone: 03:00 Asia/Shanghai fires at 19:00Z", async () => {
    now = Date.UTC(2030, 9, 1, 12, 0, 0);
    const task = await addTask({ cron: '0 0 3 * * *', timezone: 'Asia/Shanghai' });
    const s = make('instance-a');
    await s.syncJobs();
    const name = jobTaskName(task.id);
    expect(
      s
        .list()
        .find((t) => t.name === name)!
        .next.toISOString(),
    ).toBe('2030-10-01T19:00:00.000Z');
    now = Date.UTC(2030, 9, 1, 18, 59, 59);
    expect(await s.runDue()).toEqual({});
    now = Date.UTC(2030, 9, 1, 19, 0, 0, 200);
    expect(await s.runDue()).toEqual({ [name]: 'succeeded' });
    expect((await runsOf(task.id)).map((r) => r.fireAt.toISOString())).toEqual(['2030-10-01T19:00:00.000Z']);
  });
});
