// `npm run secrets -- check`: tries every configured key on every stored secret and counts what each one
// opens. It reads in batches without locking anything, and reports counts and fingerprints only: no value,
// and no name of a secret that opens.
import type { AppOrm } from '../../db/orm-config.ts';
import type { UnreadableSecret } from './key-rotation.ts';
import type { SecretCipher } from './secret-cipher.ts';
import { BEFORE_EVERY_ID, type StoredSecretRow } from './stored-keys.ts';

type EntityManager = AppOrm['em'];

export interface KeyCheck {
  total: number;
  /** Per configured key (by fingerprint, the current one first): how many stored secrets it opens. */
  opens: Map<string, number>;
  /** Opened by some configured key, but not by the current one: what a rotation would rewrite. */
  notUnderCurrent: number;
  /** Opened by no configured key. */
  unreadable: UnreadableSecret[];
}

const BATCH = 1000;

export async function checkSecrets(em: EntityManager, cipher: SecretCipher | undefined): Promise<KeyCheck> {
  const check: KeyCheck = { total: 0, opens: new Map(cipher?.fingerprints.map((fingerprint) => [fingerprint, 0])), notUnderCurrent: 0, unreadable: [] };
  for (let after = BEFORE_EVERY_ID; ;) {
    const rows = await em.execute<StoredSecretRow[]>(
      'select id, deployment_id, name, value_ciphertext, key_fingerprint from secret where id > ? order by id limit ?', [after, BATCH]);
    if (rows.length === 0) return check;
    after = rows.at(-1)!.id;
    check.total += rows.length;
    for (const row of rows) {
      const slot = { deploymentId: row.deployment_id, name: row.name };
      const opening = cipher?.keysThatOpen(row.value_ciphertext, slot) ?? [];
      for (const fingerprint of opening) check.opens.set(fingerprint, check.opens.get(fingerprint)! + 1);
      if (opening.length === 0) check.unreadable.push({ ...slot, keyFingerprint: row.key_fingerprint });
      else if (!opening.includes(cipher!.fingerprint) || row.key_fingerprint !== cipher!.fingerprint) check.notUnderCurrent++;
    }
  }
}
