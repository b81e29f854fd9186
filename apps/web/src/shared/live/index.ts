/**
 * Live push for the screens (contract api/live.ts): {@link useLiveChannel}, the connection
 * status and its indicator. One WebSocket per tab (see connection.ts), authenticated with the
 * session's access token; an expired token is refreshed through the request client's shared
 * refresh.
 */
export type { LiveStatus } from './connection';
export { LiveIndicator } from './LiveIndicator';
export { liveConnection, useLiveChannel, useLiveStatus } from './useLiveChannel';
