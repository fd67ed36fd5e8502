// The JSON Web Tokens a Docker distribution registry accepts (its token authentication specification): a JWS
// in compact form whose claims say who issued it (`iss`), for which registry (`aud`, its `service`), until when
// (`exp`), and which actions on which repositories it allows (`access`). Signed here with node:crypto: the
// service only ever signs (the registry verifies), and a compact JWS is three base64url parts, so a JWT library
// would add a dependency for twenty lines.
//
// How the registry finds the key: distribution 2.8 (registry/auth/token/token.go) takes the header's `kid` as a
// libtrust key ID and looks it up among the public keys of the certificates in its `rootcertbundle`. So the
// service needs only the private key; the registry needs a certificate of the same key (docs/operations.md
// #image-pushes shows the openssl line that makes one).
import { createHash, createPrivateKey, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';

/** One `access` entry: the actions allowed on one repository. */
export interface RegistryAccess {
  type: 'repository';
  name: string;
  actions: ('push' | 'pull')[];
}

export interface RegistryClaims {
  /** Who it was issued for (logged by the registry). */
  subject: string;
  access: RegistryAccess[];
  issuedAt: Date;
  expiresAt: Date;
}

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/**
 * libtrust's key ID: the SHA-256 of the public key's DER (SubjectPublicKeyInfo), its first 240 bits in base32
 * without padding, in groups of four joined by `:` (libtrust util.go, keyIDEncode).
 */
export function libtrustKeyId(publicKey: KeyObject): string {
  const digest = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest().subarray(0, 30);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let encoded = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      encoded += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return encoded.match(/.{4}/g)!.join(':');
}

export class RegistryTokenSigner {
  readonly keyId: string;
  readonly #key: KeyObject;
  readonly #algorithm: 'RS256' | 'ES256';
  readonly #issuer: string;
  readonly #audience: string;

  constructor(privateKeyPem: string, issuer: string, audience: string) {
    this.#key = createPrivateKey(privateKeyPem);
    this.#algorithm = this.#key.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256';
    this.keyId = libtrustKeyId(createPublicKey(this.#key));
    this.#issuer = issuer;
    this.#audience = audience;
  }

  sign({ subject, access, issuedAt, expiresAt }: RegistryClaims): string {
    const header = { typ: 'JWT', alg: this.#algorithm, kid: this.keyId };
    const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
    const claims = {
      iss: this.#issuer, sub: subject, aud: this.#audience, exp: seconds(expiresAt), nbf: seconds(issuedAt), iat: seconds(issuedAt),
      jti: randomUUID(), access,
    };
    const signed = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    // JWS wants ECDSA signatures as r‖s (IEEE P1363), not node's default DER.
    const signature = sign('sha256', Buffer.from(signed), { key: this.#key, dsaEncoding: 'ieee-p1363' });
    return `${signed}.${base64url(signature)}`;
  }
}
