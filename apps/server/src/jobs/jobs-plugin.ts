/**
 * Plugin `ess-jobs` (after `ess-devices`): the registry of task kinds (`taskKinds`), the
 * {@link Scheduler} that runs the operator's scheduled tasks and the engine's own periodic work,
 * and the alarm mailer. The kinds of this plugin are registered here; `delivery-retry` by
 * `ess-services` (app.ts), which owns the ToU and parameter deliveries. When the app is ready the
 * missing system tasks are seeded (task-kinds.ts `seedSystemTasks`) and the scheduler starts
 * (unless `start: false`); it stops in `onClose`, before the device side and the database close.
 *
 * Task kinds, each with a seeded system task (group SYSTEM, name = kind, cron in UTC):
 *
 * | kind | seeded schedule (UTC) | misfire | what |
 * |---|---|---|---|
 * | `telemetry-partitions` | `0 0 0,12 * * *` | run once | partitions a month back to two ahead; drops those past `TELEMETRY_RETENTION_DAYS` |
 * | `log-retention` | `0 15 0,12 * * *` | run once | operation/connection log, debug frames and sent mail past retention (log-retention.ts) |
 * | `job-run-retention` | `0 30 3 * * *` | run once | run log rows past `retentionDays` (default `JOB_RUN_RETENTION_DAYS`) |
 * | `alarm-mail` | every `MAIL_JOB_INTERVAL_S` (not seeded when 0) | skip | fan-out, digests, delivery (alarm-mail.ts) |
 * | `delivery-retry` | `*\/15 * * * * *` | skip | ToU and parameter re-push of unanswered sends (delivery.ts `sweep`) |
 * | `device-clock-check` | `0 0 4 * * *` | skip | `time_sync` to every online gateway |
 *
 * Engine internals stay code-registered, local to each instance, and are not operator tasks:
 * `heartbeat-sweep` (here, with devices: gateways silent past the heartbeat timeout go
 * offline), `firmware-sweep` and `upgrade-sweep` (app.ts).
 */
import { ErrorCode, type JobParamDescriptor } from '@ess/contract';
import { and, eq, isNull } from 'drizzle-orm';
import fp from 'fastify-plugin';
import { device } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';
import type { DeviceService } from '../devices/device-service';
import { dropExpiredPartitions, ensurePartitions } from '../devices/telemetry-partitions';
import { AlarmMailer } from './alarm-mail';
import { purgeExpiredLogs } from './log-retention';
import { purgeJobRuns, Scheduler, type SchedulerOptions } from './scheduler';
import { cronEverySeconds, seedSystemTasks, TaskKinds } from './task-kinds';

declare module 'fastify' {
  interface FastifyInstance {
    /** The registry of task kinds operators schedule (plugin `ess-jobs`). */
    taskKinds: TaskKinds;
    /** The operator's tasks and the periodic work, with database-claimed runs (plugin `ess-jobs`). */
    scheduler: Scheduler;
    /** The alarm mail job (plugin `ess-jobs`); routes read whether SMTP is configured. */
    alarmMail: AlarmMailer;
  }
}

export interface JobsPluginOptions {
  /** Start the scheduler's timer when the app is ready (default true); false: fires only on call. */
  start?: boolean;
  /** Scheduler options (instance id, clock, lease, table poll). */
  scheduler?: Omit<SchedulerOptions, 'kinds'>;
}

/** Gateways a clock check sends to at once. */
const CLOCK_CHECK_CONCURRENCY = 16;

/**
 * Sends `time_sync` (the server's time) to every gateway the database marks online, a few at
 * a time; answers the counts. Stops sending when `signal` is aborted (timeout, shutdown).
 */
export async function checkDeviceClocks(
  devices: DeviceService | null,
  gateways: readonly string[],
  signal: AbortSignal,
): Promise<{ gateways: number; synced: number; refused: number; offline: number; failed: number }> {
  const counts = { gateways: gateways.length, synced: 0, refused: 0, offline: 0, failed: 0 };
  if (!devices) {
    counts.offline = gateways.length;
    return counts;
  }
  let next = 0;
  const worker = async () => {
    while (next < gateways.length && !signal.aborted) {
      const sn = gateways[next++]!;
      try {
        const reply = await devices.commands.send(sn, 'time_sync', { serverTs: Date.now() });
        if (reply.ok) counts.synced++;
        else counts.refused++;
      } catch (err) {
        // Offline by this instance's tracker (gone since the query), or no reply / broker failed.
        if (err instanceof ApiError && err.code === ErrorCode.DEVICE_OFFLINE) counts.offline++;
        else counts.failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: CLOCK_CHECK_CONCURRENCY }, worker));
  return counts;
}

export const jobsPlugin = fp<JobsPluginOptions>(
  async (app, options) => {
    const { config, db, devices, log } = app;
    const kinds = new TaskKinds();
    const scheduler = new Scheduler(db, log, { ...options.scheduler, kinds });
    const alarmMail = new AlarmMailer(db, log, {
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      publicUrl: config.mail.publicUrl,
      intervalS: config.mail.jobIntervalS,
    });
    alarmMail.start(devices);
    app.decorate('taskKinds', kinds);
    app.decorate('scheduler', scheduler);
    app.decorate('alarmMail', alarmMail);

    kinds.register({
      kind: 'telemetry-partitions',
      label: { zh: '遥测分区维护', en: 'Telemetry partitions' },
      description: {
        zh: '创建前一个月到后两个月的遥测分区，删除超过遥测保留天数（TELEMETRY_RETENTION_DAYS）的分区',
        en: 'Creates telemetry partitions from a month back to two months ahead and drops those past TELEMETRY_RETENTION_DAYS',
      },
      params: [],
      defaultCron: '0 0 0,12 * * *',
      defaultTimeoutS: 600,
      system: { cron: '0 0 0,12 * * *', misfire: 'run_once' },
      run: async ({ fireAt }) => {
        await ensurePartitions(db, log, fireAt);
        const dropped = await dropExpiredPartitions(db, config.telemetryRetentionDays, fireAt);
        if (dropped.length) log.info({ dropped }, 'expired telemetry partitions dropped');
        return { dropped };
      },
    });
    kinds.register({
      kind: 'log-retention',
      label: { zh: '日志与邮件清理', en: 'Log and mail retention' },
      description: {
        zh: '删除超过保留期的操作日志、连接日志、调试帧（LOG_RETENTION_DAYS，不少于 180 天）和已发送邮件（MAIL_RETENTION_DAYS）',
        en: 'Deletes operation and connection log rows and debug frames past LOG_RETENTION_DAYS (at least 180 days) and sent mail past MAIL_RETENTION_DAYS',
      },
      params: [],
      defaultCron: '0 15 0,12 * * *',
      defaultTimeoutS: 1800,
      system: { cron: '0 15 0,12 * * *', misfire: 'run_once' },
      run: async ({ fireAt }) => {
        const purged = await purgeExpiredLogs(db, config.logRetention, fireAt);
        if (Object.values(purged).some((n) => n > 0)) {
          log.info({ purged }, 'log rows past their retention deleted');
        }
        return purged;
      },
    });
    const retentionDays: JobParamDescriptor = {
      key: 'retentionDays',
      type: 'integer',
      label: { zh: '保留天数', en: 'Retention' },
      help: { zh: '早于此天数的已结束执行记录被删除', en: 'Finished runs older than this are deleted' },
      unit: 'd',
      min: 1,
      max: 3650,
      default: config.jobRunRetentionDays,
    };
    kinds.register({
      kind: 'job-run-retention',
      label: { zh: '任务执行记录清理', en: 'Run log retention' },
      description: {
        zh: '删除早于保留天数的定时任务执行记录',
        en: 'Deletes scheduled-task runs older than the retention',
      },
      params: [retentionDays],
      defaultCron: '0 30 3 * * *',
      defaultTimeoutS: 600,
      system: { cron: '0 30 3 * * *', misfire: 'run_once' },
      run: async ({ fireAt }, params) => ({
        deleted: await purgeJobRuns(db, Number(params.retentionDays), fireAt),
      }),
    });
    kinds.register({
      kind: 'alarm-mail',
      label: { zh: '告警邮件', en: 'Alarm mail' },
      description: {
        zh: '把新告警分发给订阅人，汇总摘要并发送待发邮件',
        en: 'Fans new alarms out to subscribers, composes digests and sends queued mail',
      },
      params: [],
      defaultCron: cronEverySeconds(10),
      defaultTimeoutS: 300,
      ...(config.mail.jobIntervalS > 0
        ? { system: { cron: cronEverySeconds(config.mail.jobIntervalS), misfire: 'skip' as const } }
        : {}),
      run: () => alarmMail.runOnce(),
    });
    kinds.register({
      kind: 'device-clock-check',
      label: { zh: '设备校时', en: 'Device clock check' },
      description: {
        zh: '向每台在线网关下发校时命令（time_sync），统计成功、拒绝、离线和失败数',
        en: 'Sends time_sync to every online gateway and counts synced, refused, offline and failed',
      },
      params: [],
      defaultCron: '0 0 4 * * *',
      defaultTimeoutS: 600,
      system: { cron: '0 0 4 * * *', misfire: 'skip' },
      run: async ({ signal }) => {
        const online = await db
          .select({ sn: device.sn })
          .from(device)
          .where(and(isNull(device.gatewayId), eq(device.online, true)));
        return checkDeviceClocks(
          devices,
          online.map((g) => g.sn),
          signal,
        );
      },
    });
    if (devices) {
      scheduler.register({
        name: 'heartbeat-sweep',
        schedule: { everyMs: devices.heartbeatSweepMs },
        claimed: false,
        run: () => devices.tracker.sweep(),
      });
    }

    app.addHook('onReady', async () => {
      // Every kind is registered once the plugins are built; a database away at start leaves
      // the seed to the next start (existing tasks run as they are).
      try {
        const seeded = await seedSystemTasks(db, kinds);
        if (seeded.length) log.info({ seeded }, 'system scheduled tasks seeded');
      } catch (err) {
        log.error({ err }, 'system scheduled tasks not seeded');
      }
      if (options.start !== false) scheduler.start();
    });
    app.addHook('onClose', async () => {
      await scheduler.stop();
      await alarmMail.stop();
    });
  },
  { name: 'ess-jobs', dependencies: ['ess-config', 'ess-db', 'ess-devices'], fastify: '5.x' },
);
