/**
 * Device dead letters (contract `deviceEndpoints.deadLetterPageList`, shapes in
 * api/dead-letter.ts): device messages the database refused for their data. Times are UTC ms;
 * rows carry their site's time zone.
 */
import { type DeadLetterListRequest, deviceEndpoints, type EndpointResponse } from '@ess/contract';
import { request } from '@/shared/api/client';

export type DeadLetterQuery = Omit<DeadLetterListRequest, 'userInfo'>;

/** `device/deadLetterPageList`: newest first, in the caller's companies. */
export function fetchDeadLetters(
  q: DeadLetterQuery,
): Promise<EndpointResponse<typeof deviceEndpoints.deadLetterPageList>> {
  return request(deviceEndpoints.deadLetterPageList, q);
}

/** TanStack Query keys. */
export const deadLetterKeys = {
  all: ['dead-letter'] as const,
  list: (q: DeadLetterQuery) => ['dead-letter', 'list', q] as const,
};
