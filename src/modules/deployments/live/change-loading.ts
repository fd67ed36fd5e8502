// How one subscriber's changes are loaded: the changed deployments of a chunk, read with the subscriber's
// filter (the listing's own, so a stream shows exactly what `deployments(filter:)` would list at that moment)
// in one statement on an EntityManager of the subscriber's tenant, with only the columns its selection reads.
// The chunk's events then resolve the Deployment type's own fields with that EntityManager and fresh loaders
// (the subscription's part: deployment-change.graphql.ts).
import type { FilterQuery } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../../db/tenant-safe-entity-manager.ts';
import type { LoadTogether } from '../../common/load-together.ts';
import type { SelectedColumns } from '../../common/selection.ts';
import { scopeToTenant } from '../../common/tenant-scope.ts';
import type { Deployment } from '../deployment.entity.ts';
import { DeploymentSchema } from '../deployment.entity.ts';
import { MATCHES_NOTHING } from '../deployment-filter.ts';
import type { DeploymentReadModel } from '../deployment-read-model.ts';
import type { DeploymentChange, LoadChanges } from './deployment-change-stream.ts';

export interface SubscriberFilter {
  where: FilterQuery<Deployment> | typeof MATCHES_NOTHING;
  /** The deployment ids the filter names; undefined: it names none. */
  ids: readonly string[] | undefined;
  /** The columns the selection of `deployment` reads. */
  columns: SelectedColumns;
}

const togetherWith = (rows: DeploymentReadModel[]): LoadTogether => ({
  deploymentIds: rows.map((row) => row.id),
  integrationIds: rows.flatMap((row) => row.source_config?.integration_id ?? []),
  revisionIds: rows.flatMap((row) => [row.latest_revision_id ?? [], row.active_revision_id ?? []].flat()),
});

/**
 * Called with each chunk's EntityManager and what its events will load (`together`), before they resolve: they
 * resolve with these (executed one after the other, each after the previous one was sent); nothing is cached
 * from one chunk to the next.
 */
export type ResolveChunkWith = (em: TenantSafeEntityManager, together: LoadTogether) => void;

/**
 * The loader of a subscription of the tenant `tenantId`, reading with `subscribedWith` (the primary's: a change
 * is announced by the primary's NOTIFY, which a replica may not have replayed yet).
 */
export function changeLoader(
  subscribedWith: TenantSafeEntityManager, tenantId: string, { where, ids, columns }: SubscriberFilter, resolveWith: ResolveChunkWith,
): LoadChanges {
  // A deleted deployment has no fields left to match: the id is all a filter can still be checked against.
  const hearsDeletionOf = (deploymentId: string) => where !== MATCHES_NOTHING && (ids === undefined || ids.includes(deploymentId));
  return async (changes) => {
    const em = scopeToTenant(subscribedWith, tenantId);
    const changed = changes.filter(([, kind]) => kind !== 'deleted').map(([deploymentId]) => deploymentId);
    const rows = where === MATCHES_NOTHING ? [] : await em.getRepository(DeploymentSchema).findMatchingRows(where, changed, columns);
    resolveWith(em, togetherWith(rows));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return changes.flatMap(([deploymentId, kind]): DeploymentChange[] => {
      if (kind === 'deleted') return hearsDeletionOf(deploymentId) ? [{ kind, deploymentId, deployment: null }] : [];
      const deployment = byId.get(deploymentId);
      // Not matching the filter (or deleted since): not for this subscriber (docs/decisions.md#live-updates).
      return deployment ? [{ kind, deploymentId, deployment }] : [];
    });
  };
}
