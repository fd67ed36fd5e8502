// Re-encrypts every stored secret under the current key (`npm run secrets -- rotate`), in batches of its own
// transaction each: a kill at any point loses at most the batch in progress, which rolled back and is found
// again by the next run, because the work left is exactly the rows whose fingerprint is not the current key's.
// A run over a database with nothing left to do changes nothing.
import type { AppOrm } from '../../db/orm-config.ts';
import type { SecretCipher } from './secret-cipher.ts';
import type { StoredSecretRow } from './stored-keys.ts';

type EntityManager = AppOrm['em'];

export interface UnreadableSecret {
  deploymentId: string;
  name: string;
  keyFingerprint: string | null;
}

export interface RotationProgress {
  rotated: number;
  /** Rows not under the current key when the run began. */
  total: number;
}

export interface RotationResult extends RotationProgress {
  /** Rows already under the current key when the run began. */
  alreadyCurrent: number;
  /** Rows no configured key opens: left as they are. */
  unreadable: UnreadableSecret[];
}

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

async function countByKey(em: EntityManager, fingerprint: string): Promise<{ current: number; other: number }> {
  const [row] = await em.execute<{ current: string; other: string }[]>(
    `select count(*) filter (where key_fingerprint = ?) as current, count(*) filter (where key_fingerprint is distinct from ?) as other from secret`,
    [fingerprint, fingerprint]);
  return { current: Number(row!.current), other: Number(row!.other) };
}

/** One batch, in one transaction: the rows after `after` not under the current key, locked, rewritten. */
async function rotateBatch(em: EntityManager, cipher: SecretCipher, after: string, batchSize: number) {
  return em.fork().transactional(async (tx) => {
    const rows = await tx.execute<StoredSecretRow[]>(
      `select id, deployment_id, name, value_ciphertext, key_fingerprint from secret
        where key_fingerprint is distinct from ? and id > ? order by id limit ? for update`,
      [cipher.fingerprint, after, batchSize]);
    const rewritten: { id: string; ciphertext: string }[] = [];
    const unreadable: UnreadableSecret[] = [];
    for (const row of rows) {
      const slot = { deploymentId: row.deployment_id, name: row.name };
      let plaintext: string;
      try {
        plaintext = cipher.decrypt(row.value_ciphertext, slot, row.key_fingerprint);
      } catch {
        unreadable.push({ ...slot, keyFingerprint: row.key_fingerprint });
        continue;
      }
      rewritten.push({ id: row.id, ciphertext: cipher.seal(plaintext, slot).valueCiphertext.toString('base64') });
    }
    if (rewritten.length > 0) {
      // One statement for the batch: the new ciphertexts travel as one JSON parameter.
      await tx.execute(
        `update secret set value_ciphertext = decode(v.ciphertext, 'base64'), key_fingerprint = ?
           from jsonb_to_recordset(?::jsonb) as v(id uuid, ciphertext text) where secret.id = v.id`,
        [cipher.fingerprint, JSON.stringify(rewritten)]);
    }
    return { last: rows.at(-1)?.id, rotated: rewritten.length, unreadable };
  });
}

export async function rotateSecrets(
  em: EntityManager, cipher: SecretCipher, options: { batchSize: number; onBatch?: (progress: RotationProgress) => void },
): Promise<RotationResult> {
  const counts = await countByKey(em, cipher.fingerprint);
  const result: RotationResult = { rotated: 0, total: counts.other, alreadyCurrent: counts.current, unreadable: [] };
  for (let after = FIRST_UUID; ;) {
    const batch = await rotateBatch(em, cipher, after, options.batchSize);
    if (batch.last === undefined) return result;
    after = batch.last;
    result.rotated += batch.rotated;
    result.unreadable.push(...batch.unreadable);
    options.onBatch?.({ rotated: result.rotated, total: result.total });
  }
}
