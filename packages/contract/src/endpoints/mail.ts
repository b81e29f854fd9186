/**
 * The alarm mail outbox: `endpoints.mail.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  mailOutboxDetailRequest,
  mailOutboxDetailResponse,
  mailOutboxListRequest,
  mailOutboxListResponse,
} from '../api/alarm';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const mailEndpoints = {
  outboxList: defineEndpoint({
    path: '/api-bms/mail/outboxList',
    request: mailOutboxListRequest,
    response: mailOutboxListResponse,
    access: { permission: Perm.mailOutboxList },
    summary:
      'Alarm mails to employees of the caller’s data scope (companies; with a department or self data scope only mails to employees of those departments or to oneself), newest first, with delivery state, attempts and last error',
    tags: ['mail'],
  }),
  outboxDetail: defineEndpoint({
    path: '/api-bms/mail/outboxDetail',
    request: mailOutboxDetailRequest,
    response: mailOutboxDetailResponse,
    access: { permission: Perm.mailOutboxList },
    summary: 'One mail of the outbox with its text. Errors: 3103 not found',
    tags: ['mail'],
  }),
};
