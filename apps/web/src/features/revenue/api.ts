/**
 * Revenue statistics calls (issue 17 item 4; contract `revenueEndpoints`, shapes in
 * api/revenue.ts). Each resolves with the answer's `data` or rejects with `ApiError` after the
 * client's spec §8 handling (the refusal's text shown by the client).
 */
import {
  type EndpointRequest,
  type RevenueStatResponse,
  type RevenueTargetsResponse,
  revenueEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

export type RevenueQuery = Omit<EndpointRequest<typeof revenueEndpoints.stat>, 'userInfo'>;

/** `revenue/targets`: sites, projects and companies in the caller's scope. */
export function fetchRevenueTargets(): Promise<RevenueTargetsResponse> {
  return request(revenueEndpoints.targets, {});
}

/** `revenue/stat`: one target's figures for a day, month or year. */
export function fetchRevenueStat(q: RevenueQuery): Promise<RevenueStatResponse> {
  return request(revenueEndpoints.stat, q);
}

export const revenueKeys = {
  targets: ['revenue', 'targets'] as const,
  stat: (q: RevenueQuery) => ['revenue', 'stat', q] as const,
};
