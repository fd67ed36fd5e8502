// Which deployments' revisions a data plane works on (docs/decisions.md#listeners): a key bound to a listener,
// those of the deployments naming that listener; a key of no listener, those of the deployments on no listener
// of their tenant (none named, or an id the tenant has no listener of: imported before listeners existed).
import { DEPLOYMENT_LISTENER_SQL } from './listener-usage.ts';

/**
 * The SQL condition on a deployment row (alias `d`) that the caller's data plane may work on, and its
 * parameters, in order.
 */
export function workOfListener(listenerId: string | null): { sql: string; params: string[] } {
  if (listenerId !== null) return { sql: `${DEPLOYMENT_LISTENER_SQL} = ?`, params: [listenerId] };
  return {
    sql: `not exists (select 1 from listener l where l.tenant_id = d.tenant_id and l.id::text = ${DEPLOYMENT_LISTENER_SQL})`,
    params: [],
  };
}

/** The condition on a revision row (`alias`): its deployment is the caller's data plane's to work on. */
export function revisionOfListener(listenerId: string | null, alias: string): { sql: string; params: string[] } {
  const work = workOfListener(listenerId);
  return { sql: `exists (select 1 from deployment d where d.id = ${alias}.deployment_id and ${work.sql})`, params: work.params };
}
