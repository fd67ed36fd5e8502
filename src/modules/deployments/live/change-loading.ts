// How one subscriber's changes are loaded: the changed deployments of a chunk, read with the subscriber's
// filter (the listing's own, so a stream shows exactly what `deployments(filter:)` would list at that moment)
// in one statement on an EntityManager of the subscriber's tenant, with only the columns its selection reads.
// The chunk's events then resolve the Deployment type's own fields with that EntityManager and fresh loaders
// (secrets masked without the read-secrets scope, exactly as in queries).
import type { FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLContext } from '../../../graphql/context.ts';
import { RequestLoaders } from '../../../graphql/loaders.ts';
import type { LoadTogether } from '../../../graphql/load-together.ts';
import type { SelectedColumns } from '../../common/selection.ts';
import { scopeToTenant } from '../../common/tenant-scope.ts';
import type { Deployment } from '../deployment.entity.ts';
import { DeploymentSchema } from '../deployment.entity.ts';
import { MATCHES_NOTHING } from '../deployment-filter.ts';
import type { DeploymentRow } from '../deployment-row.ts';
import type { DeploymentChange, LoadChanges } from './deployment-change-stream.ts';

export interface SubscriberFilter {
  where: FilterQuery<Deployment> | typeof MATCHES_NOTHING;
  /** The deployment ids the filter names; undefined: it names none. */
  ids: readonly string[] | undefined;
  /** The columns the selection of `deployment` reads. */
  columns: SelectedColumns;
}

const togetherWith = (rows: DeploymentRow[]): LoadTogether => ({
  deploymentIds: rows.map((row) => row.id),
  integrationIds: rows.flatMap((row) => row.source_config?.integration_id ?? []),
  revisionIds: rows.flatMap((row) => [row.latest_revision_id ?? [], row.active_revision_id ?? []].flat()),
});

/**
 * The loader of a subscription opened with `ctx`. Each chunk gets a context of its own: the subscription's
 * context object is given the chunk's EntityManager and loaders, which its events (executed one after the
 * other, each after the previous one was sent) then resolve with; nothing is cached from one chunk to the next.
 */
export function changeLoader(ctx: GraphQLContext, { where, ids, columns }: SubscriberFilter): LoadChanges {
  const { principal } = ctx;
  // The primary's: a change is announced by the primary's NOTIFY, which a replica may not have replayed yet.
  const subscribedWith = ctx.primaryEm();
  // A deleted deployment has no fields left to match: the id is all a filter can still be checked against.
  const hearsDeletionOf = (deploymentId: string) => where !== MATCHES_NOTHING && (ids === undefined || ids.includes(deploymentId));
  return async (changes) => {
    const em = scopeToTenant(subscribedWith, principal.tenantId);
    const changed = changes.filter(([, kind]) => kind !== 'deleted').map(([deploymentId]) => deploymentId);
    const rows = where === MATCHES_NOTHING ? [] : await em.getRepository(DeploymentSchema).findMatchingRows(where, changed, columns);
    ctx.em = () => em;
    ctx.loaders = new RequestLoaders(ctx.em, principal.mayReadSecrets ? ctx.cipher : null, togetherWith(rows));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return changes.flatMap(([deploymentId, kind]): DeploymentChange[] => {
      if (kind === 'deleted') return hearsDeletionOf(deploymentId) ? [{ kind, deploymentId, deployment: null }] : [];
      const deployment = byId.get(deploymentId);
      // Not matching the filter (or deleted since): not for this subscriber (docs/decisions.md#live-updates).
      return deployment ? [{ kind, deploymentId, deployment }] : [];
    });
  };
}
