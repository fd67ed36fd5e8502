// Which deployments name a listener. A deployment keeps its listener in `source_config.listener_id` (jsonb, as
// the original's record has it), compared in lower case: the writes store what the caller sent.
import type { EntityManager } from '@mikro-orm/postgresql';

/** The SQL that reads a deployment row's (alias `d`) listener id, lower case; null for none. */
export const DEPLOYMENT_LISTENER_SQL = `lower(d.source_config->>'listener_id')`;

export interface ListenerUsage {
  deployments: number;
  /** The namespaces those deployments run in (`listener_config.k8s_namespace`), without nulls. */
  namespaces: string[];
}

/** How the tenant's deployments use the listener (read in the caller's transaction, after its lock on the listener). */
export async function listenerUsage(tx: EntityManager, tenantId: string, listenerId: string): Promise<ListenerUsage> {
  const [row] = await tx.execute<[{ deployments: number; namespaces: string[] | null }]>(
    `select count(*)::int as deployments,
       array_agg(distinct d.source_config->'listener_config'->>'k8s_namespace') filter (where d.source_config->'listener_config'->>'k8s_namespace' is not null) as namespaces
     from deployment d where d.tenant_id = ? and ${DEPLOYMENT_LISTENER_SQL} = ?`,
    [tenantId, listenerId.toLowerCase()],
  );
  return { deployments: row.deployments, namespaces: row.namespaces ?? [] };
}
