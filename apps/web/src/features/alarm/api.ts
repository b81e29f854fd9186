/**
 * Alarm and mail-outbox calls (contract `alarmEndpoints`, `mailEndpoints`,
 * shapes in api/alarm.ts). Times are UTC ms; rows carry the site's time zone.
 */
import {
  type AlarmAckResponse,
  type AlarmActiveListRequest,
  type AlarmFilterOptions,
  type AlarmHistoryListRequest,
  alarmEndpoints,
  type EndpointResponse,
  type MailOutboxDetail,
  type MailState,
  mailEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type ActiveQuery = Omit<AlarmActiveListRequest, 'userInfo'>;
export type HistoryQuery = Omit<AlarmHistoryListRequest, 'userInfo'>;

/** `alarm/activeList`: alarms not yet cleared, newest first. */
export function fetchActive(q: ActiveQuery): Promise<EndpointResponse<typeof alarmEndpoints.activeList>> {
  return request(alarmEndpoints.activeList, q);
}

/** `alarm/historyList`: produce / disappear events and EMS online / offline changes. */
export function fetchHistory(q: HistoryQuery): Promise<EndpointResponse<typeof alarmEndpoints.historyList>> {
  return request(alarmEndpoints.historyList, q);
}

/** `alarm/ack`: acknowledge alarms (3100 not found, 3101 already acknowledged). */
export function acknowledge(ids: number[]): Promise<AlarmAckResponse> {
  return request(alarmEndpoints.ack, { ids });
}

/** `alarm/filterOptions`: sites and devices in scope. */
export function fetchFilterOptions(): Promise<AlarmFilterOptions> {
  return request(alarmEndpoints.filterOptions, {});
}

export interface OutboxQuery {
  pageNum: number;
  pageSize: number;
  state?: MailState;
  keyword?: string;
}

/** `mail/outboxList`. */
export function fetchOutbox(q: OutboxQuery): Promise<EndpointResponse<typeof mailEndpoints.outboxList>> {
  return request(mailEndpoints.outboxList, q);
}

/** `mail/outboxDetail`: one mail with its text (3103). */
export function fetchOutboxDetail(id: number): Promise<MailOutboxDetail> {
  return request(mailEndpoints.outboxDetail, { id });
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
