/**
 * Plugin `ess-jobs` (after `ess-devices`): the server's {@link Scheduler} with its periodic
 * tasks, and the alarm mailer. Decorates `scheduler` and `alarmMail`; the scheduler starts when
 * the app is ready (unless `start: false`) and stops in `onClose`, before the device side and
 * the database close.
 *
 * | task | when (UTC) | claimed | what |
 * |---|---|---|---|
 * | `telemetry-partitions` | 00:00, 12:00 (+ catch-up) | yes | partitions a month back to two ahead; drops those past `TELEMETRY_RETENTION_DAYS` |
 * | `log-retention` | 00:15, 12:15 (+ catch-up) | yes | operation/connection log and sent mail past retention (log-retention.ts) |
 * | `job-run-retention` | 03:30 (+ catch-up) | yes | `job_run` rows past `JOB_RUN_RETENTION_DAYS` |
 * | `alarm-mail` | every `MAIL_JOB_INTERVAL_S` (none when 0) | yes | fan-out, digests, delivery (alarm-mail.ts) |
 * | `heartbeat-sweep` | every `heartbeatSweepMs` (15 s) | no: local | gateways silent past the heartbeat timeout go offline (only with devices) |
 */
import fp from 'fastify-plugin';
import { dropExpiredPartitions, ensurePartitions } from '../devices/telemetry-partitions';
import { AlarmMailer } from './alarm-mail';
import { purgeExpiredLogs } from './log-retention';
import { purgeJobRuns, Scheduler, type SchedulerOptions } from './scheduler';

declare module 'fastify' {
  interface FastifyInstance {
    /** The periodic tasks and their database-claimed runs (plugin `ess-jobs`). */
    scheduler: Scheduler;
    /** The alarm mail job (plugin `ess-jobs`); routes read whether SMTP is configured. */
    alarmMail: AlarmMailer;
  }
}

export interface JobsPluginOptions {
  /** Start the scheduler's timer when the app is ready (default true); false: fires only on call. */
  start?: boolean;
  /** Scheduler options (instance id, clock, lease). */
  scheduler?: SchedulerOptions;
}

export const jobsPlugin = fp<JobsPluginOptions>(
  async (app, options) => {
    const { config, db, devices, log } = app;
    const scheduler = new Scheduler(db, log, options.scheduler);
    const alarmMail = new AlarmMailer(db, log, {
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      publicUrl: config.mail.publicUrl,
      intervalS: config.mail.jobIntervalS,
    });
    alarmMail.start(devices);
    app.decorate('scheduler', scheduler);
    app.decorate('alarmMail', alarmMail);

    scheduler.register({
      name: 'telemetry-partitions',
      schedule: { cron: '0 0 0,12 * * *' },
      catchUp: true,
      run: async ({ fireAt }) => {
        await ensurePartitions(db, log, fireAt);
        const dropped = await dropExpiredPartitions(db, config.telemetryRetentionDays, fireAt);
        if (dropped.length) log.info({ dropped }, 'expired telemetry partitions dropped');
        return { dropped };
      },
    });
    scheduler.register({
      name: 'log-retention',
      schedule: { cron: '0 15 0,12 * * *' },
      catchUp: true,
      run: async ({ fireAt }) => {
        const purged = await purgeExpiredLogs(db, config.logRetention, fireAt);
        if (Object.values(purged).some((n) => n > 0)) {
          log.info({ purged }, 'log rows past their retention deleted');
        }
        return purged;
      },
    });
    scheduler.register({
      name: 'job-run-retention',
      schedule: { cron: '0 30 3 * * *' },
      catchUp: true,
      run: async ({ fireAt }) => ({ deleted: await purgeJobRuns(db, config.jobRunRetentionDays, fireAt) }),
    });
    if (config.mail.jobIntervalS > 0) {
      scheduler.register({
        name: 'alarm-mail',
        schedule: { everyMs: config.mail.jobIntervalS * 1000 },
        run: () => alarmMail.runOnce(),
      });
    }
    if (devices) {
      scheduler.register({
        name: 'heartbeat-sweep',
        schedule: { everyMs: devices.heartbeatSweepMs },
        claimed: false,
        run: () => devices.tracker.sweep(),
      });
    }

    if (options.start !== false) app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => {
      await scheduler.stop();
      await alarmMail.stop();
    });
  },
  { name: 'ess-jobs', dependencies: ['ess-config', 'ess-db', 'ess-devices'], fastify: '5.x' },
);
