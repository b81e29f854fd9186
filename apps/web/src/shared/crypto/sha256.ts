/**
 * Password hashing before sending (spec §5: "the password hashed before sending"): SHA-256 of
 * the UTF-8 text as 64 lower-case hex digits (contract `PASSWORD_HASH_PATTERN`). Uses
 * @noble/hashes because WebCrypto is missing on plain-HTTP origins.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Lower-case hex SHA-256 of `text`, e.g. sha256Hex('abc') = 'ba7816bf…15ad'. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
