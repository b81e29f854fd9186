/**
 * Local-storage helpers that never throw (storage can be disabled or full); values are strings.
 */

/** The stored string, or null when absent or storage is unavailable. */
export function readLocal(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Store a string; silently ignored when storage is unavailable. */
export function writeLocal(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // storage disabled or full: the value just does not persist
  }
}

/** Remove one key. */
export function removeLocal(key: string): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // nothing to remove
  }
}

/** Remove every key except `keep` (spec §4 "clears local storage"; device preferences stay). */
export function clearLocal(keep: readonly string[]): void {
  try {
    const storage = window.localStorage;
    for (const key of Object.keys(storage)) if (!keep.includes(key)) storage.removeItem(key);
  } catch {
    // storage unavailable
  }
}
