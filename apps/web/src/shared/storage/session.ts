/**
 * Session credentials (spec §3 "Session user": token, refreshToken, userId, companyId), kept in
 * local storage under `ess.session` so a reload restores the session (spec §2 guard).
 *
 * A zustand store usable outside React (the request client reads and refreshes the token) and
 * inside it (`useCredentials`). {@link resetSession} is the spec's "reset": it clears the
 * credentials, cookies and local storage but keeps device preferences (keys.ts).
 */
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { clearCookies } from './cookies';
import { LocalKey, PRESERVED_COOKIES, PRESERVED_LOCAL_KEYS } from './keys';
import { clearLocal, readLocal, removeLocal, writeLocal } from './local';

export interface Credentials {
  /** Access token sent as X-Token. */
  token: string | null;
  /** Token that buys a new access token once it expires (`user/refreshToken`). */
  refreshToken: string | null;
  /** When the access token expires (UTC ms), if known. */
  tokenExpiresAt: number | null;
  userId: number | null;
  companyId: number | null;
}

const EMPTY: Credentials = {
  token: null,
  refreshToken: null,
  tokenExpiresAt: null,
  userId: null,
  companyId: null,
};

function load(): Credentials {
  const raw = readLocal(LocalKey.session);
  if (!raw) return EMPTY;
  try {
    const parsed = JSON.parse(raw) as Partial<Credentials>;
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    return {
      token: str(parsed.token),
      refreshToken: str(parsed.refreshToken),
      tokenExpiresAt: num(parsed.tokenExpiresAt),
      userId: num(parsed.userId),
      companyId: num(parsed.companyId),
    };
  } catch {
    return EMPTY;
  }
}

/** The credentials store; persisted on every change. */
export const credentialsStore = createStore<Credentials>(() => load());

credentialsStore.subscribe((state) => {
  if (state.token) writeLocal(LocalKey.session, JSON.stringify(state));
  else removeLocal(LocalKey.session);
});

/** Current credentials (outside React). */
export function getCredentials(): Credentials {
  return credentialsStore.getState();
}

/** Merge new values into the credentials (e.g. after login or a token refresh). */
export function setCredentials(patch: Partial<Credentials>): void {
  credentialsStore.setState(patch);
}

/** Credentials in React, e.g. `useCredentials((c) => c.token)`. */
export function useCredentials<T>(selector: (c: Credentials) => T): T {
  return useStore(credentialsStore, selector);
}

/**
 * Spec §4 "reset": forget the credentials, clear cookies and local storage (device preferences
 * stay). Callers reload or navigate to /login afterwards, which drops the route table and state.
 */
export function resetSession(): void {
  credentialsStore.setState(EMPTY);
  clearLocal(PRESERVED_LOCAL_KEYS);
  clearCookies(PRESERVED_COOKIES);
}
