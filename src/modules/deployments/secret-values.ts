// The values of the secrets one request reveals, decrypted together: every `value` a page selects is asked
// for in the same tick, and the batch goes to the cipher at once (a page's worth on its decryption thread).
import DataLoader from 'dataloader';
import type { SecretCipher, SecretDecryptionError } from '../secrets/secret-cipher.ts';
import type { SecretRow } from './deployment-row.ts';

/** A secret's plaintext; rejects with the SecretDecryptionError of a value that cannot be decrypted. */
export type SecretValues = DataLoader<SecretRow & { value_ciphertext: Buffer }, string>;

export function secretValues(cipher: SecretCipher): SecretValues {
  // DataLoader rejects the load of a key whose result is an Error: the value that cannot be decrypted.
  return new DataLoader<SecretRow & { value_ciphertext: Buffer }, string>(
    (secrets) => cipher.decryptMany(secrets.map((secret) => ({
      stored: secret.value_ciphertext, slot: { deploymentId: secret.deployment_id, name: secret.name }, keyFingerprint: secret.key_fingerprint ?? null,
    }))) as Promise<(string | SecretDecryptionError)[]>,
    // Each row object once (a secret selected twice, by aliases, is decrypted once).
    { cache: true },
  );
}
