// Re-encrypts every stored secret under the current key (`npm run secrets -- rotate`), in batches of its own
// transaction each: a kill at any point loses at most the batch in progress, which rolled back and is found
// again by the next run, because the work left is exactly the rows whose fingerprint is not the current key's.
// A run over a database with nothing left to do changes nothing.
//
// A row that no configured key opens is damaged (the keys were checked before the run: they read every
// recorded key, and the rows written before fingerprints): it cannot be re-encrypted, so it is marked
// unreadable, which keeps no old key in use; re-importing its value repairs it.
import type { AppOrm } from '../../db/orm-config.ts';
import { MARKED_UNREADABLE } from './key-fingerprint.ts';
import type { SecretCipher } from './secret-cipher.ts';
import { announceRotatedBatch } from './rotation-notice.ts';
import { BEFORE_EVERY_ID, type StoredSecretRow } from './stored-keys.ts';

type EntityManager = AppOrm['em'];

export interface UnreadableSecret {
  deploymentId: string;
  name: string;
  keyFingerprint: string | null;
}

export interface RotationProgress {
  rotated: number;
  /** Rows to rotate when the run began (rows written meanwhile under another key are rotated too). */
  total: number;
}

export interface RotationResult extends RotationProgress {
  /** Rows already under the current key when the run began. */
  alreadyCurrent: number;
  /** Rows this run found damaged and marked unreadable. */
  markedUnreadable: UnreadableSecret[];
  /** Rows marked unreadable, by this run or an earlier one. */
  unreadableTotal: number;
}

/** PostgreSQL's deadlock and serialization failures: the batch rolled back and can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

async function countByKey(em: EntityManager, fingerprint: string) {
  const [row] = await em.execute<{ current: string; pending: string; unreadable: string }[]>(
    `select count(*) filter (where key_fingerprint = ?) as current,
            count(*) filter (where key_fingerprint is distinct from ? and key_fingerprint is distinct from ?) as pending,
            count(*) filter (where key_fingerprint = ?) as unreadable
       from secret`,
    [fingerprint, fingerprint, MARKED_UNREADABLE, MARKED_UNREADABLE]);
  return { current: Number(row!.current), pending: Number(row!.pending), unreadable: Number(row!.unreadable) };
}

/** One batch, in one transaction: the rows after `after` still to rotate, locked, rewritten or marked. */
async function rotateBatch(em: EntityManager, cipher: SecretCipher, after: string, batchSize: number) {
  return em.fork().transactional(async (tx) => {
    const rows = await tx.execute<StoredSecretRow[]>(
      `select id, deployment_id, name, value_ciphertext, key_fingerprint from secret
        where key_fingerprint is distinct from ? and key_fingerprint is distinct from ? and id > ?
        order by id limit ? for update`,
      [cipher.fingerprint, MARKED_UNREADABLE, after, batchSize]);
    const rewritten: { id: string; ciphertext: string | null }[] = [];
    const unreadable: UnreadableSecret[] = [];
    for (const row of rows) {
      const slot = { deploymentId: row.deployment_id, name: row.name };
      try {
        const plaintext = cipher.decrypt(row.value_ciphertext, slot, row.key_fingerprint);
        rewritten.push({ id: row.id, ciphertext: cipher.seal(plaintext, slot).valueCiphertext.toString('base64') });
      } catch {
        unreadable.push({ ...slot, keyFingerprint: row.key_fingerprint });
        rewritten.push({ id: row.id, ciphertext: null });
      }
    }
    if (rewritten.length > 0) {
      // One statement for the batch: the new ciphertexts travel as one JSON parameter (null: mark unreadable,
      // keeping the damaged ciphertext as it is).
      await tx.execute(
        `update secret set value_ciphertext = coalesce(decode(v.ciphertext, 'base64'), secret.value_ciphertext),
                           key_fingerprint = case when v.ciphertext is null then ? else ? end
           from jsonb_to_recordset(?::jsonb) as v(id uuid, ciphertext text) where secret.id = v.id`,
        [MARKED_UNREADABLE, cipher.fingerprint, JSON.stringify(rewritten)]);
      await announceRotatedBatch(tx);
    }
    return { last: rows.at(-1)?.id, rotated: rewritten.length - unreadable.length, unreadable };
  });
}

async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt === ATTEMPTS || !RETRYABLE.has(String((error as { code?: unknown }).code))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * Passes over the table in id order until one finds nothing to do: a row written under an old key while a
 * pass was under way (by a process that does not have the new key yet) may sit behind its cursor.
 */
export async function rotateSecrets(
  em: EntityManager, cipher: SecretCipher, options: { batchSize: number; onBatch?: (progress: RotationProgress) => void },
): Promise<RotationResult> {
  const before = await countByKey(em, cipher.fingerprint);
  const result: RotationResult = { rotated: 0, total: before.pending, alreadyCurrent: before.current, markedUnreadable: [], unreadableTotal: 0 };
  for (let changedInPass = true; changedInPass;) {
    changedInPass = false;
    for (let after = BEFORE_EVERY_ID; ;) {
      const batch = await withRetries(() => rotateBatch(em, cipher, after, options.batchSize));
      if (batch.last === undefined) break;
      after = batch.last;
      changedInPass = true;
      result.rotated += batch.rotated;
      result.markedUnreadable.push(...batch.unreadable);
      options.onBatch?.({ rotated: result.rotated, total: result.total });
    }
  }
  result.unreadableTotal = (await countByKey(em, cipher.fingerprint)).unreadable;
  return result;
}
