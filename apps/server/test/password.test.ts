/**
 * Password storage (auth/password.ts): salted scrypt over the browser's SHA-256 digest, with the
 * parameters stored next to each hash.
 */
import { describe, expect, it } from 'vitest';
import {
  browserPasswordDigest,
  hashPassword,
  verifyAgainstDummy,
  verifyPassword,
} from '../src/access/password';
import { TEST_SCRYPT_LOG_N } from './support/test-app';

const STORED_FORM = /^scrypt\$(\d+)\$8\$1\$([A-Za-z0-9+/]{22}==)\$([A-Za-z0-9+/]{43}=)$/;

describe('password storage', () => {
  it('the browser digest is lower-case hex SHA-256 of the UTF-8 password', () => {
    expect(browserPasswordDigest('admin123')).toBe(
      '240be518fabd2724ddb6f04eeb1da5967448d7e831c08c8fa822809f74c720a9',
    );
    expect(browserPasswordDigest('密码123')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes with the production cost (N = 2^17) as scrypt$17$8$1$salt$key and verifies', async () => {
    const digest = browserPasswordDigest('correct horse');
    const stored = await hashPassword(digest, 17);
    expect(stored).toMatch(STORED_FORM);
    expect(stored.match(STORED_FORM)?.[1]).toBe('17');
    expect(stored).not.toContain(digest);
    expect(await verifyPassword(digest, stored)).toBe(true);
  });

  it('salts every hash', async () => {
    const digest = browserPasswordDigest('same');
    const [a, b] = await Promise.all([
      hashPassword(digest, TEST_SCRYPT_LOG_N),
      hashPassword(digest, TEST_SCRYPT_LOG_N),
    ]);
    expect(a).not.toBe(b);
    expect(await verifyPassword(digest, a!)).toBe(true);
    expect(await verifyPassword(digest, b!)).toBe(true);
  });

  it('a wrong digest does not verify', async () => {
    const stored = await hashPassword(browserPasswordDigest('right'), TEST_SCRYPT_LOG_N);
    expect(await verifyPassword(browserPasswordDigest('wrong'), stored)).toBe(false);
    expect(await verifyPassword(browserPasswordDigest('right').toUpperCase(), stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('an older hash keeps verifying with its own parameters', async () => {
    const digest = browserPasswordDigest('legacy');
    const stored = await hashPassword(digest, 11);
    expect(stored.startsWith('scrypt$11$')).toBe(true);
    expect(await verifyPassword(digest, stored)).toBe(true);
  });

  describe('a malformed stored hash answers false, never throws', async () => {
    const digest = browserPasswordDigest('admin123');
    const good = await hashPassword(digest, TEST_SCRYPT_LOG_N);
    const [, , , , salt, key] = good.split('$');
    it.each([
      ['empty', ''],
      ['plain text', 'admin123'],
      ['another scheme', `bcrypt$12$8$1$${salt}$${key}`],
      ['no salt and key', 'scrypt$12$8$1$$'],
      ['no key', `scrypt$12$8$1$${salt}$`],
      ['truncated key', `scrypt$12$8$1$${salt}$${key!.slice(0, 20)}`],
      ['non-numeric cost', `scrypt$abc$8$1$${salt}$${key}`],
      ['fractional cost', `scrypt$12.5$8$1$${salt}$${key}`],
      ['negative cost', `scrypt$-3$8$1$${salt}$${key}`],
      ['zero cost', `scrypt$0$8$1$${salt}$${key}`],
      ['cost beyond the supported range', `scrypt$40$8$1$${salt}$${key}`],
      ['empty parameters', `scrypt$$$$${salt}$${key}`],
      ['zero block size', `scrypt$12$0$1$${salt}$${key}`],
      ['a sixth field', `scrypt$12$8$1$${salt}$${key}$extra`],
    ])('%s', async (_label, stored) => {
      await expect(verifyPassword(digest, stored)).resolves.toBe(false);
    });

    it('while the well-formed one verifies', async () => {
      expect(await verifyPassword(digest, good)).toBe(true);
    });
  });

  it('the dummy check for unknown accounts answers false', async () => {
    expect(await verifyAgainstDummy(browserPasswordDigest('not-a-real-password'), TEST_SCRYPT_LOG_N)).toBe(
      false,
    );
  });
});
