/**
 * `%text%` for ILIKE with the caller's `%`, `_` and `\` taken literally (PostgreSQL's default
 * LIKE escape character is the backslash), so a search for "50%" finds "50%", not "50…".
 */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
