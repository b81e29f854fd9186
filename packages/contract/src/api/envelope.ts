/**
 * The answer envelope of every call (spec §7, §8): HTTP 200 with `{code, msg, data}`;
 * `code` 0 is success, any other code is in the error catalogue.
 */
import { z } from 'zod';

export interface ApiEnvelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** zod schema of an envelope around `data`. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({ code: z.number().int(), msg: z.string(), data });
}

/** The prefix of every call (spec §7). */
export const API_PREFIX = '/api-bms';

/** Header that carries the access token (spec §7). */
export const TOKEN_HEADER = 'X-Token';

/**
 * The session's user info that the console sends along with calls (spec §7). The server never
 * trusts it: identity comes from the token alone. It is accepted and ignored.
 */
export const userInfoEcho = z.unknown().optional();
