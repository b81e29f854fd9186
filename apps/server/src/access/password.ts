/**
 * Password storage with salted scrypt (OWASP ASVS 5 / Password Storage Cheat Sheet:
 * N = 2^17, r = 8, p = 1). What is hashed is the browser's SHA-256 hex digest of the typed
 * password (spec §5 "hashed before sending"), so the plain password never reaches the server.
 *
 * Stored form: `scrypt$<logN>$<r>$<p>$<salt base64>$<key base64>`; the parameters travel with
 * each hash, so raising them later leaves old hashes verifiable.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function scryptAsync(secret: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128·N·r bytes; Node's default limit (32 MiB) is too small for N = 2^17.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { N, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Hash a browser password digest for storage. */
export async function hashPassword(passwordDigest: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(passwordDigest, salt, logN, R, P);
  return ['scrypt', logN, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Largest cost a stored hash may name (the configuration's SCRYPT_LOG_N allows 10–20). */
const MAX_LOG_N = 20;
/** Most memory one check may take (128·N·r bytes): 1 GiB, i.e. N = 2^20 with r = 8. */
const MAX_SCRYPT_MEMORY = 2 ** 30;

const isIntIn = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;

/**
 * Constant-time check of a digest against a stored hash; false for a malformed hash (wrong
 * shape, parameters out of range), so that a damaged row reads as a wrong password rather than
 * a server failure or an unbounded computation.
 */
export async function verifyPassword(passwordDigest: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6) return false;
  const [scheme, logNText, rText, pText, saltB64, keyB64] = parts;
  const [logN, r, p] = [Number(logNText), Number(rText), Number(pText)];
  if (scheme !== 'scrypt' || !saltB64 || !keyB64) return false;
  if (!isIntIn(logN, 1, MAX_LOG_N) || !isIntIn(r, 1, 32) || !isIntIn(p, 1, 16)) return false;
  if (128 * 2 ** logN * r > MAX_SCRYPT_MEMORY) return false;
  const expected = Buffer.from(keyB64, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  let key: Buffer;
  try {
    key = await scryptAsync(passwordDigest, Buffer.from(saltB64, 'base64'), logN, r, p);
  } catch {
    return false;
  }
  return timingSafeEqual(key, expected);
}

/** What the browser sends for a typed password: lower-case hex SHA-256 (spec §5). */
export function browserPasswordDigest(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('hex');
}

let dummyHash: Promise<string> | undefined;

/**
 * Spend the same time as a real check when the account does not exist, so that response time
 * does not reveal which accounts exist (5080 for both cases).
 */
export async function verifyAgainstDummy(passwordDigest: string, logN: number): Promise<false> {
  dummyHash ??= hashPassword(browserPasswordDigest('not-a-real-password'), logN);
  await verifyPassword(passwordDigest, await dummyHash);
  return false;
}
