/**
 * Sign-in and session calls (spec §7; contract `userEndpoints`, shapes in api/user.ts,
 * api/menu.ts). Every function resolves with the answer's `data` or rejects with `ApiError`
 * after the client's spec §8 handling.
 */
import {
  type LoginResponse,
  type MenuItem,
  normaliseAccount,
  type ServerLanguage,
  type UserInfo,
  userEndpoints,
} from '@ess/contract';
import { request } from '@/shared/api/client';
import { sha256Hex } from '@/shared/crypto/sha256';
import { getCredentials } from '@/shared/storage/session';
import { terminalId } from '@/shared/storage/terminal';

/**
 * `user/login`: account trimmed, password as SHA-256 hex, this browser's terminal id.
 * Errors: 5080 wrong account or password, 5052 disabled, 5082 throttled (msg names the minutes).
 */
export function login(account: string, password: string): Promise<LoginResponse> {
  return request(
    userEndpoints.login,
    { account: normaliseAccount(account), password: sha256Hex(password), terminalId: terminalId() },
    { skipAuth: true },
  );
}

/** `user/getUserInfo` with the login ticket: opens the session in `companyId`. */
export function openSession(login: LoginResponse, companyId: number): Promise<UserInfo> {
  return request(
    userEndpoints.getUserInfo,
    { userId: login.userId, companyId, terminalId: terminalId(), loginTicket: login.loginTicket },
    { skipAuth: true },
  );
}

/**
 * `user/getUserInfo` with X-Token: the latest user info and menu after a reload (spec §2 guard).
 * Session errors are left to the caller, which resets the token itself.
 */
export function fetchUserInfo(userId: number, companyId: number): Promise<UserInfo> {
  return request(
    userEndpoints.getUserInfo,
    { userId, companyId },
    { skipAuthHandling: true, errorText: 'none' },
  );
}

/** `user/getLanguageMenu`: the menu tree with titles in `language` ('zh' is sent as 'cn'). */
export async function fetchLanguageMenu(language: ServerLanguage): Promise<MenuItem[]> {
  const data = await request(userEndpoints.getLanguageMenu, { language });
  return data.menuList;
}

/**
 * `user/loginOut` {userId, terminalId}; failures are silent (logout proceeds anyway, spec §4).
 * `session` names a session that is not stored (yet), e.g. one refused for having no menu.
 */
export function logoutCall(session?: { userId: number; token: string }): Promise<unknown> {
  const userId = session?.userId ?? getCredentials().userId ?? undefined;
  return request(
    userEndpoints.loginOut,
    { userId, terminalId: terminalId() },
    { skipAuthHandling: true, errorText: 'none', token: session?.token },
  );
}

/** `user/getPermission`: the caller's permission strings; skips the usual auth handling (spec §6). */
export async function fetchPermissions(): Promise<string[]> {
  const data = await request(userEndpoints.getPermission, {}, { skipAuthHandling: true });
  return data.permissions;
}
