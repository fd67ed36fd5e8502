// `subscription { deploymentUpdated(filter:) }`: live changes of the tenant's deployments, served over
// Server-Sent Events (docs/graphql.md#live-updates). The stream comes from the process's change feed
// (deployment-change-feed.ts); each event's deployment is loaded as the subscriber sees it (change-loading.ts).
import { GraphQLError } from 'graphql';
import { builder } from '../../../graphql/builder.ts';
import { RequestLoaders } from '../../../graphql/loaders.ts';
import { selectedColumns } from '../../../graphql/selected-columns.ts';
import { DeploymentRef } from '../deployment.graphql.ts';
import { DeploymentFilterInput, deploymentIdsOfFilter, resolveDeploymentFilter } from '../deployment-filter.graphql.ts';
import { MATCHES_NOTHING } from '../deployment-filter.ts';
import { changeLoader, type SubscriberFilter } from './change-loading.ts';
import type { DeploymentChange, StreamItem } from './deployment-change-stream.ts';
import { liveUpdateErrors } from './live-update-errors.ts';

export const DeploymentChangeKindEnum = builder.enumType('DeploymentChangeKind', {
  description: 'What happened to a deployment.',
  values: {
    CREATED: { value: 'created', description: 'The deployment was created.' },
    UPDATED: {
      value: 'updated',
      description: 'The deployment, or one of its revisions, secrets, secret references or tag links, was changed.',
    },
    DELETED: { value: 'deleted', description: 'The deployment was deleted; `deployment` is null.' },
  } as const,
});

const DeploymentChangeRef = builder.objectRef<DeploymentChange>('DeploymentChange').implement({
  description: 'One change of a deployment, as a live update. Changes that come close together are delivered once, with the deployment as it is after them.',
  fields: (t) => ({
    kind: t.expose('kind', { type: DeploymentChangeKindEnum, description: 'What happened.' }),
    deploymentId: t.expose('deploymentId', { type: 'UUID', description: 'Raw id of the deployment (its `uuid`), also when it was deleted.' }),
    deployment: t.field({
      type: DeploymentRef, nullable: true,
      description: 'The deployment after the change, with everything a query can select of it; null when it was deleted.',
      resolve: (change) => change.deployment,
    }),
  }),
});

builder.subscriptionType({ description: 'Live updates of your tenant, over Server-Sent Events (`Accept: text/event-stream`).' });

builder.subscriptionField('deploymentUpdated', (t) =>
  t.field({
    type: DeploymentChangeRef,
    description: 'Changes of the tenant\'s deployments as they happen: created, updated (also through their revisions, secrets, secret references and tags) and deleted. '
      + 'With a filter, only deployments that match it after the change, as `deployments(filter:)` would list them (a deletion: unless the filter\'s `ids` leave the deployment out). '
      + 'An event with the error code CHANGES_MISSED means some changes were not delivered: fetch the list again; the stream goes on.',
    args: { filter: t.arg({ type: DeploymentFilterInput, description: 'Only deployments matching every field given.' }) },
    subscribe: async (_root, { filter }, ctx, info) => {
      const feed = ctx.deploymentChanges;
      if (!feed) throw liveUpdateErrors.unavailable();
      const where = await resolveDeploymentFilter(filter, ctx);
      const ids = deploymentIdsOfFilter(filter);
      const { principal } = ctx;
      const filterOfSubscriber: SubscriberFilter = { where, ids: ids === MATCHES_NOTHING ? [] : ids, columns: selectedColumns(info, ['deployment']) };
      // Each chunk gets a context of its own: the subscription's context object is given the chunk's
      // EntityManager and fresh loaders (secrets masked without the read-secrets scope, exactly as in queries).
      const load = changeLoader(ctx.primaryEm(), principal.tenantId, filterOfSubscriber, (em, together) => {
        ctx.em = () => em;
        ctx.loaders = new RequestLoaders(ctx.em, ctx.revealer, together);
      });
      return feed.open(principal, load);
    },
    // An error event (changes missed, key revoked) is this field's error; the stream goes on unless it ends.
    resolve: (item: StreamItem) => {
      if (item instanceof GraphQLError) throw item;
      return item;
    },
  }));
