// What decrypts secret values for one caller that may read them, in one tenant: the values kept decrypted for
// that tenant (decrypted-values-cache.ts) first, the cipher for the rest, which are then kept. A caller without
// the read-secrets scope gets no revealer, so it can neither read nor fill the cache.
import { NO_SINGLE_TENANT, type Principal } from '../tenancy/authenticate.ts';
import { entryKey, type DecryptedValuesCache } from './decrypted-values-cache.ts';
import type { SecretCipher, SecretDecryptionError, StoredSecret } from './secret-cipher.ts';

export class SecretRevealer {
  readonly cipher: SecretCipher;
  readonly #tenantId: string;
  readonly #cache: DecryptedValuesCache | undefined;

  constructor(cipher: SecretCipher, tenantId: string, cache: DecryptedValuesCache | undefined) {
    this.cipher = cipher;
    this.#tenantId = tenantId;
    this.#cache = cache;
  }

  /** As SecretCipher.decryptMany: each secret's plaintext, or why it cannot be decrypted. */
  async decryptMany(secrets: readonly StoredSecret[]): Promise<(string | SecretDecryptionError)[]> {
    const cache = this.#cache;
    if (!cache?.active || secrets.length === 0) return this.cipher.decryptMany(secrets);
    const generation = cache.generation;
    const now = Date.now();
    const keys = secrets.map((secret) => entryKey(this.#tenantId, secret));
    const outcomes: (string | SecretDecryptionError | undefined)[] = keys.map((key) => cache.get(key, now));
    const missing: number[] = [];
    outcomes.forEach((outcome, i) => outcome === undefined && missing.push(i));
    if (missing.length > 0) {
      const decrypted = await this.cipher.decryptMany(missing.map((i) => secrets[i]!));
      const filled = Date.now();
      missing.forEach((i, j) => {
        const outcome = decrypted[j]!;
        outcomes[i] = outcome;
        // Only what decrypted: a failure is deciphered (and reported) again each time it is asked for.
        if (typeof outcome === 'string') cache.set(keys[i]!, outcome, generation, filled);
      });
    }
    return outcomes as (string | SecretDecryptionError)[];
  }
}

/** The caller's revealer, or null when it may not see secret values. */
export function revealerFor(principal: Principal, cipher: SecretCipher, cache: DecryptedValuesCache | undefined): SecretRevealer | null {
  if (!principal.mayReadSecrets) return null;
  // A data plane acting for several tenants reads no tenant's rows; it gets no cache to be sure.
  return new SecretRevealer(cipher, principal.tenantId, principal.tenantId === NO_SINGLE_TENANT ? undefined : cache);
}
