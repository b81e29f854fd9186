/**
 * Projects (issue 17 item 1; spec §3 "projects (name, address, longitude and latitude, cycle,
 * status, income distribution with self-investment or leasing mode, investors with ratio,
 * maintenance cost per month, premium per month, CT and PT ratio)", §4 "Project status: to be
 * started, under construction; others not shown", §8 codes 6004, 7000, 7001). The console's
 * `/project/list` and `/project/detail` screens, the server's `project/*` calls and the monthly
 * bills (issue 17 item 5) share this file.
 *
 * A **project** belongs to one company (the one that runs it; scoped like sites). Its partners
 * are companies of the matching type: construction party (`construction`), agent (`agent`),
 * owner (`owner`), investors (`investor`) each with a ratio in percent (two decimals).
 *
 * **Contract** ({@link projectContractProblem}, the one rule for form, server and bills):
 *  - cycle: `contractStart` (a local date) for `contractYears` whole years, 1–30; the cycle ends
 *    the day before the same date `contractYears` later ({@link projectContractEnd}), so it can
 *    never end before it starts;
 *  - `self_investment`: the net benefit is shared: the owner keeps `ownerSharePct`, each
 *    investor its `ratioPct`; owner + investors = 100.00 % exactly (checked in hundredths of a
 *    percent, no float drift);
 *  - `leasing`: the owner pays rent to the investors: `rentBasis` `monthly` (`rentCny` CNY per
 *    month) or `per_kwh_capacity` (`rentCny` CNY per kWh of `capacityKwh` per month); the
 *    investors' ratios split the rent and add up to 100.00 %;
 *  - maintenance cost and insurance premium, CNY per month, ≥ 0, borne by `costBearer`:
 *    `investors` (split by their ratios), `owner`, or `shared` (self-investment: by owner and
 *    investor ratios; leasing: half owner, half investors by their ratios — bills read it so);
 *  - storage meters: meter devices (device.type `meter`) of bound sites the project declares
 *    explicitly (binding declares none: a site's meter is usually its grid connection meter, and
 *    without a storage meter the bills read the PCS's charge/discharge registers), each with CT ratio > 0
 *    and PT ratio > 0 (e.g. CT 200/5 → 40, PT 1 on a 400 V meter); `readsSecondary` true: the
 *    meter counts secondary-side energy, so primary energy = reading × CT × PT
 *    ({@link meterPrimaryKwh}); false: the reading is already primary.
 *
 * **Status** ({@link PROJECT_STATUS_TRANSITIONS}): to_be_started → under_construction | ended;
 * under_construction → in_operation | suspended | ended; in_operation → suspended | ended;
 * suspended → in_operation | under_construction | ended; ended is final. Refused: 7003.
 *
 * **Meter swaps** ({@link meterSwapProblem}, the server's 7004–7008): a declared storage meter
 * replaced in the field keeps its device row (the gateway reads the new meter in its place); the
 * operator records the instant (site-local), the old meter's final and the new meter's initial
 * import/export total registers (kWh, the meter's own side), the new meter's CT/PT/side (the old
 * one's are kept with the swap) and the serial numbers. Energy is split at the instant and the
 * bills bill both parts (money/bill.ts: a swap is two meters).
 *
 * **Sites**: bound over local dates `[boundFrom, boundTo)` in the site's zone; a site is bound to
 * one project at a time; while bound its devices carry the project (a device of it bound to
 * another project: 6004). Unbinding ends the binding on a date (the billing split date).
 * A project with bound sites cannot be deleted (7002): unbind them first, so no bill loses its
 * sites silently.
 */
import { z } from 'zod';
import type { Lang } from '../lang';
import { fillTemplate } from '../validation';
import { siteStatusSchema } from './dashboard';
import { userInfoEcho } from './envelope';
import {
  INT4_MAX,
  idSchema as id,
  keywordSchema,
  optionalText,
  pageRequestShape,
  pageResponse,
  trimmedText,
} from './primitives';

type Labels = Readonly<Record<Lang, string>>;

// ---------------------------------------------------------------------------------------------
// States and modes

export const PROJECT_STATUSES = [
  'to_be_started',
  'under_construction',
  'in_operation',
  'suspended',
  'ended',
] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** Spec §4's names ("to be started", "under construction"; the others ours). */
export const PROJECT_STATUS_LABELS: Readonly<Record<ProjectStatus, Labels>> = {
  to_be_started: { zh: '待启动', en: 'To be started' },
  under_construction: { zh: '建设中', en: 'Under construction' },
  in_operation: { zh: '运行中', en: 'In operation' },
  suspended: { zh: '已暂停', en: 'Suspended' },
  ended: { zh: '已结束', en: 'Ended' },
};

/**
 * Allowed status changes (ours; the spec names only the first two states). A suspended project
 * may go back to construction (a repair or extension) or to operation; ended is final.
 */
export const PROJECT_STATUS_TRANSITIONS: Readonly<Record<ProjectStatus, readonly ProjectStatus[]>> = {
  to_be_started: ['under_construction', 'ended'],
  under_construction: ['in_operation', 'suspended', 'ended'],
  in_operation: ['suspended', 'ended'],
  suspended: ['in_operation', 'under_construction', 'ended'],
  ended: [],
};

/** True when a project may go from `from` to `to`. */
export function canChangeProjectStatus(from: ProjectStatus, to: ProjectStatus): boolean {
  return PROJECT_STATUS_TRANSITIONS[from].includes(to);
}

/** Why `from → to` is refused, in `lang` (the reason after 7003's text); null when allowed. */
export function projectStatusChangeProblem(
  from: ProjectStatus,
  to: ProjectStatus,
  lang: Lang,
): string | null {
  if (canChangeProjectStatus(from, to)) return null;
  const allowed = PROJECT_STATUS_TRANSITIONS[from].map((s) => PROJECT_STATUS_LABELS[s][lang]);
  const values = {
    from: PROJECT_STATUS_LABELS[from][lang],
    to: PROJECT_STATUS_LABELS[to][lang],
    allowed: allowed.length ? allowed.join(lang === 'zh' ? '、' : ', ') : lang === 'zh' ? '无' : 'none',
  };
  return fillTemplate(
    lang === 'zh'
      ? '“{from}”不能变为“{to}”（可变为：{allowed}）'
      : '“{from}” cannot change to “{to}” (allowed: {allowed})',
    values,
  );
}

export const PROJECT_INCOME_MODES = ['self_investment', 'leasing'] as const;
export type ProjectIncomeMode = (typeof PROJECT_INCOME_MODES)[number];
export const PROJECT_INCOME_MODE_LABELS: Readonly<Record<ProjectIncomeMode, Labels>> = {
  self_investment: { zh: '自投资', en: 'Self-investment' },
  leasing: { zh: '租赁', en: 'Leasing' },
};

export const PROJECT_RENT_BASES = ['monthly', 'per_kwh_capacity'] as const;
export type ProjectRentBasis = (typeof PROJECT_RENT_BASES)[number];
export const PROJECT_RENT_BASIS_LABELS: Readonly<Record<ProjectRentBasis, Labels>> = {
  monthly: { zh: '固定月租（元/月）', en: 'Fixed rent (CNY/month)' },
  per_kwh_capacity: { zh: '按容量（元/kWh·月）', en: 'By capacity (CNY/kWh·month)' },
};

export const PROJECT_COST_BEARERS = ['investors', 'owner', 'shared'] as const;
export type ProjectCostBearer = (typeof PROJECT_COST_BEARERS)[number];
export const PROJECT_COST_BEARER_LABELS: Readonly<Record<ProjectCostBearer, Labels>> = {
  investors: { zh: '投资方承担', en: 'Investors' },
  owner: { zh: '业主承担', en: 'Owner' },
  shared: { zh: '按比例分摊', en: 'Shared by ratio' },
};

// ---------------------------------------------------------------------------------------------
// Limits

export const PROJECT_LIMITS = {
  name: 64,
  address: 200,
  remark: 500,
  yearsMin: 1,
  yearsMax: 30,
  /** Investors of one project. */
  investorsMax: 20,
  /** Meters of one project. */
  metersMax: 200,
  /** Sites bound in one call. */
  bindMax: 100,
  /** Largest CT or PT ratio (a 35 kV PT 35000/100 is 350; CT 4000/5 is 800). */
  ratioMax: 100_000,
  /** Largest money figure per month (CNY). */
  cnyMax: 100_000_000,
  /** Largest installed capacity (kWh). */
  capacityKwhMax: 10_000_000,
} as const;

// ---------------------------------------------------------------------------------------------
// The contract rule (form, server, bills)

/** A local calendar date `YYYY-MM-DD`. */
export const PROJECT_DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const dateSchema = z
  .string()
  .regex(PROJECT_DATE_PATTERN)
  .refine((d) => isRealDate(d), 'not a calendar date');

function isRealDate(date: string): boolean {
  if (!PROJECT_DATE_PATTERN.test(date)) return false;
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(Date.UTC(y!, m! - 1, d!));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m! - 1 && t.getUTCDate() === d;
}

/**
 * The last day of a contract starting `start` for `years` years: the day before the same date
 * `years` later (29 Feb → 28 Feb of a common year, then the day before).
 * `projectContractEnd('2026-01-01', 10)` → `'2035-12-31'`.
 */
export function projectContractEnd(start: string, years: number): string {
  const [y, m, d] = start.split('-').map(Number);
  const t = new Date(Date.UTC(y! + years, m! - 1, d!));
  if (t.getUTCMonth() !== m! - 1) t.setUTCDate(0); // 29 Feb → 28 Feb
  t.setUTCDate(t.getUTCDate() - 1);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

/** A percentage in hundredths (`12.34` → 1234), the unit ratio sums are compared in. */
export function pctHundredths(pct: number): number {
  return Math.round(pct * 100);
}

/** Primary-side energy of a meter reading (kWh): × CT × PT when the meter reads the secondary side. */
export function meterPrimaryKwh(
  readingKwh: number,
  meter: { ctRatio: number; ptRatio: number; readsSecondary: boolean },
): number {
  return meter.readsSecondary ? readingKwh * meter.ctRatio * meter.ptRatio : readingKwh;
}

export interface ProjectInvestorShare {
  companyId: number;
  ratioPct: number;
}

export interface ProjectMeterSetting {
  deviceId: number;
  ctRatio: number;
  ptRatio: number;
  readsSecondary: boolean;
}

/** What {@link projectContractProblem} checks: a project's contract, as saved or read back. */
export interface ProjectContract {
  contractStart: string;
  contractYears: number;
  incomeMode: ProjectIncomeMode;
  ownerSharePct: number | null;
  rentBasis: ProjectRentBasis | null;
  rentCny: number | null;
  capacityKwh: number | null;
  maintenanceCnyPerMonth: number;
  insuranceCnyPerMonth: number;
  costBearer: ProjectCostBearer;
  investors: readonly ProjectInvestorShare[];
  meters: readonly ProjectMeterSetting[];
}

/** A broken contract rule: the field (`investors`, `meters[1].ctRatio`, …) and the text. */
export interface ProjectProblem {
  field: string;
  message: string;
}

/** The texts of {@link projectContractProblem} ({placeholders} filled). */
export const projectMessages = {
  yearsRange: { zh: '合同年限须为 1–30 的整数年', en: 'The contract cycle must be 1–30 whole years' },
  startDate: { zh: '合同开始日期无效', en: 'The contract start date is not a valid date' },
  investorsRequired: { zh: '至少需要一个投资方', en: 'At least one investor is needed' },
  investorsTooMany: { zh: '投资方不能超过 {max} 个', en: 'At most {max} investors' },
  investorDuplicate: { zh: '投资方重复', en: 'The same investor is listed twice' },
  ratioRange: {
    zh: '比例须大于 0 且不超过 100，最多两位小数',
    en: 'A ratio must be above 0 and at most 100, with at most two decimals',
  },
  ownerShareRequired: {
    zh: '自投资模式须填写业主分成比例（0–100，最多两位小数）',
    en: 'Self-investment needs the owner’s share (0–100, at most two decimals)',
  },
  selfInvestmentSum: {
    zh: '业主与投资方比例之和须为 100%，当前为 {sum}%',
    en: 'Owner and investor ratios must add up to 100 %; they add up to {sum} %',
  },
  leasingSum: {
    zh: '投资方租金分配比例之和须为 100%，当前为 {sum}%',
    en: 'The investors’ ratios of the rent must add up to 100 %; they add up to {sum} %',
  },
  rentBasisRequired: { zh: '租赁模式须选择租金方式', en: 'Leasing needs a rent basis' },
  rentPositive: { zh: '租金须大于 0', en: 'The rent must be greater than 0' },
  capacityRequired: {
    zh: '按容量计租须填写装机容量（kWh，大于 0）',
    en: 'Rent by capacity needs the installed capacity (kWh, greater than 0)',
  },
  costNonNegative: { zh: '费用不能为负数', en: 'A cost cannot be negative' },
  ctPositive: { zh: 'CT 变比须大于 0', en: 'The CT ratio must be greater than 0' },
  ptPositive: { zh: 'PT 变比须大于 0', en: 'The PT ratio must be greater than 0' },
  ratioTooLarge: { zh: '变比不能超过 {max}', en: 'A ratio cannot exceed {max}' },
  meterDuplicate: { zh: '电表重复', en: 'The same meter is listed twice' },
} as const satisfies Record<string, Labels>;

function hasTwoDecimals(n: number): boolean {
  return Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;
}

/**
 * The first broken rule of a project's contract (see the module doc), in `lang`; null when it
 * holds. The console shows it under the field, the server answers -100 `field: message`, and the
 * monthly bills refuse to draft a project whose stored contract breaks it.
 */
export function projectContractProblem(c: ProjectContract, lang: Lang): ProjectProblem | null {
  const p = (
    field: string,
    key: keyof typeof projectMessages,
    values: Record<string, string | number> = {},
  ) => ({
    field,
    message: fillTemplate(projectMessages[key][lang], values),
  });
  if (!isRealDate(c.contractStart)) return p('contractStart', 'startDate');
  if (
    !Number.isInteger(c.contractYears) ||
    c.contractYears < PROJECT_LIMITS.yearsMin ||
    c.contractYears > PROJECT_LIMITS.yearsMax
  ) {
    return p('contractYears', 'yearsRange');
  }
  if (c.investors.length === 0) return p('investors', 'investorsRequired');
  if (c.investors.length > PROJECT_LIMITS.investorsMax) {
    return p('investors', 'investorsTooMany', { max: PROJECT_LIMITS.investorsMax });
  }
  const seen = new Set<number>();
  for (const [i, inv] of c.investors.entries()) {
    if (seen.has(inv.companyId)) return p(`investors[${i}].companyId`, 'investorDuplicate');
    seen.add(inv.companyId);
    if (!(inv.ratioPct > 0 && inv.ratioPct <= 100) || !hasTwoDecimals(inv.ratioPct)) {
      return p(`investors[${i}].ratioPct`, 'ratioRange');
    }
  }
  const investorsSum = c.investors.reduce((n, inv) => n + pctHundredths(inv.ratioPct), 0);
  if (c.incomeMode === 'self_investment') {
    const owner = c.ownerSharePct;
    if (owner === null || !(owner >= 0 && owner <= 100) || !hasTwoDecimals(owner)) {
      return p('ownerSharePct', 'ownerShareRequired');
    }
    const sum = pctHundredths(owner) + investorsSum;
    if (sum !== 10_000) return p('investors', 'selfInvestmentSum', { sum: (sum / 100).toFixed(2) });
  } else {
    if (c.rentBasis === null) return p('rentBasis', 'rentBasisRequired');
    if (c.rentCny === null || !(c.rentCny > 0) || c.rentCny > PROJECT_LIMITS.cnyMax) {
      return p('rentCny', 'rentPositive');
    }
    if (
      c.rentBasis === 'per_kwh_capacity' &&
      (c.capacityKwh === null || !(c.capacityKwh > 0) || c.capacityKwh > PROJECT_LIMITS.capacityKwhMax)
    ) {
      return p('capacityKwh', 'capacityRequired');
    }
    if (investorsSum !== 10_000)
      return p('investors', 'leasingSum', { sum: (investorsSum / 100).toFixed(2) });
  }
  if (!(c.maintenanceCnyPerMonth >= 0)) return p('maintenanceCnyPerMonth', 'costNonNegative');
  if (!(c.insuranceCnyPerMonth >= 0)) return p('insuranceCnyPerMonth', 'costNonNegative');
  const meters = new Set<number>();
  for (const [i, m] of c.meters.entries()) {
    if (meters.has(m.deviceId)) return p(`meters[${i}].deviceId`, 'meterDuplicate');
    meters.add(m.deviceId);
    if (!(m.ctRatio > 0)) return p(`meters[${i}].ctRatio`, 'ctPositive');
    if (!(m.ptRatio > 0)) return p(`meters[${i}].ptRatio`, 'ptPositive');
    if (m.ctRatio > PROJECT_LIMITS.ratioMax) {
      return p(`meters[${i}].ctRatio`, 'ratioTooLarge', { max: PROJECT_LIMITS.ratioMax });
    }
    if (m.ptRatio > PROJECT_LIMITS.ratioMax) {
      return p(`meters[${i}].ptRatio`, 'ratioTooLarge', { max: PROJECT_LIMITS.ratioMax });
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Rows

/** A partner company as a project shows it. */
export const projectPartnerSchema = z.object({ id, name: z.string() }).nullable();

export const projectInvestorSchema = z.object({
  companyId: id,
  companyName: z.string(),
  ratioPct: z.number(),
});
export type ProjectInvestor = z.infer<typeof projectInvestorSchema>;

/**
 * A recorded meter swap (table `project_meter_swap`): `swappedAt` site-local `YYYY-MM-DD HH:mm`
 * (and `swappedAtMs` UTC ms); readings in kWh on the meter's own side; the old meter's CT/PT/side
 * as recorded, the new one's as in force after it (the next swap's old ones, or the meter's now).
 * `deletable`: the meter's latest swap, in a month not settled (`project/deleteMeterSwap`).
 */
export const projectMeterSwapSchema = z.object({
  id,
  deviceId: id,
  swappedAt: z.string(),
  swappedAtMs: z.number(),
  oldImportKwh: z.number(),
  oldExportKwh: z.number(),
  newImportKwh: z.number(),
  newExportKwh: z.number(),
  oldCtRatio: z.number(),
  oldPtRatio: z.number(),
  oldReadsSecondary: z.boolean(),
  newCtRatio: z.number(),
  newPtRatio: z.number(),
  newReadsSecondary: z.boolean(),
  oldSerial: z.string().nullable(),
  newSerial: z.string().nullable(),
  note: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  deletable: z.boolean(),
});
export type ProjectMeterSwap = z.infer<typeof projectMeterSwapSchema>;

export const projectMeterSchema = z.object({
  deviceId: id,
  sn: z.string(),
  siteId: id,
  siteName: z.string(),
  /** The site's IANA zone (swap instants are entered and shown in it). */
  timezone: z.string(),
  ctRatio: z.number(),
  ptRatio: z.number(),
  readsSecondary: z.boolean(),
  /** Recorded swaps of the meter, newest first. */
  swaps: z.array(projectMeterSwapSchema),
});
export type ProjectMeter = z.infer<typeof projectMeterSchema>;

/** A binding of a site over local dates `[boundFrom, boundTo)`; `boundTo` null while bound. */
export const projectSiteSchema = z.object({
  id,
  siteId: id,
  siteCode: z.string(),
  siteName: z.string(),
  timezone: z.string(),
  /** The site's WGS-84 coordinates (map), null when not set. */
  longitude: z.number().nullable(),
  latitude: z.number().nullable(),
  boundFrom: z.string(),
  boundTo: z.string().nullable(),
  /** Live figures of a bound site (the fleet's own rule); null once unbound. */
  live: siteStatusSchema.nullable(),
});
export type ProjectSite = z.infer<typeof projectSiteSchema>;

/** One row of the list. */
export const projectRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  name: z.string(),
  address: z.string().nullable(),
  status: z.enum(PROJECT_STATUSES),
  incomeMode: z.enum(PROJECT_INCOME_MODES),
  owner: projectPartnerSchema,
  contractStart: z.string(),
  contractYears: z.number().int(),
  contractEnd: z.string(),
  /** Sites bound now. */
  siteCount: z.number().int(),
  investorCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ProjectRow = z.infer<typeof projectRowSchema>;

/** A project with everything the detail page and the form show. */
export const projectDetailSchema = projectRowSchema.extend({
  longitude: z.number().nullable(),
  latitude: z.number().nullable(),
  construction: projectPartnerSchema,
  agent: projectPartnerSchema,
  capacityKwh: z.number().nullable(),
  ownerSharePct: z.number().nullable(),
  rentBasis: z.enum(PROJECT_RENT_BASES).nullable(),
  rentCny: z.number().nullable(),
  maintenanceCnyPerMonth: z.number(),
  insuranceCnyPerMonth: z.number(),
  costBearer: z.enum(PROJECT_COST_BEARERS),
  remark: z.string().nullable(),
  investors: z.array(projectInvestorSchema),
  meters: z.array(projectMeterSchema),
  /** Current bindings first, then ended ones, newest first. */
  sites: z.array(projectSiteSchema),
  /** Statuses it may change to now. */
  nextStatuses: z.array(z.enum(PROJECT_STATUSES)),
});
export type ProjectDetail = z.infer<typeof projectDetailSchema>;

export const PROJECT_CHANGE_ACTIONS = [
  'create',
  'update',
  'status',
  'bind',
  'unbind',
  'meter_swap',
  'meter_swap_delete',
] as const;
export type ProjectChangeAction = (typeof PROJECT_CHANGE_ACTIONS)[number];
export const PROJECT_CHANGE_ACTION_LABELS: Readonly<Record<ProjectChangeAction, Labels>> = {
  create: { zh: '创建', en: 'Created' },
  update: { zh: '修改', en: 'Edited' },
  status: { zh: '状态变更', en: 'Status changed' },
  bind: { zh: '绑定站点', en: 'Sites bound' },
  unbind: { zh: '解绑站点', en: 'Site unbound' },
  meter_swap: { zh: '更换电表', en: 'Meter swapped' },
  meter_swap_delete: { zh: '删除换表记录', en: 'Meter swap deleted' },
};

/** One changed field: its key (a field of {@link projectDetailSchema}) and the values. */
export const projectChangeEntrySchema = z.object({
  field: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});
export type ProjectChangeEntry = z.infer<typeof projectChangeEntrySchema>;

/** One meter of a recorded swap in the history: serial, register readings (kWh, the meter's own side), CT, PT, side. */
export interface MeterSwapHistoryMeter {
  serial: string | null;
  importKwh: number;
  exportKwh: number;
  ctRatio: number;
  ptRatio: number;
  readsSecondary: boolean;
}

/**
 * The value of a `meterSwap` history entry (actions `meter_swap` after, `meter_swap_delete`
 * before): the meter's SN, the swap time as "YYYY-MM-DD HH:mm <zone>" at the site, both meters.
 */
export interface MeterSwapHistoryValue {
  meter: string;
  swappedAt: string;
  note: string | null;
  old: MeterSwapHistoryMeter;
  new: MeterSwapHistoryMeter;
}

export const projectChangeSchema = z.object({
  id,
  action: z.enum(PROJECT_CHANGE_ACTIONS),
  changes: z.array(projectChangeEntrySchema),
  userName: z.string().nullable(),
  at: z.string(),
});
export type ProjectChange = z.infer<typeof projectChangeSchema>;

// ---------------------------------------------------------------------------------------------
// Requests

export const projectPageListRequest = z.object({
  ...pageRequestShape,
  /** Name contains it. */
  name: keywordSchema,
  status: z.enum(PROJECT_STATUSES).optional(),
  incomeMode: z.enum(PROJECT_INCOME_MODES).optional(),
});
/** Newest first. */
export const projectPageListResponse = pageResponse(projectRowSchema);

export const projectIdRequest = z.object({ userInfo: userInfoEcho, id });

/** Numbers the schema bounds loosely; the clear messages come from {@link projectContractProblem}. */
const money = z.number().finite().max(PROJECT_LIMITS.cnyMax);
const ratio = z.number().finite().max(PROJECT_LIMITS.ratioMax);

export const projectInvestorInput = z.object({ companyId: id, ratioPct: z.number().finite() });
export const projectMeterInput = z.object({
  deviceId: id,
  ctRatio: ratio,
  ptRatio: ratio,
  readsSecondary: z.boolean().default(false),
});

const projectFields = {
  userInfo: userInfoEcho,
  name: trimmedText(PROJECT_LIMITS.name),
  address: optionalText(PROJECT_LIMITS.address),
  longitude: z.number().min(-180).max(180).nullable().default(null),
  latitude: z.number().min(-90).max(90).nullable().default(null),
  constructionCompanyId: id.nullable().default(null),
  agentCompanyId: id.nullable().default(null),
  ownerCompanyId: id.nullable().default(null),
  contractStart: dateSchema,
  /** 1–30 is the contract rule (projectContractProblem, translated); the shape only bounds it. */
  contractYears: z.number().int().max(INT4_MAX),
  incomeMode: z.enum(PROJECT_INCOME_MODES),
  ownerSharePct: z.number().finite().nullable().default(null),
  rentBasis: z.enum(PROJECT_RENT_BASES).nullable().default(null),
  rentCny: money.nullable().default(null),
  capacityKwh: z.number().finite().nullable().default(null),
  maintenanceCnyPerMonth: money.default(0),
  insuranceCnyPerMonth: money.default(0),
  costBearer: z.enum(PROJECT_COST_BEARERS).default('investors'),
  remark: optionalText(PROJECT_LIMITS.remark),
  investors: z.array(projectInvestorInput).max(PROJECT_LIMITS.investorsMax),
  /**
   * The declared storage meters of the bound sites (on save: of `siteIds`) with CT/PT: the list IS
   * the declared set — a declared meter of a site bound now that is left out is removed (meters of
   * sites no longer bound keep their rows for the bills of their bound days). Binding a site
   * declares none (its meter is usually the grid connection meter; issue 17 review).
   */
  meters: z.array(projectMeterInput).max(PROJECT_LIMITS.metersMax).default([]),
};

/**
 * Create a project (`project/save`), status to_be_started. `companyId`: the company that runs it
 * (default the caller's; must be in scope, else 6000). Partners must be companies of the matching
 * type in scope (-100 naming the field). `siteIds` are bound from `boundFrom` (default: today in
 * each site's zone) in the same transaction (6004 / 3036 as in `bindSites`). Errors: -100 (field:
 * reason), 7000 name taken in the company.
 */
export const projectSaveRequest = z.object({
  ...projectFields,
  companyId: id.optional(),
  siteIds: z.array(id).max(PROJECT_LIMITS.bindMax).default([]),
  boundFrom: dateSchema.optional(),
});
export type ProjectSaveRequest = z.input<typeof projectSaveRequest>;
export const projectSaveResponse = z.object({ id });

/** Edit a project's fields (`project/update`; status and sites have their own calls). */
export const projectUpdateRequest = z.object({ ...projectFields, id });
export type ProjectUpdateRequest = z.input<typeof projectUpdateRequest>;

export const projectChangeStatusRequest = z.object({
  userInfo: userInfoEcho,
  id,
  status: z.enum(PROJECT_STATUSES),
});

/**
 * Bind sites (`project/bindSites`) from `boundFrom` (default: today in each site's zone). Errors:
 * 7001, 3036 a site outside the scope or of another company than the project's, 6004 a site (or
 * one of its devices) bound to another project, -100 `boundFrom` before the site's last binding ended.
 */
export const projectBindSitesRequest = z.object({
  userInfo: userInfoEcho,
  id,
  siteIds: z.array(id).min(1).max(PROJECT_LIMITS.bindMax),
  boundFrom: dateSchema.optional(),
});

/** End a site's binding (`project/unbindSite`) on `boundTo` (exclusive; default: today in the site's zone). */
export const projectUnbindSiteRequest = z.object({
  userInfo: userInfoEcho,
  id,
  siteId: id,
  boundTo: dateSchema.optional(),
});

export const projectHistoryRequest = z.object({ ...pageRequestShape, id });
/** Newest first. */
export const projectHistoryResponse = pageResponse(projectChangeSchema);

/** Sites in scope that could be bound to a project of `companyId` (`project/siteOptions`). */
export const projectSiteOptionsRequest = z.object({ userInfo: userInfoEcho, companyId: id.optional() });
export const projectSiteOptionSchema = z.object({
  id,
  code: z.string(),
  name: z.string(),
  companyId: id,
  timezone: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** The project it is bound to now (null: free). */
  projectId: id.nullable(),
  projectName: z.string().nullable(),
  meters: z.array(z.object({ deviceId: id, sn: z.string() })),
});
export type ProjectSiteOption = z.infer<typeof projectSiteOptionSchema>;
export const projectSiteOptionsResponse = z.array(projectSiteOptionSchema);

// ---------------------------------------------------------------------------------------------
// Meter swaps (issue 17: "a meter reading that goes backwards (meter replaced: record the swap,
// bill both parts)")

export const METER_SWAP_LIMITS = {
  serial: 64,
  note: 200,
  /** Largest register reading (kWh) a swap may name. */
  readingKwhMax: 1e12,
} as const;

/** A site-local instant as the form sends it: `YYYY-MM-DD HH:mm`. */
export const METER_SWAP_TIME_PATTERN = /^(\d{4}-\d{2}-\d{2}) ([01]\d|2[0-3]):([0-5]\d)$/;

const reading = z.number().finite().max(METER_SWAP_LIMITS.readingKwhMax);

/**
 * Record a swap of a declared storage meter (`project/recordMeterSwap`): `swappedAt` site-local
 * `YYYY-MM-DD HH:mm`; the old meter's final and the new meter's initial total registers (kWh, own
 * side); the new meter's CT/PT/side (the `project_meter` row takes them; the old ones are kept with
 * the swap); serials and note optional. Refusals: -100 naming the field ({@link meterSwapProblem};
 * a device that is not a declared storage meter of the project), 7001, 7004 in the future, 7005 in a
 * settled month, 7006 the old final reading below the last stored one, 7007 a swap of the meter at
 * or after the instant. Nothing written on a refusal.
 */
export const projectMeterSwapRequest = z.object({
  userInfo: userInfoEcho,
  id,
  deviceId: id,
  swappedAt: z.string().max(32),
  oldImportKwh: reading,
  oldExportKwh: reading,
  newImportKwh: reading,
  newExportKwh: reading,
  newCtRatio: ratio,
  newPtRatio: ratio,
  newReadsSecondary: z.boolean(),
  oldSerial: optionalText(METER_SWAP_LIMITS.serial),
  newSerial: optionalText(METER_SWAP_LIMITS.serial),
  note: optionalText(METER_SWAP_LIMITS.note),
});
export type ProjectMeterSwapRequest = z.input<typeof projectMeterSwapRequest>;

/** What a re-pricing of energy per tier did after a swap was recorded or deleted. */
export const meterSwapRepricedSchema = z.object({
  /** The first site-local day re-priced (the swap's). */
  fromDay: z.string(),
  /** Closed days computed again and their ToU period rows. */
  days: z.number().int(),
  rows: z.number().int(),
});
export const projectMeterSwapResponse = z.object({ id, repriced: meterSwapRepricedSchema });

/** Delete a meter's latest swap in an unsettled month (`project/deleteMeterSwap`). 7001, 7008. */
export const projectMeterSwapDeleteRequest = z.object({ userInfo: userInfoEcho, id, swapId: id });
export const projectMeterSwapDeleteResponse = z.object({ repriced: meterSwapRepricedSchema });

/** The texts of {@link meterSwapProblem}. */
export const meterSwapMessages = {
  time: {
    zh: '换表时间无效，格式为 YYYY-MM-DD HH:mm（站点当地时间）',
    en: 'The swap time is not valid: YYYY-MM-DD HH:mm, the site’s local time',
  },
  readingNegative: { zh: '读数不能为负数', en: 'A reading cannot be negative' },
} as const satisfies Record<string, Labels>;

/** The fields {@link meterSwapProblem} checks. */
export interface MeterSwapInput {
  swappedAt: string;
  oldImportKwh: number;
  oldExportKwh: number;
  newImportKwh: number;
  newExportKwh: number;
  newCtRatio: number;
  newPtRatio: number;
  newReadsSecondary: boolean;
}

/**
 * The first broken rule of a swap's own fields, in `lang` (null when they hold): the instant a
 * real site-local `YYYY-MM-DD HH:mm`; readings ≥ 0; the new CT/PT > 0 and ≤ the limit (the
 * contract's meter rule, {@link projectContractProblem}'s texts). The rules that need the database
 * (future, settled month, backwards, later swap) are the server's codes 7004–7007.
 */
export function meterSwapProblem(s: MeterSwapInput, lang: Lang): ProjectProblem | null {
  const m = METER_SWAP_TIME_PATTERN.exec(s.swappedAt);
  if (!m || !isRealDate(m[1]!)) return { field: 'swappedAt', message: meterSwapMessages.time[lang] };
  for (const field of ['oldImportKwh', 'oldExportKwh', 'newImportKwh', 'newExportKwh'] as const) {
    if (!(s[field] >= 0)) return { field, message: meterSwapMessages.readingNegative[lang] };
  }
  const ratios = (
    [
      ['newCtRatio', s.newCtRatio, 'ctPositive'],
      ['newPtRatio', s.newPtRatio, 'ptPositive'],
    ] as const
  ).map(([field, v, key]) => ({ field, v, key }));
  for (const r of ratios) {
    if (!(r.v > 0)) return { field: r.field, message: projectMessages[r.key][lang] };
    if (r.v > PROJECT_LIMITS.ratioMax) {
      return {
        field: r.field,
        message: fillTemplate(projectMessages.ratioTooLarge[lang], { max: PROJECT_LIMITS.ratioMax }),
      };
    }
  }
  return null;
}
