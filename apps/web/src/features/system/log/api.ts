/**
 * Operation log call (contract `logEndpoints`, shapes in api/audit.ts): every change
 * and sign-in attempt within the caller's company scope, newest first.
 */
import {
  type AuditAction,
  type AuditTargetType,
  logEndpoints,
  type OperationLogRow,
  type Page,
} from '@ess/contract';
import { request } from '@/shared/api/client';

/** Filters of `log/pageList` (contract `operationLogListRequest`). */
export interface LogQuery {
  pageNum: number;
  pageSize: number;
  /** Matches the account or the employee name. */
  operator?: string;
  /** Exact action, e.g. `role.update` (contract `AUDIT_ACTIONS`). */
  action?: AuditAction;
  targetType?: AuditTargetType;
  result?: 'success' | 'failure';
  /** UTC ms, inclusive. */
  from?: number;
  /** UTC ms, exclusive. */
  to?: number;
}

/** `log/pageList`. */
export function fetchLogs(q: LogQuery): Promise<Page<OperationLogRow>> {
  return request(logEndpoints.pageList, q);
}

/** TanStack Query keys of the operation log. */
export const logKeys = {
  all: ['oplog'] as const,
  list: (q: LogQuery) => ['oplog', 'list', q] as const,
};
