// The shape of an API key: a recognisable prefix (so leaked keys are easy to grep for and scanners can
// flag them) followed by 256 random bits.
import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'dmk_';
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
const KEY_PATTERN = /^dmk_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; prefix: string; keyHash: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: displayPrefix(key), keyHash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  // One-shot: every request hashes its key (the cache is keyed by the hash), and a Hash object per call costs more.
  return hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Cheap shape check, so that garbage never costs a database round trip. */
export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
