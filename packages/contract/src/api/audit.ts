/**
 * Operation log: every change and every sign-in attempt — who, company, when, what,
 * the target, before → after (secrets masked), and the answer code. Searchable by
 * administrators through `log/pageList` within their company scope.
 */
import { z } from 'zod';
import { epochMsSchema, pageRequest, pageResponse, TEXT_LIMITS } from './primitives';

/** Stands for a masked secret (password digests, device secrets, tokens) in a logged value. */
export const MASKED_VALUE = '******';

export const operationLogListRequest = pageRequest.extend({
  /** Matches the account or the employee name. */
  operator: z.string().trim().max(TEXT_LIMITS.keyword).optional(),
  /** Exact action, e.g. `role.update`. */
  action: z.string().trim().max(64).optional(),
  targetType: z.string().trim().max(32).optional(),
  /** `success` = code 0, `failure` = any other code. */
  result: z.enum(['success', 'failure']).optional(),
  /** UTC ms, inclusive. */
  from: epochMsSchema.optional(),
  /** UTC ms, exclusive. */
  to: epochMsSchema.optional(),
});
export type OperationLogListRequest = z.infer<typeof operationLogListRequest>;

export const operationLogRowSchema = z.object({
  id: z.number().int(),
  /** ISO time. */
  ts: z.string(),
  companyId: z.number().int().nullable(),
  companyName: z.string().nullable(),
  employeeId: z.number().int().nullable(),
  /** The account as typed (sign-ins) or of the signed-in employee. */
  account: z.string().nullable(),
  operatorName: z.string().nullable(),
  /** `<resource>.<verb>`, e.g. `employee.status`, `user.login`. */
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  /** Answer code: 0 success, else the error code. */
  code: z.number().int(),
  ip: z.string().nullable(),
});
export type OperationLogRow = z.infer<typeof operationLogRowSchema>;
export const operationLogListResponse = pageResponse(operationLogRowSchema);
