/**
 * The operation log: `endpoints.log.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { operationLogListRequest, operationLogListResponse } from '../api/audit';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const logEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/log/pageList',
    request: operationLogListRequest,
    response: operationLogListResponse,
    access: { permission: Perm.logList },
    summary:
      'Operation log, newest first: who, company, when, action, target, before → after (secrets masked), answer code, address',
    tags: ['log'],
  }),
};
