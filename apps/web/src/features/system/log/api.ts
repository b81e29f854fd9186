/**
 * Operation log call (issue 5; shapes in @ess/contract api/audit.ts, path `OrgPath.logPageList`):
 * every change and sign-in attempt within the caller's company scope, newest first.
 */
import { type OperationLogRow, OrgPath } from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

/** Filters of `log/pageList` (contract `operationLogListRequest`). */
export interface LogQuery {
  pageNum: number;
  pageSize: number;
  /** Matches the account or the employee name. */
  operator?: string;
  /** Exact action, e.g. `role.update`. */
  action?: string;
  targetType?: string;
  result?: 'success' | 'failure';
  /** UTC ms, inclusive. */
  from?: number;
  /** UTC ms, exclusive. */
  to?: number;
}

/** `log/pageList`. */
export function fetchLogs(q: LogQuery): Promise<{ list: OperationLogRow[]; total: number }> {
  return request(OrgPath.logPageList, { userInfo: userInfoEcho(), ...q });
}

/** TanStack Query keys of the operation log. */
export const logKeys = {
  all: ['oplog'] as const,
  list: (q: LogQuery) => ['oplog', 'list', q] as const,
};
