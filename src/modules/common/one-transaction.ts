// A write in a transaction of its own, flushed, then what must follow its commit (the caller's reads wait for
// replicas to have it). The listener writes use it; the deployment and data-plane writers have their own copies
// (the deployment writer's also joins a transaction its door opened), which could become this.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface TransactionScope {
  em: EntityManager;
  afterCommit?: () => Promise<void>;
}

export async function inOneTransaction<T>(scope: TransactionScope, write: (tx: EntityManager) => Promise<T>): Promise<T> {
  const result = await scope.em.transactional(async (tx) => {
    const written = await write(tx);
    await tx.flush();
    return written;
  });
  await scope.afterCommit?.();
  return result;
}
