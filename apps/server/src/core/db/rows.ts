/**
 * Rows of a raw `db.execute(sql…)` on either driver: node-postgres answers `{rows}`, PGlite's
 * Drizzle driver answers `{rows}` too, some paths an array.
 */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

/** A numeric column of a raw row (numbers may come as strings): null stays null. */
export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** A numeric column of a raw row; null counts as 0 (sums, counts). */
export function numOrZero(v: unknown): number {
  return v === null || v === undefined ? 0 : Number(v);
}
