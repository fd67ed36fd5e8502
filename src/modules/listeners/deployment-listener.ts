// The rules of a deployment on a listener (docs/decisions.md#listeners), called once by the deployment create
// (deployments/writes/deployment-writer.ts). That `listener_id` and `listener_config` belong to external_docker
// only, and that neither changes afterwards, the write rules check already (deployment-rules.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { InvalidValues, valueError, type ValueProblem } from '../deployments/writes/write-problems.ts';

interface ListenerPlacement {
  listener_id?: string | null;
  listener_config?: { k8s_namespace?: string | null } | null;
}

/**
 * Refuses (InvalidValues, 422) a create whose `listener_id` is no listener of the tenant (another tenant's looks
 * unknown), or whose `k8s_namespace` is not one of the listener's namespaces, or is given without a listener.
 * The listener stays locked (FOR SHARE) until the create commits: a delete of it, or a PATCH dropping the
 * namespace, waits and then counts this deployment.
 */
export async function checkDeploymentListener(tx: EntityManager, tenantId: string, config: ListenerPlacement): Promise<void> {
  const listenerId = config.listener_id ?? null;
  const namespace = config.listener_config?.k8s_namespace ?? null;
  const problems: ValueProblem[] = [];
  if (listenerId === null) {
    if (namespace !== null) problems.push(valueError(['source_config', 'listener_config', 'k8s_namespace'], namespace, 'k8s_namespace needs a listener_id'));
  } else {
    const [listener] = await tx.execute<{ k8s_namespaces: string[] | null }[]>(
      'select k8s_namespaces from listener where tenant_id = ? and id = ? for share', [tenantId, listenerId.toLowerCase()],
    );
    if (!listener) {
      problems.push(valueError(['source_config', 'listener_id'], listenerId, `listener ${listenerId} not found`));
    } else {
      const namespaces = listener.k8s_namespaces ?? [];
      if (namespaces.length > 0 && (namespace === null || !namespaces.includes(namespace))) {
        problems.push(valueError(['source_config', 'listener_config', 'k8s_namespace'], namespace,
          `k8s_namespace must be one of the listener's namespaces: ${namespaces.map((n) => `'${n}'`).join(', ')}`));
      } else if (namespaces.length === 0 && namespace !== null) {
        problems.push(valueError(['source_config', 'listener_config', 'k8s_namespace'], namespace, 'the listener lists no k8s_namespaces, so a deployment on it names none'));
      }
    }
  }
  if (problems.length > 0) throw new InvalidValues(problems);
}
