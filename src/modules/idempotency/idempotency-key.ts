// The pure half of idempotency keys: reading the `Idempotency-Key` header and fingerprinting a request.
import { createHash } from 'node:crypto';

/** The request header that carries the key (as node:http and Fetch headers name it). */
export const IDEMPOTENCY_KEY = 'idempotency-key';

/** Longest key accepted (after unquoting); longer ones are refused rather than truncated, which could merge two. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type ParsedIdempotencyKey = { key: string } | { problem: string };

// A bare key: printable ASCII without spaces or quotes (a UUID, a token). In an sf-string (RFC 8941 §3.3.3)
// spaces are allowed too, and `"` and `\` only escaped.
const BARE_KEY = /^[\x21\x23-\x7e]+$/;

/**
 * The key of an `Idempotency-Key` header value. The draft makes the value a Structured Field string
 * (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`), while many clients send the bare value: both are accepted.
 * A problem (for a 400) when the value is empty, too long or not one string.
 */
export function parseIdempotencyKey(header: string): ParsedIdempotencyKey {
  const value = header.trim();
  const key = value.startsWith('"') ? unquoted(value) : value;
  if (typeof key === 'object') return key;
  if (key.length === 0) return { problem: 'The Idempotency-Key header is empty.' };
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return { problem: `The Idempotency-Key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.` };
  }
  if (!value.startsWith('"') && !BARE_KEY.test(key)) {
    return { problem: 'The Idempotency-Key must be one value of printable ASCII characters without spaces, or a quoted string.' };
  }
  return { key };
}

/** An sf-string's content; parameters after it (`"k";a=1`) are ignored, as RFC 8941 has unknown ones be. */
function unquoted(value: string): string | { problem: string } {
  let key = '';
  for (let i = 1; i < value.length; i++) {
    const char = value[i]!;
    if (char === '"') {
      const rest = value.slice(i + 1);
      if (rest === '' || rest.startsWith(';')) return key;
      return { problem: 'The Idempotency-Key must be one quoted string.' };
    }
    if (char === '\\') {
      const escaped = value[++i];
      if (escaped !== '"' && escaped !== '\\') return { problem: 'The Idempotency-Key string may only escape `"` and `\\`.' };
      key += escaped;
    } else if (char < ' ' || char > '~') {
      return { problem: 'The Idempotency-Key string may only hold printable ASCII characters.' };
    } else {
      key += char;
    }
  }
  return { problem: 'The Idempotency-Key string has no closing quote.' };
}

/**
 * SHA-256 (hex) of the method, the path and the body: what makes a retry "the same request". The method and
 * path end at a newline, which neither can contain, so no two requests share the hashed bytes. No body and an
 * empty body are the same request.
 */
export function fingerprintOf(method: string, path: string, body: Buffer | undefined): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()}\n${path}\n`);
  if (body) hash.update(body);
  return hash.digest('hex');
}
