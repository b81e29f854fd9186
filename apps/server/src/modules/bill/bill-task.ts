/**
 * Task kind `bill-draft` (issue 17 item 5; registered by app.ts, seeded as a system task): drafts
 * the last month's bill of every project in operation (bill-service.ts `draftAll`). Seeded on the
 * 1st of each month at 12:00 UTC: by then the month has ended in every zone from UTC−12 to UTC+14
 * and the `energy-tier` task (hourly) has filled the month's last day. A settled month is left
 * alone; a draft is recomputed; a project with no site bound in the month is skipped (counted as
 * `skipped`; 7065); a project whose bill cannot be made is reported in the run's result.
 */
import type { Db } from '../../core/db/database';
import type { TaskKind } from '../../jobs/task-kinds';
import { BillService } from './bill-service';

/** The `bill-draft` kind on `db`; `now` for tests (the fire time is used otherwise). */
export function billDraftKind(db: Db): TaskKind {
  const service = new BillService(db);
  return {
    kind: 'bill-draft',
    label: { zh: '月度电费账单', en: 'Monthly bills' },
    description: {
      zh: '为每个运行中的项目生成上月电费账单草稿（已结算的月份不变）',
      en: 'Drafts last month’s bill of every project in operation (settled months are left as they are)',
    },
    params: [],
    defaultCron: '0 0 12 1 * *',
    defaultTimeoutS: 600,
    system: { cron: '0 0 12 1 * *', misfire: 'run_once' },
    run: async (context) => service.draftAll(context.fireAt.getTime()),
  };
}
