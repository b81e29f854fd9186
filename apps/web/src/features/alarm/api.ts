/**
 * Alarm and mail-outbox calls (issue 4 item 4; shapes in @ess/contract api/alarm.ts, paths
 * `AlarmPath`). Times are UTC ms; rows carry the site's time zone.
 */
import {
  type AlarmAckResponse,
  type AlarmActiveListRequest,
  type AlarmFilterOptions,
  type AlarmHistoryListRequest,
  type AlarmHistoryRow,
  type AlarmLifecycleRow,
  AlarmPath,
  type MailOutboxDetail,
  type MailOutboxRow,
  type MailState,
} from '@ess/contract';
import { userInfoEcho } from '@/features/auth';
import { request } from '@/shared/api/client';

export type ActiveQuery = Omit<AlarmActiveListRequest, 'userInfo'>;
export type HistoryQuery = Omit<AlarmHistoryListRequest, 'userInfo'>;

/** `alarm/activeList`: alarms not yet cleared, newest first. */
export function fetchActive(q: ActiveQuery): Promise<{ list: AlarmLifecycleRow[]; total: number }> {
  return request(AlarmPath.activeList, { userInfo: userInfoEcho(), ...q });
}

/** `alarm/historyList`: produce / disappear events and EMS online / offline changes. */
export function fetchHistory(q: HistoryQuery): Promise<{ list: AlarmHistoryRow[]; total: number }> {
  return request(AlarmPath.historyList, { userInfo: userInfoEcho(), ...q });
}

/** `alarm/ack`: acknowledge alarms (3100 not found, 3101 already acknowledged). */
export function acknowledge(ids: number[]): Promise<AlarmAckResponse> {
  return request(AlarmPath.ack, { userInfo: userInfoEcho(), ids });
}

/** `alarm/filterOptions`: sites and devices in scope. */
export function fetchFilterOptions(): Promise<AlarmFilterOptions> {
  return request(AlarmPath.filterOptions, { userInfo: userInfoEcho() });
}

export interface OutboxQuery {
  pageNum: number;
  pageSize: number;
  state?: MailState;
  keyword?: string;
}

/** `mail/outboxList`. */
export function fetchOutbox(
  q: OutboxQuery,
): Promise<{ list: MailOutboxRow[]; total: number; smtpConfigured: boolean }> {
  return request(AlarmPath.outboxList, { userInfo: userInfoEcho(), ...q });
}

/** `mail/outboxDetail`: one mail with its text (3103). */
export function fetchOutboxDetail(id: number): Promise<MailOutboxDetail> {
  return request(AlarmPath.outboxDetail, { userInfo: userInfoEcho(), id });
}

/** TanStack Query keys. */
export const alarmKeys = {
  all: ['alarm'] as const,
  active: (q: ActiveQuery) => ['alarm', 'active', q] as const,
  history: (q: HistoryQuery) => ['alarm', 'history', q] as const,
  options: ['alarm', 'options'] as const,
  outbox: (q: OutboxQuery) => ['alarm', 'outbox', q] as const,
  mail: (id: number) => ['alarm', 'mail', id] as const,
};
