// The listener writes (docs/decisions.md#listeners), each one transaction on the primary through the entity.
// A listener that deployments name is locked by their create (deployment-listener.ts), and by these writes
// before they look at its deployments, so a create and a delete or a shrinking PATCH never both succeed.
import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { inOneTransaction as inTransaction } from '../common/one-transaction.ts';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { ListenerSchema, type Listener } from './listener.entity.ts';
import { ListenerComputeIdTaken, ListenerInUse, ListenerNamespacesInUse, ListenerNotFound } from './listener-problems.ts';
import { listenerUsage } from './listener-usage.ts';

export interface ListenerWriteScope {
  /** The primary's EntityManager, scoped to the caller's tenant. */
  em: EntityManager;
  tenantId: string;
  afterCommit?: () => Promise<void>;
}

export interface NewListener {
  computeType: 'k8s';
  computeId: string;
  k8sNamespaces: string[] | null;
  version: string | null;
}

/** What a PATCH sends; an absent key keeps the stored value. */
export interface ListenerChanges {
  version?: string | null;
  k8sNamespaces?: string[] | null;
}

export async function createListener(scope: ListenerWriteScope, listener: NewListener): Promise<string> {
  try {
    return await inTransaction(scope, async (tx) => {
      const created = tx.create(ListenerSchema, {
        tenant: tx.getReference(TenantSchema, scope.tenantId), computeType: listener.computeType, computeId: listener.computeId,
        k8sNamespaces: listener.k8sNamespaces, version: listener.version,
      } as never) as Listener;
      await tx.flush();
      return created.id;
    });
  } catch (error) {
    // The unique (tenant, compute_id) decides between two creates at once: exactly one commits.
    if (error instanceof UniqueConstraintViolationException) throw new ListenerComputeIdTaken(scope.tenantId, listener.computeId);
    throw error;
  }
}

export async function updateListener(scope: ListenerWriteScope, id: string, changes: ListenerChanges): Promise<string> {
  return inTransaction(scope, async (tx) => {
    const listener = await lockListener(tx, scope, id);
    if (changes.k8sNamespaces !== undefined) {
      const kept = new Set(changes.k8sNamespaces ?? []);
      const dropped = (await listenerUsage(tx, scope.tenantId, listener.id)).namespaces.filter((namespace) => !kept.has(namespace));
      if (dropped.length > 0) throw new ListenerNamespacesInUse(id, dropped.toSorted());
      listener.k8sNamespaces = changes.k8sNamespaces;
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
