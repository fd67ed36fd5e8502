// The store behind the `Idempotency-Key` header (the IETF httpapi draft "The Idempotency-Key HTTP Header
// Field"), per tenant: a write request claims its key before it runs, marks the claim committed inside its own
// transaction, and stores its answer afterwards, so that a retry gets that answer instead of a second write.
//
// Hand-written SQL on purpose: a claim needs INSERT … ON CONFLICT and conditional UPDATEs whose outcome decides
// which of several concurrent requests may write, and nothing here may come from (or linger in) an identity
// map. The database's clock judges leases and expiry, so that gateway processes whose clocks differ agree.
//
// A claim is identified by the record's id, and a takeover gives the record a new id: whoever held the claim
// before finds its id gone, so its markCommitted fails (and its write rolls back) and its complete/release
// touch nothing. At most one write under a key ever commits.
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

/** A claim this request holds: what markCommitted, complete and release take. */
export interface IdempotencyClaim extends IdempotencyRequest {
  /** The record's id, which changes when another request takes the claim over. */
  id: string;
}

export type ClaimOutcome =
  /** Run the write (a new key, or one whose earlier request was abandoned or expired). */
  | { kind: 'claimed'; record: IdempotencyClaim }
  /** The same request was answered before: send this answer again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request (method, path or body differ): 422. */
  | { kind: 'mismatch' }
  /** The same request is still running (or died less than a lease ago): 409, retry later. */
  | { kind: 'in-progress' }
  /**
   * The write committed but its answer was never stored (its process died), or no configured secrets key
   * opens the stored answer any more: 409, read the resource.
   */
  | { kind: 'lost' };

export interface IdempotencyStoreOptions {
  /** How long a claim that has not committed is protected from takeover (default 60 s). */
  leaseMs?: number;
  /** How long a record is kept and a replay served (default 24 h). */
  retentionMs?: number;
  /** Least time between two deletions of expired records by one store (default 60 s). */
  purgeEveryMs?: number;
  /** Most expired records one deletion removes (default 1000). */
  purgeBatchSize?: number;
}

/** A key claim() cannot take (parseIdempotencyKey refuses it too); the door answers 400. */
export class InvalidIdempotencyKeyError extends Error {
  override name = 'InvalidIdempotencyKeyError';
}

/**
 * The claim is no longer this request's: it ran past the lease and a retry took the key over. Thrown by
 * markCommitted so that the write's transaction rolls back instead of committing a second write.
 */
export class IdempotencyClaimTakenOverError extends Error {
  override name = 'IdempotencyClaimTakenOverError';
}

interface ExistingRecord {
  fingerprint: string;
  committed: boolean;
  answer_sealed: Buffer | null;
  answer_key_fingerprint: string | null;
  lease_expired: boolean;
  expired: boolean;
}

/** Rounds of insert/read/take-over before a claim on a key that keeps changing under it gives up. */
const CLAIM_ROUNDS = 3;

/** What a record's sealed answer is bound to: a copy on another record (another API key, tenant or key) does not open. */
const answerContext = ({ tenantId, apiKeyId, key }: Pick<IdempotencyRequest, 'tenantId' | 'apiKeyId' | 'key'>): SealedTextContext => ['idempotency_record.answer', tenantId, apiKeyId, key];

export class IdempotencyStore {
  readonly #cipher: SecretCipher;
  readonly #leaseMs: number;
  readonly #retentionMs: number;
  readonly #purgeEveryMs: number;
  readonly #purgeBatchSize: number;
  #lastPurgeAt = -Infinity;

  constructor(cipher: SecretCipher, options: IdempotencyStoreOptions = {}) {
    this.#cipher = cipher;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#retentionMs = options.retentionMs ?? 24 * 60 * 60_000;
    this.#purgeEveryMs = options.purgeEveryMs ?? 60_000;
    this.#purgeBatchSize = options.purgeBatchSize ?? 1000;
  }

  /** Claims the key for this request, or says why the request must not run. Outside any transaction. */
  async claim(em: EntityManager, request: IdempotencyRequest): Promise<ClaimOutcome> {
    refuseInTransaction(em, 'claim');
    if (request.key.length === 0 || request.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new InvalidIdempotencyKeyError(`An idempotency key has 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
    }
    await this.#purgeNowAndThen(em);
    const { tenantId, apiKeyId, key, fingerprint } = request;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const id = randomUUID();
      const inserted = await em.execute<{ id: string }[]>(
        `insert into idempotency_record (id, tenant_id, api_key_id, key, fingerprint, claimed_at, committed, created_at)
         values (?, ?, ?, ?, ?, now(), false, now())
         on conflict (tenant_id, api_key_id, key) do nothing returning id`,
        [id, tenantId, apiKeyId, key, fingerprint]);
      if (inserted.length > 0) return { kind: 'claimed', record: { id, ...request } };

      const [existing] = await em.execute<ExistingRecord[]>(
        `select fingerprint, committed, answer_sealed, answer_key_fingerprint,
                claimed_at < now() - ? * interval '1 millisecond' as lease_expired,
                created_at < now() - ? * interval '1 millisecond' as expired
           from idempotency_record where tenant_id = ? and api_key_id = ? and key = ?`,
        [this.#leaseMs, this.#retentionMs, tenantId, apiKeyId, key]);
      if (!existing) continue; // released or purged since the insert: claim it anew
      if (!existing.expired) {
        if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (existing.answer_sealed !== null) {
          const answer = this.#cipher.openText(existing.answer_sealed, answerContext(request), existing.answer_key_fingerprint ?? '');
          return answer === undefined ? { kind: 'lost' } : { kind: 'replay', answer: JSON.parse(answer) as StoredAnswer };
        }
        if (!existing.lease_expired) return { kind: 'in-progress' };
        if (existing.committed) return { kind: 'lost' };
      }
      // Expired, or abandoned before committing: take it over, unless another request did since the read.
      // The same conditions as above, in one statement that locks the row, so only one taker wins.
      const taken = await em.execute<{ id: string }[]>(
        `update idempotency_record
            set id = ?, fingerprint = ?, claimed_at = now(), committed = false, answer_sealed = null, answer_key_fingerprint = null, created_at = now()
          where tenant_id = ? and api_key_id = ? and key = ?
            and (created_at < now() - ? * interval '1 millisecond'
                 or (fingerprint = ? and not committed and answer_sealed is null and claimed_at < now() - ? * interval '1 millisecond'))
          returning id`,
        [id, fingerprint, tenantId, apiKeyId, key, this.#retentionMs, fingerprint, this.#leaseMs]);
      if (taken.length > 0) return { kind: 'claimed', record: { id, ...request } };
    }
    return { kind: 'in-progress' };
  }

  /**
   * Records that the write happened. Call it inside the write's own transaction (with that transaction's
   * EntityManager), so that the mark commits or rolls back with the write; it also locks the record, so no
   * takeover can start until the write's transaction ends. Throws IdempotencyClaimTakenOverError when the claim
   * was taken over: let it roll the write back.
   */
  async markCommitted(em: EntityManager, claim: IdempotencyClaim): Promise<void> {
    if (!em.isInTransaction()) throw new Error('markCommitted belongs inside the write\'s transaction');
    const marked = await em.execute<{ id: string }[]>(
      'update idempotency_record set committed = true where id = ? and tenant_id = ? and not committed returning id',
      [claim.id, claim.tenantId]);
    if (marked.length === 0) {
      throw new IdempotencyClaimTakenOverError(`The claim on idempotency key ${JSON.stringify(claim.key)} was taken over by another request`);
    }
  }

  /** Stores the answer to replay, sealed; false when the claim is no longer this request's (or already answered). */
  async complete(em: EntityManager, claim: IdempotencyClaim, answer: StoredAnswer): Promise<boolean> {
    const sealed = this.#cipher.sealText(JSON.stringify(answer), answerContext(claim));
    const stored = await em.execute<{ id: string }[]>(
      `update idempotency_record set answer_sealed = ?, answer_key_fingerprint = ?
        where id = ? and tenant_id = ? and answer_sealed is null returning id`,
      [sealed.valueCiphertext, sealed.keyFingerprint, claim.id, claim.tenantId]);
    return stored.length > 0;
  }

  /**
   * Gives the key up, so that a retry runs the request again: the write failed, or its answer should not be
   * replayed (a 5xx). Outside the write's transaction (a rolled-back transaction would take the release with
   * it). False when the claim is no longer this request's, or when it committed: a write that happened keeps
   * its key.
   */
  async release(em: EntityManager, claim: IdempotencyClaim): Promise<boolean> {
    refuseInTransaction(em, 'release');
    const deleted = await em.execute<{ id: string }[]>(
      'delete from idempotency_record where id = ? and tenant_id = ? and not committed returning id',
      [claim.id, claim.tenantId]);
    return deleted.length > 0;
  }

  /**
   * Re-seals the stored answers not under the current secrets key, in batches of its own transaction each
   * (`npm run secrets -- rotate`, after the secrets). An answer no configured key opens is dropped: a retry
   * then hears that the answer was lost (or, for a write that did not commit, runs again). Counts both.
   */
  async resealAnswers(em: EntityManager, batchSize: number): Promise<{ resealed: number; dropped: number }> {
    const done = { resealed: 0, dropped: 0 };
    for (;;) {
      const batch = await em.fork().transactional(async (tx) => {
        const rows = await tx.execute<{ id: string; tenant_id: string; api_key_id: string; key: string; answer_sealed: Buffer; answer_key_fingerprint: string | null }[]>(
          `select id, tenant_id, api_key_id, key, answer_sealed, answer_key_fingerprint from idempotency_record
            where answer_sealed is not null and answer_key_fingerprint is distinct from ?
            order by id limit ? for update`,
          [this.#cipher.fingerprint, batchSize]);
        const resealed = rows.map((row) => {
          const context = answerContext({ tenantId: row.tenant_id, apiKeyId: row.api_key_id, key: row.key });
          const answer = this.#cipher.openText(row.answer_sealed, context, row.answer_key_fingerprint ?? '');
          return { id: row.id, sealed: answer === undefined ? null : this.#cipher.sealText(answer, context).valueCiphertext.toString('base64') };
        });
        if (rows.length > 0) {
          await tx.execute(
            `update idempotency_record r set answer_sealed = decode(v.sealed, 'base64'), answer_key_fingerprint = case when v.sealed is null then null else ? end
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

  // Piggybacked on claim, once a minute, a bounded batch: no scheduler to run, no claim waits on a big delete.
  async #purgeNowAndThen(em: EntityManager): Promise<void> {
    const now = performance.now();
    if (now - this.#lastPurgeAt < this.#purgeEveryMs) return;
    this.#lastPurgeAt = now;
    await this.purgeExpired(em);
  }
}

function refuseInTransaction(em: EntityManager, method: string): void {
  // Inside a transaction the claim (or release) would be seen by other requests only at its commit, or never.
  if (em.isInTransaction()) throw new Error(`IdempotencyStore.${method} must run outside a transaction`);
}
