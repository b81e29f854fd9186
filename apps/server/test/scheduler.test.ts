/**
 * The scheduler (jobs/scheduler.ts) on both engines, on a clock the test moves: two instances on
 * one database run each fire time once; a run whose instance died is taken over once its lease
 * ran out (and the dead runner's late outcome is not recorded); a task that throws is recorded
 * with its error and the next fire still runs; a task never overlaps itself; a catch-up at start
 * runs the missed fire once across instances; the assembled app registers the server's tasks.
 * No test sleeps on a real interval: fires come from `runDue`, `fire` or `start`.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRun, scheduledTask } from '../src/core/db/schema';
import { Scheduler } from '../src/jobs/scheduler';
import { createTestApp, engines, type TestContext } from './support/test-app';
import { waitFor } from './support/wait';

describe.each(engines)('scheduler on %s', (engine) => {
  let ctx: TestContext;
  /** The schedulers' clock: it moves only when the test says so. */
  let now = 0;
  const clock = () => now;
  const scheduler = (instanceId: string, leaseMs?: number) =>
    new Scheduler(ctx.database.db, ctx.app.log, { instanceId, clock, ...(leaseMs ? { leaseMs } : {}) });
  const runs = (task: string) =>
    ctx.database.db.select().from(jobRun).where(eq(jobRun.task, task)).orderBy(asc(jobRun.fireAt));

  beforeAll(async () => {
    ctx = await createTestApp(engine);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('two instances on one database run each fire time once', async () => {
    now = Date.UTC(2030, 0, 1, 0, 0, 30);
    const ran: string[] = [];
    const make = (id: string) => {
      const s = scheduler(id);
      s.register({
        name: 'shared',
        schedule: { everyMs: 60_000 },
        run: async ({ fireAt }) => {
          ran.push(`${id} ${fireAt.toISOString()}`);
          return { by: id };
        },
      });
      return s;
    };
    const a = make('instance-a');
    const b = make('instance-b');
    for (let minute = 1; minute <= 5; minute++) {
      now = Date.UTC(2030, 0, 1, 0, minute, 0, 250);
      const outcomes = await Promise.all([a.runDue(), b.runDue()]);
      expect(outcomes.map((o) => o.shared).sort()).toEqual(['claimed-elsewhere', 'succeeded']);
    }
    const rows = await runs('shared');
    expect(rows.map((r) => r.fireAt.toISOString())).toEqual(
      [1, 2, 3, 4, 5].map((m) => new Date(Date.UTC(2030, 0, 1, 0, m)).toISOString()),
    );
    expect(ran).toHaveLength(5);
    for (const r of rows) {
      expect(r).toMatchObject({ state: 'succeeded', attempts: 1, error: null, result: { by: r.claimedBy } });
      expect(r.finishedAt).not.toBeNull();
    }
    // Nothing more is due until the next minute.
    now += 30_000;
    expect(await a.runDue()).toEqual({});
  });

  it('a run whose instance died is taken over once its lease ran out', async () => {
    now = Date.UTC(2030, 0, 2, 0, 0, 0);
    const leaseMs = 60_000;
    let release!: () => void;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ran: string[] = [];
    const dead = scheduler('dead-instance', leaseMs);
    dead.register({
      name: 'leased',
      schedule: { everyMs: 3_600_000 },
      run: async () => {
        ran.push('dead');
        await hanging; // the instance "dies" here: it never renews, never finishes in time
        return { by: 'dead' };
      },
    });
    const alive = scheduler('alive-instance', leaseMs);
    alive.register({
      name: 'leased',
      schedule: { everyMs: 3_600_000 },
      run: async ({ fireAt }) => {
        ran.push(`alive ${fireAt.toISOString()}`);
        return { by: 'alive' };
      },
    });
    const first = new Date(now);
    const deadRun = dead.fire('leased', first);
    await waitFor(async () => (await runs('leased')).length === 1);
    expect(await alive.fire('leased', first)).toBe('claimed-elsewhere');

    // The lease still holds: the next fire is not claimed (the task never overlaps itself).
    now += leaseMs / 2;
    expect(await alive.fire('leased', new Date(now))).toBe('claimed-elsewhere');
    expect(await runs('leased')).toHaveLength(1);

    // The lease ran out: the next fire takes the dead run over, then runs its own.
    now = first.getTime() + 3_600_000;
    const second = new Date(now);
    expect(await alive.fire('leased', second)).toBe('succeeded');
    expect(ran).toEqual(['dead', `alive ${first.toISOString()}`, `alive ${second.toISOString()}`]);
    const rows = await runs('leased');
    expect(rows.map((r) => [r.fireAt.toISOString(), r.claimedBy, r.attempts, r.state])).toEqual([
      [first.toISOString(), 'alive-instance', 2, 'succeeded'],
      [second.toISOString(), 'alive-instance', 1, 'succeeded'],
    ]);

    // The dead runner comes back late: its outcome is not written over the taker's.
    release();
    await deadRun;
    expect((await runs('leased'))[0]).toMatchObject({ claimedBy: 'alive-instance', result: { by: 'alive' } });
  });

  it('a task that throws is recorded with its error and the next fire still runs', async () => {
    now = Date.UTC(2030, 0, 3, 0, 30, 0);
    const s = scheduler('instance-a');
    let calls = 0;
    s.register({
      name: 'flaky',
      schedule: { cron: '0 0 * * * *' },
      run: async () => {
        calls++;
        if (calls === 1) throw new Error('disk full');
        return { calls };
      },
    });
    now = Date.UTC(2030, 0, 3, 1, 0, 0, 40);
    expect(await s.runDue()).toEqual({ flaky: 'failed' });
    now = Date.UTC(2030, 0, 3, 2, 0, 1);
    expect(await s.runDue()).toEqual({ flaky: 'succeeded' });
    const rows = await runs('flaky');
    expect(rows.map((r) => r.fireAt.toISOString())).toEqual([
      '2030-01-03T01:00:00.000Z',
      '2030-01-03T02:00:00.000Z',
    ]);
    expect(rows[0]).toMatchObject({ state: 'failed', result: null });
    expect(rows[0]!.error).toContain('disk full');
    expect(rows[0]!.finishedAt).not.toBeNull();
    expect(rows[1]).toMatchObject({ state: 'succeeded', error: null, result: { calls: 2 } });
  });

  it('a task never overlaps itself; fires missed meanwhile collapse into one', async () => {
    now = Date.UTC(2030, 0, 4, 0, 0, 5);
    const s = scheduler('instance-a');
    let release!: () => void;
    let started = 0;
    s.register({
      name: 'slow',
      schedule: { everyMs: 10_000 },
      claimed: false,
      run: async () => {
        started++;
        if (started === 1) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    now = Date.UTC(2030, 0, 4, 0, 0, 10);
    const first = s.runDue();
    now = Date.UTC(2030, 0, 4, 0, 0, 20);
    expect(await s.runDue()).toEqual({ slow: 'busy' });
    release();
    expect(await first).toEqual({ slow: 'succeeded' });
    now = Date.UTC(2030, 0, 4, 0, 1, 5); // five fire times passed: one run
    expect(await s.runDue()).toEqual({ slow: 'succeeded' });
    expect(started).toBe(2);
    expect(await runs('slow')).toEqual([]); // local tasks are not recorded
  });

  it('at start, a catch-up task runs its missed fire once across instances', async () => {
    now = Date.UTC(2030, 0, 5, 7, 0, 0);
    let ran = 0;
    const make = (id: string) => {
      const s = scheduler(id);
      s.register({
        name: 'nightly',
        schedule: { cron: '0 0 0,12 * * *' },
        catchUp: true,
        run: async () => ++ran,
      });
      return s;
    };
    const a = make('instance-a');
    a.start();
    await waitFor(async () => (await runs('nightly'))[0]?.state === 'succeeded');
    const b = make('instance-b');
    b.start();
    await Promise.all([a.stop(), b.stop()]); // stop waits for b's catch-up fire to end
    expect(ran).toBe(1);
    expect((await runs('nightly')).map((r) => [r.fireAt.toISOString(), r.claimedBy])).toEqual([
      ['2030-01-05T00:00:00.000Z', 'instance-a'],
    ]);
  });
});

describe.each(engines)('the app assembled on %s', (engine) => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestApp(engine, {}, { devices: { mqttPort: 0, mqttHost: '127.0.0.1' } });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('registers the engine sweeps as local code tasks and the kinds with their system tasks', async () => {
    expect(ctx.app.devices).not.toBeNull();
    await ctx.app.scheduler.syncJobs(true);
    const tasks = ctx.app.scheduler.list();
    expect(tasks.filter((t) => t.jobId === null).map((t) => [t.name, t.claimed])).toEqual([
      ['heartbeat-sweep', false],
      ['firmware-sweep', false],
      ['upgrade-sweep', false],
    ]);
    expect(tasks.find((t) => t.name === 'heartbeat-sweep')!.schedule).toEqual({ everyMs: 15_000 });
    expect(ctx.app.taskKinds.list().map((k) => k.kind)).toEqual([
      'telemetry-partitions',
      'log-retention',
      'job-run-retention',
      'alarm-mail',
      'device-clock-check',
      'delivery-retry',
      'energy-tier',
      'bill-draft',
    ]);
    // Every kind's system task is scheduled, claimed, in UTC; alarm-mail every MAIL_JOB_INTERVAL_S (10 s).
    const jobs = await ctx.database.db.select().from(scheduledTask);
    expect(jobs.map((j) => j.kind).sort()).toEqual(
      ctx.app.taskKinds
        .list()
        .map((k) => k.kind)
        .sort(),
    );
    for (const job of jobs) {
      const task = tasks.find((t) => t.jobId === job.id)!;
      expect(task).toMatchObject({ name: `job:${job.id}`, claimed: true });
      expect(task.schedule).toMatchObject({ cron: job.cron, timezone: 'UTC' });
    }
    expect(jobs.find((j) => j.kind === 'alarm-mail')!.cron).toBe('*/10 * * * * *');
  });

  it('a fire of a system task is recorded with its result', async () => {
    const [job] = await ctx.database.db
      .select()
      .from(scheduledTask)
      .where(eq(scheduledTask.kind, 'log-retention'));
    const fireAt = new Date(Date.UTC(2031, 5, 1, 12, 15));
    expect(await ctx.app.scheduler.fire(`job:${job!.id}`, fireAt)).toBe('succeeded');
    const [row] = await ctx.database.db.select().from(jobRun).where(eq(jobRun.jobId, job!.id));
    expect(row).toMatchObject({
      state: 'succeeded',
      trigger: 'schedule',
      claimedBy: ctx.app.scheduler.instanceId,
      result: { operationLog: 0, connectionLog: 0, sentMail: 0, debugFrames: 0, debugSessions: 0 },
    });
  });
});
