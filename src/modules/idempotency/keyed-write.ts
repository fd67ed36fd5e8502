// A write under an `Idempotency-Key`, on either door (docs/decisions.md#idempotency-keys): one transaction that
// takes the key's lock and reads its record, runs the operation in it, and stores the operation's answer in it
// before it commits. The answer commits with the write or neither does: a retry gets the first answer byte for
// byte even when the first request's process died between its commit and its reply, and a retry of a request
// that died before committing finds the lock released (PostgreSQL ends a dead session's transaction) and runs.
//
// It runs in the operation's turn (run-operation.ts), so a transaction is never held while waiting for one.
import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { ExecutionResult } from 'graphql';
import { sendWithNext } from '../../db/statements-sent-with-next.ts';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { scopeToTenant } from '../common/tenant-scope.ts';
import { RECORD_UNIQUE_CONSTRAINT, type IdempotencyRequest, type IdempotencyStore, type KeyState, type StoredAnswer } from './idempotency-store.ts';

/** What a keyed write needs of the service: the store, and the primary (a lock must be every request's). */
export interface IdempotentWrites {
  store: IdempotencyStore;
  em: () => TenantSafeEntityManager;
}

/** The transaction an operation under a key runs in: its reads and writes, and what waits for its commit. */
export interface OperationTransaction {
  /** The primary, scoped to the key's tenant, in the transaction. */
  em: TenantSafeEntityManager;
  /** Run once the transaction has committed (a caller's later reads wait for replicas to have it). */
  afterCommit: Array<() => Promise<void>>;
}

/** How a door makes its answer of the operation's result, and whether it is kept (a 5xx is not: a retry runs). */
export interface AnswerMaker<A> {
  answerOf(result: ExecutionResult): A | Promise<A>;
  /** The answer as stored, or undefined for one that is not kept (its transaction rolls back). */
  stored(answer: A): StoredAnswer | undefined;
}

/** How a keyed write ended: it ran (with the answer its door made), or the key's record said otherwise. */
export type KeyedOutcome<A> = { kind: 'ran'; answer: A } | Exclude<KeyState, { kind: 'free' }>;

/** What either door says to a request under a key another request holds (its `in-progress`). */
export const KEY_IN_USE = 'A request with this Idempotency-Key is still being processed; retry later.';

/** An operation's result when it did not run: the key answered instead (keyed.outcome says how). */
export const KEY_ANSWERED: ExecutionResult = Object.freeze({ data: null });

/** Thrown out of the transaction to roll it back, with the answer that is sent but not kept. */
class NotKept<A> extends Error {
  readonly answer: A;
  readonly result: ExecutionResult;
  constructor(answer: A, result: ExecutionResult) {
    super('answer not kept');
    this.answer = answer;
    this.result = result;
  }
}

/**
 * Another request's record under the key, met by this one's: as the ORM reports it, or as pg does when the
 * record went with the COMMIT (which the ORM does not translate).
 */
const isRecordClash = (error: unknown): boolean => (error instanceof UniqueConstraintViolationException || (error as { code?: unknown } | null)?.code === '23505')
  && String((error as Error).message).includes(RECORD_UNIQUE_CONSTRAINT);

/** Tries before a key whose record keeps appearing under it is answered as in progress (each try after the first replays). */
const TRIES = 3;

export class KeyedWrite<A> {
  /** Set once run has ended. */
  outcome: KeyedOutcome<A> | undefined;
  readonly #writes: IdempotentWrites;
  readonly #request: IdempotencyRequest;
  readonly #maker: AnswerMaker<A>;

  constructor(writes: IdempotentWrites, request: IdempotencyRequest, maker: AnswerMaker<A>) {
    this.#writes = writes;
    this.#request = request;
    this.#maker = maker;
  }

  /** The key, as the header held it. */
  get key(): string {
    return this.#request.key;
  }

  /**
   * Runs `execute` (the operation, in the transaction it is handed; its result masked) under the key, and
   * returns its result, or KEY_ANSWERED when the key's record answers instead.
   */
  async run(execute: (transaction: OperationTransaction) => Promise<ExecutionResult>): Promise<ExecutionResult> {
    const { store, em } = this.#writes;
    const primary = scopeToTenant(em(), this.#request.tenantId);
    await store.purgeNowAndThen(primary);
    for (let attempt = 1; ; attempt++) {
      const afterCommit: OperationTransaction['afterCommit'] = [];
      // Said only once the transaction has committed: a failed commit keeps nothing, and answers nothing of it.
      let outcome: KeyedOutcome<A> | undefined;
      try {
        const ran = await primary.transactional(async (tx) => {
          const state = await store.lock(tx, this.#request);
          if (state.kind !== 'free') {
            outcome = state;
            return KEY_ANSWERED;
          }
          const result = await execute({ em: tx, afterCommit });
          const answer = await this.#maker.answerOf(result);
          const stored = this.#maker.stored(answer);
          if (stored === undefined) throw new NotKept(answer, result);
          // The record goes with the COMMIT (db/statements-sent-with-next.ts): a clash with another request's surfaces there.
          await sendWithNext(tx, () => store.record(tx, this.#request, stored));
          outcome = { kind: 'ran', answer };
          return result;
        });
        this.outcome = outcome;
        for (const committed of afterCommit) await committed();
        return ran;
      } catch (error) {
        if (error instanceof NotKept) {
          this.outcome = { kind: 'ran', answer: error.answer as A };
          return error.result;
        }
        // A request under the key committed between this one's lock and its record: its answer is the one.
        if (attempt < TRIES && isRecordClash(error)) continue;
        throw error;
      }
    }
  }
}
