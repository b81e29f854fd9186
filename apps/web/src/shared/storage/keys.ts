/**
 * Names under which the console keeps things in the browser, and what survives a logout.
 *
 * Spec §4: logout or reset clears cookies and local storage. Device preferences (language,
 * this browser's terminal id, the sidebar state) are not session data and are kept.
 */
export const LocalKey = {
  /** 'zh' | 'en': the UI language. */
  language: 'ess.language',
  /** Random id of this browser, sent as `terminalId` (see terminal.ts). */
  terminalId: 'ess.terminalId',
  /** JSON of the session credentials (see session.ts). */
  session: 'ess.session',
} as const;

export const CookieKey = {
  /** '1' sidebar opened, '0' closed (spec §4: "Its state persists in a cookie"). */
  sidebarStatus: 'sidebarStatus',
} as const;

/** Local-storage keys kept by a session reset. */
export const PRESERVED_LOCAL_KEYS: readonly string[] = [LocalKey.language, LocalKey.terminalId];

/** Cookies kept by a session reset. */
export const PRESERVED_COOKIES: readonly string[] = [CookieKey.sidebarStatus];
