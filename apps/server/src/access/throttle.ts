/**
 * Sign-in throttling (OWASP Authentication Cheat Sheet "account lockout"): failed
 * sign-ins are counted per account and per client address in a sliding window. Reaching the
 * limit locks that key for one window; a locked key answers 5082 naming the minutes left.
 * Counters live in the database so that every server instance sees the same counts.
 */
import { ErrorCode } from '@ess/contract';
import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../core/db/database';
import { loginThrottle } from '../core/db/schema';
import { ApiError } from '../core/http/api-error';

export interface ThrottleLimits {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowS: number;
}

export const accountKey = (account: string) => `acct:${account.toLowerCase()}`;
export const addressKey = (ip: string) => `ip:${ip}`;

/** Throws 5082 when the account or the address is locked. */
export async function assertNotThrottled(db: Db, keys: string[]): Promise<void> {
  const rows = await db
    .select({ lockedUntil: loginThrottle.lockedUntil })
    .from(loginThrottle)
    .where(inArray(loginThrottle.key, keys));
  const now = Date.now();
  const until = Math.max(0, ...rows.map((r) => r.lockedUntil?.getTime() ?? 0));
  if (until > now) {
    throw new ApiError(ErrorCode.LOGIN_THROTTLED, { minutes: Math.ceil((until - now) / 60_000) });
  }
}

/** Counts one failure against `key`, locking it when the window's count reaches `max`. */
export async function recordFailure(db: Db, key: string, max: number, windowS: number): Promise<void> {
  const windowExpired = sql`${loginThrottle.windowStartedAt} < now() - make_interval(secs => ${windowS})`;
  const nextCount = sql`CASE WHEN ${windowExpired} THEN 1 ELSE ${loginThrottle.failures} + 1 END`;
  await db
    .insert(loginThrottle)
    .values({
      key,
      failures: 1,
      lockedUntil: max <= 1 ? sql`now() + make_interval(secs => ${windowS})` : null,
    })
    .onConflictDoUpdate({
      target: loginThrottle.key,
      set: {
        failures: nextCount,
        windowStartedAt: sql`CASE WHEN ${windowExpired} THEN now() ELSE ${loginThrottle.windowStartedAt} END`,
        lockedUntil: sql`CASE WHEN ${nextCount} >= ${max} THEN now() + make_interval(secs => ${windowS}) ELSE ${loginThrottle.lockedUntil} END`,
      },
    });
}

/** Clears the counter of `key` (after a successful sign-in of that account). */
export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.delete(loginThrottle).where(inArray(loginThrottle.key, [key]));
}
