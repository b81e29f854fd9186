/**
 * Transparent debugging (issue 15 item 5, spec §2 `/deviceDebugging`): `endpoints.debug.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields and api/debug.ts
 * for the shapes and rules.
 */
import {
  debugFramesRequest,
  debugFramesResponse,
  debugOpenRequest,
  debugSendRequest,
  debugSendResponse,
  debugSessionRequest,
  debugSessionSchema,
} from '../api/debug';
import { nullResponse } from '../api/primitives';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const debugEndpoints = {
  open: defineEndpoint({
    path: '/api-bms/debug/open',
    request: debugOpenRequest,
    response: debugSessionSchema,
    access: { permission: Perm.debugUse },
    audit: { action: 'debug.open', targetType: 'device' },
    summary: 'Open a debugging session on a gateway (one per gateway at a time)',
    description:
      'Errors: 3030 no such gateway in the scope, 3033 never connected, 3034 offline, 3043 another session is open on it (msg names who, until when). Re-opening one’s own session answers it.',
    tags: ['debug'],
  }),
  send: defineEndpoint({
    path: '/api-bms/debug/send',
    request: debugSendRequest,
    response: debugSendResponse,
    access: { permission: Perm.debugUse },
    audit: { action: 'debug.send', targetType: 'device' },
    summary: 'Relay one frame through the gateway to a serial port and wait for the raw answer',
    description:
      'A timeout is not an error (frame.timeout). Errors: -100 malformed hex or request (msg says what), 3044 the session ended, 3045 too many frames per minute, 3046 a write not confirmed, 3034 the gateway went offline, 3035 the EMS refused the frame (msg gives why).',
    tags: ['debug'],
  }),
  close: defineEndpoint({
    path: '/api-bms/debug/close',
    request: debugSessionRequest,
    response: nullResponse,
    access: { permission: Perm.debugUse },
    audit: { action: 'debug.close', targetType: 'device' },
    summary: 'End a debugging session (one’s own). Errors: 3044 already ended',
    tags: ['debug'],
  }),
  frames: defineEndpoint({
    path: '/api-bms/debug/frames',
    request: debugFramesRequest,
    response: debugFramesResponse,
    access: { permission: Perm.debugUse },
    summary: 'The frames sent through a gateway, newest first, with their answers. Errors: 3030',
    tags: ['debug'],
  }),
};
