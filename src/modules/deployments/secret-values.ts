// The secrets of a page with their values decrypted, for a key with the read-secrets scope that selects them:
// the rows of the page's one statement for its secrets and secret references, then every value of the page in
// one batch of the revealer (values kept decrypted for the tenant answer at once; a page's worth of the rest is
// deciphered on the cipher's decryption thread, off the thread that serves every request). Each row carries its outcome, so that `Secret.value` resolves at once: a
// promise per value cost the serving thread more than deciphering them elsewhere saved.
import type { ListedSecret, SecretRevealer } from '../secrets/secret-revealer.ts';
import type { SecretReadModel } from './deployment-read-model.ts';

/** The column `Secret.value` declares: the selection asks for values when it is among the selected columns. */
export const VALUE_COLUMN = 'value_ciphertext';

/** Decrypts the value of each secret row not decrypted yet, in one batch, and sets it (or why it has none) on the row. */
export async function revealValues(revealer: SecretRevealer, secrets: SecretReadModel[]): Promise<void> {
  const pending = secrets.filter((secret): secret is SecretReadModel & ListedSecret => secret.revealed === undefined && secret.value_ciphertext != null);
  const outcomes = await revealer.decryptMany(pending);
  pending.forEach((secret, i) => (secret.revealed = outcomes[i]));
}
