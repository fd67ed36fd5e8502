// The store behind the `Idempotency-Key` header (the IETF httpapi draft "The Idempotency-Key HTTP Header
// Field"): a write request under a key runs in one transaction that first takes the key's lock and reads its
// record, and ends by storing its answer, so that the answer commits with the write or neither does. A retry
// gets that answer instead of a second write, even when the first request's process died between its commit
// and its reply (keyed-write.ts runs it).
//
// The lock is a transaction-level advisory lock: PostgreSQL releases it when the transaction ends, and when the
// session holding it dies, so a retry of a request whose gateway died learns at once that nothing of it
// happened and runs it, instead of waiting out a lease.
//
// Hand-written SQL on purpose: nothing here may come from (or linger in) an identity map. The database's clock
// judges expiry, so that gateway processes whose clocks differ agree.
//
// Keys are an API key's (in one tenant), and answers are stored sealed: an answer may show secret values,
// which exist at rest nowhere else but sealed, and only to the API key that was shown them.
import type { QueryResult } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import type { SecretCipher, SealedTextContext } from '../secrets/secret-cipher.ts';
import type { StoredAnswer } from './idempotency-record.entity.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.ts';

export type { StoredAnswer } from './idempotency-record.entity.ts';

type EntityManager = TenantSafeEntityManager;

export interface IdempotencyRequest {
  tenantId: string;
  /** The API key that sent the request: keys are each API key's own. */
  apiKeyId: string;
  /** As parseIdempotencyKey returned it. */
  key: string;
  /** fingerprintOf(method, path, body). */
  fingerprint: string;
}

/** What the key's record says of a request under it, once its lock is taken. */
export type KeyState =
  /** No answer under the key: run the write (and record its answer in the same transaction). */
  | { kind: 'free' }
  /** The same request was answered before: send this answer again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request (method, path or body differ): 422. */
  | { kind: 'mismatch' }
  /** Another request under the key is running now (its transaction holds the lock): 409, retry later. */
  | { kind: 'in-progress' }
  /** The write committed, but no configured secrets key opens its stored answer any more: 409, read the resource. */
  | { kind: 'lost' };

export interface IdempotencyStoreOptions {
  /** How long a record is kept and a replay served (default 24 h). */
  retentionMs?: number;
  /** Least time between two deletions of expired records by one store (default 60 s). */
  purgeEveryMs?: number;
  /** Most expired records one deletion removes (default 1000). */
  purgeBatchSize?: number;
}

/** A key the store cannot take (parseIdempotencyKey refuses it too); the door answers 400. */
export class InvalidIdempotencyKeyError extends Error {
  override name = 'InvalidIdempotencyKeyError';
}

interface KeyRecord {
  held: boolean;
  fingerprint: string | null;
  answer_sealed: Buffer | null;
  answer_key_fingerprint: string | null;
  expired: boolean | null;
}

/** The constraint a second record under one key breaks: a request under it committed first. */
export const RECORD_UNIQUE_CONSTRAINT = 'idempotency_record_tenant_id_api_key_id_key_unique';

/** What a record's sealed answer is bound to: a copy on another record (another API key, tenant or key) does not open. */
const answerContext = ({ tenantId, apiKeyId, key }: Pick<IdempotencyRequest, 'tenantId' | 'apiKeyId' | 'key'>): SealedTextContext => ['idempotency_record.answer', tenantId, apiKeyId, key];

/** The advisory lock's name: one per key of an API key in a tenant (64 bits of a hash: a collision only serialises two keys). */
const lockName = ({ tenantId, apiKeyId, key }: IdempotencyRequest) => `idempotency-key/${tenantId}/${apiKeyId}/${key}`;

export class IdempotencyStore {
  readonly #cipher: SecretCipher;
  readonly #retentionMs: number;
  readonly #purgeEveryMs: number;
  readonly #purgeBatchSize: number;
  #lastPurgeAt = -Infinity;

  constructor(cipher: SecretCipher, options: IdempotencyStoreOptions = {}) {
    this.#cipher = cipher;
    this.#retentionMs = options.retentionMs ?? 24 * 60 * 60_000;
    this.#purgeEveryMs = options.purgeEveryMs ?? 60_000;
    this.#purgeBatchSize = options.purgeBatchSize ?? 1000;
  }

  /**
   * Inside the write's transaction, first: takes the key's lock (held to the transaction's end) and reads its
   * record, in one statement. The record is read in the statement's snapshot, which may predate the commit of
   * a request that held the lock a moment before: that request's record then makes `record` fail on the
   * unique key, and the caller runs this again (keyed-write.ts).
   */
  async lock(tx: EntityManager, request: IdempotencyRequest): Promise<KeyState> {
    if (!tx.isInTransaction()) throw new Error('IdempotencyStore.lock belongs inside the write\'s transaction');
    if (request.key.length === 0 || request.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new InvalidIdempotencyKeyError(`An idempotency key has 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
    }
    const { tenantId, apiKeyId, key, fingerprint } = request;
    const [found] = await tx.execute<KeyRecord[]>(
      `select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as held, r.fingerprint, r.answer_sealed, r.answer_key_fingerprint,
              r.created_at < now() - ? * interval '1 millisecond' as expired
         from (select 1) as one
         left join idempotency_record r on r.tenant_id = ? and r.api_key_id = ? and r.key = ?`,
      [lockName(request), this.#retentionMs, tenantId, apiKeyId, key]);
    // The lock held elsewhere with an answer stored: another retry is reading it, and this one reads it too.
    if (!found!.held && (found!.fingerprint === null || found!.expired)) return { kind: 'in-progress' };
    if (found!.fingerprint === null) return { kind: 'free' };
    if (found!.expired) {
      // Kept past its retention: the key is free again (the purge had not come to it yet).
      await tx.execute('delete from idempotency_record where tenant_id = ? and api_key_id = ? and key = ?', [tenantId, apiKeyId, key]);
      return { kind: 'free' };
    }
    if (found!.fingerprint !== fingerprint) return { kind: 'mismatch' };
    const answer = this.#cipher.openText(found!.answer_sealed!, answerContext(request), found!.answer_key_fingerprint ?? '');
    return answer === undefined ? { kind: 'lost' } : { kind: 'replay', answer: JSON.parse(answer) as StoredAnswer };
  }

  /**
   * Inside the same transaction, last: stores the answer to replay, sealed. Throws a unique violation (of
   * RECORD_UNIQUE_CONSTRAINT) when a request under the key committed since `lock` read.
   */
  async record(tx: EntityManager, request: IdempotencyRequest, answer: StoredAnswer): Promise<void> {
    const sealed = this.#cipher.sealText(JSON.stringify(answer), answerContext(request));
    await tx.execute(
      `insert into idempotency_record (id, tenant_id, api_key_id, key, fingerprint, answer_sealed, answer_key_fingerprint, created_at)
       values (?, ?, ?, ?, ?, ?, ?, now())`,
      [randomUUID(), request.tenantId, request.apiKeyId, request.key, request.fingerprint, sealed.valueCiphertext, sealed.keyFingerprint]);
  }

  /**
   * Re-seals the stored answers not under the current secrets key, in batches of its own transaction each
   * (`npm run secrets -- rotate`, after the secrets). An answer no configured key opens is marked so (its key
   * fingerprint emptied): a retry hears that the answer was lost (the write happened). Counts both.
   */
  async resealAnswers(em: EntityManager, batchSize: number): Promise<{ resealed: number; dropped: number }> {
    const done = { resealed: 0, dropped: 0 };
    for (;;) {
      const batch = await em.fork().transactional(async (tx) => {
        const rows = await tx.execute<{ id: string; tenant_id: string; api_key_id: string; key: string; answer_sealed: Buffer; answer_key_fingerprint: string }[]>(
          `select id, tenant_id, api_key_id, key, answer_sealed, answer_key_fingerprint from idempotency_record
            where answer_key_fingerprint not in (?, '')
            order by id limit ? for update`,
          [this.#cipher.fingerprint, batchSize]);
        const resealed = rows.map((row) => {
          const context = answerContext({ tenantId: row.tenant_id, apiKeyId: row.api_key_id, key: row.key });
          const answer = this.#cipher.openText(row.answer_sealed, context, row.answer_key_fingerprint);
          return { id: row.id, sealed: answer === undefined ? null : this.#cipher.sealText(answer, context).valueCiphertext.toString('base64') };
        });
        if (rows.length > 0) {
          await tx.execute(
            `update idempotency_record r set answer_sealed = coalesce(decode(v.sealed, 'base64'), r.answer_sealed),
                    answer_key_fingerprint = case when v.sealed is null then '' else ? end
               from jsonb_to_recordset(?::jsonb) as v(id uuid, sealed text) where r.id = v.id`,
            [this.#cipher.fingerprint, JSON.stringify(resealed)]);
        }
        return resealed;
      });
      if (batch.length === 0) return done;
      for (const row of batch) row.sealed === null ? done.dropped++ : done.resealed++;
    }
  }

  /** Deletes up to purgeBatchSize expired records (of every tenant); the number deleted. */
  async purgeExpired(em: EntityManager): Promise<number> {
    // The outer condition again: a record replaced by a claim since the inner select is no longer expired.
    const result = await em.execute<QueryResult>(
      `delete from idempotency_record
        where id in (select id from idempotency_record where created_at < now() - ? * interval '1 millisecond' limit ?)
          and created_at < now() - ? * interval '1 millisecond'`,
      [this.#retentionMs, this.#purgeBatchSize, this.#retentionMs], 'run');
    return result.affectedRows;
  }

  /**
   * Deletes a bounded batch of expired records once a minute (of this store): called before a keyed write's
   * transaction, so no scheduler runs and no write waits on a big delete.
   */
  async purgeNowAndThen(em: EntityManager): Promise<void> {
    const now = performance.now();
    if (now - this.#lastPurgeAt < this.#purgeEveryMs) return;
    this.#lastPurgeAt = now;
    await this.purgeExpired(em);
  }
}
