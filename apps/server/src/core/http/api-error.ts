/**
 * The one way a handler reports a business failure: `throw new ApiError(code, params)`.
 * The error handler turns it into `{code, msg, data: null}` with HTTP 200 and the catalogue
 * text in the caller's language (spec §8).
 */
import type { ErrorCodeValue } from '@ess/contract';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    /** Values for `{placeholders}` of the catalogue text. */
    readonly params: Record<string, string | number> = {},
    /** Extra detail appended to the message (e.g. the field named by a -100). */
    readonly detail?: string,
  ) {
    super(`API error ${code}${detail ? `: ${detail}` : ''}`);
  }
}
