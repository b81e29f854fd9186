/**
 * Rows of a raw `db.execute(sql…)` on either driver: node-postgres answers `{rows}`, PGlite's
 * Drizzle driver answers `{rows}` too, some paths an array.
 */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}
