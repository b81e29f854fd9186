/**
 * What kind of failure a database error is, on either driver (node-postgres' `DatabaseError` and
 * PGlite's error both carry the SQLSTATE in `code`; Drizzle wraps them in a `DrizzleQueryError`
 * whose `cause` is the driver's error).
 */

/** SQLSTATE classes that mean "the data of this statement cannot be stored", whatever is retried. */
const DATA_CLASSES = new Set([
  '22', // data exception: bad JSON or Unicode escape (22P02, 22P05), NUL in text (22021), overflow (22003)
  '23', // integrity constraint violation: NOT NULL, unique, check, foreign key
  '54', // program limit exceeded: value or row too large, too many columns
]);

/** The five-character SQLSTATE of `err` (or of the error it wraps); undefined when there is none. */
export function sqlState(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * True when `err` is PostgreSQL refusing the data itself (SQLSTATE class 22, 23 or 54): writing the
 * same rows again fails the same way. Everything else — connection lost or refused (ECONNREFUSED,
 * class 08), timeouts, shutdowns (57P), serialization failures (40), resource shortages (53) — is a
 * failure of the database, worth retrying.
 */
export function isDataError(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && DATA_CLASSES.has(state.slice(0, 2));
}

/** The database's own message for `err` (the wrapped driver error's, not Drizzle's query text). */
export function sqlErrorMessage(err: unknown): string {
  for (
    let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (typeof e.code === 'string' && typeof e.message === 'string') return e.message;
    e = e.cause as typeof e;
  }
  return err instanceof Error ? err.message : String(err);
}
