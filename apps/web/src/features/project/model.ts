/**
 * Pure helpers of the project screens: status colours, the form's values and the body sent
 * (the rule itself is the contract's `projectContractProblem`, shown in place before sending),
 * and how a history entry's values read.
 */
import {
  type MeterSwapHistoryMeter,
  type MeterSwapHistoryValue,
  PROJECT_COST_BEARER_LABELS,
  PROJECT_INCOME_MODE_LABELS,
  PROJECT_RENT_BASIS_LABELS,
  PROJECT_STATUS_LABELS,
  type ProjectCostBearer,
  type ProjectDetail,
  type ProjectIncomeMode,
  type ProjectRentBasis,
  type ProjectStatus,
  pctHundredths,
} from '@ess/contract';
import type { ProjectBody } from './api';

type Lang = 'zh' | 'en';

/** Tag colours of the statuses (antd preset colours). */
export const PROJECT_STATUS_COLORS: Record<ProjectStatus, string> = {
  to_be_started: 'default',
  under_construction: 'processing',
  in_operation: 'success',
  suspended: 'warning',
  ended: 'error',
};

/** Path of the detail page (menu 605, hidden) for a project. */
export const PROJECT_LIST_PATH = '/project/list';
export const projectDetailPath = (id: number) => `/project/detail?id=${id}`;

export interface ProjectFormValues {
  name: string;
  address?: string | null;
  longitude?: number | null;
  latitude?: number | null;
  constructionCompanyId?: number | null;
  agentCompanyId?: number | null;
  ownerCompanyId?: number | null;
  /** `YYYY-MM-DD`. */
  contractStart: string;
  contractYears: number;
  incomeMode: ProjectIncomeMode;
  ownerSharePct?: number | null;
  rentBasis?: ProjectRentBasis | null;
  rentCny?: number | null;
  capacityKwh?: number | null;
  maintenanceCnyPerMonth?: number | null;
  insuranceCnyPerMonth?: number | null;
  costBearer: ProjectCostBearer;
  remark?: string | null;
  investors: { companyId?: number; ratioPct?: number | null }[];
  /**
   * Every meter of the chosen (new project) or bound sites; `storage` ticked: declared as a storage
   * meter (only those are sent — the list is the declared set; default unticked: a site's meter is
   * usually its grid connection meter).
   */
  meters: {
    deviceId: number;
    sn: string;
    siteName: string;
    storage?: boolean;
    ctRatio?: number | null;
    ptRatio?: number | null;
    readsSecondary?: boolean;
  }[];
  /** New project only. */
  siteIds?: number[];
  boundFrom?: string;
}

/** A new project's starting values: self-investment from `today`, 10 years, costs 0. */
export function newProjectValues(today: string): ProjectFormValues {
  return {
    name: '',
    contractStart: today,
    contractYears: 10,
    incomeMode: 'self_investment',
    ownerSharePct: null,
    costBearer: 'investors',
    maintenanceCnyPerMonth: 0,
    insuranceCnyPerMonth: 0,
    investors: [{ ratioPct: null }],
    meters: [],
    siteIds: [],
  };
}

/** The form's values of an existing project. */
export function projectValues(p: ProjectDetail): ProjectFormValues {
  return {
    name: p.name,
    address: p.address,
    longitude: p.longitude,
    latitude: p.latitude,
    constructionCompanyId: p.construction?.id ?? null,
    agentCompanyId: p.agent?.id ?? null,
    ownerCompanyId: p.owner?.id ?? null,
    contractStart: p.contractStart,
    contractYears: p.contractYears,
    incomeMode: p.incomeMode,
    ownerSharePct: p.ownerSharePct,
    rentBasis: p.rentBasis,
    rentCny: p.rentCny,
    capacityKwh: p.capacityKwh,
    maintenanceCnyPerMonth: p.maintenanceCnyPerMonth,
    insuranceCnyPerMonth: p.insuranceCnyPerMonth,
    costBearer: p.costBearer,
    remark: p.remark,
    investors: p.investors.map((i) => ({ companyId: i.companyId, ratioPct: i.ratioPct })),
    // Meters of sites bound now (ended bindings keep their rows for the bills, not edited here).
    meters: p.meters
      .filter((m) => p.sites.some((s) => s.siteId === m.siteId && s.boundTo === null))
      .map((m) => ({ ...m, storage: true })),
  };
}

const num = (v: number | null | undefined): number | null =>
  v === undefined || v === null ? null : Number(v);

/**
 * The body sent: leasing fields dropped for self-investment and the other way round; of the
 * meters only the ticked storage meters (the declared set).
 */
export function projectBody(v: ProjectFormValues): ProjectBody {
  const leasing = v.incomeMode === 'leasing';
  return {
    name: v.name.trim(),
    address: v.address?.trim() || null,
    longitude: num(v.longitude),
    latitude: num(v.latitude),
    constructionCompanyId: v.constructionCompanyId ?? null,
    agentCompanyId: v.agentCompanyId ?? null,
    ownerCompanyId: v.ownerCompanyId ?? null,
    contractStart: v.contractStart,
    contractYears: Number(v.contractYears),
    incomeMode: v.incomeMode,
    ownerSharePct: leasing ? null : num(v.ownerSharePct),
    rentBasis: leasing ? (v.rentBasis ?? null) : null,
    rentCny: leasing ? num(v.rentCny) : null,
    capacityKwh: leasing && v.rentBasis === 'per_kwh_capacity' ? num(v.capacityKwh) : num(v.capacityKwh),
    maintenanceCnyPerMonth: num(v.maintenanceCnyPerMonth) ?? 0,
    insuranceCnyPerMonth: num(v.insuranceCnyPerMonth) ?? 0,
    costBearer: v.costBearer,
    remark: v.remark?.trim() || null,
    investors: v.investors.map((i) => ({ companyId: i.companyId ?? 0, ratioPct: num(i.ratioPct) ?? 0 })),
    meters: v.meters
      .filter((m) => m.storage === true)
      .map((m) => ({
        deviceId: m.deviceId,
        ctRatio: num(m.ctRatio) ?? 0,
        ptRatio: num(m.ptRatio) ?? 0,
        readsSecondary: m.readsSecondary ?? false,
      })),
    siteIds: v.siteIds ?? [],
    ...(v.boundFrom ? { boundFrom: v.boundFrom } : {}),
  };
}

/** Sum of the ratios shown under the investors (percent, two decimals), owner included for self-investment. */
export function ratioSumPct(
  v: Pick<ProjectFormValues, 'incomeMode' | 'ownerSharePct' | 'investors'>,
): number {
  const investors = (v.investors ?? []).reduce((n, i) => n + pctHundredths(Number(i?.ratioPct ?? 0)), 0);
  const owner = v.incomeMode === 'self_investment' ? pctHundredths(Number(v.ownerSharePct ?? 0)) : 0;
  return (investors + owner) / 100;
}

/** A history value as text: labels for statuses and modes, lists joined, null as "—". */
export function historyValueText(field: string, value: unknown, lang: Lang): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'status') return PROJECT_STATUS_LABELS[value as ProjectStatus]?.[lang] ?? String(value);
  if (field === 'incomeMode')
    return PROJECT_INCOME_MODE_LABELS[value as ProjectIncomeMode]?.[lang] ?? String(value);
  if (field === 'rentBasis')
    return PROJECT_RENT_BASIS_LABELS[value as ProjectRentBasis]?.[lang] ?? String(value);
  if (field === 'costBearer')
    return PROJECT_COST_BEARER_LABELS[value as ProjectCostBearer]?.[lang] ?? String(value);
  if (field === 'investors' && Array.isArray(value)) {
    return value
      .map((i: { name: string; ratioPct: number }) => `${i.name} ${i.ratioPct}%`)
      .join(lang === 'zh' ? '、' : ', ');
  }
  if (field === 'meters' && Array.isArray(value)) {
    return value
      .map(
        (m: { sn: string; ctRatio: number; ptRatio: number; readsSecondary: boolean }) =>
          `${m.sn} CT ${m.ctRatio} PT ${m.ptRatio}${m.readsSecondary ? (lang === 'zh' ? '（二次侧）' : ' (secondary)') : ''}`,
      )
      .join(lang === 'zh' ? '；' : '; ');
  }
  if (field === 'site' && typeof value === 'object') {
    const s = value as { site: string; boundFrom?: string; boundTo?: string };
    return [
      s.site,
      s.boundFrom ? `${lang === 'zh' ? '自' : 'from'} ${s.boundFrom}` : '',
      s.boundTo ? `${lang === 'zh' ? '至' : 'until'} ${s.boundTo}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  if (field === 'meterSwap' && typeof value === 'object')
    return meterSwapText(value as MeterSwapHistoryValue, lang);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A history entry of a meter swap as a sentence: "SN · time zone: old meter S (import / export
 * registers, CT · PT) → new meter S (…); note", in the language given.
 */
function meterSwapText(v: MeterSwapHistoryValue, lang: Lang): string {
  const zh = lang === 'zh';
  const meter = (m: MeterSwapHistoryMeter) => {
    const registers = zh
      ? `正向 ${m.importKwh} / 反向 ${m.exportKwh} kWh`
      : `import ${m.importKwh} / export ${m.exportKwh} kWh`;
    const side = m.readsSecondary ? (zh ? '，二次侧' : ', secondary') : '';
    return `${m.serial ?? '—'}${zh ? '（' : ' ('}${registers}${zh ? '，' : ', '}CT ${m.ctRatio} · PT ${m.ptRatio}${side}${zh ? '）' : ')'}`;
  };
  const text = zh
    ? `${v.meter} · ${v.swappedAt}：旧表 ${meter(v.old)} → 新表 ${meter(v.new)}`
    : `${v.meter} · ${v.swappedAt}: old meter ${meter(v.old)} → new meter ${meter(v.new)}`;
  return v.note ? `${text}${zh ? '；备注：' : '; note: '}${v.note}` : text;
}
