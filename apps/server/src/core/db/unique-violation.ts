/**
 * True when `err` is PostgreSQL's unique violation (23505) of `constraint`, on either driver
 * (node-postgres puts the fields on the error, Drizzle over PGlite on its `cause`).
 */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const inner = e.cause ?? e;
  return inner.code === '23505' && (inner.constraint === constraint || String(err).includes(constraint));
}
