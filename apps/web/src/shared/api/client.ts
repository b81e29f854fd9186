/**
 * The shared request client (spec §7, §8) and the session handshake's token refresh.
 *
 * - axios instance: base './', timeout 500000 ms, JSON; every call is `POST` with a JSON body.
 *   (index.html sets `<base href="/">`, so './api-bms/…' resolves from the site root on any route.)
 * - Headers: `X-Token` with the access token unless the call skips auth; `Accept-Language`
 *   'zh-CN' or 'en-US' per the UI language, so the server's `msg` and menu titles match.
 * - Answers are `{code, msg, data}`; {@link request} resolves with `data` when `code` is 0 and
 *   rejects with {@link ApiError} otherwise, after the spec §8 handling:
 *   - 50014 (access token expired): one `user/refreshToken` shared by all calls failing at the
 *     same time, then the call is retried with the new token. If the refresh fails, its own
 *     code is handled as below.
 *   - -102, 9999: session and local storage cleared, reload after 100 ms.
 *   - 50008, 50012, 50014: one "You have been logged out…" confirm (Re-Login resets the token
 *     and reloads), never one per failed call.
 *   - other codes: error message for 5 s, text per `errorText` (see {@link RequestOptions}).
 *   - network / HTTP errors: their message.
 */
import {
  type ApiEnvelope,
  ApiPath,
  CLEAR_SESSION_CODES,
  ErrorCode,
  isKnownCode,
  RELOGIN_CONFIRM_CODES,
  type RefreshTokenResponse,
  SUCCESS,
  TOKEN_HEADER,
} from '@ess/contract';
import axios, { type AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { EXPIRED_RELOAD_DELAY_MS, REQUEST_TIMEOUT_MS } from '../config';
import { confirmDialog, showError } from '../feedback';
import { catalogueText, currentLang, i18n, localeOf } from '../i18n';
import { getCredentials, resetSession, setCredentials } from '../storage/session';
import { terminalId } from '../storage/terminal';
import { ApiError } from './errors';

/**
 * How a call's failure is shown.
 * - `catalogue` (default): the catalogue text of a known code, else 'Error'; for -100 and 5082
 *   the server's msg, which names the field / the minutes.
 * - `server`: the server's msg (spec §8: the account dialogs show it).
 * - `none`: nothing; the caller shows what it needs.
 */
export type ErrorText = 'catalogue' | 'server' | 'none';

export interface RequestOptions {
  /** Send no X-Token and never refresh (sign-in calls). */
  skipAuth?: boolean;
  /**
   * Refresh an expired token as usual, but skip the session handling of -102/9999/50008/50012/
   * 50014 (spec §6 `getPermission`; the guard's user-info call, which resets itself).
   */
  skipAuthHandling?: boolean;
  errorText?: ErrorText;
  /** Send this token instead of the stored one (a session not stored yet). */
  token?: string;
}

declare module 'axios' {
  interface AxiosRequestConfig extends RequestOptions {
    /** Internal: the token this call was sent with. */
    essToken?: string | null;
    /** Internal: this call is the retry after a refresh. */
    essRetried?: boolean;
    /** Internal: this call is the refresh itself. */
    essRefresh?: boolean;
  }
}

/** The axios instance shared by every call (spec §7). */
export const client = axios.create({
  baseURL: './',
  timeout: REQUEST_TIMEOUT_MS,
  headers: { 'Content-Type': 'application/json' },
});

client.interceptors.request.use((config: InternalAxiosRequestConfig) => {
  config.headers.set('Accept-Language', localeOf(currentLang()));
  const token = config.token ?? getCredentials().token;
  config.essToken = token;
  if (token && !config.skipAuth) config.headers.set(TOKEN_HEADER, token);
  else config.headers.delete(TOKEN_HEADER);
  return config;
});

function isEnvelope(body: unknown): body is ApiEnvelope<unknown> {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'number';
}

// ---- token refresh (handshake step 5) ------------------------------------------------------

let refreshing: Promise<void> | null = null;

async function doRefresh(): Promise<void> {
  const { userId, refreshToken } = getCredentials();
  if (!userId || !refreshToken) throw new ApiError(ErrorCode.ACCESS_TOKEN_EXPIRED, '');
  const res = await client.post<ApiEnvelope<RefreshTokenResponse>>(
    ApiPath.refreshToken,
    { userId, terminalId: terminalId(), refreshToken },
    { skipAuth: true, essRefresh: true },
  );
  const { token, refreshToken: next, tokenExpiresAt } = res.data.data;
  setCredentials({ token, refreshToken: next, tokenExpiresAt });
}

/** Refresh the access token once for every caller waiting at the same time. */
function refreshAccessToken(): Promise<void> {
  refreshing ??= doRefresh().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * For connections that carry the token themselves (the live WebSocket): after the server
 * refused `usedToken` as expired (50014), get a fresh access token through the same shared
 * refresh as the HTTP calls. No refresh happens when another caller already replaced
 * `usedToken` (refresh tokens are single-use). Resolves with the token to use now.
 * @throws ApiError when the refresh fails, after the spec §8 handling of its code (relogin
 * confirm, or session reset and reload).
 */
export async function refreshExpiredToken(usedToken: string | null): Promise<string> {
  try {
    if (!usedToken || usedToken === getCredentials().token) await refreshAccessToken();
  } catch (err) {
    // As for HTTP calls: another tab may have refreshed first; use the token it stored.
    const stored = getCredentials().token;
    if (stored && stored !== usedToken) return stored;
    if (err instanceof ApiError) handleFailure(err.code, err.serverMsg, { errorText: 'none' });
    throw err;
  }
  const token = getCredentials().token;
  if (!token) throw new ApiError(ErrorCode.ACCESS_TOKEN_EXPIRED, '');
  return token;
}

// ---- spec §8 handling ----------------------------------------------------------------------

let reloginOpen = false;
let reloadScheduled = false;

/** One "logged out" confirm at a time, however many calls fail (spec §8). */
async function askRelogin(): Promise<void> {
  if (reloginOpen) return;
  reloginOpen = true;
  const relogin = await confirmDialog({
    title: i18n.t('relogin.title'),
    content: i18n.t('relogin.content'),
    okText: i18n.t('relogin.ok'),
    cancelText: i18n.t('relogin.cancel'),
  });
  reloginOpen = false;
  if (relogin) {
    resetSession();
    window.location.reload();
  }
}

/** -102 / 9999: clear the session and local storage, reload after 100 ms (spec §8). */
function expireSession(): void {
  if (reloadScheduled) return;
  reloadScheduled = true;
  resetSession();
  window.setTimeout(() => window.location.reload(), EXPIRED_RELOAD_DELAY_MS);
}

/** The message shown for a failed call (spec §8). */
export function failureText(code: number, serverMsg: string, mode: ErrorText = 'catalogue'): string {
  if (mode === 'server') return serverMsg || catalogueText(code);
  if (code === ErrorCode.PARAM_ERROR || code === ErrorCode.LOGIN_THROTTLED) {
    return serverMsg || catalogueText(code);
  }
  return isKnownCode(code) ? catalogueText(code) : i18n.t('common.error');
}

function handleFailure(code: number, serverMsg: string, config: RequestOptions): never {
  if (!config.skipAuthHandling && CLEAR_SESSION_CODES.includes(code)) expireSession();
  else if (!config.skipAuthHandling && RELOGIN_CONFIRM_CODES.includes(code)) void askRelogin();
  else if (!CLEAR_SESSION_CODES.includes(code) && !RELOGIN_CONFIRM_CODES.includes(code)) {
    if (config.errorText !== 'none') showError(failureText(code, serverMsg, config.errorText));
  }
  throw new ApiError(code, serverMsg);
}

async function onAnswer(response: AxiosResponse): Promise<AxiosResponse> {
  const body: unknown = response.data;
  const config = response.config;
  if (!isEnvelope(body)) {
    if (config.errorText !== 'none') showError(i18n.t('common.error'));
    throw new ApiError(ErrorCode.SYSTEM_ERROR, 'invalid answer');
  }
  if (body.code === SUCCESS) return response;
  if (config.essRefresh) throw new ApiError(body.code, body.msg);

  if (body.code === ErrorCode.ACCESS_TOKEN_EXPIRED && !config.skipAuth && !config.essRetried) {
    try {
      // Another call may have refreshed already while this one was in flight.
      if (!config.essToken || config.essToken === getCredentials().token) await refreshAccessToken();
    } catch (err) {
      // Another tab of this browser may have refreshed first (the server then refuses this
      // tab's now-rotated refresh token): use the tokens it stored.
      const stored = getCredentials().token;
      if (stored && stored !== config.essToken) return client.request({ ...config, essRetried: true });
      if (err instanceof ApiError) return handleFailure(err.code, err.serverMsg || body.msg, config);
      if (config.errorText !== 'none') showError((err as Error).message);
      throw err;
    }
    // The retry passes through these interceptors itself and is handled there.
    return client.request({ ...config, essRetried: true });
  }
  return handleFailure(body.code, body.msg, config);
}

async function onError(error: AxiosError): Promise<never> {
  if (axios.isCancel(error)) throw error;
  const config: RequestOptions & { essRefresh?: boolean } = error.config ?? {};
  const body: unknown = error.response?.data;
  if (isEnvelope(body) && body.code !== SUCCESS) {
    if (config.essRefresh) throw new ApiError(body.code, body.msg);
    return handleFailure(body.code, body.msg, config);
  }
  if (!config.essRefresh && config.errorText !== 'none') showError(error.message);
  throw error;
}

client.interceptors.response.use(onAnswer, onError);

/**
 * POST `body` to `path` (an `ApiPath`) and resolve with the answer's `data`.
 * @throws ApiError for a non-zero code (after the spec §8 handling), AxiosError for network errors.
 */
export async function request<T>(path: string, body: object = {}, options: RequestOptions = {}): Promise<T> {
  const res = await client.post<ApiEnvelope<T>>(path, body, options);
  return res.data.data;
}
