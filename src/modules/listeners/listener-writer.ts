// The listener writes (docs/decisions.md#listeners), each one transaction on the primary through the entity.
// A listener that deployments name is locked by their create (deployment-listener.ts), and by these writes
// before they look at its deployments, so a create and a delete or a shrinking PATCH never both succeed.
import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { inOneTransaction as inTransaction } from '../common/one-transaction.ts';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { ListenerSchema, type Listener } from './listener.entity.ts';
import { ListenerComputeIdTaken, ListenerInUse, ListenerNamespacesInUse, ListenerNotFound } from './listener-problems.ts';
import { listenerUsage } from './listener-usage.ts';
import type { ListenerCreateBody, ListenerPatchBody } from './listener-request-schema.ts';

export interface ListenerWriteScope {
  /** The primary's EntityManager, scoped to the caller's tenant. */
  em: EntityManager;
  tenantId: string;
  afterCommit?: () => Promise<void>;
}

/** A listener of the request body (listener-request-schema.ts), as validated. */
export async function createListener(scope: ListenerWriteScope, listener: ListenerCreateBody): Promise<string> {
  try {
    return await inTransaction(scope, async (tx) => {
      const created = tx.create(ListenerSchema, {
        tenant: tx.getReference(TenantSchema, scope.tenantId), computeType: listener.compute_type, computeId: listener.compute_id,
        k8sNamespaces: listener.compute_config.k8s_namespaces ?? null, version: listener.version ?? null,
      } as never) as Listener;
      await tx.flush();
      return created.id;
    });
  } catch (error) {
    // The unique (tenant, compute_id) decides between two creates at once: exactly one commits.
    if (error instanceof UniqueConstraintViolationException) throw new ListenerComputeIdTaken(scope.tenantId, listener.compute_id);
    throw error;
  }
}

/**
 * The changes of the request body, as validated: a `compute_config` replaces the stored one whole (null or
 * absent keeps it); `version` changes when sent (null clears it).
 */
export async function updateListener(scope: ListenerWriteScope, id: string, changes: ListenerPatchBody): Promise<string> {
  return inTransaction(scope, async (tx) => {
    const listener = await lockListener(tx, scope, id);
    if (changes.compute_config != null) {
      const namespaces = changes.compute_config.k8s_namespaces ?? null;
      const kept = new Set(namespaces ?? []);
      const dropped = (await listenerUsage(tx, scope.tenantId, listener.id)).namespaces.filter((namespace) => !kept.has(namespace));
      if (dropped.length > 0) throw new ListenerNamespacesInUse(id, dropped.toSorted());
      listener.k8sNamespaces = namespaces;
    }
    if (changes.version !== undefined) listener.version = changes.version;
    return listener.id;
  });
}

export async function deleteListener(scope: ListenerWriteScope, id: string): Promise<void> {
  await inTransaction(scope, async (tx) => {
    const listener = await lockListener(tx, scope, id);
    const { deployments } = await listenerUsage(tx, scope.tenantId, listener.id);
    if (deployments > 0) throw new ListenerInUse(id, deployments);
    tx.remove(listener);
  });
}

/** The tenant's listener, locked for the rest of the transaction. */
async function lockListener(tx: EntityManager, scope: ListenerWriteScope, id: string): Promise<Listener> {
  const listener = await tx.findOne(ListenerSchema, { tenant: scope.tenantId, id: id.toLowerCase() }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!listener) throw new ListenerNotFound(id);
  return listener;
}
