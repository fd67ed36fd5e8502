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
import type { QueryResult } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import type { StoredAnswer } from './idempotency-record.entity.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.ts';

export type { StoredAnswer } from './idempotency-record.entity.ts';

type EntityManager = TenantSafeEntityManager;

export interface IdempotencyRequest {
  tenantId: string;
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
  /** The write committed but its answer was never stored (its process died): 409, read the resource. */
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
  answer: StoredAnswer | null;
  lease_expired: boolean;
  expired: boolean;
}

/** Rounds of insert/read/take-over before a claim on a key that keeps changing under it gives up. */
const CLAIM_ROUNDS = 3;

export class IdempotencyStore {
  readonly #leaseMs: number;
  readonly #retentionMs: number;
  readonly #purgeEveryMs: number;
  readonly #purgeBatchSize: number;
  #lastPurgeAt = -Infinity;

  constructor(options: IdempotencyStoreOptions = {}) {
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
    const { tenantId, key, fingerprint } = request;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const id = randomUUID();
      const inserted = await em.execute<{ id: string }[]>(
        `insert into idempotency_record (id, tenant_id, key, fingerprint, claimed_at, committed, answer, created_at)
         values (?, ?, ?, ?, now(), false, null, now())
         on conflict (tenant_id, key) do nothing returning id`,
        [id, tenantId, key, fingerprint]);
      if (inserted.length > 0) return { kind: 'claimed', record: { id, tenantId, key, fingerprint } };

      const [existing] = await em.execute<ExistingRecord[]>(
        `select fingerprint, committed, answer,
                claimed_at < now() - ? * interval '1 millisecond' as lease_expired,
                created_at < now() - ? * interval '1 millisecond' as expired
           from idempotency_record where tenant_id = ? and key = ?`,
        [this.#leaseMs, this.#retentionMs, tenantId, key]);
      if (!existing) continue; // released or purged since the insert: claim it anew
      if (!existing.expired) {
        if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (existing.answer !== null) return { kind: 'replay', answer: existing.answer };
        if (!existing.lease_expired) return { kind: 'in-progress' };
        if (existing.committed) return { kind: 'lost' };
      }
      // Expired, or abandoned before committing: take it over, unless another request did since the read.
      // The same conditions as above, in one statement that locks the row, so only one taker wins.
      const taken = await em.execute<{ id: string }[]>(
        `update idempotency_record
            set id = ?, fingerprint = ?, claimed_at = now(), committed = false, answer = null, created_at = now()
          where tenant_id = ? and key = ?
            and (created_at < now() - ? * interval '1 millisecond'
                 or (fingerprint = ? and not committed and answer is null and claimed_at < now() - ? * interval '1 millisecond'))
          returning id`,
        [id, fingerprint, tenantId, key, this.#retentionMs, fingerprint, this.#leaseMs]);
      if (taken.length > 0) return { kind: 'claimed', record: { id, tenantId, key, fingerprint } };
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

  /** Stores the answer to replay; false when the claim is no longer this request's (or already answered). */
  async complete(em: EntityManager, claim: IdempotencyClaim, answer: StoredAnswer): Promise<boolean> {
    const stored = await em.execute<{ id: string }[]>(
      'update idempotency_record set answer = ?::jsonb where id = ? and tenant_id = ? and answer is null returning id',
      [JSON.stringify(answer), claim.id, claim.tenantId]);
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
