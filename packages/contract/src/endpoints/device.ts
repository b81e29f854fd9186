/**
 * Devices (spec §2 /deviceconfig): `endpoints.device.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import { deadLetterListRequest, deadLetterListResponse } from '../api/dead-letter';
import { idRequest, nullResponse } from '../api/primitives';
import {
  deviceInput,
  deviceListRequest,
  deviceListResponse,
  deviceMoveRequest,
  deviceMoveResponse,
  deviceSaveResponse,
  deviceSecretResponse,
  deviceUpdate,
} from '../api/registry';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const deviceEndpoints = {
  pageList: defineEndpoint({
    path: '/api-bms/device/pageList',
    request: deviceListRequest,
    response: deviceListResponse,
    access: { permission: Perm.siteList },
    summary: 'Devices in the caller’s companies; filter by site, type, SN/model keyword, online',
    tags: ['device'],
  }),
  save: defineEndpoint({
    path: '/api-bms/device/save',
    request: deviceInput,
    response: deviceSaveResponse,
    access: { permission: Perm.deviceSave },
    audit: { action: 'device.save', targetType: 'device' },
    summary: 'Register a device; a gateway’s MQTT secret is answered once',
    description: 'Errors: 3036 site not found, 3030 gateway not found in that site, 3032 SN exists.',
    tags: ['device'],
  }),
  update: defineEndpoint({
    path: '/api-bms/device/update',
    request: deviceUpdate,
    response: nullResponse,
    access: { permission: Perm.deviceSave },
    audit: { action: 'device.update', targetType: 'device' },
    summary:
      'Update a device on its site. Errors: 3030, 3032, 3038 (a gateway with devices behind it), 3042 another site (use device/moveSite)',
    tags: ['device'],
  }),
  moveSite: defineEndpoint({
    path: '/api-bms/device/moveSite',
    request: deviceMoveRequest,
    response: deviceMoveResponse,
    access: { permission: Perm.deviceMove },
    audit: { action: 'device.moveSite', targetType: 'device' },
    summary:
      'Move a device to another site (a gateway with the devices behind it), with its data, in one transaction',
    description:
      'Errors: 3030 device not found, 3036 site not found, 3040 a device behind a gateway without a gateway of the target site, 3041 already on that site.',
    tags: ['device'],
  }),
  delete: defineEndpoint({
    path: '/api-bms/device/delete',
    request: idRequest,
    response: nullResponse,
    access: { permission: Perm.deviceDelete },
    audit: { action: 'device.delete', targetType: 'device' },
    summary: 'Delete a device. Errors: 3030 not found, 3038 devices still report through this gateway',
    tags: ['device'],
  }),
  deadLetterPageList: defineEndpoint({
    path: '/api-bms/device/deadLetterPageList',
    request: deadLetterListRequest,
    response: deadLetterListResponse,
    access: { permission: Perm.deadLetterList },
    summary:
      'Device messages the database refused for their data (dead letters), newest first, in the caller’s companies; filter by kind, site, SN keyword',
    tags: ['device'],
  }),
  resetSecret: defineEndpoint({
    path: '/api-bms/device/resetSecret',
    request: idRequest,
    response: deviceSecretResponse,
    access: { permission: Perm.deviceSecret },
    audit: { action: 'device.resetSecret', targetType: 'device' },
    summary: 'Issue a new MQTT secret for a gateway (the old one stops working at its next connect)',
    description: 'Errors: 3030 not found, 3031 not a gateway (it has no MQTT connection of its own).',
    tags: ['device'],
  }),
};
