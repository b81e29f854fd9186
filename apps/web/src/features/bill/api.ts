/**
 * Monthly bill calls (issue 17 item 5; contract `billEndpoints`, states, versions and refusals in
 * api/bill.ts, the arithmetic in money/bill.ts). Every function resolves with the answer's `data`
 * or rejects with `ApiError` after the client's spec §8 handling: a refusal is shown as the
 * catalogue text in the UI language (7060 "电费已结算 / Electricity settlement already done",
 * 7062 bill not found, 7063 not the latest settled version), a -100 with the server's text naming
 * the field (a contract that cannot be split, a bound date without a tariff).
 */
import {
  type BillDetail,
  type BillRow,
  billEndpoints,
  type EndpointRequest,
  MAX_PAGE_SIZE,
  type Page,
  projectEndpoints,
} from '@ess/contract';
import { request, requestFile } from '@/shared/api/client';
import { saveFile } from '@/shared/ui/download';

export type BillQuery = Omit<EndpointRequest<typeof billEndpoints.pageList>, 'userInfo'>;

/** `bill/pageList`: bills in scope, newest month first, every version (highest first). */
export function fetchBills(q: BillQuery): Promise<Page<BillRow>> {
  return request(billEndpoints.pageList, q);
}

/** Every version of one project's month (highest first), for the detail's version list. */
export async function fetchVersions(projectId: number, month: string): Promise<BillRow[]> {
  const page = await request(billEndpoints.pageList, {
    pageNum: 1,
    pageSize: MAX_PAGE_SIZE,
    projectId,
    month,
  });
  return page.list;
}

/** `bill/detail`: one bill with its computed document (lines, demand, parties, totals). */
export function fetchBill(id: number): Promise<BillDetail> {
  return request(billEndpoints.detail, { id });
}

/** `bill/draft`: drafts (or re-drafts) a project's month. Errors: 7001, 7060, -100. */
export function draftBill(projectId: number, month: string): Promise<{ id: number; version: number }> {
  return request(billEndpoints.draft, { projectId, month });
}

/** `bill/confirm`: settles a draft. Errors: 7060 already settled, 7062. */
export function confirmBill(id: number): Promise<null> {
  return request(billEndpoints.confirm, { id });
}

/** `bill/correct`: a new draft version of a settled bill with its reason. Errors: 7063, 7062, -100. */
export function correctBill(id: number, reason: string): Promise<{ id: number; version: number }> {
  return request(billEndpoints.correct, { id, reason });
}

/** `bill/exportXlsx`: the bill as xlsx, handed to the browser's download. */
export async function exportBill(
  bill: Pick<BillRow, 'id' | 'projectId' | 'month' | 'version'>,
): Promise<void> {
  const file = await requestFile(billEndpoints.exportXlsx, { id: bill.id });
  saveFile(file.fileName ?? `bill-${bill.projectId}-${bill.month}-v${bill.version}.xlsx`, file.blob);
}

/**
 * Projects the operator may pick (draft now, the list's filter): `project/pageList` (first
 * {@link MAX_PAGE_SIZE}, by name); none without `project:project:list`.
 */
export async function fetchProjectOptions(): Promise<{ id: number; name: string; status: string }[]> {
  const page = await request(projectEndpoints.pageList, { pageNum: 1, pageSize: MAX_PAGE_SIZE });
  return page.list
    .map((p) => ({ id: p.id, name: p.name, status: p.status }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** TanStack Query keys of the bill screen. */
export const billKeys = {
  all: ['bill'] as const,
  list: (q: BillQuery) => ['bill', 'list', q] as const,
  detail: (id: number) => ['bill', 'detail', id] as const,
  versions: (projectId: number, month: string) => ['bill', 'versions', projectId, month] as const,
  projects: ['bill', 'projects'] as const,
};
