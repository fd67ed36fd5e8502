// Names a secrets key without revealing it: HMAC-SHA256 keyed with the key itself over a fixed label, cut to
// 16 hex digits. It is a value only the key can produce (a plain SHA-256 of the key is what anyone holding the
// key, or another system storing the same key, would compute, and ties the fingerprint to it); 64 bits reveal
// nothing usable about a 256-bit key, and are short enough to read in a log line or an error message.
import { createHmac } from 'node:crypto';

const LABEL = 'deployments-gateway: secrets key fingerprint, v1';
/** 16 hex digits (64 bits): ample to tell an operator's few keys apart. */
const LENGTH = 16;

export function keyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update(LABEL).digest('hex').slice(0, LENGTH);
}

/**
 * Recorded instead of a fingerprint on a row that no key opens (found damaged by a rotation, which cannot
 * re-encrypt it): it needs no key, and keeps no old key in use. Not hex, so never a real fingerprint.
 */
export const MARKED_UNREADABLE = 'unreadable';
