// The one way a writer runs a write: in a transaction of its own, flushed, then what must follow its commit (the
// caller's reads wait for replicas to have it); or, when its EntityManager is already in a transaction (a write
// under an Idempotency-Key, modules/idempotency/keyed-write.ts, whose door stores the answer and commits), in
// that one. The deployment, data-plane and listener writers all go through it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sendWithNext } from '../../db/statements-sent-with-next.ts';

export interface TransactionScope {
  em: EntityManager;
  afterCommit?: () => Promise<void>;
}

export interface TransactionOptions {
  /**
   * The write's inserts, updates and deletes go with the transaction's next statement (db/statements-sent-with-
   * next.ts): for a write that never reads the row count of one of its own.
   */
  writesWaitForNext?: boolean;
}

/**
 * A write refuses (throws) before any statement that changes a row, so a refusal leaves a transaction it joined
 * as it found it: what the refused write loaded is forgotten, never flushed by a later write of the same request.
 */
export async function inOneTransaction<T>(
  scope: TransactionScope, write: (tx: EntityManager) => Promise<T>, { writesWaitForNext = false }: TransactionOptions = {},
): Promise<T> {
  const flushed = async (tx: EntityManager) => {
    const result = await write(tx);
    await tx.flush();
    return result;
  };
  const run = writesWaitForNext ? (tx: EntityManager) => sendWithNext(tx, () => flushed(tx)) : flushed;
  if (scope.em.isInTransaction()) {
    try {
      return await run(scope.em);
    } catch (error) {
      scope.em.clear();
      throw error;
    }
  }
  const result = await scope.em.transactional(run);
  await scope.afterCommit?.();
  return result;
}
