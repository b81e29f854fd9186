/**
 * Alarms: `endpoints.alarm.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  alarmAckRequest,
  alarmAckResponse,
  alarmActiveListRequest,
  alarmActiveListResponse,
  alarmFilterOptionsRequest,
  alarmFilterOptionsResponse,
  alarmHistoryListRequest,
  alarmHistoryListResponse,
} from '../api/alarm';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const alarmEndpoints = {
  activeList: defineEndpoint({
    path: '/api-bms/alarm/activeList',
    request: alarmActiveListRequest,
    response: alarmActiveListResponse,
    access: { permission: Perm.alarmList },
    summary:
      'Active alarms in the caller’s companies, newest first (filters: site, device, level, code, keyword, range of raise time, acknowledged). Errors: 3120–3122 range',
    tags: ['alarm'],
  }),
  historyList: defineEndpoint({
    path: '/api-bms/alarm/historyList',
    request: alarmHistoryListRequest,
    response: alarmHistoryListResponse,
    access: { permission: Perm.alarmList },
    summary:
      'Alarm events (produce, disappear) and EMS online/offline changes, newest first, with the alarm’s state and acknowledgement. Errors: 3120–3122 range',
    tags: ['alarm'],
  }),
  ack: defineEndpoint({
    path: '/api-bms/alarm/ack',
    request: alarmAckRequest,
    response: alarmAckResponse,
    access: { permission: Perm.alarmAck },
    audit: { action: 'alarm.ack', targetType: 'alarm' },
    summary:
      'Acknowledge alarms (who and when are recorded). Errors: 3100 an alarm not found (nothing changed), 3101 all already acknowledged',
    tags: ['alarm'],
  }),
  filterOptions: defineEndpoint({
    path: '/api-bms/alarm/filterOptions',
    request: alarmFilterOptionsRequest,
    response: alarmFilterOptionsResponse,
    access: { permission: Perm.alarmList },
    summary: 'Sites of the caller’s companies with their devices, for the alarm filters',
    tags: ['alarm'],
  }),
};
