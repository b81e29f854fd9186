/**
 * Opaque random tokens (256 bits, base64url) with a prefix naming their kind. Only their
 * SHA-256 digest is stored, so a database leak yields no usable token.
 */
import { createHash, randomBytes } from 'node:crypto';

export type TokenKind = 'at' | 'rt' | 'lt';

/** Shape of every token we issue: `<kind>_<43 base64url chars>`. */
export const TOKEN_PATTERN = /^(at|rt|lt)_[A-Za-z0-9_-]{43}$/;

/** A new token of `kind`: access (`at`), refresh (`rt`) or login ticket (`lt`). */
export function newToken(kind: TokenKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
