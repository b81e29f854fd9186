/**
 * Error thrown for an answer whose `code` is not 0 (spec §8). By the time a caller sees it the
 * client has already done the spec's handling (message, confirm dialog, session reset) unless
 * the call asked otherwise (see client.ts `RequestOptions`).
 */
export class ApiError extends Error {
  /** Answer code from the catalogue (contract `ErrorCode`), or one not in it. */
  readonly code: number;
  /** The server's `msg`, already in the request's language. */
  readonly serverMsg: string;

  constructor(code: number, serverMsg: string) {
    super(serverMsg || `code ${code}`);
    this.name = 'ApiError';
    this.code = code;
    this.serverMsg = serverMsg;
  }
}

/** True when `err` is an answer with a non-zero code. */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
