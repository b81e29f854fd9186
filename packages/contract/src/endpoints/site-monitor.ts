/**
 * Site monitoring: `endpoints.siteMonitor.*`.
 * Part of the endpoint table (../endpoints.ts); see define.ts for the fields.
 */
import {
  siteMonitorDetailRequest,
  siteMonitorDetailResponse,
  siteMonitorListRequest,
  siteMonitorListResponse,
} from '../api/site-monitor';
import { Perm } from '../permissions';
import { defineEndpoint } from './define';

export const siteMonitorEndpoints = {
  sites: defineEndpoint({
    path: '/api-bms/monitor/siteList',
    request: siteMonitorListRequest,
    response: siteMonitorListResponse,
    access: { permission: Perm.monitorSiteList },
    summary:
      'Sites in scope for the monitoring map and list: status, position, SOC %, battery kW, today’s kWh, active alarms',
    tags: ['monitor'],
  }),
  site: defineEndpoint({
    path: '/api-bms/monitor/siteDetail',
    request: siteMonitorDetailRequest,
    response: siteMonitorDetailResponse,
    access: { permission: Perm.monitorSiteList },
    summary:
      'One site: devices with latest points and the energy-flow, EMS (gateway), PCS, BMS, meter, PV, environment, air-conditioner panels (3036)',
    tags: ['monitor'],
  }),
};
