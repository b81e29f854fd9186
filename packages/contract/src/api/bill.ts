/**
 * Monthly bills (issue 17 item 5): shapes of the `bill/*` calls. The arithmetic is
 * money/bill.ts `computeBill`; this file holds the stored bill's row, its states and the requests.
 *
 * **States and versions**: a bill is one project × site-local month × version. `draft` → `confirmed`
 * (settled). Drafting a month whose settlement exists, or confirming a confirmed bill, answers
 * 7060 "electricity settlement already done" (spec §8 "Other texts"). A draft is recomputed in
 * place when drafted again (nothing settled changes); a confirmed bill is corrected only by a new
 * version with its `reason` (`bill/correct`: 7063 unless the bill is the month's latest and
 * confirmed), drafted, checked and confirmed in its turn; the month's settlement is its highest
 * confirmed version. Out of scope or missing: 7062 (bill), 7001 (project).
 *
 * **Running month**: a month may be drafted before it ends (a month-to-date preview, recomputed by
 * each draft) but settled only once it has ended in the zone of every site bound to the project
 * in it (money/bill.ts `billMonthEndMs`; 7064 before), since a settled month is never drafted again.
 */
import { z } from 'zod';
import type { BillResult } from '../money/bill';
import type { TouTier } from '../tou/scheme';
import { userInfoEcho } from './envelope';
import { idSchema as id, pageRequestShape, pageResponse, trimmedText } from './primitives';
import { PROJECT_INCOME_MODES } from './project';

export const BILL_STATES = ['draft', 'confirmed'] as const;
export type BillState = (typeof BILL_STATES)[number];
export const BILL_STATE_LABELS: Readonly<Record<BillState, { zh: string; en: string }>> = {
  draft: { zh: '草稿', en: 'Draft' },
  confirmed: { zh: '已结算', en: 'Settled' },
};

/** Tier names on a bill, xlsx and print page (spec §9: sharp, peak, shoulder = flat, off-peak = valley). */
export const BILL_TIER_LABELS: Readonly<Record<TouTier, { zh: string; en: string }>> = {
  sharp: { zh: '尖', en: 'Sharp' },
  peak: { zh: '峰', en: 'Peak' },
  shoulder: { zh: '平', en: 'Shoulder' },
  off_peak: { zh: '谷', en: 'Off-peak' },
};

/**
 * Whose registers a bill line reads (money/bill.ts `BillLine.deviceType`), shown beside its SN on the
 * detail, the print page and the xlsx: a storage meter the project declares, or — a site without
 * one — its PCS's (or a gateway-only site's gateway's) AC charge/discharge registers (issue 17
 * item 5 review: a site's grid meter is never the storage meter).
 */
export const BILL_DEVICE_LABELS: Readonly<Record<string, { zh: string; en: string }>> = {
  meter: { zh: '储能电表', en: 'Storage meter' },
  pcs: { zh: 'PCS 充放电表码', en: 'PCS charge/discharge registers' },
  gateway: { zh: '网关充放电表码', en: 'Gateway charge/discharge registers' },
};

/** The label of a line's device type in `lang` (a declared meter when absent; the type itself when unknown). */
export function billDeviceLabel(deviceType: string | undefined, lang: 'zh' | 'en'): string {
  return BILL_DEVICE_LABELS[deviceType ?? 'meter']?.[lang] ?? String(deviceType);
}

/** `YYYY-MM`, a site-local calendar month. */
export const BILL_MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
export const billMonthSchema = z.string().regex(BILL_MONTH_PATTERN);

/** Longest correction reason. */
export const BILL_REASON_MAX = 500;

/** The month before the one holding local date `date` (`YYYY-MM-DD` → `YYYY-MM`). */
export function previousMonth(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** One bill in a list. Money in CNY (fen exact), the flags count lines from rollups / backwards readings. */
export const billRowSchema = z.object({
  id,
  companyId: id,
  companyName: z.string(),
  projectId: id,
  projectName: z.string(),
  month: z.string(),
  version: z.number().int(),
  state: z.enum(BILL_STATES),
  reason: z.string().nullable(),
  incomeMode: z.enum(PROJECT_INCOME_MODES),
  costCny: z.number(),
  valueCny: z.number(),
  netBenefitCny: z.number(),
  rollupLines: z.number().int(),
  backwardsLines: z.number().int(),
  createdAt: z.number(),
  createdBy: z.string().nullable(),
  confirmedAt: z.number().nullable(),
  confirmedBy: z.string().nullable(),
  /** A higher version of the month exists (this one is corrected). */
  superseded: z.boolean(),
  /**
   * UTC ms from which the month has ended in the zone of every site on the bill (money/bill.ts
   * `billMonthEndMs`): before it the bill is a month-to-date draft and settling answers 7064.
   */
  monthEndMs: z.number(),
});
export type BillRow = z.infer<typeof billRowSchema>;

/** A bill with its computed document (lines, demand, parties, totals: money/bill.ts `BillResult`). */
export const billDetailSchema = billRowSchema.extend({
  document: z.custom<BillResult>((v) => typeof v === 'object' && v !== null),
  /** Names of the sites and meters the lines refer to. */
  siteNames: z.record(z.string(), z.string()),
});
export type BillDetail = z.infer<typeof billDetailSchema>;

export const billPageListRequest = z.object({
  ...pageRequestShape,
  projectId: id.optional(),
  month: billMonthSchema.optional(),
  state: z.enum(BILL_STATES).optional(),
});
/** Newest month first, then project name, then version (highest first). */
export const billPageListResponse = pageResponse(billRowSchema);

export const billIdRequest = z.object({ userInfo: userInfoEcho, id });

/** Draft now: one project's month (default: the last month in the project's sites' zone). */
export const billDraftRequest = z.object({
  userInfo: userInfoEcho,
  projectId: id,
  month: billMonthSchema.optional(),
});
export const billDraftResponse = z.object({ id, version: z.number().int() });

export const billCorrectRequest = z.object({
  userInfo: userInfoEcho,
  id,
  reason: trimmedText(BILL_REASON_MAX).pipe(z.string().min(1)),
});
