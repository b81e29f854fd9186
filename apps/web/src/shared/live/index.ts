/**
 * Live push for the screens (contract api/live.ts): {@link useLiveChannel}, the connection
 * status and its indicator. One WebSocket per tab (see connection.ts), authenticated with the
 * session's access token; an expired token is refreshed through the request client's shared
 * refresh. "Newest value wins" over query data: {@link useLiveOverlay} and overlay.ts.
 */
export type { LiveStatus } from './connection';
export { LiveIndicator } from './LiveIndicator';
export {
  type LivePoints,
  liveWins,
  mergeLivePoints,
  overlayPoints,
  overlayReading,
  type TimedValue,
} from './overlay';
export { liveConnection, useLiveChannel, useLiveMessages, useLiveStatus } from './useLiveChannel';
export { useLiveDevices, useLiveOverlay } from './useLiveOverlay';
