/**
 * Cookie helpers over js-cookie. Cookies are path '/', SameSite=Lax, and last a year unless
 * said otherwise.
 */
import Cookies from 'js-cookie';

/** The cookie's value, or undefined. */
export function readCookie(name: string): string | undefined {
  return Cookies.get(name);
}

/** Set a cookie for `days` days (default 365). */
export function writeCookie(name: string, value: string, days = 365): void {
  Cookies.set(name, value, { path: '/', sameSite: 'Lax', expires: days });
}

/** Remove every cookie readable by the page except `keep` (spec §4 "clears cookies"). */
export function clearCookies(keep: readonly string[]): void {
  for (const name of Object.keys(Cookies.get())) {
    if (!keep.includes(name)) Cookies.remove(name, { path: '/' });
  }
}
