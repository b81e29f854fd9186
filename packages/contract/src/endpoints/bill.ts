/**
 * Monthly bills (issue 17 item 5): `endpoints.bill.*`. Part of the endpoint table (../endpoints.ts);
 * see define.ts for the fields, api/bill.ts for states, versions and refusals, money/bill.ts for the
 * arithmetic. Scoped by company like projects: a bill outside the caller's scope answers 7062.
 */

import {
  billCorrectRequest,
  billDetailSchema,
  billDraftRequest,
  billDraftResponse,
  billIdRequest,
  billPageListRequest,
  billPageListResponse,
} from '../api/bill';
import { XLSX_MIME } from '../api/export';
import { nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const billEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/bill/pageList',
    request: billPageListRequest,
    response: billPageListResponse,
    access: { permission: Perm.billList },
    summary: 'Bills in scope (filters: project, month, state), newest month first, every version',
    tags: ['bill'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/bill/detail',
    request: billIdRequest,
    response: billDetailSchema,
    access: { permission: Perm.billList },
    summary:
      'One bill with its lines (readings, multiplier, kWh, price, amount, source), demand charge change and split. Errors: 7062',
    tags: ['bill'],
  }),
  draft: defineEndpoint({
    path: '/api-bms/bill/draft',
    request: billDraftRequest,
    response: billDraftResponse,
    access: { permission: Perm.billDraft },
    audit: { action: 'bill.draft', targetType: 'bill' },
    summary:
      'Draft (or re-draft) a project’s month now (default: last month). Errors: 7001, 7060 the month is settled, -100 the contract (ratios, rent, CT/PT) or a bound date without a tariff',
    tags: ['bill'],
  }),
  confirm: defineEndpoint({
    path: '/api-bms/bill/confirm',
    request: billIdRequest,
    response: nullResponse,
    access: { permission: Perm.billConfirm },
    audit: { action: 'bill.confirm', targetType: 'bill' },
    summary: 'Settle a draft. Errors: 7060 already settled (this bill, or a later version), 7062',
    tags: ['bill'],
  }),
  correct: defineEndpoint({
    path: '/api-bms/bill/correct',
    request: billCorrectRequest,
    response: billDraftResponse,
    access: { permission: Perm.billCorrect },
    audit: { action: 'bill.correct', targetType: 'bill' },
    summary:
      'Correct a settled bill: a new draft version recomputed from today’s data, with the reason; the settled one is kept. Errors: 7063 not the latest settled version, 7062',
    tags: ['bill'],
  }),
  exportXlsx: defineEndpoint({
    path: '/api-bms/bill/exportXlsx',
    request: billIdRequest,
    response: nullResponse,
    access: { permission: Perm.billExport },
    summary:
      'The bill as xlsx (head, lines, demand, split; zh or en). Success answers the file; refusals {code, msg}: 7062',
    tags: ['bill'],
    file: { mime: XLSX_MIME },
  }),
};
