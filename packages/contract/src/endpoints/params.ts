/**
 * Device parameters (issue 15, spec §2 `/paramsconfig`): `endpoints.params.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields and api/params.ts
 * for the shapes.
 */
import {
  paramsCopyRequest,
  paramsCopyResponse,
  paramsDeviceRequest,
  paramsDeviceResponse,
  paramsHistoryRequest,
  paramsHistoryResponse,
  paramsInitializeRequest,
  paramsInitializeResponse,
  paramsReadResponse,
  paramsSetRequest,
  paramsSetResponse,
  paramsTreeRequest,
  paramsTreeResponse,
} from '../api/params';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const paramsEndpoints = {
  tree: defineEndpoint({
    path: '/api-bms/params/tree',
    request: paramsTreeRequest,
    response: paramsTreeResponse,
    access: { permission: Perm.paramsList },
    summary:
      'Sites of the caller’s scope with their configurable devices (gateway first) and how many keys are out of sync',
    tags: ['params'],
  }),
  detail: defineEndpoint({
    path: '/api-bms/params/detail',
    request: paramsDeviceRequest,
    response: paramsDeviceResponse,
    access: { permission: Perm.paramsList },
    summary:
      'One device’s parameters: desired beside reported, per-key state (in sync, pending, sent, applied, refused, timeout, drift). Errors: 3030',
    tags: ['params'],
  }),
  set: defineEndpoint({
    path: '/api-bms/params/set',
    request: paramsSetRequest,
    response: paramsSetResponse,
    access: { permission: Perm.paramsEdit },
    audit: { action: 'params.set', targetType: 'device' },
    summary:
      'Change parameters of one device: stored, then sent to it (set_params); an offline gateway gets them at the reconnect',
    description:
      'Errors: -100 a value or a rule between values broken (msg names the parameter), nothing stored; 3030 no device; 3031 the device has no gateway (no MQTT configuration). Offline or never connected is not an error: `waiting` is 3034 or 3033.',
    tags: ['params'],
  }),
  read: defineEndpoint({
    path: '/api-bms/params/read',
    request: paramsDeviceRequest,
    response: paramsReadResponse,
    access: { permission: Perm.paramsList },
    summary: 'Ask the device what it runs (get_params) and wait for the answer (up to 10 s)',
    description:
      'Errors: 3030, 3031, 3033 never connected, 3034 offline, 3035 no answer or refused (msg gives why).',
    tags: ['params'],
  }),
  retry: defineEndpoint({
    path: '/api-bms/params/retry',
    request: paramsDeviceRequest,
    response: paramsDeviceResponse,
    access: { permission: Perm.paramsEdit },
    audit: { action: 'params.retry', targetType: 'device' },
    summary: 'Send the device’s outstanding changes again now and wait for the answer',
    description:
      'Errors: 3030, 3031, 3033, 3034 (kept, sent at the reconnect), 3035 no answer or refused; 3048 nothing to send.',
    tags: ['params'],
  }),
  history: defineEndpoint({
    path: '/api-bms/params/history',
    request: paramsHistoryRequest,
    response: paramsHistoryResponse,
    access: { permission: Perm.paramsList },
    summary:
      'Every change of a device’s parameters, newest first: who, when, old, new, and the device’s answer. Errors: 3030',
    tags: ['params'],
  }),
  copy: defineEndpoint({
    path: '/api-bms/params/copy',
    request: paramsCopyRequest,
    response: paramsCopyResponse,
    access: { permission: Perm.paramsEdit },
    audit: { action: 'params.copy', targetType: 'device' },
    summary: 'Copy a device’s parameters to devices of the same type and model: one result per target',
    description:
      'Errors of the call: 3030 the source not found. Per target: 0, 3030 not found, 3047 another type or model, -100 a rule broken.',
    tags: ['params'],
  }),
  initialize: defineEndpoint({
    path: '/api-bms/params/initialize',
    request: paramsInitializeRequest,
    response: paramsInitializeResponse,
    access: { permission: Perm.paramsEdit },
    audit: { action: 'params.initialize', targetType: 'site' },
    summary:
      'Commission a site once: its time zone, every device’s defaults and the gateway’s network settings',
    description:
      'Errors: 3036 site not found, 3031 no gateway, 3049 initialization already performed, -100 a network value broken.',
    tags: ['params'],
  }),
};
