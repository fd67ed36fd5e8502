// What decrypts secret values for one caller that may read them, in one tenant: the values kept decrypted for
// that tenant (decrypted-values-cache.ts) first, the cipher for the rest, which are then kept. A caller without
// the read-secrets scope gets no revealer, so it can neither read nor fill the cache.
import { NO_SINGLE_TENANT, type Principal } from '../tenancy/authenticate.ts';
import type { DecryptedValuesCache, ListedSecret } from './decrypted-values-cache.ts';
import type { SecretCipher, SecretDecryptionError, StoredSecret } from './secret-cipher.ts';

export type { ListedSecret } from './decrypted-values-cache.ts';

/** What the cipher decrypts: the row's bytes (decoded from the listing's base64 only for a value not kept). */
const storedSecret = (row: ListedSecret): StoredSecret => ({
  stored: Buffer.from(row.value_ciphertext, 'base64'),
  slot: { deploymentId: row.deployment_id, name: row.name },
  keyFingerprint: row.key_fingerprint ?? null,
});

export class SecretRevealer {
  readonly cipher: SecretCipher;
  readonly #tenantId: string;
  readonly #cache: DecryptedValuesCache | undefined;

  constructor(cipher: SecretCipher, tenantId: string, cache: DecryptedValuesCache | undefined) {
    this.cipher = cipher;
    this.#tenantId = tenantId;
    this.#cache = cache;
  }

  /** Each listed secret's plaintext, or why it cannot be decrypted (as SecretCipher.decryptMany). */
  async decryptMany(secrets: readonly ListedSecret[]): Promise<(string | SecretDecryptionError)[]> {
    const cache = this.#cache?.active ? this.#cache : undefined;
    const generation = cache?.generation ?? 0;
    const outcomes = new Array<string | SecretDecryptionError>(secrets.length);
    const missing: number[] = [];
    const now = Date.now();
    for (let i = 0; i < secrets.length; i++) {
      const kept = cache?.get(this.#tenantId, secrets[i]!, now);
      if (kept === undefined) missing.push(i);
      else outcomes[i] = kept;
    }
    if (missing.length === 0) return outcomes;
    const decrypted = await this.cipher.decryptMany(missing.map((i) => storedSecret(secrets[i]!)));
    const filled = Date.now();
    missing.forEach((i, j) => {
      const outcome = decrypted[j]!;
      outcomes[i] = outcome;
      // Only what decrypted: a failure is deciphered (and reported) again each time it is asked for.
      if (cache && typeof outcome === 'string') cache.set(this.#tenantId, secrets[i]!, outcome, generation, filled);
    });
    return outcomes;
  }
}

/** The caller's revealer, or null when it may not see secret values. */
export function revealerFor(principal: Principal, cipher: SecretCipher, cache: DecryptedValuesCache | undefined): SecretRevealer | null {
  if (!principal.mayReadSecrets) return null;
  // A data plane acting for several tenants reads no tenant's rows; it gets no cache to be sure.
  return new SecretRevealer(cipher, principal.tenantId, principal.tenantId === NO_SINGLE_TENANT ? undefined : cache);
}
