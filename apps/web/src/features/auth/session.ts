/**
 * Session actions (spec §2, §4): sign-in handshake, restore after reload, logout, language
 * switch. They tie together the credentials, the user store and the route table.
 */
import { type Lang, type LoginResponse, toServerLanguage, type UserInfo } from '@ess/contract';
import { LANGUAGE_RELOAD_DELAY_MS } from '@/shared/config';
import { showSuccess, showWarning } from '@/shared/feedback';
import { changeLang, currentLang, i18n } from '@/shared/i18n';
import { LOGIN_PATH, useRouteTable } from '@/shared/routing';
import { getCredentials, resetSession, setCredentials } from '@/shared/storage/session';
import { fetchLanguageMenu, fetchUserInfo, logoutCall, openSession } from './api';
import { useSession } from './store';

/** Store what `user/getUserInfo` answered: tokens, user, routes from the menu. */
function applyUserInfo(info: UserInfo): void {
  useSession.getState().setUser(info);
  useRouteTable.getState().setMenu(info.menuList);
  setCredentials({
    token: info.token,
    refreshToken: info.refreshToken ?? getCredentials().refreshToken,
    tokenExpiresAt: info.tokenExpiresAt,
    userId: info.userId,
    companyId: info.companyId,
  });
}

/** Outcome of opening or restoring a session. */
export type SessionOutcome = 'ok' | 'noMenu';

/**
 * Handshake steps 2–3: open the session in `companyId` with the login ticket and store it.
 * A user without menu entries is refused and logged out (spec §6): resolves 'noMenu'.
 */
export async function enterCompany(login: LoginResponse, companyId: number): Promise<SessionOutcome> {
  const info = await openSession(login, companyId);
  if (info.menuList.length === 0) {
    // Refused before anything is stored; end the session just opened on the server.
    showWarning(i18n.t('login.noMenu'));
    await logoutCall({ userId: info.userId, token: info.token }).catch(() => undefined);
    resetAll();
    return 'noMenu';
  }
  applyUserInfo(info);
  return 'ok';
}

let restoring: Promise<SessionOutcome> | null = null;

/**
 * Handshake step 4 (spec §2 guard, page reload): fetch the latest user info and menu with the
 * stored token and add the routes. Shared by concurrent callers.
 * @throws when the credentials are incomplete or the call fails; the caller resets the token.
 */
export function restoreSession(): Promise<SessionOutcome> {
  restoring ??= (async () => {
    const { userId, companyId } = getCredentials();
    if (!userId || !companyId) throw new Error('incomplete credentials');
    const info = await fetchUserInfo(userId, companyId);
    applyUserInfo(info);
    if (info.menuList.length === 0) {
      showWarning(i18n.t('login.noMenu'));
      await logout();
      return 'noMenu' as const;
    }
    return 'ok' as const;
  })().finally(() => {
    restoring = null;
  });
  return restoring;
}

/**
 * Re-fetch the caller's menu in the UI language and rebuild the routes and the sidebar (after
 * menu management changed the menu).
 */
export async function refreshMenu(): Promise<void> {
  useRouteTable.getState().setMenu(await fetchLanguageMenu(toServerLanguage(currentLang())));
}

/** Spec §4 reset: credentials, cookies, local storage, route table and state. */
export function resetAll(): void {
  resetSession();
  useRouteTable.getState().reset();
  useSession.getState().clear();
}

/**
 * Spec §4 logout: call `user/loginOut`, then (whether it worked or not) reset everything,
 * go to /login and reload the page.
 */
export async function logout(): Promise<void> {
  try {
    await logoutCall();
  } catch {
    // spec §4: on failure the token is reset and the same redirect happens
  }
  resetAll();
  window.location.assign(LOGIN_PATH);
}

/**
 * Spec §4 language change: set the locale, store it, show the success message; when signed in,
 * re-fetch the menu in the new language ('zh' sent as 'cn'), rebuild the routes and reload so
 * every page comes back in the new language.
 */
export async function switchLanguage(lang: Lang): Promise<void> {
  await changeLang(lang);
  showSuccess(i18n.t('lang.switched'));
  if (!getCredentials().token) return;
  const started = Date.now();
  try {
    useRouteTable.getState().setMenu(await fetchLanguageMenu(toServerLanguage(lang)));
  } catch {
    // the reload fetches the menu again with the new Accept-Language
  }
  const wait = Math.max(0, LANGUAGE_RELOAD_DELAY_MS - (Date.now() - started));
  window.setTimeout(() => window.location.reload(), wait);
}
