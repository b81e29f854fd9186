/**
 * Transparent-debugging calls (issue 15 item 5; contract `debugEndpoints`, shapes and rules in
 * api/debug.ts) and the registry lists the gateway picker reads (`device/pageList`,
 * `site/pageList`, permission device:site:list).
 *
 * The debug calls are made with `errorText: 'none'`: the screen shows their refusals itself,
 * at the place they concern (3043 who holds the gateway and until when, 3044 with a reopen
 * button, 3045 the rate limit, 3046 the write confirmation, -100 at the frame field). Every
 * function rejects with `ApiError` (after the client's session handling) or a network error.
 */
import {
  type DebugFrame,
  type DebugPort,
  type DebugSession,
  type DeviceRow,
  debugEndpoints,
  deviceEndpoints,
  type EndpointResponse,
  MAX_PAGE_SIZE,
  type ModbusRequest,
  type Page,
  type SiteRow,
  siteEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';

/**
 * The gateways (devices reporting through no other) of the caller's scope, with their sites
 * and online state. The registry lists gateways first, so the first page of its largest size
 * holds them all up to that size; `keyword` (SN or model) and `online` filter on the server.
 */
export async function fetchGateways(q: { keyword?: string; online?: boolean }): Promise<DeviceRow[]> {
  const page = await request(deviceEndpoints.pageList, { pageNum: 1, pageSize: MAX_PAGE_SIZE, ...q });
  return page.list.filter((d) => d.gatewayId === null);
}

/** The caller's sites (for their time zones and codes), up to the registry's largest page. */
export async function fetchSites(): Promise<Page<SiteRow>> {
  return request(siteEndpoints.pageList, { pageNum: 1, pageSize: MAX_PAGE_SIZE });
}

/**
 * `debug/open`: a session on the gateway (one's own open session is answered again).
 * Errors: 3030 not in scope, 3033 never connected, 3034 offline, 3043 another user's session.
 */
export function openSession(gatewayId: number): Promise<DebugSession> {
  return request(debugEndpoints.open, { gatewayId }, { errorText: 'none' });
}

/** One frame as the composer sends it. */
export type OutgoingFrame = { kind: 'modbus'; request: ModbusRequest } | { kind: 'hex'; hex: string };

/**
 * `debug/send`: relays the frame and answers it with its response (or `timeout: true`) and the
 * session's new expiry. Errors: -100 (msg names the fault), 3044, 3045, 3046, 3034, 3035.
 */
export function sendFrame(body: {
  sessionId: string;
  port: DebugPort;
  frame: OutgoingFrame;
  timeoutMs: number;
  confirmWrite: boolean;
}): Promise<EndpointResponse<typeof debugEndpoints.send>> {
  return request(debugEndpoints.send, body, { errorText: 'none' });
}

/** `debug/close`: ends one's own session. Errors: 3044 it had ended already. */
export function closeSession(sessionId: string): Promise<unknown> {
  return request(debugEndpoints.close, { sessionId }, { errorText: 'none' });
}

/** `debug/frames`: the gateway's frames of every session, newest first. Errors: 3030. */
export function fetchFrames(gatewayId: number, pageNum: number, pageSize: number): Promise<Page<DebugFrame>> {
  return request(debugEndpoints.frames, { gatewayId, pageNum, pageSize });
}

/** TanStack Query keys of the screen. */
export const debugKeys = {
  all: ['debugging'] as const,
  gateways: (q: { keyword?: string; online?: boolean }) => ['debugging', 'gateways', q] as const,
  sites: ['debugging', 'sites'] as const,
  frames: (gatewayId: number) => ['debugging', 'frames', gatewayId] as const,
};
