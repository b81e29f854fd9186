/**
 * What a page keeps in its address (`?siteId=…&tab=…`): the language switch reloads the page
 * (spec §4) and a shared link opens the same view only when the picks live there, not in state.
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/** A positive integer id from a search parameter (`'12'` → 12), else undefined. */
export function idParam(raw: string | null): number | undefined {
  const id = Number(raw);
  return raw && Number.isInteger(id) && id > 0 ? id : undefined;
}

/**
 * The page's search parameters and a setter of several at once: `undefined` removes a key, a
 * number or string sets it; the other keys stay. The change replaces the history entry (a pick
 * is not a step the Back button should undo).
 */
export function useSearchPicks(): [
  URLSearchParams,
  (picks: Record<string, number | string | undefined>) => void,
] {
  const [params, setParams] = useSearchParams();
  const pick = useCallback(
    (picks: Record<string, number | string | undefined>) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [key, value] of Object.entries(picks)) {
            if (value === undefined) next.delete(key);
            else next.set(key, String(value));
          }
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [params, pick];
}
