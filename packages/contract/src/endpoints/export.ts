/**
 * Data export: `endpoints.export.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  exportDevicesRequest,
  exportDevicesResponse,
  exportRequest,
  exportSitesRequest,
  exportSitesResponse,
  exportXlsxResponse,
  XLSX_MIME,
} from '../api/export';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const exportEndpoints = {
  sites: defineEndpoint({
    path: '/api-bms/export/sites',
    request: exportSitesRequest,
    response: exportSitesResponse,
    access: { permission: Perm.exportRun },
    summary:
      'Sites of an agent for the export form: in the caller’s scope, of the agent’s companies or with a device assigned to it. Errors: 6000',
    tags: ['export'],
  }),
  devices: defineEndpoint({
    path: '/api-bms/export/devices',
    request: exportDevicesRequest,
    response: exportDevicesResponse,
    access: { permission: Perm.exportRun },
    summary: 'Devices of a site for the export form (EMS first, by type and SN). Errors: 3036',
    tags: ['export'],
  }),
  xlsx: defineEndpoint({
    path: '/api-bms/export/xlsx',
    request: exportRequest,
    response: exportXlsxResponse,
    access: { permission: Perm.exportRun },
    summary:
      'Streams the xlsx of an export (raw points, daily energy, alarms). Success answers the file, not an envelope; refusals answer {code, msg}: 3130–3138, 3120, 3122, 6000, 3036, 3030',
    tags: ['export'],
    file: { mime: XLSX_MIME },
  }),
};
