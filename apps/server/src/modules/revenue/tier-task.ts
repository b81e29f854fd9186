/**
 * Task kind `energy-tier` (issue 17 items 3 and 5; registered by app.ts `ess-services`, seeded as
 * a system task): closes site-local days over the last `lookbackDays` days — their energy per tier
 * and maximum demand (devices/closed-days.ts `closeDays`). Seeded hourly at minute 40 (UTC),
 * so a day is in within about an hour of its end in any zone; the demo fleet also runs it once its
 * backfilled past is stored.
 */
import type { JobParamDescriptor } from '@ess/contract';
import type { Db } from '../../core/db/database';
import { closeDays } from '../../devices/closed-days';
import type { TaskKind } from '../../jobs/task-kinds';

/** Days looked back by default (the demo's 90 days of past and a margin). */
export const TIER_LOOKBACK_DAYS = 120;

const lookbackDays: JobParamDescriptor = {
  key: 'lookbackDays',
  type: 'integer',
  label: { zh: '回溯天数', en: 'Look back' },
  help: {
    zh: '计算此天数内尚未计算的已结束日',
    en: 'Closed days within this many days that have no tier energy yet are computed',
  },
  unit: 'd',
  min: 1,
  max: 1000,
  default: TIER_LOOKBACK_DAYS,
};

/** The `energy-tier` kind on `db`. */
export function energyTierKind(db: Db): TaskKind {
  return {
    kind: 'energy-tier',
    label: { zh: '分时电量统计', en: 'Energy per tier' },
    description: {
      zh: '按站点当地日和分时时段，从储能计量表的电能读数（缺读数时用15分钟功率）计算充放电量和电价，并记录当日有无储能时的最大需量',
      en: 'Computes charged and discharged kWh per ToU period and site-local day from the storage meters’ registers (15-minute power where a reading is missing), with the day’s prices, and the day’s maximum demand with and without storage',
    },
    params: [lookbackDays],
    defaultCron: '0 40 * * * *',
    defaultTimeoutS: 1800,
    system: { cron: '0 40 * * * *', misfire: 'run_once' },
    run: async ({ fireAt, signal }, params) =>
      closeDays(db, {
        nowMs: fireAt.getTime(),
        lookbackDays: Number(params.lookbackDays),
        signal,
      }),
  };
}
