/**
 * This browser's terminal id: 16 random bytes as 22 base64url characters, created on first use
 * and kept in local storage across sessions (contract `terminalIdSchema`: 8–64 of [A-Za-z0-9_-]).
 * Uses `crypto.getRandomValues`, which also works on plain-HTTP origins.
 */
import { TERMINAL_ID_PATTERN } from '@ess/contract';
import { LocalKey } from './keys';
import { readLocal, writeLocal } from './local';

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

let cached: string | null = null;

/** The terminal id of this browser (created and stored when missing or malformed). */
export function terminalId(): string {
  if (cached) return cached;
  const stored = readLocal(LocalKey.terminalId);
  cached = stored && TERMINAL_ID_PATTERN.test(stored) ? stored : randomId();
  if (cached !== stored) writeLocal(LocalKey.terminalId, cached);
  return cached;
}
