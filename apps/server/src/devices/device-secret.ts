/**
 * Gateway MQTT secrets: 256-bit random, shown once, stored as SHA-256 (a fast hash is enough
 * for a random secret of that size; there is nothing to brute-force).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret (43 base64url characters). */
export function newDeviceSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function deviceSecretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function verifyDeviceSecret(secret: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(deviceSecretHash(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
