/**
 * The shared request client (spec §7, §8) and the session handshake's token refresh.
 *
 * - axios instance: base './', timeout 500000 ms, JSON; every call is `POST` with a JSON body.
 *   (index.html sets `<base href="/">`, so './api-bms/…' resolves from the site root on any route.)
 * - Headers: `X-Token` with the access token unless the call skips auth; `Accept-Language`
 *   'zh-CN' or 'en-US' per the UI language, so the server's `msg` and menu titles match.
 * - Calls name their endpoint from the contract's table (`request(touEndpoints.save, body)`):
 *   body and answer types are inferred from it; every signed-in call sends the user echo.
 * - Answers are `{code, msg, data}`; {@link request} resolves with `data` when `code` is 0 and
 *   rejects with {@link ApiError} otherwise, after the spec §8 handling:
 *   - 50014 (access token expired): one `user/refreshToken` shared by all calls failing at the
 *     same time, then the call is retried with the new token. If the refresh fails, its own
 *     code is handled as below.
 *   - -102, 9999: session and local storage cleared, reload after 100 ms.
 *   - 50008, 50012, 50014: one "You have been logged out…" confirm (Re-Login resets the token
 *     and reloads), never one per failed call.
 *   - 5058 (the password an administrator set must be changed first): no message; the
 *     listener of {@link onPasswordChangeRequired} opens the forced change-password dialog.
 *   - other codes: error message for 5 s, text per `errorText` (see {@link RequestOptions}).
 *   - network / HTTP errors: their message.
 * - An endpoint that answers a file (`file` set: the xlsx export) goes through
 *   {@link requestFile} instead, which streams it with progress.
 * - An endpoint whose body is a file (`upload` set: a firmware package) goes through
 *   {@link requestUpload}: the file as the raw body, the fields in the query string, progress.
 */
import {
  type ApiEnvelope,
  CLEAR_SESSION_CODES,
  type Endpoint,
  type EndpointRequest,
  type EndpointResponse,
  ErrorCode,
  isKnownCode,
  RELOGIN_CONFIRM_CODES,
  SUCCESS,
  TOKEN_HEADER,
  userEndpoints,
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
  const res = await client.post<ApiEnvelope<EndpointResponse<typeof userEndpoints.refreshToken>>>(
    userEndpoints.refreshToken.path,
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

let passwordChangeListener: (() => void) | null = null;

/**
 * Registers what to do when the server answers 5058 to a call (the session store marks the
 * user `mustChangePassword`, which opens the forced dialog); replaces an earlier listener.
 */
export function onPasswordChangeRequired(listener: () => void): void {
  passwordChangeListener = listener;
}

function handleFailure(code: number, serverMsg: string, config: RequestOptions): never {
  if (code === ErrorCode.PASSWORD_CHANGE_REQUIRED) {
    // The forced dialog says it once; the calls refused until then say nothing.
    passwordChangeListener?.();
    throw new ApiError(code, serverMsg);
  }
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

/** The small user echo sent along with every signed-in call (spec §7 "userInfo"; ignored by the server). */
export function userInfoEcho(): { userId: number | null; companyId: number | null } {
  const { userId, companyId } = getCredentials();
  return { userId, companyId };
}

/** `body` with the user echo, unless the call is a sign-in call or names its own echo. */
function withEcho(body: object, options: RequestOptions): object {
  if (options.skipAuth || 'userInfo' in body) return body;
  return { userInfo: userInfoEcho(), ...body };
}

/**
 * POST `body` to `endpoint` (an entry of the contract's endpoint table, e.g.
 * `touEndpoints.save`) and resolve with the answer's `data`, typed from the endpoint:
 * the body is `EndpointRequest<E>` (what the request schema accepts), the answer
 * `EndpointResponse<E>`. The user echo is added to every call except `skipAuth` ones.
 * @throws ApiError for a non-zero code (after the spec §8 handling), AxiosError for network
 * errors, TypeError for an endpoint that answers a file (use {@link requestFile}).
 */
export async function request<E extends Endpoint>(
  endpoint: E,
  body: EndpointRequest<E>,
  options: RequestOptions = {},
): Promise<EndpointResponse<E>> {
  if (endpoint.file) throw new TypeError(`${endpoint.path} answers a file: use requestFile`);
  const res = await client.post<ApiEnvelope<EndpointResponse<E>>>(
    endpoint.path,
    withEcho(body as object, options),
    options,
  );
  return res.data.data;
}

/** A file answered by an endpoint with `file` set. */
export interface FileAnswer {
  /** From `Content-Disposition` (RFC 5987 `filename*` first), null when it names none. */
  fileName: string | null;
  blob: Blob;
  /** The answer's headers (e.g. the export's `X-Export-Rows`). */
  headers: Headers;
}

export interface FileOptions {
  signal?: AbortSignal;
  /** Called when the answer starts (0 bytes) and after every chunk, with the bytes so far. */
  onProgress?: (bytes: number, headers: Headers) => void;
}

/** The file name of a `Content-Disposition` (RFC 5987 `filename*` first, then `filename`). */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"/i.exec(disposition) ?? /filename\s*=\s*([^;]+)/i.exec(disposition);
  return plain?.[1]?.trim() || null;
}

function postFile(path: string, body: object, token: string | null, signal?: AbortSignal): Promise<Response> {
  return fetch(`./${path.replace(/^\//, '')}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Accept-Language': localeOf(currentLang()),
      ...(token ? { [TOKEN_HEADER]: token } : {}),
    },
    body: JSON.stringify(withEcho(body, {})),
    signal,
  });
}

/**
 * POST `body` to an endpoint whose success is a file (`endpoint.file`, e.g. the xlsx export)
 * and resolve with the file once its last byte arrived. The body is read chunk by chunk through
 * `fetch` for the progress (the size is unknown until the end). A refusal is the usual JSON
 * envelope: an expired access token (50014) is refreshed once through the shared refresh and
 * the call repeated; any other code rejects with ApiError and shows nothing (the caller shows
 * it, e.g. with {@link failureText}).
 * @throws ApiError for a refusal; DOMException 'AbortError' when `signal` aborts; TypeError for
 * an endpoint without `file`, a network failure or a cut stream.
 */
export async function requestFile<E extends Endpoint>(
  endpoint: E,
  body: EndpointRequest<E>,
  { signal, onProgress }: FileOptions = {},
): Promise<FileAnswer> {
  const file = endpoint.file;
  if (!file) throw new TypeError(`${endpoint.path} answers an envelope: use request`);
  let token = getCredentials().token;
  let response = await postFile(endpoint.path, body as object, token, signal);
  for (let retried = false; ; retried = true) {
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('application/json')) break;
    const envelope = (await response.json()) as { code: number; msg: string };
    if (envelope.code === ErrorCode.ACCESS_TOKEN_EXPIRED && !retried) {
      token = await refreshExpiredToken(token);
      response = await postFile(endpoint.path, body as object, token, signal);
      continue;
    }
    throw new ApiError(envelope.code, envelope.msg);
  }
  if (!response.ok || !response.body) throw new TypeError(`HTTP ${response.status}`);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  onProgress?.(bytes, response.headers);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.length;
    onProgress?.(bytes, response.headers);
  }
  return {
    fileName: fileNameOf(response.headers.get('content-disposition')),
    blob: new Blob(chunks as BlobPart[], { type: response.headers.get('content-type') || file.mime }),
    headers: response.headers,
  };
}

export interface UploadOptions extends Pick<RequestOptions, 'errorText'> {
  signal?: AbortSignal;
  /** Called as the body goes out, with the bytes sent so far and the total (bytes). */
  onProgress?: (sent: number, total: number) => void;
}

/**
 * POST `file` as the raw body of an endpoint with `upload` set (contract define.ts: the body is
 * `endpoint.upload.mime`, streamed by the server; `query` — the request schema's fields, already
 * encoded, e.g. `firmwareUploadQuery(...)` — is the query string) and resolve with the answer's
 * `data`. Goes through the shared client, so the X-Token, the language, the expired-token
 * refresh (the file is sent again) and the spec §8 handling are the same as for JSON calls; no
 * timeout (a large file on a slow link may take longer than a call; `signal` aborts it).
 * @throws ApiError for a refusal; axios' CanceledError when `signal` aborts; TypeError for an
 * endpoint without `upload` or a file larger than its `maxBytes` (nothing is sent).
 */
export async function requestUpload<E extends Endpoint>(
  endpoint: E,
  query: string,
  file: Blob,
  { signal, onProgress, errorText }: UploadOptions = {},
): Promise<EndpointResponse<E>> {
  const upload = endpoint.upload;
  if (!upload) throw new TypeError(`${endpoint.path} takes JSON: use request`);
  if (file.size > upload.maxBytes)
    throw new TypeError(`${endpoint.path}: file larger than ${upload.maxBytes} bytes`);
  const res = await client.post<ApiEnvelope<EndpointResponse<E>>>(`${endpoint.path}?${query}`, file, {
    headers: { 'Content-Type': upload.mime },
    timeout: 0,
    signal,
    errorText,
    onUploadProgress: (e) => onProgress?.(e.loaded, e.total ?? file.size),
  });
  return res.data.data;
}
