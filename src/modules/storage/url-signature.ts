// The signatures of the built-in store's URLs (docs/decisions.md#source-archives): HMAC-SHA256 over the method,
// the object path, the expiry and (for a PUT) the size limit, with a key derived from the secrets key by HKDF
// under a label of its own. Every gateway sharing SECRETS_KEY verifies every other's URLs; during a rotation a
// URL signed under SECRETS_KEY_PREVIOUS still verifies. Signatures are compared in constant time.
import { createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';

/** HKDF's `info`: a key for these signatures only, never equal to the secrets key or to another use of it. */
const LABEL = 'deployments-gateway: object storage URL signatures, v1';
const SIGNATURE_BYTES = 32;

export type SignedMethod = 'PUT' | 'GET';

/** What a URL's signature covers. */
export interface SignedRequest {
  method: SignedMethod;
  path: string;
  /** Seconds since the epoch. */
  expires: number;
  /** A PUT's size limit; none for a GET. */
  maxBytes?: number;
}

/** Why a URL is refused, in words a client can act on; undefined when it is good. */
export type SignatureProblem = 'invalid' | 'expired';

const message = ({ method, path, expires, maxBytes }: SignedRequest) => `v1\n${method}\n${path}\n${expires}\n${maxBytes ?? ''}`;

export class UrlSigner {
  /** The current key first: it signs; all of them verify. */
  readonly #keys: Buffer[];

  /** `secretsKeys`: the secrets keys, the current one first (SecretCipher.keyRing's order). */
  constructor(secretsKeys: Iterable<KeyObject | Buffer>) {
    this.#keys = [...secretsKeys].map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), LABEL, SIGNATURE_BYTES)));
    if (this.#keys.length === 0) throw new Error('UrlSigner needs a key');
  }

  /** The signature, base64url. */
  sign(request: SignedRequest): string {
    return createHmac('sha256', this.#keys[0]!).update(message(request)).digest('base64url');
  }

  /** Undefined when `signature` is one of the keys' for `request` and `request.expires` is not past `now`. */
  verify(request: SignedRequest, signature: string, now = Date.now()): SignatureProblem | undefined {
    const given = Buffer.from(signature, 'base64url');
    // base64url decoding skips what is not base64url: only the canonical spelling of 32 bytes counts.
    if (given.length !== SIGNATURE_BYTES || given.toString('base64url') !== signature) return 'invalid';
    const text = message(request);
    let matches = false;
    for (const key of this.#keys) matches = timingSafeEqual(createHmac('sha256', key).update(text).digest(), given) || matches;
    if (!matches) return 'invalid';
    return request.expires * 1000 <= now ? 'expired' : undefined;
  }
}
